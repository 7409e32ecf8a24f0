import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// Issue 37 items 6 and 7 in chromium against `ledger serve` on the embedded database: History
// tells every step as what it was — a skipped reminder, a reminder posted by hand from its
// schedule, a receipt added to a transaction named by its description and date, a line imported
// from a statement, a hand entry linked to a bank line (D15, D16, D21, D22) — and an opening
// balance of a card or loan is told as such on Home, in the Transactions list and in History
// ("Opening balance: we owe €1,204.33 on Visa card"), never as money out; paying down a loan is
// said in a debt's words, not a card's (D6, D12).

const EMAIL = 'treasurer@history-steps.example';
const PASSWORD = 'a treasurer password';

const missing = missingBrowserPrerequisite();
if (missing && !STRICT_BROWSER) console.warn(`web-history-steps.test.ts skipped: ${missing}`);

const csvFile = (...rows: string[]) => ['Date,Description,Amount', ...rows].join('\n') + '\n';
const PLAIN = { date_column: 'Date', description_column: 'Description', amount_column: 'Amount', date_format: 'YYYY-MM-DD', decimal: '.' } as const;
/** The smallest PNG header the receipts accept by its magic numbers. */
const PNG_HEX = '89504e470d0a1a0a0000000d4948445200000001000000010806000000';

describe.skipIf(missing !== null && !STRICT_BROWSER)('History tells every step, and opening debts read as debts, in chromium (issue 37 items 6 and 7)', () => {
  let s: WebSession;
  let page: Page;
  const ids: Record<string, number> = {};
  const history = () => page.locator('main ol.history > li');
  const said = (text: string) => history().filter({ hasText: text }).first();

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    s = await openWebSession({ prefix: 'ledger-web-history-steps-', email: EMAIL, password: PASSWORD });
    page = s.page;
    for (const [name, kind] of [['Sparkasse', 'asset'], ['Rent', 'expense'], ['Fees', 'expense'], ['Dues', 'income']] as const) {
      const res = await s.post('/accounts', { name, kind });
      expect(res.status).toBe(201);
      ids[name] = res.body.id;
    }
    // The card and the loan get their opening balances as a person gives them: on the Accounts page.
    await s.go('Accounts', 'Accounts');
    const newAccount = page.getByRole('region', { name: 'New account' });
    for (const [name, owed] of [['Visa card', '1,204.33'], ['Darlehen', '5,000.00']] as const) {
      await newAccount.getByLabel('Name', { exact: true }).fill(name);
      await newAccount.getByRole('combobox', { name: /^Kind/ }).selectOption({ label: 'What we owe' });
      await newAccount.getByLabel('How much do you owe on it today?').fill(owed);
      await newAccount.getByRole('button', { name: 'Add account' }).click();
      await page.getByRole('status').filter({ hasText: `Added ${name}:` }).waitFor();
    }
    const { body: accounts } = await s.call('GET', '/accounts');
    for (const a of accounts as { id: number; name: string }[]) ids[a.name] = a.id;
  }, 120_000);
  afterAll(() => s?.close());

  it('issue 37 item 7 (D6, D12): a card\'s and a loan\'s opening balances read "Opening balance: we owe …" on Home and in the Transactions list, never "Money out"', async () => {
    await page.goto(s.web);
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    const recent = page.getByRole('table', { name: 'Recent transactions' });
    const card = recent.getByRole('row', { name: /Opening balance of Visa card/ });
    await card.waitFor();
    expect(await card.textContent()).toContain('Opening balance: we owe €1,204.33 on Visa card');
    expect(await card.textContent()).not.toContain('Money out');
    expect(await recent.getByRole('row', { name: /Opening balance of Darlehen/ }).textContent()).toContain('Opening balance: we owe €5,000.00 on Darlehen');

    await s.go('Transactions', 'Transactions');
    const list = page.getByRole('table', { name: 'Recorded transactions' });
    const row = list.locator('tbody tr').filter({ hasText: 'Opening balance of Visa card' });
    await row.waitFor();
    expect(await row.textContent()).toContain('Opening balance: we owe €1,204.33 on Visa card');
    expect(await row.textContent()).not.toContain('Money out');

    // A club's book says who owes.
    expect((await s.call('PUT', '/settings', { book_style: 'club' })).status).toBe(200);
    await page.goto(s.web);
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    expect(await page.getByRole('table', { name: 'Recent transactions' }).getByRole('row', { name: /Opening balance of Darlehen/ }).textContent()).toContain(
      'Opening balance: the club owes €5,000.00 on Darlehen',
    );
    expect((await s.call('PUT', '/settings', { book_style: 'personal' })).status).toBe(200);
    await page.goto(s.web);
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
  });

  it('issue 37 item 7 (D6): paying down a loan is said in a debt\'s words ("paid back part of Darlehen"), a card keeps its own', async () => {
    await s.go('Transactions', 'Transactions');
    const form = page.locator('form.record').first();
    await page.getByRole('radio', { name: 'Move money' }).check();
    await form.getByLabel('Amount', { exact: true }).fill('200');
    const select = (label: string) => form.getByRole('combobox', { name: new RegExp(`^${label}`) });
    await select('From').selectOption({ label: 'Sparkasse' });
    await select('To').selectOption({ label: 'Darlehen' });
    const lines = form.locator('.balance-move');
    await expect.poll(() => lines.count()).toBe(2);
    expect(await lines.allTextContents()).toEqual(['Sparkasse: €200.00 less in it.', 'Darlehen: we owe €200.00 less, paid back part of Darlehen.']);
    await select('To').selectOption({ label: 'Visa card' });
    await expect.poll(() => lines.allTextContents()).toEqual(['Sparkasse: €200.00 less in it.', 'Visa card: we owe €200.00 less, paid the card off.']);
  });

  it('issue 37 item 6 (D15, D16, D21, D22): History tells a skip, a reminder posted by hand from its schedule, a receipt\'s transaction, an imported line and a linked one', async () => {
    const made = await s.post('/schedules', {
      description: 'Hall rent', start_on: '2026-03-01', every: 'month', mode: 'remind',
      entries: [{ account_id: ids.Rent, amount_cents: 85_000 }, { account_id: ids.Sparkasse, amount_cents: -85_000 }],
    });
    expect(made.status).toBe(201);
    expect((await s.post(`/schedules/${made.body.id}/occurrences/2026-03-01/skip`, undefined)).status).toBe(204);
    const posted = await s.post(`/schedules/${made.body.id}/occurrences/2026-04-01/post`, undefined);
    expect(posted.status).toBe(201);

    // A receipt on a transaction typed by hand.
    const paper = await s.post('/transactions', { occurred_on: '2026-03-03', description: 'Printer paper', entries: [{ account_id: ids.Fees, amount_cents: 1_999 }, { account_id: ids.Sparkasse, amount_cents: -1_999 }] });
    expect(paper.status).toBe(201);
    const uploaded = await page.evaluate(
      async ({ url, hex }) => {
        const bytes = new Uint8Array(hex.match(/../g)!.map((b) => parseInt(b, 16)));
        return (await fetch(url, { method: 'POST', credentials: 'include', headers: { 'content-type': 'image/png' }, body: bytes })).status;
      },
      { url: `${s.api}/transactions/${paper.body.id}/attachments?name=till.png`, hex: PNG_HEX },
    );
    expect(uploaded).toBe(201);

    // A statement: one line new, one linked to the dues typed by hand.
    const dues = await s.post('/transactions', { occurred_on: '2026-10-02', description: 'Dues Anna', entries: [{ account_id: ids.Sparkasse, amount_cents: 6_000 }, { account_id: ids.Dues, amount_cents: -6_000 }] });
    expect(dues.status).toBe(201);
    const statement = { account_id: ids.Sparkasse, format: 'csv', content: csvFile('2026-10-30,BANK FEE OCTOBER,-7.50', '2026-10-03,DUES ANNA SCHMIDT,60.00'), unmatched_account_id: ids.Fees, csv: PLAIN };
    const imported = await s.post('/imports', { ...statement, matches: [{ line: 3, transaction_id: dues.body.id }] });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);

    await s.go('History', 'History');
    await said('skipped').waitFor();
    expect(await said('skipped').textContent()).toMatch(/^You skipped “Hall rent” of Mar 1, 2026 on .+, from the web app\.$/);
    expect(await said('posted “Hall rent”').textContent()).toMatch(/^You posted “Hall rent” \(€850\.00\) of Apr 1, 2026 from the schedule “Hall rent” on .+, from the web app\.$/);
    expect(await said('till.png').textContent()).toMatch(/^You added the receipt “till\.png” to “Printer paper” of Mar 3, 2026 on .+, from the web app\.$/);
    expect(await said('BANK FEE OCTOBER').textContent()).toMatch(/^You imported “BANK FEE OCTOBER” \(€7\.50\) from the statement of Sparkasse of Oct 30, 2026 on .+, from the web app\.$/);
    expect(await said('Dues Anna').textContent()).toMatch(/^You recorded “Dues Anna” \(€60\.00\) on .+, from the web app, since linked to the bank line of Oct 3, 2026 on Sparkasse\.$/);
    expect(await said('Opening balance of Visa card').textContent()).toMatch(
      /^You recorded “Opening balance of Visa card” \(opening balance: we owe €1,204\.33 on Visa card\) on .+, from the web app\.$/,
    );
    expect(s.faults).toEqual([]);
  });
});
