import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// Issue 40 items 1, 3, 6 (D27, D12, D19) in chromium, a club's book in English: a member list
// pasted from a spreadsheet — a bad IBAN names its row and nothing is saved, a member number
// taken by someone already in the book is named by the API's batch refusal at its row, a good
// list is added all at once; a dues plan "Membership, €5.00 a month" typed as money; a member
// given the plan owes its past months at once ("owes €15.00, since …"), who owes in total; the
// member's statement; a payment reminder printed alone (no navigation; the amount, the months and
// the club's IBAN when the book has one); people's accounts not on the Accounts page; no
// sideways scrolling at 390 px.

const EMAIL = 'treasurer@people.example';
const PASSWORD = 'the treasurer of the club';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1100, height: 900 };

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const missing = missingBrowserPrerequisite();
if (missing && !STRICT_BROWSER) console.warn(`web-people.test.ts skipped: ${missing}`);

/** Today where the browser is (Europe/Berlin), as the web app counts it. */
const TODAY = new Date().toLocaleDateString('en-CA', { timeZone: 'Europe/Berlin' });
/** The first day of the month `back` months before this one. */
function monthStart(back: number): string {
  const [y, m] = TODAY.split('-').map(Number) as [number, number];
  const d = new Date(Date.UTC(y, m - 1 - back, 1));
  return d.toISOString().slice(0, 10);
}
const START = monthStart(2);
/** A date as the web app shows it in an English browser. */
const shown = (isoDate: string) => new Date(`${isoDate}T00:00:00Z`).toLocaleDateString('en-US', { timeZone: 'UTC', dateStyle: 'medium' });

// Rows as a spreadsheet copies them (tab-separated), the header row 1. Row 3's IBAN has a wrong check digit.
const BAD_LIST = [
  'Name\tEmail\tIBAN\tMember no.\tMandate\tMandate date\tJoined',
  'Anna Schmidt\tanna@example.org\tDE89 3704 0044 0532 0130 00\t1\tM-1\t2024-01-15\t2024-01-01',
  'Bernd Müller\tbernd@example.org\tDE89370400440532013001\t2\t\t\t2024-02-01',
  'Clara Weiß\t\tNL91ABNA0417164300\t3\t\t\t',
].join('\n');
const GOOD_LIST = BAD_LIST.replace('DE89370400440532013001', 'AT611904300234573201');

describe.skipIf(missing !== null && !STRICT_BROWSER)('People and dues in chromium, a club in English (issue 40, D27)', () => {
  let s: WebSession;
  let page: Page;
  const ids: Record<string, number> = {};
  const noSideways = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  const people = async () => (await s.call('GET', '/people')).body as { id: number; name: string; account_id: number; balance_cents: number; dues_plan_id: number | null }[];
  const answerNext = (accept: boolean) =>
    new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve(dialog.message());
        void (accept ? dialog.accept() : dialog.dismiss());
      }),
    );
  /** The serious and critical axe-core violations (WCAG 2 A and AA) on the page as it is now. */
  const axeViolations = async (): Promise<string[]> => {
    await page.evaluate(AXE);
    const violations = await page.evaluate(async () => {
      type Found = { id: string; impact: string | null; nodes: { target: string[] }[] };
      const axe = (window as unknown as { axe: { run(context: Document, options: unknown): Promise<{ violations: Found[] }> } }).axe;
      return (await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })).violations;
    });
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  };
  const paste = async (text: string) => {
    const form = page.getByRole('form', { name: 'Paste a member list' });
    await form.getByLabel('Rows copied from a spreadsheet, the first row naming the columns').fill(text);
    return form;
  };

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    s = await openWebSession({ prefix: 'ledger-web-people-', email: EMAIL, password: PASSWORD });
    page = s.page;
    expect((await s.call('PUT', '/settings', { book_style: 'club' })).status).toBe(200);
    for (const [name, kind] of [['Bank', 'asset'], ['Dues', 'income']] as const) ids[name] = (await s.post('/accounts', { name, kind })).body.id;
    await page.reload();
  }, 180_000);

  afterAll(async () => {
    await s?.close();
  });

  it('a pasted member list with a bad IBAN names row 3 and saves nothing; a number already taken is named at its row by the API; a good list is added whole', async () => {
    await s.go('Members', 'Members');
    let form = await paste(BAD_LIST);
    const preview = form.getByRole('table', { name: 'The list as it will be added' });
    expect(await preview.getByRole('row').count()).toBe(4);
    expect(await preview.getByRole('row').nth(1).getByRole('cell').allTextContents()).toEqual(['2', 'Anna Schmidt', 'anna@example.org', 'DE89370400440532013000', '1', 'M-1', 'Jan 15, 2024', 'Jan 1, 2024']);
    await form.getByRole('alert').filter({ hasText: "Row 3: the IBAN's check digits are wrong." }).waitFor();
    expect(await form.getByRole('button', { name: 'Add 3 members' }).isDisabled()).toBe(true);
    expect(await people()).toEqual([]);

    // One member already in the book: the whole list is refused by the API, the row named.
    expect((await s.post('/people', { name: 'Dora Alt', member_no: '3' })).status).toBe(201);
    form = await paste(GOOD_LIST);
    await form.getByRole('button', { name: 'Add 3 members' }).click();
    await form.getByRole('alert').filter({ hasText: 'Nothing was added. Row 4: member no. 3 is already Dora Alt' }).waitFor();
    expect((await people()).map((p) => p.name)).toEqual(['Dora Alt']);
    await s.call('DELETE', `/people/${(await people())[0]!.id}`);

    await page.reload();
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    form = await paste(GOOD_LIST);
    await form.getByText('3 members, ready to add.').waitFor();
    await form.getByRole('button', { name: 'Add 3 members' }).click();
    await page.getByRole('status').filter({ hasText: '3 members added.' }).waitFor();
    const list = page.getByRole('table', { name: 'Members and where they stand' });
    await expect.poll(() => list.getByRole('rowheader').allTextContents()).toEqual(['Anna Schmidt', 'Bernd Müller', 'Clara Weiß']);
    expect(await list.getByRole('row').nth(1).getByRole('cell').allTextContents()).toEqual(expect.arrayContaining(['1', 'settled']));
    const stored = await people();
    expect(stored.map((p) => p.name)).toEqual(['Anna Schmidt', 'Bernd Müller', 'Clara Weiß']);
    expect(await noSideways()).toBe(true);
  });

  it('a dues plan typed as money ("5.00", D19) and given to a member charges its past months at once: "owes €15.00, since …", who owes in total', async () => {
    await page.goto(`${s.web}/dues`);
    await page.getByRole('heading', { name: 'Dues plans', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Make a dues plan' }).click();
    const form = page.getByRole('form', { name: 'New dues plan' });
    await form.getByLabel('Name').fill('Membership');
    await form.getByLabel('Amount').fill('5.00');
    await form.getByText('= €5.00').waitFor();
    await form.getByLabel('How often').selectOption('month');
    await form.getByLabel('First date').fill(START);
    await form.getByLabel('Booked as income to').selectOption({ label: 'Dues' });
    await form.getByRole('button', { name: 'Make the plan' }).click();
    await page.getByRole('status').filter({ hasText: 'The dues plan “Membership” is made: €5.00 a month.' }).waitFor();
    const plans = page.getByRole('table', { name: 'Every dues plan' });
    expect(await plans.getByRole('row').nth(1).getByRole('cell').allTextContents()).toEqual(expect.arrayContaining(['€5.00 a month', `from ${shown(START)}`, 'Dues', '0']));
    const plan = ((await s.call('GET', '/dues-plans')).body as { id: number; amount_cents: number; every: string }[])[0]!;
    expect(plan).toMatchObject({ amount_cents: 500, every: 'month' });

    await page.getByRole('link', { name: 'Members', exact: true }).last().click();
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    // A member added with the plan, joined on its start: every month since is charged when saved (D27).
    await page.getByRole('button', { name: 'Add a member' }).click();
    const add = page.getByRole('form', { name: 'New member' });
    await add.getByLabel('Name').fill('Emil Becker');
    await add.getByLabel('IBAN').fill('DE89 3704 0044 0532 0130 01');
    await add.getByRole('button', { name: 'Add member' }).click();
    await add.getByRole('alert').filter({ hasText: "The IBAN's check digits are wrong" }).waitFor();
    await add.getByLabel('IBAN').fill('');
    await add.getByLabel('Joined').fill(START);
    await add.getByLabel('Dues plan').selectOption({ label: 'Membership' });
    await add.getByRole('button', { name: 'Add member' }).click();
    await page.getByRole('status').filter({ hasText: '“Emil Becker” is added, with an account of their own.' }).waitFor();
    const emil = (await people()).find((p) => p.name === 'Emil Becker')!;
    expect(emil.dues_plan_id).toBe(plan.id);
    expect(emil.balance_cents).toBe(1500);
    const list = page.getByRole('table', { name: 'Members and where they stand' });
    await expect.poll(async () => (await list.getByRole('row').filter({ hasText: 'Emil Becker' }).getByRole('cell').allTextContents())[1]).toBe(`owes €15.00, since ${shown(START)}`);
    const owed = page.getByRole('region', { name: 'Owed to the club' });
    expect(await owed.locator('.money').textContent()).toBe('€15.00');
    await owed.getByText('1 member owes dues').waitFor();
    expect(await noSideways()).toBe(true);
  });

  it("a member's statement (opening, each month with the running balance, closing) and a payment reminder printed alone: the amount, the months, the club's IBAN", async () => {
    // The club's name and IBAN (D27's direct-debit settings): on the reminder.
    const sepa = await s.call('PUT', '/settings', { sepa: { creditor_name: 'TSV Example 1900 e.V.', creditor_iban: 'DE02120300000000202051', creditor_id: 'DE98ZZZ09999999999' } });
    expect(sepa.status).toBe(200);
    await page.getByRole('link', { name: 'Emil Becker' }).click();
    await page.getByRole('heading', { name: 'Statement of account: Emil Becker', level: 1 }).waitFor();
    const table = page.getByRole('table', { name: 'Statement of account of Emil Becker' });
    const months = [2, 1, 0].map((back) => `Membership ${monthStart(back).slice(0, 7)}`);
    await expect.poll(() => table.getByRole('row').count()).toBe(6);
    const rows = await table.getByRole('row').evaluateAll((trs) => trs.slice(1).map((tr) => Array.from(tr.children, (c) => c.textContent)));
    expect(rows.slice(1, 4)).toEqual([
      [shown(monthStart(2)), months[0], '€5.00', '€5.00'],
      [shown(monthStart(1)), months[1], '€5.00', '€10.00'],
      [shown(monthStart(0)), months[2], '€5.00', '€15.00'],
    ]);
    expect(rows[4]!.slice(1)).toEqual(['Closing balance', '', '€15.00']);

    await page.evaluate(() => {
      window.print = () => document.body.setAttribute('data-printed', 'yes');
    });
    await page.getByRole('button', { name: 'Print a payment reminder' }).click();
    await expect.poll(() => page.locator('body').getAttribute('data-printed')).toBe('yes');
    const reminder = page.getByRole('region', { name: 'A friendly reminder' });
    await page.emulateMedia({ media: 'print' });
    try {
      expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);
      expect(await table.isVisible()).toBe(false);
      expect(await page.getByRole('heading', { level: 1 }).isVisible()).toBe(false);
      const text = await reminder.innerText();
      expect(text).toContain('Dear Emil Becker,');
      expect(text).toContain('your dues of €15.00 are still open');
      for (const month of months) expect(text).toContain(`${month} (€5.00)`);
      expect(text).toContain(`Date: ${shown(TODAY)}`);
      expect(text).toContain('TSV Example 1900 e.V.');
      expect(text).toContain('Please transfer €15.00 to IBAN DE02 1203 0000 0000 2020 51.');
    } finally {
      await page.emulateMedia({ media: 'screen' });
    }
  });

  it("people's accounts are not on the Accounts page (the record form offers them as Members), and a member's personal data is forgotten when asked", async () => {
    await page.goto(`${s.web}/accounts`);
    await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
    const main = page.locator('main');
    await main.getByText('Bank', { exact: true }).first().waitFor();
    for (const name of ['Anna Schmidt', 'Bernd Müller', 'Clara Weiß', 'Emil Becker']) expect(await main.getByText(name).count()).toBe(0);

    // The record form still offers them, in a group of their own: dues paid in are income from a member.
    await page.goto(`${s.web}/transactions`);
    const from = page.getByLabel('From (where the money comes from)').first();
    await from.locator('optgroup[label="Members"] option', { hasText: 'Emil Becker' }).waitFor({ state: 'attached' });
    const groups = await from.locator('optgroup').evaluateAll((gs) => gs.map((g) => [g.getAttribute('label'), Array.from(g.querySelectorAll('option'), (o) => o.textContent)]));
    expect(groups.at(-1)).toEqual(['Members', ['Anna Schmidt', 'Bernd Müller', 'Clara Weiß', 'Emil Becker']]);
    expect(groups.slice(0, -1).flatMap(([, options]) => options)).not.toContain('Emil Becker');

    await page.goto(`${s.web}/people`);
    const asked = answerNext(true);
    await page.getByRole('button', { name: 'Forget personal data of Bernd Müller' }).click();
    expect(await asked).toContain('Forget the personal data of “Bernd Müller”?');
    await page.getByRole('status').filter({ hasText: 'The personal data of “Bernd Müller” is forgotten' }).waitFor();
    const bernd = (await s.call('GET', `/people/${(await people()).find((p) => p.name === 'Bernd Müller')!.id}`)).body;
    expect(bernd).toMatchObject({ name: 'Bernd Müller', email: null, iban: null, mandate: null });
  });

  it('at 390 px the Members, statement and dues pages need no sideways scrolling', async () => {
    await page.setViewportSize(PHONE);
    try {
      for (const [path, heading] of [['/people', 'Members'], [`/people/statement?id=${(await people()).find((p) => p.name === 'Emil Becker')!.id}`, 'Statement of account: Emil Becker'], ['/dues', 'Dues plans']] as const) {
        await page.goto(`${s.web}${path}`);
        await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
        await page.locator('main table').first().waitFor();
        expect(await noSideways(), path).toBe(true);
        expect(await axeViolations(), path).toEqual([]);
      }
      await page.goto(`${s.web}/people`);
      await paste(GOOD_LIST.replace(/Anna/g, 'Ada').replace(/Bernd/g, 'Ben').replace(/Clara/g, 'Cleo').replace(/\t(\d)\t/g, '\t1$1\t'));
      await page.getByRole('table', { name: 'The list as it will be added' }).waitFor();
      expect(await noSideways()).toBe(true);
      expect(await axeViolations()).toEqual([]);
      expect(s.faults).toEqual([]);
    } finally {
      await page.setViewportSize(DESKTOP);
    }
  });
});
