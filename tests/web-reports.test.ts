import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// Issue 5/7 item 4, books out in the web app: the printable annual report (D7 figures in natural
// sign, D6; D12 wording) and the export buttons (D17), in Debian's chromium through
// playwright-core against `ledger serve` on the embedded database (the set-up of web.test.ts).

const ARTIFACTS = path.resolve('test-artifacts/web-reports');
const DOCS = path.resolve('docs/screenshots');
/** The screenshots the README shows; `UPDATE_SCREENSHOTS=1` copies them into docs/screenshots. */
const DOC_SHOTS = ['annual-report', 'annual-report-print'];
const EMAIL = 'treasurer@example.com';
const PASSWORD = 'a treasurer password';

const missing = missingBrowserPrerequisite();
if (missing && !STRICT_BROWSER) console.warn(`web-reports.test.ts skipped: ${missing}`);

const TIME_ZONE = 'Europe/Berlin';
/** The current year where the browser is. */
const THIS_YEAR = Number(new Date().toLocaleDateString('en-CA', { timeZone: TIME_ZONE }).slice(0, 4));
/** The year the report is about (the default one: the book has transactions in it). */
const REPORTED = THIS_YEAR - 1;
/** The year before, shown beside it. */
const EARLIER = THIS_YEAR - 2;

/** The small book: accounts of every kind, transactions in the year before last, last year and this year. */
const ACCOUNTS = [
  ['Bank', 'asset'],
  ['Cash box', 'asset'],
  ['Credit card', 'liability'],
  ['Opening balances', 'equity'],
  ['Salary', 'income'],
  ['Gifts', 'income'],
  ['Rent', 'expense'],
  ['Groceries', 'expense'],
] as const;
type AccountName = (typeof ACCOUNTS)[number][0];
const TRANSACTIONS: { occurred_on: string; description: string; entries: [AccountName, number][] }[] = [
  { occurred_on: `${EARLIER}-01-01`, description: 'Opening the book', entries: [['Bank', 100_000], ['Opening balances', -100_000]] },
  { occurred_on: `${EARLIER}-06-30`, description: 'Summer job', entries: [['Bank', 50_000], ['Salary', -50_000]] },
  { occurred_on: `${REPORTED}-03-31`, description: 'March salary', entries: [['Bank', 300_000], ['Salary', -300_000]] },
  { occurred_on: `${REPORTED}-04-01`, description: 'April rent', entries: [['Bank', -120_000], ['Rent', 120_000]] },
  { occurred_on: `${REPORTED}-05-02`, description: 'Birthday gift', entries: [['Cash box', 15_000], ['Gifts', -15_000]] },
  { occurred_on: `${REPORTED}-12-31`, description: 'New Year groceries', entries: [['Credit card', -8_540], ['Groceries', 8_540]] },
  { occurred_on: `${THIS_YEAR}-01-01`, description: 'January salary', entries: [['Bank', 200_000], ['Salary', -200_000]] },
];

/** The annual report of REPORTED, row by row: [name, REPORTED, EARLIER] (D6 natural sign). */
const personalStatement = [
  ['Account', String(REPORTED), String(EARLIER)],
  ['Income'],
  ['Gifts', '€150.00', '€0.00'],
  ['Salary', '€3,000.00', '€500.00'],
  ['Total', '€3,150.00', '€500.00'],
  ['Spending categories'],
  ['Groceries', '€85.40', '€0.00'],
  ['Rent', '€1,200.00', '€0.00'],
  ['Total', '€1,285.40', '€0.00'],
  ['Result for the year', '€1,864.60', '€500.00'],
];
const personalSheet = [
  ['Account', String(REPORTED), String(EARLIER)],
  ['Accounts (money we have)'],
  ['Bank', '€3,300.00', '€1,500.00'],
  ['Cash box', '€150.00', '€0.00'],
  ['Total', '€3,450.00', '€1,500.00'],
  ['What we owe'],
  ['Credit card', '€85.40', '€0.00'],
  ['Total', '€85.40', '€0.00'],
  ['Starting balances'],
  ['Opening balances', '€1,000.00', '€1,000.00'],
  ['Total', '€1,000.00', '€1,000.00'],
  ['Result to date', '€2,364.60', '€500.00'],
];

describe.skipIf(missing !== null && !STRICT_BROWSER)('annual report and exports in chromium (issue 5/7 item 4, D7, D12, D17)', () => {
  let session: WebSession;
  let page: Page;
  let api: string;

  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  const go = async (link: string, heading: string | RegExp) => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  };
  const openAnnualReport = async () => {
    await go('Reports', 'Reports');
    await page.getByRole('link', { name: 'Annual report', exact: true }).click();
    await page.getByRole('heading', { name: `Annual report ${REPORTED}`, level: 1 }).waitFor();
  };
  /** A table's rows as their cells' texts (header cells included), once its figures are in. */
  const rowsOf = (name: string) =>
    page.getByRole('table', { name, exact: true }).evaluate((table) =>
      Array.from(table.querySelectorAll('tr'), (row) => Array.from(row.querySelectorAll('th, td'), (cell) => cell.textContent!.trim())),
    );
  /** Downloads the file behind a button; returns its suggested name and its text. */
  const downloadFrom = async (button: string) => {
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button, exact: true }).click()]);
    const saved = path.join(ARTIFACTS, file.suggestedFilename());
    await file.saveAs(saved);
    return { name: file.suggestedFilename(), text: readFileSync(saved, 'utf8') };
  };

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    mkdirSync(ARTIFACTS, { recursive: true });
    session = await openWebSession({ prefix: 'ledger-web-reports-', email: EMAIL, password: PASSWORD, timezoneId: TIME_ZONE });
    ({ page, api } = session);

    // The book, posted through the API with the page's own session.
    const posted = await page.evaluate(
      async ({ apiOrigin, accounts, transactions }) => {
        const send = (path: string, body: unknown) =>
          fetch(`${apiOrigin}${path}`, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        const ids: Record<string, number> = {};
        for (const [name, kind] of accounts) ids[name] = ((await (await send('/accounts', { name, kind })).json()) as { id: number }).id;
        const statuses: number[] = [];
        for (const t of transactions) {
          const entries = t.entries.map(([account, amount_cents]) => ({ account_id: ids[account], amount_cents }));
          statuses.push((await send('/transactions', { ...t, entries })).status);
        }
        return { ids, statuses };
      },
      { apiOrigin: api, accounts: ACCOUNTS, transactions: TRANSACTIONS },
    );
    expect(Object.keys(posted.ids)).toHaveLength(ACCOUNTS.length);
    expect(posted.statuses.every((status) => status === 201)).toBe(true);
  }, 180_000);

  afterAll(async () => {
    await session?.close();
    if (process.env.UPDATE_SCREENSHOTS) {
      for (const name of DOC_SHOTS) copyFileSync(path.join(ARTIFACTS, `${name}.png`), path.join(DOCS, `${name}.png`));
    }
  });

  it('the annual report shows last year by default, beside the year before, in natural sign (D6, D7)', async () => {
    await openAnnualReport();
    const year = page.getByRole('combobox', { name: 'Year' });
    expect(await year.inputValue()).toBe(String(REPORTED));
    // The book's years and the current one, newest first.
    expect(await year.locator('option').allTextContents()).toEqual([THIS_YEAR, REPORTED, EARLIER].map(String));
    expect(await page.title()).toBe(`Annual report ${REPORTED} — Ledger`);

    await page.getByRole('heading', { name: 'Money in and out', level: 2 }).waitFor();
    expect(await rowsOf('Money in and out')).toEqual(personalStatement);
    expect(await rowsOf('What we have and owe')).toEqual(personalSheet);
    expect(await page.getByText(/^From .* to .*$/).textContent()).toBe(`From Jan 1, ${REPORTED} to Dec 31, ${REPORTED}`);
    expect(await page.getByText(/^At /).textContent()).toBe(`At Dec 31, ${REPORTED}`);
    // Figures right-aligned.
    const align = await page.getByRole('cell', { name: '3,150.00' }).evaluate((cell) => getComputedStyle(cell).textAlign);
    expect(align).toBe('right');
    await shot('annual-report');

    // Another year: this year's figures alone would be the January salary; the year before last
    // has nothing before it, so it stands alone.
    await year.selectOption(String(EARLIER));
    await page.getByRole('heading', { name: `Annual report ${EARLIER}`, level: 1 }).waitFor();
    await expect.poll(() => rowsOf('Money in and out')).toEqual([
      ['Account', String(EARLIER)],
      ['Income'],
      ['Salary', '€500.00'],
      ['Total', '€500.00'],
      ['Spending categories'],
      ['Total', '€0.00'],
      ['Result for the year', '€500.00'],
    ]);
    await year.selectOption(String(THIS_YEAR));
    await page.getByRole('heading', { name: `Annual report ${THIS_YEAR}`, level: 1 }).waitFor();
    await expect.poll(async () => (await rowsOf('Money in and out')).find((row) => row[0] === 'Salary')).toEqual(['Salary', '€2,000.00', '€3,000.00']);
    await year.selectOption(String(REPORTED));
    await expect.poll(() => rowsOf('Money in and out')).toEqual(personalStatement);

    // The Print button opens the browser's print dialog.
    await page.evaluate(() => {
      window.print = () => document.body.setAttribute('data-printed', 'yes');
    });
    await page.getByRole('button', { name: 'Print' }).click();
    expect(await page.locator('body').getAttribute('data-printed')).toBe('yes');
  });

  it('in club wording (D12) the same figures print to PDF without the navigation or the buttons', async () => {
    await go('Settings', 'Settings');
    await page.getByRole('radio', { name: 'Club (an association)' }).check();
    await openAnnualReport();
    await page.getByRole('heading', { name: 'Income and expenditure', level: 2 }).waitFor();
    await page.getByRole('heading', { name: 'Statement of funds', level: 2 }).waitFor();
    const clubStatement = personalStatement.map((row) =>
      row[0] === 'Income' ? ['Income (dues, donations, events)'] : row[0] === 'Spending categories' ? ['Payments (venue, kit, events)'] : row,
    );
    expect(await rowsOf('Income and expenditure')).toEqual(clubStatement);
    const clubGroups = (await rowsOf('Statement of funds')).filter((row) => row.length === 1).map((row) => row[0]);
    expect(clubGroups).toEqual(['Funds (bank, cash box)', 'What the club owes', 'Reserves']);
    expect(await page.getByRole('heading', { name: 'Money in and out' }).count()).toBe(0);

    const pdf = await page.pdf({ format: 'A4', printBackground: false });
    writeFileSync(path.join(ARTIFACTS, 'annual-report.pdf'), pdf);
    const document = await getDocumentProxy(new Uint8Array(pdf));
    const { text: pages } = await extractText(document, { mergePages: false });
    const text = pages.join('\n');
    // No statement is cut across two sheets of paper: each one's heading and last line share a page.
    expect(pages.length).toBeLessThanOrEqual(2);
    for (const [heading, last] of [
      ['Income and expenditure', 'Result for the year'],
      ['Statement of funds', 'Result to date'],
    ] as const) {
      expect(pages.findIndex((sheet) => sheet.includes(heading)), heading).toBe(pages.findIndex((sheet) => sheet.includes(last)));
    }
    for (const words of [
      `Annual report ${REPORTED}`,
      'Income and expenditure',
      'Statement of funds',
      'Income (dues, donations, events)',
      'Payments (venue, kit, events)',
      'Funds (bank, cash box)',
      'What the club owes',
      'Reserves',
      'Salary',
      'Groceries',
      'Opening balances',
      // Issue 25 item 3 (D20): the printed report shows money in the book's currency too.
      '€3,150.00',
      '1,285.40',
      '1,864.60',
      '3,450.00',
      '2,364.60',
    ]) {
      expect(text, `the PDF shows ${words}`).toContain(words);
    }
    for (const words of ['Sign out', 'Transactions', 'Accounts', 'Settings', 'History', 'Print', 'Year']) {
      expect(text, `the PDF leaves out ${words}`).not.toContain(words);
    }

    // What the printed page looks like, for the README.
    await page.emulateMedia({ media: 'print' });
    await shot('annual-report-print');
    await page.emulateMedia({ media: null });

    await go('Settings', 'Settings');
    await page.getByRole('radio', { name: 'Personal (a household)' }).check();
  });

  it('D17: "Download CSV" on the Transactions page saves the export of the dates shown', async () => {
    await go('Transactions', 'Transactions');
    const whole = await downloadFrom('Download CSV');
    expect(whole.name).toMatch(/\.csv$/);
    const lines = whole.text.trimEnd().split(/\r?\n/);
    expect(lines[0]).toBe('transaction_id,occurred_on,description,account_id,account_name,account_kind,amount');
    expect(lines).toHaveLength(1 + TRANSACTIONS.length * 2);

    await page.getByRole('search').getByLabel('From').fill(`${REPORTED}-01-01`);
    await page.getByRole('search').getByLabel('To').fill(`${REPORTED}-12-31`);
    await page.getByText(`The transactions from Jan 1, ${REPORTED} to Dec 31, ${REPORTED}, as a file:`).waitFor();
    const year = await downloadFrom('Download CSV');
    const rows = year.text.trimEnd().split(/\r?\n/).slice(1);
    expect(rows).toHaveLength(8);
    expect(year.text).toContain('Birthday gift');
    expect(year.text).not.toContain('January salary');
  });

  it('D17: the Reports page downloads the hledger journal and the Beancount file of its period; a failure is explained', async () => {
    await go('Reports', 'Reports');
    await page.getByRole('radio', { name: 'Custom' }).check();
    await page.getByLabel('From').fill(`${REPORTED}-01-01`);
    await page.getByLabel('To', { exact: true }).fill(`${REPORTED}-12-31`);
    const journal = await downloadFrom('Download hledger journal');
    expect(journal.name).toMatch(/\.journal$/);
    expect(journal.text).toContain('March salary');
    expect(journal.text).toMatch(/income:Salary/i);
    expect(journal.text).not.toContain('January salary');
    const beancount = await downloadFrom('Download Beancount');
    expect(beancount.name).toMatch(/\.beancount$/);
    expect(beancount.text).toContain('Income:Salary');
    expect(beancount.text).toContain('Birthday gift');

    // An export the API refuses: its message, next to the buttons.
    await page.route(`${api}/export/**`, (route) =>
      route.fulfill({
        status: 500,
        contentType: 'application/json',
        headers: { 'access-control-allow-origin': session.web, 'access-control-allow-credentials': 'true' },
        body: JSON.stringify({ error: 'internal error' }),
      }),
    );
    await page.getByRole('button', { name: 'Download CSV', exact: true }).click();
    const alert = page.getByRole('region', { name: 'Download' }).getByRole('alert');
    await expect.poll(() => alert.textContent()).toBe('Download CSV failed: internal error');
    await page.unroute(`${api}/export/**`);
  });

  it('the annual report fits a phone-width screen (390 px) without sideways scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await openAnnualReport();
    await page.getByRole('table', { name: 'Money in and out' }).getByRole('cell', { name: '3,150.00' }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot('phone-annual-report');
    await page.setViewportSize({ width: 1100, height: 900 });
  });

  it('ran without server faults or Content-Security-Policy violations', () => {
    expect(session.faults, 'server faults during the browser session').toEqual([]);
    expect(session.violations, 'CSP violations').toEqual([]);
  });
});
