import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// Issue 25 "Never the wrong way round", items 1, 2, 4 and 5, in chromium against `ledger serve` on
// the embedded database:
// 1: an account gets its opening balance when it is created or edited, asked in its own words and
//    booked against the starting-balances account in the sign its kind needs (D6: "we owe 350" on a
//    card is what we owe, a plus on Home, not −613.63); the money in / out / move forms say what
//    they do to each account, and every balance moves the way the words said (D6 natural sign).
// 2: changing the kind of an account with entries asks first, saying what moves where (D12).
// 4: the edit form opens in view with the focus, and the notices of a save or a delete are
//    announced and in view, at 1,280 and 390 px.
// 5: a two-entry transaction edits as money in / out / move (one amount, two accounts, D6, D19);
//    the split lines stay for three entries or more; a save is confirmed in words.

const missing = missingBrowserPrerequisite();
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
if (missing && !STRICT_BROWSER) console.warn(`web-figures.test.ts skipped: ${missing}`);

const EMAIL = 'figures@example.com';
const TIME_ZONE = 'Europe/Berlin';
/** Today where the browser is (the forms' default date). */
const TODAY = new Intl.DateTimeFormat('en-CA', { timeZone: TIME_ZONE }).format(new Date());
const daysBefore = (days: number) => {
  const [y, m, d] = TODAY.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d - days)).toISOString().slice(0, 10);
};
/** A date as the web app shows it in an English browser (formatDate: medium, en-US). */
const shown = (isoDate: string) => new Date(`${isoDate}T00:00:00Z`).toLocaleDateString('en-US', { timeZone: 'UTC', dateStyle: 'medium' });
/** Money as the web app shows it in an English browser, in the book's currency (D20: EUR). */
const money = (cents: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR' }).format(cents / 100);

describe.skipIf(missing !== null && !STRICT_BROWSER)('never the wrong way round, in chromium (issue 25 items 1, 2, 4, 5; D6, D12, D19)', () => {
  let s: WebSession;
  let page: Page;
  const ids: Record<string, number> = {};
  /** The writes (not GETs, not CORS preflights) the page sent to the API, as "METHOD /path". */
  const writes: string[] = [];
  const call = (method: string, url: string, body?: unknown) => s.call(method, url, body);
  const go = (link: string, heading: string) => s.go(link, heading);

  /** Every account's balance in natural sign (D6), by name, from GET /reports/balances. */
  const balances = async (): Promise<Record<string, number>> => {
    const { body } = await call('GET', '/reports/balances?as_of=2999-12-31');
    return Object.fromEntries((body.accounts as { name: string; balance_cents: number }[]).map((a) => [a.name, a.balance_cents]));
  };
  const accounts = async (): Promise<{ id: number; name: string; kind: string }[]> => (await call('GET', '/accounts')).body;
  /** Whether the element is whole inside the window. */
  const inView = (locator: Locator) =>
    locator.evaluate((el) => {
      const box = el.getBoundingClientRect();
      return box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight && box.left >= 0 && box.right <= window.innerWidth;
    });
  /** Answers the next window.confirm as told and keeps its question. */
  const answerNext = (accept: boolean, asked: string[]) =>
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void (accept ? dialog.accept() : dialog.dismiss());
    });

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    s = await openWebSession({ prefix: 'ledger-web-figures-', email: EMAIL, password: 'a treasurer password', timezoneId: TIME_ZONE });
    page = s.page;
    page.on('request', (request) => {
      if (!request.url().startsWith(s.api) || ['GET', 'OPTIONS', 'HEAD'].includes(request.method())) return;
      writes.push(`${request.method()} ${new URL(request.url()).pathname}`);
    });
    // Each test stands on these alone (the opening balances test makes its own accounts in the page).
    for (const [name, kind] of [['Bank', 'asset'], ['Visa card', 'liability'], ['Salary', 'income'], ['Groceries', 'expense']] as const) {
      ids[name] = (await s.post('/accounts', { name, kind })).body.id;
    }
  }, 120_000);

  afterAll(async () => {
    await s?.close();
  });

  it('issue 25 item 1 (D6): a bank and a card get their opening balances when created, asked in their own words; the card’s debt is what we owe on Home', async () => {
    await go('Accounts', 'Accounts');
    const newAccount = page.getByRole('region', { name: 'New account' });
    await newAccount.getByLabel('Name', { exact: true }).fill('Current account');
    await newAccount.getByLabel('How much is in it today?').fill('2,548.15');
    expect(await newAccount.getByLabel('Date of the balance').inputValue()).toBe(TODAY);
    await newAccount.getByRole('button', { name: 'Add account' }).click();
    await page.getByRole('status').filter({ hasText: `Added Current account: €2,548.15 in it on ${shown(TODAY)}, booked against Starting balances.` }).waitFor();

    await newAccount.getByLabel('Name', { exact: true }).fill('Credit card');
    await newAccount.getByRole('combobox', { name: /^Kind/ }).selectOption({ label: 'What we owe' });
    // Income, spending and equity accounts have no opening balance to ask about; a card asks what we owe.
    expect(await newAccount.getByLabel('How much is in it today?').count()).toBe(0);
    await newAccount.getByLabel('How much do you owe on it today?').fill('350');
    await newAccount.getByRole('button', { name: 'Add account' }).click();
    await page.getByRole('status').filter({ hasText: `Added Credit card: €350.00 owed on it on ${shown(TODAY)}, booked against Starting balances.` }).waitFor();
    await newAccount.getByLabel('Name', { exact: true }).fill('Dues');
    await newAccount.getByRole('combobox', { name: /^Kind/ }).selectOption({ label: 'Income' });
    expect(await newAccount.getByRole('group', { name: 'Balance' }).count()).toBe(0);

    for (const account of await accounts()) ids[account.name] = account.id;
    expect((await accounts()).filter((a) => a.kind === 'equity').map((a) => a.name)).toEqual(['Starting balances']);
    // One two-entry transaction each, against Starting balances, in the sign the kind needs (D6).
    const { body: list } = await call('GET', '/transactions');
    const entriesOf = (description: string) =>
      (list as { description: string; occurred_on: string; entries: { account_id: number; amount_cents: number }[] }[])
        .filter((t) => t.description === description)
        .map((t) => [t.occurred_on, t.entries.map((e) => [e.account_id, e.amount_cents])]);
    expect(entriesOf('Opening balance of Current account')).toEqual([[TODAY, [[ids['Current account'], 254_815], [ids['Starting balances'], -254_815]]]]);
    expect(entriesOf('Opening balance of Credit card')).toEqual([[TODAY, [[ids['Starting balances'], 35_000], [ids['Credit card'], -35_000]]]]);
    expect(await balances()).toMatchObject({ 'Current account': 254_815, 'Credit card': 35_000, 'Starting balances': 219_815 });

    await go('Ledger', 'Home');
    const owed = page.getByRole('region', { name: 'What we owe' }).getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Credit card', exact: true }) });
    await expect.poll(() => owed.locator('td').textContent()).toBe('€350.00');
    expect(await owed.locator('.negative').count()).toBe(0);
  });

  it('issue 25 item 1 (D6): a card created without its debt gets it when edited, dated before the payments since; Home shows the 86.37 still owed', async () => {
    ids['Old card'] = (await s.post('/accounts', { name: 'Old card', kind: 'liability' })).body.id;
    const paid = [{ account_id: ids['Old card'], amount_cents: 26_363 }, { account_id: ids.Bank, amount_cents: -26_363 }];
    expect((await s.post('/transactions', { occurred_on: daysBefore(3), description: 'Card bill', entries: paid })).status).toBe(201);
    await go('Accounts', 'Accounts');
    await page.getByRole('button', { name: 'Change Old card' }).click();
    const form = page.getByRole('form', { name: 'Change Old card' });
    await form.getByLabel('Date of the balance of Old card').fill(daysBefore(30));
    // Asked in the words of its date once it is not today.
    await form.getByLabel(`How much did you owe on Old card on ${shown(daysBefore(30))}?`).fill('350.00');
    await form.getByRole('button', { name: 'Save Old card' }).click();
    await page.getByRole('status').filter({ hasText: `Saved Old card: €350.00 owed on it on ${shown(daysBefore(30))}, booked against Starting balances.` }).waitFor();
    expect((await balances())['Old card']).toBe(8_637);
    await go('Ledger', 'Home');
    const owed = page.getByRole('region', { name: 'What we owe' }).getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Old card', exact: true }) });
    await expect.poll(() => owed.locator('td').textContent()).toBe('€86.37');

    // Set again today: only the difference is booked, and the balance is what was said.
    await go('Accounts', 'Accounts');
    await page.getByRole('button', { name: 'Change Old card' }).click();
    await page.getByRole('form', { name: 'Change Old card' }).getByLabel('How much do you owe on Old card today?').fill('100');
    await page.getByRole('form', { name: 'Change Old card' }).getByRole('button', { name: 'Save Old card' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved Old card: €100.00 owed on it' }).waitFor();
    expect((await balances())['Old card']).toBe(10_000);
  });

  it('issue 25 item 1 (D12): a club book without a starting-balances account gets one in its own words, Reserves', async () => {
    expect((await call('PUT', `/accounts/${ids['Starting balances']}`, { name: 'Opening 2020', kind: 'equity' })).status).toBe(200);
    expect((await call('PUT', '/settings', { book_style: 'club' })).status).toBe(200);
    await page.reload();
    await go('Accounts', 'Accounts');
    const newAccount = page.getByRole('region', { name: 'New account' });
    await newAccount.getByLabel('Name', { exact: true }).fill('Cash box');
    await newAccount.getByLabel('How much is in it today?').fill('40');
    await newAccount.getByRole('button', { name: 'Add account' }).click();
    await page.getByRole('status').filter({ hasText: `Added Cash box: €40.00 in it on ${shown(TODAY)}, booked against Reserves.` }).waitFor();
    await newAccount.getByLabel('Name', { exact: true }).fill('Club card');
    await newAccount.getByRole('combobox', { name: /^Kind/ }).selectOption({ label: 'What the club owes' });
    await newAccount.getByLabel('How much does the club owe on it today?').fill('12');
    await newAccount.getByRole('button', { name: 'Add account' }).click();
    await page.getByRole('status').filter({ hasText: 'Added Club card: €12.00 owed on it' }).waitFor();
    expect((await accounts()).filter((a) => a.kind === 'equity').map((a) => a.name)).toEqual(['Opening 2020', 'Reserves']);
    expect(await balances()).toMatchObject({ 'Cash box': 4_000, 'Club card': 1_200, Reserves: 2_800 });
    expect((await call('PUT', '/settings', { book_style: 'personal' })).status).toBe(200);
    await page.reload();
    await page.getByRole('heading', { level: 1 }).waitFor();
  });

  it('issue 25 item 1 (D6, D19): money in, money out and a move, each against a bank, a card, income and spending, move every balance the way the form’s words say', async () => {
    await go('Transactions', 'Transactions');
    const form = page.locator('form.record');
    const select = (label: string) => form.getByRole('combobox', { name: new RegExp(`^${label.replace(/[()]/g, '\\$&')}`) });
    const cases = [
      ['Money in', 'Wages', '100', [['Into', 'Bank'], ['From (where', 'Salary']]],
      ['Money in', 'Cashback onto the card', '10', [['Into', 'Visa card'], ['From (where', 'Salary']]],
      ['Money out', 'Market', '20', [['Paid from', 'Bank'], ['Spent on', 'Groceries']]],
      ['Money out', 'Market on the card', '30', [['Paid from', 'Visa card'], ['Spent on', 'Groceries']]],
      ['Move money', 'Paying the card', '40', [['From', 'Bank'], ['To', 'Visa card']]],
      ['Move money', 'Cash from the card', '5', [['From', 'Visa card'], ['To', 'Bank']]],
    ] as const;
    /** What the card's balance does in each case, in natural sign (D6): what we owe. */
    const owedMoves: Record<string, number> = { 'Cashback onto the card': -1_000, 'Market on the card': 3_000, 'Paying the card': -4_000, 'Cash from the card': 500 };
    const cardWords: Record<string, string> = {
      'Cashback onto the card': 'Visa card: we owe €10.00 less, money back onto the card.',
      'Market on the card': 'Visa card: we owe €30.00 more, spent on the card.',
      'Paying the card': 'Visa card: we owe €40.00 less, paid the card off.',
      'Cash from the card': 'Visa card: we owe €5.00 more, borrowed on the card.',
    };
    const said: Record<string, string[]> = {};
    for (const [mode, description, amount, choices] of cases) {
      await page.getByRole('radio', { name: mode }).check();
      await form.getByLabel('Description').fill(description);
      await form.getByLabel('Amount', { exact: true }).fill(amount);
      // Never the same account on both sides (D19): each side starts from “Choose…”.
      for (const [label] of choices) await select(label).selectOption('');
      for (const [label, name] of choices) await select(label).selectOption({ label: name });
      const lines = form.locator('.balance-move');
      await expect.poll(() => lines.count(), { message: description }).toBe(2);
      said[description] = await lines.allTextContents();
      const before = await balances();
      await form.getByRole('button', { name: 'Save', exact: true }).click();
      await form.getByRole('status').filter({ hasText: `Saved “${description}”` }).waitFor();
      const after = await balances();
      // Each account the words name moved by the amount, up for "more", down for "less"; no other moved.
      const expected: Record<string, number> = {};
      for (const line of said[description]!) {
        const [, name, words] = /^(.+?): (.*)$/.exec(line)!;
        const cents = Math.round(Number(/€([\d,]+\.\d\d)/.exec(words!)![1]!.replace(/,/g, '')) * 100);
        expected[name!] = /\bmore\b/.test(words!) ? cents : /\bless\b/.test(words!) ? -cents : NaN;
      }
      expect(Object.keys(expected).sort(), description).toEqual(choices.map(([, name]) => name).sort());
      const moved = Object.fromEntries(Object.keys(after).filter((name) => after[name] !== before[name]).map((name) => [name, after[name]! - before[name]!]));
      expect(moved, `${description}: ${said[description]!.join(' ')}`).toEqual(expected);
      if (description in owedMoves) {
        expect(moved['Visa card'], description).toBe(owedMoves[description]);
        expect(said[description], description).toContain(cardWords[description]);
      }
    }
    expect(said.Wages).toEqual(['Bank: €100.00 more in it.', 'Salary: €100.00 more income.']);
    expect(said.Market).toEqual(['Bank: €20.00 less in it.', 'Groceries: €20.00 more spent.']);
    expect(said['Paying the card']).toEqual(['Bank: €40.00 less in it.', 'Visa card: we owe €40.00 less, paid the card off.']);
  });

  it('issue 25 item 2 (D12): changing the kind of an account with entries asks first, saying what moves where; cancelled, nothing is sent', async () => {
    const bank = (await balances()).Bank!;
    await go('Accounts', 'Accounts');
    await page.getByRole('button', { name: 'Change Bank' }).click();
    const form = page.getByRole('form', { name: 'Change Bank' });
    await form.getByLabel('Kind of Bank').selectOption({ label: 'Spending categories' });
    const asked: string[] = [];
    answerNext(false, asked);
    const before = writes.length;
    await form.getByRole('button', { name: 'Save Bank' }).click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toBe(`Bank’s ${money(bank)} will count as spending, not as money we have, in every report. Change the kind of Bank?`);
    await expect.poll(() => form.getByLabel('Kind of Bank').inputValue()).toBe('asset');
    expect(writes.slice(before)).toEqual([]);
    expect((await accounts()).find((a) => a.name === 'Bank')!.kind).toBe('asset');

    // Accepted, it is sent; and back again.
    await form.getByLabel('Kind of Bank').selectOption({ label: 'Spending categories' });
    answerNext(true, asked);
    await form.getByRole('button', { name: 'Save Bank' }).click();
    await expect.poll(async () => (await accounts()).find((a) => a.name === 'Bank')!.kind).toBe('expense');
    expect(writes.slice(before)).toEqual([`PUT /accounts/${ids.Bank}`]);
    await page.getByRole('button', { name: 'Change Bank' }).click();
    await page.getByRole('form', { name: 'Change Bank' }).getByLabel('Kind of Bank').selectOption({ label: 'Accounts (money we have)' });
    answerNext(true, asked);
    await page.getByRole('form', { name: 'Change Bank' }).getByRole('button', { name: 'Save Bank' }).click();
    await expect.poll(async () => (await accounts()).find((a) => a.name === 'Bank')!.kind).toBe('asset');
    expect(asked[2]).toBe(`Bank’s ${money(bank)} will count as money we have, not as spending, in every report. Change the kind of Bank?`);

    // An account without entries changes kind without a question.
    ids.Spare = (await s.post('/accounts', { name: 'Spare', kind: 'asset' })).body.id;
    await page.reload();
    await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Change Spare' }).click();
    await page.getByRole('form', { name: 'Change Spare' }).getByLabel('Kind of Spare').selectOption({ label: 'Income' });
    await page.getByRole('form', { name: 'Change Spare' }).getByRole('button', { name: 'Save Spare' }).click();
    await expect.poll(async () => (await accounts()).find((a) => a.name === 'Spare')!.kind).toBe('income');
    expect(asked).toHaveLength(3);
  });

  it('issue 25 item 5 (D6, D19): a two-entry payment edits as money out, one amount and two accounts; a save says what it did; three entries keep the split lines', async () => {
    const shop = await s.post('/transactions', {
      occurred_on: daysBefore(1), description: 'Shop',
      entries: [{ account_id: ids.Groceries, amount_cents: 8_990 }, { account_id: ids.Bank, amount_cents: -8_990 }],
    });
    expect(shop.status).toBe(201);
    const payslip = await s.post('/transactions', {
      occurred_on: daysBefore(1), description: 'Payslip',
      entries: [{ account_id: ids.Bank, amount_cents: 8_000 }, { account_id: ids.Groceries, amount_cents: 1_000 }, { account_id: ids.Salary, amount_cents: -9_000 }],
    });
    expect(payslip.status).toBe(201);
    await go('Transactions', 'Transactions');
    await page.getByRole('button', { name: 'Edit Shop', exact: true }).click();
    const form = page.getByRole('form', { name: 'Edit transaction' });
    expect(await form.getByRole('radio', { name: 'Money out' }).isChecked()).toBe(true);
    expect(await form.getByLabel('Amount', { exact: true }).inputValue()).toBe('89.90');
    expect(await form.getByLabel('Paid from').locator('option:checked').textContent()).toBe('Bank');
    expect(await form.getByLabel('Spent on').locator('option:checked').textContent()).toBe('Groceries');
    expect(await form.getByLabel(/^Amount \d/).count()).toBe(0);
    expect(await form.locator('.balance-move').allTextContents()).toEqual(['Bank: €89.90 less in it.', 'Groceries: €89.90 more spent.']);

    await form.getByLabel('Amount', { exact: true }).fill('94.90');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: `Saved “Shop” of ${shown(daysBefore(1))}: Money out €94.90, from Bank to Groceries.` }).waitFor();
    // The entries keep their order (D20 compares them in order).
    expect((await call('GET', `/transactions/${shop.body.id}`)).body.entries.map((e: { account_id: number; amount_cents: number }) => [e.account_id, e.amount_cents])).toEqual([
      [ids.Groceries, 9_490],
      [ids.Bank, -9_490],
    ]);

    await page.getByRole('button', { name: 'Edit Payslip', exact: true }).click();
    expect(await form.getByLabel('Amount', { exact: true }).count()).toBe(0);
    expect(await form.getByLabel('Amount 3', { exact: true }).inputValue()).toBe('-90.00');
    await form.getByLabel('Description').fill('Payslip November');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: `Saved “Payslip November” of ${shown(daysBefore(1))}: Split of 3 entries.` }).waitFor();
  });

  for (const [viewport, far] of [
    [{ width: 1280, height: 800 }, { edit: 'Filler 12', remove: 'Filler 13' }],
    [{ width: 390, height: 844 }, { edit: 'Filler 14', remove: 'Filler 15' }],
  ] as const) {
    it(`issue 25 item 4 at ${viewport.width} px: the edit form of a row far down opens in view with the focus; the notices of a save and a delete are announced and in view`, async () => {
      if (!(await accounts()).some((a) => a.name === 'Filler')) {
        ids.Filler = (await s.post('/accounts', { name: 'Filler', kind: 'expense' })).body.id;
        for (let i = 0; i < 40; i++) {
          const entries = [{ account_id: ids.Filler, amount_cents: 100 + i }, { account_id: ids.Bank, amount_cents: -(100 + i) }];
          expect((await s.post('/transactions', { occurred_on: daysBefore(100 - i), description: `Filler ${i}`, entries })).status).toBe(201);
        }
      }
      await page.setViewportSize(viewport);
      try {
        await page.goto(`${s.web}/transactions`);
        await page.getByRole('heading', { name: 'Transactions', level: 1 }).waitFor();
        const edit = page.getByRole('button', { name: `Edit ${far.edit}`, exact: true });
        await edit.scrollIntoViewIfNeeded();
        await edit.click();
        const form = page.getByRole('form', { name: 'Edit transaction' });
        await form.waitFor();
        await expect.poll(() => inView(form.getByRole('heading', { name: `Edit “${far.edit}”` }))).toBe(true);
        expect(await inView(form.getByLabel('Description'))).toBe(true);
        expect(await form.evaluate((el) => el.contains(document.activeElement))).toBe(true);

        await form.getByLabel('Description').fill(`${far.edit} at ${viewport.width}`);
        await form.getByRole('button', { name: 'Save changes' }).click();
        const saved = page.getByRole('status').filter({ hasText: `Saved “${far.edit} at ${viewport.width}”` });
        await saved.waitFor();
        await expect.poll(() => inView(saved)).toBe(true);

        await page.goto(`${s.web}/transactions`);
        await page.getByRole('heading', { name: 'Transactions', level: 1 }).waitFor();
        const remove = page.getByRole('button', { name: `Delete ${far.remove}`, exact: true });
        await remove.scrollIntoViewIfNeeded();
        page.once('dialog', (dialog) => void dialog.accept());
        await remove.click();
        const deleted = page.getByRole('status').filter({ hasText: `Deleted “${far.remove}”.` });
        await deleted.waitFor();
        await expect.poll(() => inView(deleted)).toBe(true);
        expect(await inView(deleted.getByRole('button', { name: 'Undo' }))).toBe(true);
        await deleted.getByRole('button', { name: 'Undo' }).click();
        await page.getByRole('cell', { name: far.remove, exact: true }).waitFor();

        // A transaction recorded from the form: its "Saved …" is in view too.
        const record = page.locator('form.record');
        await page.getByRole('radio', { name: 'Money out' }).check();
        await record.getByLabel('Description').fill(`Bread at ${viewport.width}`);
        await record.getByLabel('Amount', { exact: true }).fill('3.20');
        await record.getByLabel('Paid from').selectOption({ label: 'Bank' });
        await record.getByLabel('Spent on').selectOption({ label: 'Groceries' });
        await record.getByRole('button', { name: 'Save', exact: true }).click();
        const recorded = record.getByRole('status').filter({ hasText: `Saved “Bread at ${viewport.width}”` });
        await recorded.waitFor();
        await expect.poll(() => inView(recorded)).toBe(true);
      } finally {
        await page.setViewportSize({ width: 1100, height: 900 });
      }
    });
  }

  // Eight pages scanned by axe-core: 30 s was too short on the 2-core machine under load.
  it('issue 25 "done means": the new fields and words pass axe-core (WCAG 2.1 A, AA) at 1,280 and 390 px, in both book styles', { timeout: 120_000 }, async () => {
    /** The serious and critical violations on the page as it is now (as tests/web-a11y.test.ts scans). */
    const scan = async (): Promise<string[]> => {
      await page.evaluate(AXE);
      const violations = await page.evaluate(async () => {
        type Found = { id: string; impact: string | null; nodes: { target: string[] }[] };
        const axe = (window as unknown as { axe: { run(context: Document, options: unknown): Promise<{ violations: Found[] }> } }).axe;
        return (await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })).violations;
      });
      return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    };
    const found: Record<string, string[]> = {};
    try {
      for (const style of ['personal', 'club'] as const) {
        expect((await call('PUT', '/settings', { book_style: style })).status).toBe(200);
        for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
          await page.setViewportSize(viewport);
          const at = `${style} ${viewport.width} px`;
          // The Accounts page with a card's form open: its balance asked in its own words.
          await page.goto(`${s.web}/accounts`);
          await page.getByRole('button', { name: 'Change Visa card' }).click();
          await page.getByRole('form', { name: 'Change Visa card' }).getByLabel(/^How much/).fill('12.5');
          found[`accounts, ${at}`] = await scan();
          // The Transactions page: the record form's words for a card, and a payment open for editing.
          await page.goto(`${s.web}/transactions`);
          await page.getByRole('heading', { name: 'Transactions', level: 1 }).waitFor();
          const record = page.locator('form.record').first();
          await record.getByRole('radio').nth(1).check();
          await record.getByLabel('Amount', { exact: true }).fill('3');
          await record.getByLabel('Paid from').selectOption({ label: 'Visa card' });
          await record.getByLabel('Spent on').selectOption({ label: 'Groceries' });
          await page.getByRole('button', { name: 'Edit Shop', exact: true }).click();
          await page.getByRole('form', { name: 'Edit transaction' }).locator('.balance-move').first().waitFor();
          found[`transactions, ${at}`] = await scan();
        }
      }
    } finally {
      await page.setViewportSize({ width: 1100, height: 900 });
      expect((await call('PUT', '/settings', { book_style: 'personal' })).status).toBe(200);
    }
    expect(Object.fromEntries(Object.entries(found).filter(([, violations]) => violations.length > 0))).toEqual({});
  });

  it('ran without server faults or Content-Security-Policy violations', () => {
    expect(s.faults).toEqual([]);
    expect(s.violations).toEqual([]);
  });
});
