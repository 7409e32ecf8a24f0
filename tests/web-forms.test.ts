import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// Issue 6/7 findings 2 to 6 (D12, D19), in chromium: the forms offer the sensible kinds and never
// the same account twice, ask about a date more than a year away, say errors in money and drop
// them once the person changes something, confirm a save, show what each transaction did in words
// (money in, out, moved; natural sign in a split) and who recorded it, and use D12's words as
// nouns where a label names something. Money in the book's currency (D20: EUR by default).

const missing = missingBrowserPrerequisite();
const EMAIL = 'forms@example.com';

describe.skipIf(missing !== null && !STRICT_BROWSER)('the forms and lists a treasurer reads (issue 6/7 findings 2–6)', () => {
  let s: WebSession;
  const page = () => s.page;
  const go = async (link: string, heading: string) => {
    await page().getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
    await page().getByRole('heading', { name: heading, level: 1 }).waitFor();
  };
  /** A select of the record form by the start of its label (its name also holds the chosen option). */
  const select = (label: string) => page().locator('form.record').getByRole('combobox', { name: new RegExp(`^${label.replace(/[()]/g, '\\$&')}`) });
  const optionsOf = (label: string) => select(label).locator('option').allTextContents();
  const rowOf = (description: string) =>
    page().getByRole('table', { name: 'Recorded transactions' }).getByRole('row').filter({ has: page().getByRole('cell', { name: description, exact: true }) }).locator('td').allTextContents();

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    s = await openWebSession({ prefix: 'ledger-web-forms-', email: EMAIL, password: 'a treasurer password' });
    for (const [name, kind] of [['Bank', 'asset'], ['Cash box', 'asset'], ['Card', 'liability'], ['Opening', 'equity'], ['Salary', 'income'], ['Groceries', 'expense']] as const) {
      expect((await s.post('/accounts', { name, kind })).status).toBe(201);
    }
    await go('Transactions', 'Transactions');
    await page().locator('form.record').waitFor();
  }, 120_000);

  afterAll(async () => {
    await s?.close();
  });

  it('finding 3: each form offers the sensible kinds, never the same account on both sides; the split offers all', async () => {
    await page().getByRole('radio', { name: 'Money out' }).check();
    expect(await optionsOf('Spent on')).toEqual(['Choose…', 'Groceries']);
    expect(await optionsOf('Paid from')).toEqual(['Choose…', 'Bank', 'Cash box', 'Card']);
    await page().getByRole('radio', { name: 'Money in' }).check();
    expect(await optionsOf('Into')).toEqual(['Choose…', 'Bank', 'Cash box', 'Card']);
    expect(await optionsOf('From (where the money comes from)')).toEqual(['Choose…', 'Opening', 'Salary']);
    await page().getByRole('radio', { name: 'Move money' }).check();
    await select('From').selectOption({ label: 'Bank' });
    expect(await optionsOf('To')).toEqual(['Choose…', 'Cash box', 'Card']);
    await page().getByRole('radio', { name: 'Split (advanced)' }).check();
    expect(await optionsOf('Account 1')).toEqual(['Choose…', 'Bank', 'Cash box', 'Card', 'Opening', 'Salary', 'Groceries']);
  });

  it('finding 2: an unbalanced split is explained in money, and the message goes once the amounts change', async () => {
    await page().getByLabel('Description').fill('Uneven');
    await page().getByLabel('Account 1').selectOption({ label: 'Bank' });
    await page().getByLabel('Amount 1', { exact: true }).fill('100');
    await page().getByLabel('Account 2').selectOption({ label: 'Groceries' });
    await page().getByLabel('Amount 2', { exact: true }).fill('-50');
    await page().getByRole('button', { name: 'Save', exact: true }).click();
    const alert = page().locator('form.record').getByRole('alert');
    expect(await alert.textContent()).toBe('The entries add up to €50.00; they must add up to zero.');
    await page().getByLabel('Amount 2', { exact: true }).fill('-100');
    await expect.poll(() => alert.count()).toBe(0);
  });

  it('finding 3: a date more than a year away is asked about; declined, nothing is saved', async () => {
    await page().getByRole('radio', { name: 'Money out' }).check();
    await page().getByLabel('Date').fill('2062-03-01');
    await page().getByLabel('Description').fill('Far away');
    await page().getByLabel('Amount', { exact: true }).fill('12');
    await page().getByLabel('Paid from').selectOption({ label: 'Bank' });
    await page().getByLabel('Spent on').selectOption({ label: 'Groceries' });
    const asked: string[] = [];
    page().once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await page().getByRole('button', { name: 'Save', exact: true }).click();
    await page().locator('form.record').getByRole('alert').filter({ hasText: 'Not saved: check the date' }).waitFor();
    expect(asked).toEqual([expect.stringMatching(/^The date .*2062 is more than a year from today\. Save it anyway\?$/)]);
    const list = await page().evaluate(async (api) => (await fetch(`${api}/transactions`, { credentials: 'include' })).json(), s.api);
    expect(list).toEqual([]);
  });

  it('findings 4 and 5: a save is confirmed; the list says what happened, in words, the right way round, and who recorded it', async () => {
    const record = async (mode: string, description: string, amount: string, from: [string, string], to: [string, string]) => {
      await page().getByRole('radio', { name: mode }).check();
      await page().getByLabel('Date').fill('2026-11-02');
      await page().getByLabel('Description').fill(description);
      await page().getByLabel('Amount', { exact: true }).fill(amount);
      await select(from[0]).selectOption({ label: from[1] });
      await select(to[0]).selectOption({ label: to[1] });
      await page().getByRole('button', { name: 'Save', exact: true }).click();
    };
    await record('Money in', 'Wages', '90', ['From (where the money comes from)', 'Salary'], ['Into', 'Bank']);
    expect(await page().locator('form.record').getByRole('status').filter({ hasText: 'Saved' }).textContent()).toMatch(/^Saved “Wages” of .*: Money in €90\.00, from Salary to Bank\. See it in the history$/);
    await record('Money out', 'Market', '45.50', ['Paid from', 'Card'], ['Spent on', 'Groceries']);
    await record('Move money', 'Float', '20', ['From', 'Bank'], ['To', 'Cash box']);
    await page().getByRole('cell', { name: 'Float', exact: true }).waitFor();
    expect((await rowOf('Wages')).slice(1)).toEqual(['Wages', 'Money in €90.00 from Salary to Bank', EMAIL, 'EditDelete']);
    expect((await rowOf('Market')).slice(2, 3)).toEqual(['Money out €45.50 from Card to Groceries']);
    expect((await rowOf('Float')).slice(2, 3)).toEqual(['Moved €20.00 from Bank to Cash box']);
    // A split shows each account in its natural sign: income received is a plus.
    expect((await s.post('/transactions', {
      occurred_on: '2026-11-03', description: 'Payslip',
      entries: [
        { account_id: await idOf('Bank'), amount_cents: 8000 },
        { account_id: await idOf('Groceries'), amount_cents: 1000 },
        { account_id: await idOf('Salary'), amount_cents: -9000 },
      ],
    })).status).toBe(201);
    // Searching asks the API again (after the pause in typing, issue 37 item 1).
    await page().getByLabel('Search').fill('Payslip');
    await page().getByRole('cell', { name: 'Payslip', exact: true }).waitFor();
    await page().getByLabel('Search').fill('');
    await page().getByRole('cell', { name: 'Float', exact: true }).waitFor();
    expect((await rowOf('Payslip'))[2]).toBe('SplitBank €80.00Groceries €10.00Salary €90.00');
    expect(await page().getByRole('table', { name: 'Recorded transactions' }).locator('.negative').count()).toBe(0);

    // Home's recent list says the direction beside each amount.
    await go('Ledger', 'Home');
    const recent = page().getByRole('table', { name: 'Recent transactions' });
    const recentRow = (d: string) => recent.getByRole('row').filter({ has: page().getByRole('rowheader', { name: d, exact: true }) }).locator('td').allTextContents();
    await recent.getByRole('rowheader', { name: 'Wages', exact: true }).waitFor();
    expect((await recentRow('Wages')).slice(1)).toEqual(['Money in', '€90.00']);
    expect((await recentRow('Market')).slice(1)).toEqual(['Money out', '€45.50']);
    expect((await recentRow('Float')).slice(1)).toEqual(['Moved', '€20.00']);
  });

  it('finding 5: on a desktop screen the history is in view beside the form', async () => {
    await go('Transactions', 'Transactions');
    const box = await page().getByRole('heading', { name: 'Recorded transactions', level: 2 }).boundingBox();
    expect(box!.y + box!.height).toBeLessThan(900);
  });

  it("finding 6: in a club's book, labels that name something are nouns: Income this month, Income, Payment, Transfer (issue 37 item 8: Receipt is the file)", async () => {
    const res = await page().evaluate(
      async (api) => (await fetch(`${api}/settings`, { method: 'PUT', credentials: 'include', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ book_style: 'club' }) })).status,
      s.api,
    );
    expect(res).toBe(200);
    await page().reload();
    await go('Ledger', 'Home');
    const cards = page().getByRole('region', { name: 'This month' });
    // Home loads several things at once (D21's Coming up too): read the cards once they are drawn.
    await cards.getByRole('heading', { name: 'Payments this month' }).waitFor();
    expect(await cards.getByRole('heading').allTextContents()).toEqual(['Income this month', 'Payments this month']);
    const recent = page().getByRole('table', { name: 'Recent transactions' });
    await recent.getByRole('rowheader', { name: 'Wages', exact: true }).waitFor();
    expect(await recent.getByRole('cell', { name: 'Income', exact: true }).count()).toBe(1);
    expect(await recent.getByRole('cell', { name: 'Payment', exact: true }).count()).toBe(1);
    expect(await recent.getByRole('cell', { name: 'Transfer', exact: true }).count()).toBe(1);
    // The form keeps D12's action words for what the person does.
    await go('Transactions', 'Transactions');
    await page().getByRole('radio', { name: 'Record income' }).waitFor();
    expect(await page().getByRole('radio', { name: 'Money in' }).count()).toBe(0);
  });

  it('ran without server faults or Content-Security-Policy violations', () => {
    expect(s.faults).toEqual([]);
    expect(s.violations).toEqual([]);
  });

  async function idOf(name: string): Promise<number> {
    const accounts = (await page().evaluate(async (api) => (await fetch(`${api}/accounts`, { credentials: 'include' })).json(), s.api)) as { id: number; name: string }[];
    return accounts.find((a) => a.name === name)!.id;
  }
});
