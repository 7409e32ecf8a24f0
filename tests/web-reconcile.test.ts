import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { message, missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// D20 in the web app (issue 24, items 4-6), in chromium against `ledger serve` on the embedded
// database, as a club treasurer (D12): the bank reconciled through a date on the Reconcile page
// (the running difference in money, Finish only at zero, the ticked transactions sent), the
// register's "Reconciled through …" and ✓, a reconciled transaction's amount refused before
// sending (D19's money in the message), the reconciliation undone, the year closed from the annual
// report and a receipt dated in it refused before sending, reopened in Settings; History in words;
// the book's currency on every page, and in a German browser as German money. At 1,100 and 390 px.

const ARTIFACTS = path.resolve('test-artifacts/web-reconcile');
const DOCS = path.resolve('docs/screenshots');
const EMAIL = 'treasurer@example.com';
const PASSWORD = 'a treasurer password';

const missing = missingBrowserPrerequisite();
if (missing && !STRICT_BROWSER) console.warn(`web-reconcile.test.ts skipped: ${missing}`);

const YEAR = new Date().getFullYear();
const LAST_YEAR = YEAR - 1;
/** A date as the web app shows it in an English browser (formatDate: medium, en-US). */
const shown = (isoDate: string) => new Date(`${isoDate}T00:00:00Z`).toLocaleDateString('en-US', { timeZone: 'UTC', dateStyle: 'medium' });
const STATEMENT_DATE = `${YEAR}-01-31`;

describe.skipIf(missing !== null && !STRICT_BROWSER)('reconciliation, closed books and the currency in chromium (D20, D12, D19)', () => {
  let s: WebSession;
  let page: Page;
  const ids: Record<string, number> = {};
  const tx: Record<string, number> = {};
  /** The writes (not GETs, not CORS preflights) the page sent to the API, as "METHOD /path". */
  const writes: string[] = [];
  const call = (method: string, url: string, body?: unknown) => s.call(method, url, body);
  const go = (link: string, heading: string) => s.go(link, heading);
  /** The bodies of the reconciliations the page posted. */
  const posted: { transaction_ids: number[]; statement_balance_cents: number; statement_date: string }[] = [];

  /** Accepts the next window.confirm and answers its question. */
  const acceptNext = () =>
    new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve(dialog.message());
        void dialog.accept();
      }),
    );
  const difference = async () => (await page.locator('.reconcile-sums output').textContent())?.replace(/\s/g, ' ');
  const finish = () => page.getByRole('button', { name: 'Finish', exact: true });
  const ticks = () => page.getByRole('table', { name: /^Not yet reconciled/ }).getByRole('checkbox');
  const registerRow = (description: string) =>
    page.getByRole('table', { name: 'Account register' }).getByRole('row').filter({ has: page.getByRole('link', { name: description, exact: true }) });
  const noSideways = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    mkdirSync(ARTIFACTS, { recursive: true });
    s = await openWebSession({ prefix: 'ledger-web-reconcile-', email: EMAIL, password: PASSWORD });
    page = s.page;
    page.on('request', (request) => {
      if (!request.url().startsWith(s.api) || ['GET', 'OPTIONS', 'HEAD'].includes(request.method())) return;
      writes.push(`${request.method()} ${new URL(request.url()).pathname}`);
      if (request.url().endsWith('/reconciliations')) posted.push(request.postDataJSON());
    });
    expect((await call('PUT', '/settings', { book_style: 'club' })).status).toBe(200);
    for (const [name, kind] of [['Bank', 'asset'], ['Card', 'liability'], ['Reserves', 'equity'], ['Dues', 'income'], ['Venue', 'expense']] as const) {
      ids[name] = (await s.post('/accounts', { name, kind })).body.id;
    }
    for (const [on, description, from, to, cents] of [
      [`${LAST_YEAR}-12-01`, 'Opening funds', 'Reserves', 'Bank', 200_000],
      [`${YEAR}-01-10`, 'Dues Anna Schmidt', 'Dues', 'Bank', 6_000],
      [`${YEAR}-01-20`, 'Sports hall January', 'Bank', 'Venue', 12_000],
      [`${YEAR}-01-28`, 'Kit order', 'Card', 'Venue', 4_550],
      [`${YEAR}-02-05`, 'Dues Sam', 'Dues', 'Bank', 3_000],
    ] as const) {
      const entries = [{ account_id: ids[to], amount_cents: cents }, { account_id: ids[from], amount_cents: -cents }];
      const made = await s.post('/transactions', { occurred_on: on, description, entries });
      expect(made.status).toBe(201);
      tx[description] = made.body.id;
    }
    // The book style and currency are read once signed in: start afresh.
    await page.reload();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
  }, 180_000);

  afterAll(async () => {
    await s?.close();
    if (process.env.UPDATE_SCREENSHOTS) copyFileSync(path.join(ARTIFACTS, 'reconcile.png'), path.join(DOCS, 'reconcile.png'));
  });

  it('D20: the bank is reconciled through a date on its Reconcile page: the difference in money, Finish only at zero, the ticked ones sent', async () => {
    await go('Accounts', 'Accounts');
    // Only bank, cash and card accounts have a statement.
    expect(await page.getByRole('link', { name: /^Reconcile / }).allTextContents()).toEqual(['Reconcile Bank', 'Reconcile Card']);
    await page.getByRole('link', { name: 'Reconcile Bank', exact: true }).click();
    await page.getByRole('heading', { name: 'Reconcile Bank', level: 1 }).waitFor();
    await page.getByText('Bank has not been reconciled yet: the starting balance is €0.00.').waitFor();

    await page.getByLabel('Statement date').fill(STATEMENT_DATE);
    await page.getByRole('heading', { name: `Not yet reconciled, up to ${shown(STATEMENT_DATE)}` }).waitFor();
    // Every unreconciled transaction up to the date, oldest first, each ticked; none after it.
    await expect.poll(async () => (await ticks().evaluateAll((boxes) => boxes.map((b) => [b.parentElement!.textContent, (b as HTMLInputElement).checked])))).toEqual([
      ['Opening funds', true],
      ['Dues Anna Schmidt', true],
      ['Sports hall January', true],
    ]);
    expect(await page.locator('.reconcile-sums output').count()).toBe(0);
    expect(await finish().isDisabled()).toBe(true);

    // D12: a club's words for what the statement says; D19: typed as money.
    const balance = page.getByLabel('What the statement says the club has');
    await balance.fill('1,880.00');
    await expect.poll(difference).toBe('Difference: -€60.00');
    expect(await finish().isDisabled()).toBe(true);
    // Dues Anna Schmidt reached the bank after the statement: untick it.
    await page.getByRole('checkbox', { name: 'Dues Anna Schmidt' }).uncheck();
    await expect.poll(difference).toBe('Difference: €0.00 ✓');
    expect(await finish().isDisabled()).toBe(false);
    await page.getByRole('checkbox', { name: 'Sports hall January' }).uncheck();
    await expect.poll(difference).toBe('Difference: -€120.00');
    expect(await finish().isDisabled()).toBe(true);
    await page.getByRole('checkbox', { name: 'Sports hall January' }).check();
    await expect.poll(difference).toBe('Difference: €0.00 ✓');
    // The whole page in view: the difference is kept at the bottom of the window while ticking.
    await page.setViewportSize({ width: 1100, height: 1000 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'reconcile.png'), fullPage: true });
    await page.setViewportSize({ width: 1100, height: 900 });

    await finish().click();
    await page.getByRole('status').filter({ hasText: `Reconciled Bank through ${shown(STATEMENT_DATE)} at €1,880.00.` }).waitFor();
    expect(posted).toEqual([
      { statement_date: STATEMENT_DATE, statement_balance_cents: 188_000, transaction_ids: [tx['Opening funds'], tx['Sports hall January']] },
    ]);
    // What is left: the one not on the statement.
    await expect.poll(async () => (await ticks().evaluateAll((boxes) => boxes.map((b) => b.parentElement!.textContent)))).toEqual(['Dues Anna Schmidt']);
    await page.getByText(`Reconciled through ${shown(STATEMENT_DATE)}: €1,880.00.`).waitFor();
  });

  it('D20: the register says "Reconciled through …" and marks each reconciled line ✓', async () => {
    await page.getByRole('link', { name: 'Register of Bank' }).click();
    await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();
    await page.getByText(`Reconciled through ${shown(STATEMENT_DATE)}: €1,880.00.`).waitFor();
    await registerRow('Dues Sam').waitFor();
    const marked = async (description: string) => (await registerRow(description).locator('.reconciled').count()) === 1;
    expect(await marked('Sports hall January')).toBe(true);
    expect(await marked('Dues Anna Schmidt')).toBe(false);
    expect(await marked('Dues Sam')).toBe(false);
    expect(await registerRow('Sports hall January').locator('td').nth(1).textContent()).toBe('Sports hall January ✓ reconciled');
  });

  it('D20: a reconciled transaction keeps its amount and cannot be deleted (explained, not sent); its description may change', async () => {
    await registerRow('Sports hall January').getByRole('link', { name: 'Sports hall January' }).click();
    const form = page.getByRole('form', { name: 'Edit transaction' });
    await form.waitFor();
    await form.getByText('Reconciled: only the description can be changed').waitFor();
    // Issue 25 item 5: a payment edits in the words it was recorded in, one amount from Bank to Venue.
    expect(await form.getByRole('radio', { name: 'Record a payment' }).isChecked()).toBe(true);
    await form.getByLabel('Amount', { exact: true }).fill('125');
    const before = writes.length;
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form
      .getByRole('alert')
      .filter({ hasText: '“Sports hall January” is reconciled: it agrees with a bank statement, so its date, amounts and accounts cannot be changed' })
      .waitFor();
    expect(writes.slice(before)).toEqual([]);

    // The list marks it, and its Delete is explained without asking or sending.
    const row = page.getByRole('table', { name: 'Recorded transactions' }).getByRole('row').filter({ hasText: 'Sports hall January' });
    expect(await row.locator('td').first().textContent()).toBe(shown(`${YEAR}-01-20`));
    expect(await row.locator('td').nth(1).textContent()).toBe('Sports hall January ✓ reconciled');
    expect(
      await page.getByRole('table', { name: 'Recorded transactions' }).getByRole('row').filter({ hasText: 'Dues Anna Schmidt' }).locator('td').nth(1).textContent(),
    ).toBe('Dues Anna Schmidt');
    await row.getByRole('button', { name: 'Delete Sports hall January' }).click();
    await page.getByRole('alert').filter({ hasText: '“Sports hall January” is reconciled: it agrees with a bank statement, so it cannot be deleted.' }).waitFor();
    expect(writes.slice(before)).toEqual([]);

    // The description alone: sent and saved.
    await form.getByLabel('Amount', { exact: true }).fill('120.00');
    await form.getByLabel('Description').fill('Sports hall rent January');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.waitFor({ state: 'detached' });
    expect(writes.slice(before)).toEqual([`PUT /transactions/${tx['Sports hall January']}`]);
    expect((await call('GET', `/transactions/${tx['Sports hall January']}`)).body.description).toBe('Sports hall rent January');
  });

  it('D20: the last reconciliation is undone from the register after asking; History says who did what, in money', async () => {
    await go('Accounts', 'Accounts');
    await page.getByRole('link', { name: 'Register of Bank' }).click();
    await page.getByText(`Reconciled through ${shown(STATEMENT_DATE)}: €1,880.00.`).waitFor();
    const asked = acceptNext();
    await page.getByRole('button', { name: 'Undo the last reconciliation' }).click();
    expect(await asked).toMatch(new RegExp(`^Undo the reconciliation of Bank through ${shown(STATEMENT_DATE)} at €1,880\\.00\\?`));
    await page.getByRole('status').filter({ hasText: `Undid the reconciliation of Bank through ${shown(STATEMENT_DATE)} at €1,880.00.` }).waitFor();
    await page.getByText('Not reconciled yet.').waitFor();
    await expect.poll(() => registerRow('Sports hall rent January').locator('.reconciled').count()).toBe(0);
    expect((await call('GET', `/accounts/${ids.Bank}/reconciliations`)).body).toEqual([]);

    await go('History', 'History');
    const history = page.locator('ol.history > li');
    await history.first().waitFor();
    const records = await history.allTextContents();
    expect(records[0]).toMatch(new RegExp(`^You undid the reconciliation of Bank through ${shown(STATEMENT_DATE)} at €1,880\\.00 on .*, from the web app\\.$`));
    expect(records).toContainEqual(expect.stringMatching(new RegExp(`^You reconciled Bank through ${shown(STATEMENT_DATE)} at €1,880\\.00 on `)));
  });

  it('D20: the year is closed from its annual report after asking; a receipt dated in it is explained and not sent; reopened in Settings', async () => {
    await go('Reports', 'Reports');
    await page.getByRole('link', { name: 'Annual report' }).click();
    await page.getByRole('heading', { name: `Annual report ${LAST_YEAR}`, level: 1 }).waitFor();
    const asked = acceptNext();
    await page.getByRole('button', { name: `Close ${LAST_YEAR}` }).click();
    expect(await asked).toMatch(new RegExp(`^Close ${LAST_YEAR}\\? Nothing dated on or before ${shown(`${LAST_YEAR}-12-31`)}`));
    await page.getByRole('status').filter({ hasText: `${LAST_YEAR} is closed: the books are closed through ${shown(`${LAST_YEAR}-12-31`)}.` }).waitFor();
    expect((await call('GET', '/settings')).body.closed_through).toBe(`${LAST_YEAR}-12-31`);

    await go('Transactions', 'Transactions');
    const form = page.locator('form.record');
    await page.getByRole('radio', { name: 'Record income' }).check();
    await form.getByLabel('Date').fill(`${LAST_YEAR}-12-20`);
    const why = `The books are closed through ${shown(`${LAST_YEAR}-12-31`)}: a transaction dated ${shown(`${LAST_YEAR}-12-20`)} cannot be recorded.`;
    // Said as soon as the date is in the closed year, before anything is sent.
    await form.locator('.warning').filter({ hasText: why }).waitFor();
    await form.getByLabel('Description').fill('Late dues');
    await form.getByLabel('Amount', { exact: true }).fill('30');
    await form.getByLabel('Into').selectOption({ label: 'Bank' });
    await form.getByLabel(/^From/).selectOption({ label: 'Dues' });
    const before = writes.length;
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await form.getByRole('alert').filter({ hasText: why }).waitFor();
    expect(writes.slice(before)).toEqual([]);
    // The same receipt in the open year is sent.
    await form.getByLabel('Date').fill(`${YEAR}-01-02`);
    await expect.poll(() => form.locator('.warning').count()).toBe(0);
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await form.getByRole('status').filter({ hasText: 'Saved “Late dues”' }).waitFor();
    expect(writes.slice(before)).toEqual(['POST /transactions']);

    // A transaction dated in the closed year is neither changed nor deleted: explained, not sent.
    const closedWhy = (action: string) =>
      `The books are closed through ${shown(`${LAST_YEAR}-12-31`)}: a transaction dated ${shown(`${LAST_YEAR}-12-01`)} cannot be ${action}.`;
    await page.getByRole('button', { name: 'Edit Opening funds' }).click();
    const edit = page.getByRole('form', { name: 'Edit transaction' });
    await edit.locator('.warning').filter({ hasText: closedWhy('changed') }).waitFor();
    await edit.getByLabel('Description').fill('Opening funds, renamed');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await edit.getByRole('alert').filter({ hasText: closedWhy('changed') }).waitFor();
    await edit.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Delete Opening funds' }).click();
    await page.getByRole('alert').filter({ hasText: closedWhy('deleted') }).waitFor();
    expect(writes.slice(before)).toEqual(['POST /transactions']);

    await go('Settings', 'Settings');
    expect(await page.getByLabel('Books closed through').inputValue()).toBe(`${LAST_YEAR}-12-31`);
    const reopening = acceptNext();
    await page.getByRole('button', { name: 'Reopen' }).click();
    expect(await reopening).toMatch(/^Reopen the books closed through /);
    await page.getByRole('status').filter({ hasText: 'The books are open again.' }).waitFor();
    expect((await call('GET', '/settings')).body.closed_through).toBeNull();

    await go('History', 'History');
    // History loads the records with the schedules (D21): read the list once it is drawn.
    await page.locator('ol.history > li').first().waitFor();
    const records = await page.locator('ol.history > li').allTextContents();
    expect(records[0]).toMatch(new RegExp(`^You reopened the books \\(closed through ${shown(`${LAST_YEAR}-12-31`)}\\) on `));
    expect(records).toContainEqual(expect.stringMatching(new RegExp(`^You closed the books through ${shown(`${LAST_YEAR}-12-31`)} on `)));
  });

  it('D20 at 390 px: the card is reconciled in what the club owes, the page never scrolls sideways', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await go('Accounts', 'Accounts');
      await page.getByRole('link', { name: 'Reconcile Card', exact: true }).click();
      await page.getByRole('heading', { name: 'Reconcile Card', level: 1 }).waitFor();
      await page.getByLabel('Statement date').fill(STATEMENT_DATE);
      // A card's debt in its natural sign (D6): the 45.50 owed is a plus.
      await page.getByLabel('What the statement says the club owes').fill('45.5');
      await expect.poll(difference).toBe('Difference: €0.00 ✓');
      expect(await noSideways()).toBe(true);
      await page.getByLabel('What the statement says the club owes').fill('40');
      await expect.poll(difference).toBe('Difference: -€5.50');
      expect(await finish().isDisabled()).toBe(true);
      await page.getByLabel('What the statement says the club owes').fill('45.50');
      await finish().click();
      await page.getByRole('status').filter({ hasText: `Reconciled Card through ${shown(STATEMENT_DATE)} at €45.50.` }).waitFor();
      expect(posted.at(-1)).toEqual({ statement_date: STATEMENT_DATE, statement_balance_cents: 4_550, transaction_ids: [tx['Kit order']] });
      await page.getByRole('link', { name: 'See it in the register' }).click();
      await page.getByText(`Reconciled through ${shown(STATEMENT_DATE)}: €45.50.`).waitFor();
      await expect.poll(() => registerRow('Kit order').locator('.reconciled').count()).toBe(1);
      expect(await noSideways()).toBe(true);
    } finally {
      await page.setViewportSize({ width: 1100, height: 900 });
    }
  });

  it('D20: the currency chosen in Settings is the money of every page (Home, the register)', async () => {
    await go('Ledger', 'Home');
    const home = page.getByRole('region', { name: 'Funds (bank, cash box)' });
    await expect.poll(() => home.getByRole('cell').first().textContent()).toMatch(/^€[\d,]+\.\d\d$/);

    await go('Settings', 'Settings');
    const currency = page.getByLabel('Currency of the book');
    expect(await currency.inputValue()).toBe('EUR');
    const offered = await currency.locator('option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
    // ISO 4217 codes with two decimals only: no yen (none), no dinar (three).
    expect(offered).toEqual(expect.arrayContaining(['EUR', 'USD', 'GBP', 'CHF']));
    expect(offered).not.toContain('JPY');
    expect(offered).not.toContain('KWD');
    await currency.selectOption('USD');
    await expect.poll(async () => (await call('GET', '/settings')).body.currency).toBe('USD');
    await page.getByText('Money shows in it everywhere, like $1,234.56').waitFor();

    await go('Ledger', 'Home');
    await expect.poll(() => home.getByRole('cell').first().textContent()).toMatch(/^\$[\d,]+\.\d\d$/);
    expect(await page.locator('main').textContent()).not.toContain('€');
    await page.goto(`${s.web}/reports?account=${ids.Bank}`);
    await expect.poll(() => registerRow('Dues Sam').locator('td').nth(2).textContent()).toBe('$30.00');
    expect(await page.locator('main').textContent()).not.toContain('€');
  });

  it('D20: a reconciled transaction opened by its link alone (not on the list\'s first page) is still explained before sending', async () => {
    // The card was reconciled through January at phone width: Kit order is reconciled.
    const card = (await call('GET', `/accounts/${ids.Card}/reconciliation`)).body;
    expect(card.last.transaction_ids).toContain(tx['Kit order']);
    // Sixty newer transactions push it off the first page of 50.
    for (let i = 0; i < 60; i++) {
      const day = String(1 + (i % 28)).padStart(2, '0');
      const entries = [{ account_id: ids.Bank, amount_cents: 100 + i }, { account_id: ids.Dues, amount_cents: -(100 + i) }];
      expect((await s.post('/transactions', { occurred_on: `${YEAR}-03-${day}`, description: `Dues ${i}`, entries })).status).toBe(201);
    }
    await page.goto(`${s.web}/transactions?edit=${tx['Kit order']}`);
    const form = page.getByRole('form', { name: 'Edit transaction' });
    await form.getByText('Reconciled: only the description can be changed').waitFor();
    expect(await page.getByRole('table', { name: 'Recorded transactions' }).getByRole('row').filter({ hasText: 'Kit order' }).count()).toBe(0);
    const before = writes.length;
    await form.getByLabel('Amount', { exact: true }).fill('46');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.getByRole('alert').filter({ hasText: '“Kit order” is reconciled' }).waitFor();
    expect(writes.slice(before)).toEqual([]);
  });

  it('ran without server faults or Content-Security-Policy violations', () => {
    expect(s.faults).toEqual([]);
    expect(s.violations).toEqual([]);
  });
});

describe.skipIf(missing !== null && !STRICT_BROWSER)('the book’s currency in a German browser (D20)', () => {
  let s: WebSession;

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    s = await openWebSession({ prefix: 'ledger-web-reconcile-de-', email: 'kassenwart@example.com', password: PASSWORD, locale: 'de-DE' });
  }, 180_000);

  afterAll(async () => {
    await s?.close();
  });

  it('D20: euros as Germans write them, "1.234,56 €", on Home and the Reconcile page', async () => {
    const bank = (await s.post('/accounts', { name: 'Girokonto', kind: 'asset' })).body.id;
    const dues = (await s.post('/accounts', { name: 'Beiträge', kind: 'income' })).body.id;
    const entries = [{ account_id: bank, amount_cents: 123_456 }, { account_id: dues, amount_cents: -123_456 }];
    expect((await s.post('/transactions', { occurred_on: `${LAST_YEAR}-06-01`, description: 'Beiträge', entries })).status).toBe(201);
    await s.page.reload();
    // Intl puts a no-break space before the sign: compared as a plain space.
    const text = async (locator: ReturnType<Page['locator']>) => (await locator.textContent())?.replace(/\s/g, ' ');
    await expect.poll(() => text(s.page.getByRole('region', { name: message('de', 'vocabulary.personal.kinds.asset') }).getByRole('cell').first())).toBe('1.234,56 €');

    await s.page.goto(`${s.web}/reconcile?account=${bank}`);
    // D29: the page in German (issue 38), its words and its money.
    await s.page.getByRole('heading', { name: 'Girokonto abgleichen', level: 1 }).waitFor();
    await s.page.getByLabel(message('de', 'vocabulary.personal.statementBalance.asset.label')).fill('1.234,56');
    // What the field understood (D19), and the difference, both German money.
    await expect.poll(() => text(s.page.locator('.amount-reading'))).toBe('= 1.234,56 €');
    await expect.poll(() => text(s.page.locator('.reconcile-sums output'))).toBe('Differenz: 0,00 € ✓');
    expect(s.faults).toEqual([]);
  });
});
