import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, type Harness } from './support/harness';
import { CHALLENGE, json } from './support/http';

// D7 (reports, full tier) with D6 (natural sign) and D13 (sections list every account of their kind,
// zero balances included, in the GET /accounts order). README "Reports (D7)" and the limit on a report
// figure (at most 2^53 − 1 cents, else 400). Every expected figure below is written out by hand from
// the fixture ledger in the comment under `buildLedger`; none is computed by the test.

type Kind = 'asset' | 'liability' | 'equity' | 'income' | 'expense';

const todayUtc = () => new Date().toISOString().slice(0, 10);

/** The ids of the fixture's accounts and transactions, by name. */
class Fixture {
  readonly accounts = new Map<string, number>();
  readonly transactions = new Map<string, number>();

  acct(name: string): number {
    const id = this.accounts.get(name);
    if (id === undefined) throw new Error(`no fixture account ${name}`);
    return id;
  }

  tx(name: string): number {
    const id = this.transactions.get(name);
    if (id === undefined) throw new Error(`no fixture transaction ${name}`);
    return id;
  }

  /** A row of /reports/balances. */
  row(name: string, kind: Kind, balance_cents: number) {
    return { id: this.acct(name), name, kind, balance_cents };
  }

  /** A line of a report section. */
  line(name: string, balance_cents: number) {
    return { id: this.acct(name), name, balance_cents };
  }

  /** An entry of an account register; nothing is reconciled in these books (D20). */
  entry(tx: string, occurred_on: string, description: string, amount_cents: number, balance_cents: number) {
    return { transaction_id: this.tx(tx), occurred_on, description, amount_cents, balance_cents, reconciled: false };
  }
}

async function createAccounts(h: Harness, token: string, f: Fixture, list: [string, Kind][]): Promise<void> {
  for (const [name, kind] of list) {
    const res = await h.call(token, 'POST', '/accounts', { name, kind });
    expect(res.status, name).toBe(201);
    f.accounts.set(name, (await json<{ id: number }>(res)).id);
  }
}

async function postTransaction(
  h: Harness,
  token: string,
  f: Fixture,
  key: string,
  occurred_on: string,
  description: string,
  entries: [string, number][],
): Promise<void> {
  const res = await h.call(token, 'POST', '/transactions', {
    occurred_on,
    description,
    entries: entries.map(([name, amount_cents]) => ({ account_id: f.acct(name), amount_cents })),
  });
  expect(res.status, `${key}: ${JSON.stringify(await res.clone().text())}`).toBe(201);
  f.transactions.set(key, (await json<{ id: number }>(res)).id);
}

/*
 * The fixture ledger (amounts in cents; entry sign: + debit, − credit).
 *
 *   T1  2025-11-01 Opening balance            Bank +500000, cash box +20000, Opening balances −520000
 *   T2  2025-11-15 November salary            Bank +300000, Salary −300000
 *   T3  2025-11-30 Groceries and rent         Bank −150000, Groceries +30000, rent +120000     (last day of month)
 *   T4  2025-12-01 Groceries on the card      Credit card −45000, Groceries +45000            (first day of next; posted LAST)
 *   T6  2025-12-20 Utilities paid in cash     cash box −8000, Utilities +8000                  (posted before T5)
 *   T5  2025-12-20 Gift from grandma          cash box +10000, Gifts −10000                    (same date as T6)
 *   T7  2025-12-31 December salary and bonus  Bank +320000, Salary −300000, Gifts −20000
 *       (January 2026: no transactions)
 *   T8  2026-02-01 Pay the card, fill savings Bank −130000, Credit card +30000, Savings +100000
 *   T9  2026-02-28 February rent              Bank −120000, rent +120000
 *   T10 2026-03-01 March salary               Bank +300000, Salary −300000
 *   T11 2026-03-15 Shopping                   Bank −47000, Groceries +35000, Utilities +12000
 *   T12 2026-03-20 Salary correction          Salary +5000, Bank −5000
 *
 * Posting order: T1 T2 T3 T6 T5 T7 T8 T9 T10 T11 T12 T4, so transaction ids do not follow dates.
 * Accounts are created in a scrambled order, so account ids do not follow the GET /accounts order.
 *
 * Final natural balances (D6), by hand:
 *   Bank      500000+300000−150000+320000−130000−120000+300000−47000−5000 = 968000
 *   cash box  20000+10000−8000 = 22000;  Savings 100000;  Unused asset 0      → assets 1090000
 *   Credit card −(−45000+30000) = 15000;  Unused liability 0                   → liabilities 15000
 *   Opening balances 520000;  Unused equity 0                                  → equity 520000
 *   Salary 300000+300000+300000−5000 = 895000;  Gifts 10000+20000 = 30000     → income 925000
 *   Groceries 30000+45000+35000 = 110000;  rent 240000;  Utilities 8000+12000 = 20000 → expense 370000
 *   net income 925000 − 370000 = 555000;  1090000 = 15000 + 520000 + 555000 (balanced)
 */
async function buildLedger(h: Harness, token: string, f: Fixture): Promise<void> {
  await createAccounts(h, token, f, [
    ['Utilities', 'expense'],
    ['Salary', 'income'],
    ['Bank', 'asset'],
    ['rent', 'expense'],
    ['Unused income', 'income'],
    ['Credit card', 'liability'],
    ['Opening balances', 'equity'],
    ['cash box', 'asset'],
    ['Groceries', 'expense'],
    ['Unused asset', 'asset'],
    ['Gifts', 'income'],
    ['Savings', 'asset'],
    ['Unused liability', 'liability'],
    ['Unused equity', 'equity'],
    ['Unused expense', 'expense'],
  ]);
  const post = (key: string, on: string, description: string, entries: [string, number][]) =>
    postTransaction(h, token, f, key, on, description, entries);
  await post('T1', '2025-11-01', 'Opening balance', [['Bank', 500000], ['cash box', 20000], ['Opening balances', -520000]]);
  await post('T2', '2025-11-15', 'November salary', [['Bank', 300000], ['Salary', -300000]]);
  await post('T3', '2025-11-30', 'Groceries and rent', [['Bank', -150000], ['Groceries', 30000], ['rent', 120000]]);
  await post('T6', '2025-12-20', 'Utilities paid in cash', [['cash box', -8000], ['Utilities', 8000]]);
  await post('T5', '2025-12-20', 'Gift from grandma', [['cash box', 10000], ['Gifts', -10000]]);
  await post('T7', '2025-12-31', 'December salary and bonus', [['Bank', 320000], ['Salary', -300000], ['Gifts', -20000]]);
  await post('T8', '2026-02-01', 'Pay the card, fill savings', [['Bank', -130000], ['Credit card', 30000], ['Savings', 100000]]);
  await post('T9', '2026-02-28', 'February rent', [['Bank', -120000], ['rent', 120000]]);
  await post('T10', '2026-03-01', 'March salary', [['Bank', 300000], ['Salary', -300000]]);
  await post('T11', '2026-03-15', 'Shopping', [['Bank', -47000], ['Groceries', 35000], ['Utilities', 12000]]);
  await post('T12', '2026-03-20', 'Salary correction', [['Salary', 5000], ['Bank', -5000]]);
  await post('T4', '2025-12-01', 'Groceries on the card', [['Credit card', -45000], ['Groceries', 45000]]);
}


describeEachDatabase('reports over a hand-checked ledger (D7, D6, D13)', (h) => {
  const f = new Fixture();
  let token: string;
  const get = async (path: string) => {
    const res = await h.call(token, 'GET', path);
    expect(res.status, path).toBe(200);
    return json(res);
  };

  /** GET /reports/balances after every transaction (as_of 2026-03-20 or later). */
  const finalBalances = (as_of: string) => ({
    as_of,
    accounts: [
      f.row('Bank', 'asset', 968000),
      f.row('cash box', 'asset', 22000),
      f.row('Savings', 'asset', 100000),
      f.row('Unused asset', 'asset', 0),
      f.row('Credit card', 'liability', 15000),
      f.row('Unused liability', 'liability', 0),
      f.row('Opening balances', 'equity', 520000),
      f.row('Unused equity', 'equity', 0),
      f.row('Gifts', 'income', 30000),
      f.row('Salary', 'income', 895000),
      f.row('Unused income', 'income', 0),
      f.row('Groceries', 'expense', 110000),
      f.row('rent', 'expense', 240000),
      f.row('Unused expense', 'expense', 0),
      f.row('Utilities', 'expense', 20000),
    ],
    totals: { asset: 1090000, liability: 15000, equity: 520000, income: 925000, expense: 370000 },
  });

  beforeAll(async () => {
    ({ token } = await h.userWithToken('reports@example.com'));
    await buildLedger(h, token, f);
    expect((await json<unknown[]>(await h.call(token, 'GET', '/transactions'))).length).toBe(12);
  });

  // ---- balances ----

  it('balances: natural sign per kind (D6), every account in the GET /accounts order, zeros included, totals per kind', async () => {
    const body = await get('/reports/balances?as_of=2026-03-20');
    expect(body).toEqual(finalBalances('2026-03-20'));
    const accounts = await json<{ id: number; name: string; kind: Kind }[]>(await h.call(token, 'GET', '/accounts'));
    expect(body.accounts.map(({ id, name, kind }: { id: number; name: string; kind: Kind }) => ({ id, name, kind }))).toEqual(accounts);
  });

  it('balances: as_of defaults to today (UTC) and then counts every transaction', async () => {
    const before = todayUtc();
    const body = await get('/reports/balances');
    const after = todayUtc();
    expect([before, after]).toContain(body.as_of);
    expect(body).toEqual(finalBalances(body.as_of));
  });

  it('balances: as_of is inclusive — a transaction ON as_of counts, one dated the day after does not', async () => {
    // As of 2025-11-30: T1, T2, T3. Bank 500000+300000−150000 = 650000; cash box 20000;
    // Opening balances 520000; Salary 300000; Groceries 30000; rent 120000.
    expect(await get('/reports/balances?as_of=2025-11-30')).toEqual({
      as_of: '2025-11-30',
      accounts: [
        f.row('Bank', 'asset', 650000),
        f.row('cash box', 'asset', 20000),
        f.row('Savings', 'asset', 0),
        f.row('Unused asset', 'asset', 0),
        f.row('Credit card', 'liability', 0),
        f.row('Unused liability', 'liability', 0),
        f.row('Opening balances', 'equity', 520000),
        f.row('Unused equity', 'equity', 0),
        f.row('Gifts', 'income', 0),
        f.row('Salary', 'income', 300000),
        f.row('Unused income', 'income', 0),
        f.row('Groceries', 'expense', 30000),
        f.row('rent', 'expense', 120000),
        f.row('Unused expense', 'expense', 0),
        f.row('Utilities', 'expense', 0),
      ],
      totals: { asset: 670000, liability: 0, equity: 520000, income: 300000, expense: 150000 },
    });
    // As of 2025-11-29 (the day before T3): T1, T2 only. Bank 800000.
    expect(await get('/reports/balances?as_of=2025-11-29')).toEqual({
      as_of: '2025-11-29',
      accounts: [
        f.row('Bank', 'asset', 800000),
        f.row('cash box', 'asset', 20000),
        f.row('Savings', 'asset', 0),
        f.row('Unused asset', 'asset', 0),
        f.row('Credit card', 'liability', 0),
        f.row('Unused liability', 'liability', 0),
        f.row('Opening balances', 'equity', 520000),
        f.row('Unused equity', 'equity', 0),
        f.row('Gifts', 'income', 0),
        f.row('Salary', 'income', 300000),
        f.row('Unused income', 'income', 0),
        f.row('Groceries', 'expense', 0),
        f.row('rent', 'expense', 0),
        f.row('Unused expense', 'expense', 0),
        f.row('Utilities', 'expense', 0),
      ],
      totals: { asset: 820000, liability: 0, equity: 520000, income: 300000, expense: 0 },
    });
  });

  it('balances: before the first transaction every account is listed at zero', async () => {
    const body = await get('/reports/balances?as_of=2025-10-31');
    expect(body).toEqual({
      as_of: '2025-10-31',
      accounts: finalBalances('x').accounts.map((a) => ({ ...a, balance_cents: 0 })),
      totals: { asset: 0, liability: 0, equity: 0, income: 0, expense: 0 },
    });
  });

  // ---- balance sheet ----

  it('balance-sheet: sections list every account of their kind with zeros (D13); net income = income − expense to date; balanced', async () => {
    // As of 2025-12-31 (T1–T7): Bank 970000, cash box 22000 → 992000; Credit card 45000;
    // Opening balances 520000; income 600000+30000 = 630000, expense 75000+120000+8000 = 203000 → 427000.
    // 992000 = 45000 + 520000 + 427000.
    const december = {
      assets: {
        lines: [f.line('Bank', 970000), f.line('cash box', 22000), f.line('Savings', 0), f.line('Unused asset', 0)],
        total_cents: 992000,
      },
      liabilities: { lines: [f.line('Credit card', 45000), f.line('Unused liability', 0)], total_cents: 45000 },
      equity: { lines: [f.line('Opening balances', 520000), f.line('Unused equity', 0)], total_cents: 520000 },
      net_income_cents: 427000,
      balanced: true,
    };
    expect(await get('/reports/balance-sheet?as_of=2025-12-31')).toEqual({ as_of: '2025-12-31', ...december });
    // January 2026 has no transactions: the end of January reads as the end of December.
    expect(await get('/reports/balance-sheet?as_of=2026-01-31')).toEqual({ as_of: '2026-01-31', ...december });

    // As of 2026-02-28 (T1–T9): Bank 970000−130000−120000 = 720000, Savings 100000 → 842000;
    // Credit card 15000; income 630000, expense 75000+240000+8000 = 323000 → 307000.
    expect(await get('/reports/balance-sheet?as_of=2026-02-28')).toEqual({
      as_of: '2026-02-28',
      assets: {
        lines: [f.line('Bank', 720000), f.line('cash box', 22000), f.line('Savings', 100000), f.line('Unused asset', 0)],
        total_cents: 842000,
      },
      liabilities: { lines: [f.line('Credit card', 15000), f.line('Unused liability', 0)], total_cents: 15000 },
      equity: { lines: [f.line('Opening balances', 520000), f.line('Unused equity', 0)], total_cents: 520000 },
      net_income_cents: 307000,
      balanced: true,
    });
  });

  it('balance-sheet: as_of defaults to today; the whole ledger gives net income 555000 and balances', async () => {
    const before = todayUtc();
    const body = await get('/reports/balance-sheet');
    expect([before, todayUtc()]).toContain(body.as_of);
    expect(body).toEqual({
      as_of: body.as_of,
      assets: {
        lines: [f.line('Bank', 968000), f.line('cash box', 22000), f.line('Savings', 100000), f.line('Unused asset', 0)],
        total_cents: 1090000,
      },
      liabilities: { lines: [f.line('Credit card', 15000), f.line('Unused liability', 0)], total_cents: 15000 },
      equity: { lines: [f.line('Opening balances', 520000), f.line('Unused equity', 0)], total_cents: 520000 },
      net_income_cents: 555000,
      balanced: true,
    });
  });

  it('balance-sheet: balanced stays true on every date, since every transaction balances (D7)', async () => {
    const dates = [
      '2025-10-31', '2025-11-01', '2025-11-14', '2025-11-15', '2025-11-29', '2025-11-30', '2025-12-01',
      '2025-12-19', '2025-12-20', '2025-12-30', '2025-12-31', '2026-01-15', '2026-01-31', '2026-02-01',
      '2026-02-27', '2026-02-28', '2026-03-01', '2026-03-14', '2026-03-15', '2026-03-19', '2026-03-20', '2027-01-01',
    ];
    for (const as_of of dates) {
      const body = await get(`/reports/balance-sheet?as_of=${as_of}`);
      expect(body.balanced, as_of).toBe(true);
      expect(body.assets.total_cents, as_of).toBe(
        body.liabilities.total_cents + body.equity.total_cents + body.net_income_cents,
      );
    }
  });

  // ---- income statement ----

  const incomeStatement = (
    from: string,
    to: string,
    [gifts, salary]: [number, number],
    [groceries, rent, utilities]: [number, number, number],
    totals: { income: number; expenses: number; net: number },
  ) => ({
    from,
    to,
    income: {
      lines: [f.line('Gifts', gifts), f.line('Salary', salary), f.line('Unused income', 0)],
      total_cents: totals.income,
    },
    expenses: {
      lines: [f.line('Groceries', groceries), f.line('rent', rent), f.line('Unused expense', 0), f.line('Utilities', utilities)],
      total_cents: totals.expenses,
    },
    net_cents: totals.net,
  });

  it('income-statement: from/to default to the first and last transaction dates (2025-11-01, 2026-03-20)', async () => {
    // Whole ledger: income 30000 + 895000 = 925000; expenses 110000 + 240000 + 20000 = 370000; net 555000.
    expect(await get('/reports/income-statement')).toEqual(
      incomeStatement('2025-11-01', '2026-03-20', [30000, 895000], [110000, 240000, 20000], {
        income: 925000, expenses: 370000, net: 555000,
      }),
    );
  });

  it('income-statement: from and to are inclusive bounds', async () => {
    // December: T4 (on `from`) Groceries 45000; T5 Gifts 10000; T6 Utilities 8000; T7 (on `to`) Salary 300000,
    // Gifts 20000 → income 330000, expenses 53000, net 277000.
    expect(await get('/reports/income-statement?from=2025-12-01&to=2025-12-31')).toEqual(
      incomeStatement('2025-12-01', '2025-12-31', [30000, 300000], [45000, 0, 8000], {
        income: 330000, expenses: 53000, net: 277000,
      }),
    );
    // 2025-11-30..2025-12-01: T3 (Groceries 30000, rent 120000) and T4 (Groceries 45000) → net −195000.
    expect(await get('/reports/income-statement?from=2025-11-30&to=2025-12-01')).toEqual(
      incomeStatement('2025-11-30', '2025-12-01', [0, 0], [75000, 120000, 0], { income: 0, expenses: 195000, net: -195000 }),
    );
    // January has no transactions: every line at zero.
    expect(await get('/reports/income-statement?from=2026-01-01&to=2026-01-31')).toEqual(
      incomeStatement('2026-01-01', '2026-01-31', [0, 0], [0, 0, 0], { income: 0, expenses: 0, net: 0 }),
    );
  });

  it('income-statement: one bound given, the other defaults to the first or last transaction date', async () => {
    // From 2026-02-01 to (default) 2026-03-20: Salary 300000−5000 = 295000; Groceries 35000, rent 120000,
    // Utilities 12000 → 167000; net 128000.
    expect(await get('/reports/income-statement?from=2026-02-01')).toEqual(
      incomeStatement('2026-02-01', '2026-03-20', [0, 295000], [35000, 120000, 12000], {
        income: 295000, expenses: 167000, net: 128000,
      }),
    );
    // From (default) 2025-11-01 to 2025-11-30: Salary 300000; Groceries 30000, rent 120000 → net 150000.
    expect(await get('/reports/income-statement?to=2025-11-30')).toEqual(
      incomeStatement('2025-11-01', '2025-11-30', [0, 300000], [30000, 120000, 0], {
        income: 300000, expenses: 150000, net: 150000,
      }),
    );
  });

  it('income-statement: every line equals the balances report at `to` minus at the day before `from`, for every period between fixture dates (issue 31 item 5: it reads only income and expense entries)', async () => {
    const dates = ['2025-11-01', '2025-11-15', '2025-11-30', '2025-12-01', '2025-12-20', '2025-12-31', '2026-01-15', '2026-02-28', '2026-03-15', '2026-03-20'];
    const dayBefore = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    type Row = { id: number; kind: Kind; balance_cents: number };
    const balances = new Map<string, Map<number, Row>>();
    const balancesAt = async (as_of: string) => {
      if (!balances.has(as_of)) {
        const body = await get(`/reports/balances?as_of=${as_of}`);
        balances.set(as_of, new Map((body.accounts as Row[]).map((r) => [r.id, r])));
      }
      return balances.get(as_of)!;
    };
    for (const [i, from] of dates.entries()) {
      for (const to of dates.slice(i)) {
        const [before, after] = [await balancesAt(dayBefore(from)), await balancesAt(to)];
        const statement = await get(`/reports/income-statement?from=${from}&to=${to}`);
        for (const [section, kind] of [['income', 'income'], ['expenses', 'expense']] as const) {
          const ids = [...after.values()].filter((r) => r.kind === kind).map((r) => r.id);
          expect(statement[section].lines.map((l: { id: number }) => l.id), `${from}..${to} ${section}`).toEqual(ids);
          for (const line of statement[section].lines as { id: number; balance_cents: number }[]) {
            expect(line.balance_cents, `${from}..${to} account ${line.id}`).toBe(after.get(line.id)!.balance_cents - before.get(line.id)!.balance_cents);
          }
        }
      }
    }
  });
  // ---- monthly ----

  it('monthly: oldest first, the month without transactions (2026-01) included as zeros, defaults = first/last transaction', async () => {
    // 2025-11: income T2 300000; expense T3 30000+120000 = 150000.
    // 2025-12: income T5 10000 + T7 320000 = 330000; expense T4 45000 + T6 8000 = 53000.
    // 2026-02: expense T9 120000.  2026-03: income T10 300000 − T12 5000 = 295000; expense T11 47000.
    expect(await get('/reports/monthly')).toEqual([
      { month: '2025-11', income_cents: 300000, expense_cents: 150000, net_cents: 150000 },
      { month: '2025-12', income_cents: 330000, expense_cents: 53000, net_cents: 277000 },
      { month: '2026-01', income_cents: 0, expense_cents: 0, net_cents: 0 },
      { month: '2026-02', income_cents: 0, expense_cents: 120000, net_cents: -120000 },
      { month: '2026-03', income_cents: 295000, expense_cents: 47000, net_cents: 248000 },
    ]);
  });

  it('monthly: a range inside one month counts only the days in range (inclusive)', async () => {
    // 2025-12-02..2025-12-30 leaves out T4 (12-01) and T7 (12-31): T5 income 10000, T6 expense 8000.
    expect(await get('/reports/monthly?from=2025-12-02&to=2025-12-30')).toEqual([
      { month: '2025-12', income_cents: 10000, expense_cents: 8000, net_cents: 2000 },
    ]);
    // 2025-12-20 alone: the two transactions of that date.
    expect(await get('/reports/monthly?from=2025-12-20&to=2025-12-20')).toEqual([
      { month: '2025-12', income_cents: 10000, expense_cents: 8000, net_cents: 2000 },
    ]);
  });

  it('monthly: a range across the year boundary lists December then January', async () => {
    // 2025-12-31..2026-01-01: T7 only (income 320000).
    expect(await get('/reports/monthly?from=2025-12-31&to=2026-01-01')).toEqual([
      { month: '2025-12', income_cents: 320000, expense_cents: 0, net_cents: 320000 },
      { month: '2026-01', income_cents: 0, expense_cents: 0, net_cents: 0 },
    ]);
    expect(await get('/reports/monthly?from=2025-12-01&to=2026-02-28')).toEqual([
      { month: '2025-12', income_cents: 330000, expense_cents: 53000, net_cents: 277000 },
      { month: '2026-01', income_cents: 0, expense_cents: 0, net_cents: 0 },
      { month: '2026-02', income_cents: 0, expense_cents: 120000, net_cents: -120000 },
    ]);
  });

  it('monthly: one bound given, the other defaults to the first or last transaction date', async () => {
    // 2026-02-15..(2026-03-20): T9 expense 120000; March as above.
    expect(await get('/reports/monthly?from=2026-02-15')).toEqual([
      { month: '2026-02', income_cents: 0, expense_cents: 120000, net_cents: -120000 },
      { month: '2026-03', income_cents: 295000, expense_cents: 47000, net_cents: 248000 },
    ]);
    // (2025-11-01)..2025-12-15: November whole; December only T4 (expense 45000).
    expect(await get('/reports/monthly?to=2025-12-15')).toEqual([
      { month: '2025-11', income_cents: 300000, expense_cents: 150000, net_cents: 150000 },
      { month: '2025-12', income_cents: 0, expense_cents: 45000, net_cents: -45000 },
    ]);
  });

  it('monthly: from after to is not an error but an empty list (README: "A from after to … the list is empty")', async () => {
    expect(await get('/reports/monthly?from=2026-03-01&to=2026-02-01')).toEqual([]);
    // A `from` after the last transaction with `to` left out: `to` defaults to 2026-03-20, so also empty.
    expect(await get('/reports/monthly?from=2026-04-01')).toEqual([]);
  });

  it('monthly: at most 1200 months; 1201 months or more is 400 {error}', async () => {
    const longest = await get('/reports/monthly?from=1901-01-01&to=2000-12-31');
    expect(longest.length).toBe(1200);
    expect(longest[0]).toEqual({ month: '1901-01', income_cents: 0, expense_cents: 0, net_cents: 0 });
    expect(longest[1199]).toEqual({ month: '2000-12', income_cents: 0, expense_cents: 0, net_cents: 0 });
    for (const query of ['from=1900-12-31&to=2000-12-01', 'from=0001-01-01&to=9999-12-31', 'from=1900-01-01']) {
      const res = await h.call(token, 'GET', `/reports/monthly?${query}`);
      expect(res.status, query).toBe(400);
      expect(await json(res), query).toEqual({ error: 'a monthly report covers at most 1200 months' });
    }
  });

  // ---- account register ----

  it('register of an asset account: opening 0, entries oldest first with running balance, closing; from/to default', async () => {
    expect(await get(`/reports/accounts/${f.acct('Bank')}/register`)).toEqual({
      account: { id: f.acct('Bank'), name: 'Bank', kind: 'asset' },
      from: '2025-11-01',
      to: '2026-03-20',
      opening_balance_cents: 0,
      entries: [
        f.entry('T1', '2025-11-01', 'Opening balance', 500000, 500000),
        f.entry('T2', '2025-11-15', 'November salary', 300000, 800000),
        f.entry('T3', '2025-11-30', 'Groceries and rent', -150000, 650000),
        f.entry('T7', '2025-12-31', 'December salary and bonus', 320000, 970000),
        f.entry('T8', '2026-02-01', 'Pay the card, fill savings', -130000, 840000),
        f.entry('T9', '2026-02-28', 'February rent', -120000, 720000),
        f.entry('T10', '2026-03-01', 'March salary', 300000, 1020000),
        f.entry('T11', '2026-03-15', 'Shopping', -47000, 973000),
        f.entry('T12', '2026-03-20', 'Salary correction', -5000, 968000),
      ],
      closing_balance_cents: 968000,
    });
  });

  it('register of an asset account: the opening balance sums everything before from; both bounds inclusive', async () => {
    // Before 2025-12-01: 500000+300000−150000 = 650000.
    expect(await get(`/reports/accounts/${f.acct('Bank')}/register?from=2025-12-01&to=2026-02-28`)).toEqual({
      account: { id: f.acct('Bank'), name: 'Bank', kind: 'asset' },
      from: '2025-12-01',
      to: '2026-02-28',
      opening_balance_cents: 650000,
      entries: [
        f.entry('T7', '2025-12-31', 'December salary and bonus', 320000, 970000),
        f.entry('T8', '2026-02-01', 'Pay the card, fill savings', -130000, 840000),
        f.entry('T9', '2026-02-28', 'February rent', -120000, 720000),
      ],
      closing_balance_cents: 720000,
    });
    // Before 2025-11-30: 800000; T3 on `from` and T7 on `to` both listed.
    expect(await get(`/reports/accounts/${f.acct('Bank')}/register?from=2025-11-30&to=2025-12-31`)).toEqual({
      account: { id: f.acct('Bank'), name: 'Bank', kind: 'asset' },
      from: '2025-11-30',
      to: '2025-12-31',
      opening_balance_cents: 800000,
      entries: [
        f.entry('T3', '2025-11-30', 'Groceries and rent', -150000, 650000),
        f.entry('T7', '2025-12-31', 'December salary and bonus', 320000, 970000),
      ],
      closing_balance_cents: 970000,
    });
  });

  it('register of an income account: amounts and running balance in natural sign (minus the entries, D6)', async () => {
    const account = { id: f.acct('Salary'), name: 'Salary', kind: 'income' };
    expect(await get(`/reports/accounts/${f.acct('Salary')}/register`)).toEqual({
      account,
      from: '2025-11-01',
      to: '2026-03-20',
      opening_balance_cents: 0,
      entries: [
        f.entry('T2', '2025-11-15', 'November salary', 300000, 300000),
        f.entry('T7', '2025-12-31', 'December salary and bonus', 300000, 600000),
        f.entry('T10', '2026-03-01', 'March salary', 300000, 900000),
        f.entry('T12', '2026-03-20', 'Salary correction', -5000, 895000),
      ],
      closing_balance_cents: 895000,
    });
    // From 2026-01-01 (to defaults to 2026-03-20): opening 600000.
    expect(await get(`/reports/accounts/${f.acct('Salary')}/register?from=2026-01-01`)).toEqual({
      account,
      from: '2026-01-01',
      to: '2026-03-20',
      opening_balance_cents: 600000,
      entries: [
        f.entry('T10', '2026-03-01', 'March salary', 300000, 900000),
        f.entry('T12', '2026-03-20', 'Salary correction', -5000, 895000),
      ],
      closing_balance_cents: 895000,
    });
    // To 2025-12-31 (from defaults to 2025-11-01).
    expect(await get(`/reports/accounts/${f.acct('Salary')}/register?to=2025-12-31`)).toEqual({
      account,
      from: '2025-11-01',
      to: '2025-12-31',
      opening_balance_cents: 0,
      entries: [
        f.entry('T2', '2025-11-15', 'November salary', 300000, 300000),
        f.entry('T7', '2025-12-31', 'December salary and bonus', 300000, 600000),
      ],
      closing_balance_cents: 600000,
    });
    // January: no entries; the closing balance is the opening one.
    expect(await get(`/reports/accounts/${f.acct('Salary')}/register?from=2026-01-01&to=2026-01-31`)).toEqual({
      account,
      from: '2026-01-01',
      to: '2026-01-31',
      opening_balance_cents: 600000,
      entries: [],
      closing_balance_cents: 600000,
    });
  });

  it('register: entries ordered by occurred_on, then transaction id — not by posting order alone', async () => {
    // T6 was posted before T5 on the same date: T6 comes first. cash box: 20000, 12000, 22000.
    expect(await get(`/reports/accounts/${f.acct('cash box')}/register`)).toMatchObject({
      opening_balance_cents: 0,
      entries: [
        f.entry('T1', '2025-11-01', 'Opening balance', 20000, 20000),
        f.entry('T6', '2025-12-20', 'Utilities paid in cash', -8000, 12000),
        f.entry('T5', '2025-12-20', 'Gift from grandma', 10000, 22000),
      ],
      closing_balance_cents: 22000,
    });
    expect(f.tx('T6')).toBeLessThan(f.tx('T5'));
    // T4 has the highest transaction id but the date 2025-12-01: it sits between T3 and T11.
    expect(await get(`/reports/accounts/${f.acct('Groceries')}/register`)).toMatchObject({
      entries: [
        f.entry('T3', '2025-11-30', 'Groceries and rent', 30000, 30000),
        f.entry('T4', '2025-12-01', 'Groceries on the card', 45000, 75000),
        f.entry('T11', '2026-03-15', 'Shopping', 35000, 110000),
      ],
      closing_balance_cents: 110000,
    });
    // A liability in natural sign: T4 −45000 → +45000, T8 +30000 → −30000.
    expect(await get(`/reports/accounts/${f.acct('Credit card')}/register`)).toMatchObject({
      account: { id: f.acct('Credit card'), name: 'Credit card', kind: 'liability' },
      entries: [
        f.entry('T4', '2025-12-01', 'Groceries on the card', 45000, 45000),
        f.entry('T8', '2026-02-01', 'Pay the card, fill savings', -30000, 15000),
      ],
      closing_balance_cents: 15000,
    });
  });

  it('register of an account with no entries: zeros and the default period', async () => {
    expect(await get(`/reports/accounts/${f.acct('Unused expense')}/register`)).toEqual({
      account: { id: f.acct('Unused expense'), name: 'Unused expense', kind: 'expense' },
      from: '2025-11-01',
      to: '2026-03-20',
      opening_balance_cents: 0,
      entries: [],
      closing_balance_cents: 0,
    });
  });

  it('register: an unknown account is 404 {error}; an id that is not a positive integer is 400 {error}', async () => {
    for (const id of ['999999', '2147483647', '2147483648']) {
      const res = await h.call(token, 'GET', `/reports/accounts/${id}/register`);
      expect(res.status, id).toBe(404);
      expect(await json(res), id).toEqual({ error: 'no such account' });
    }
    for (const id of ['abc', '-1', '1.5', '1e3', '%20', '0', '000']) {
      const res = await h.call(token, 'GET', `/reports/accounts/${id}/register`);
      expect(res.status, id).toBe(400);
      expect(await json(res), id).toEqual({ error: 'the account id must be a positive integer' });
    }
  });

  // ---- refusals ----

  it('bad dates are 400 {error} on every report (D7), and nothing changes', async () => {
    const bank = f.acct('Bank');
    const routes: [string, string[]][] = [
      ['/reports/balances', ['as_of']],
      ['/reports/balance-sheet', ['as_of']],
      ['/reports/income-statement', ['from', 'to']],
      ['/reports/monthly', ['from', 'to']],
      [`/reports/accounts/${bank}/register`, ['from', 'to']],
    ];
    const badDates = ['2026-02-30', 'yesterday', '2026-1-1', '2026-02-29', '2026-13-01', '20260101', '2026-01-01T00:00:00Z', ''];
    for (const [route, params] of routes) {
      for (const param of params) {
        for (const bad of badDates) {
          const path = `${route}?${param}=${encodeURIComponent(bad)}`;
          const res = await h.call(token, 'GET', path);
          expect(res.status, path).toBe(400);
          expect(await json(res), path).toEqual({ error: `${param} must be a date YYYY-MM-DD` });
        }
        // A repeated parameter is refused rather than guessed at.
        const path = `${route}?${param}=2026-01-01&${param}=2026-01-02`;
        const res = await h.call(token, 'GET', path);
        expect(res.status, path).toBe(400);
        expect(await json(res), path).toEqual({ error: `${param} must be a date YYYY-MM-DD` });
      }
    }
    // A leap day is a real date.
    expect((await get('/reports/balances?as_of=2024-02-29')).as_of).toBe('2024-02-29');
    expect(await get('/reports/balances?as_of=2026-03-20')).toEqual(finalBalances('2026-03-20'));
  });

  it('no credential or an invalid bearer: 401 {error: "authentication required"} with WWW-Authenticate, on every route', async () => {
    const paths = [
      '/reports/balances',
      '/reports/balance-sheet',
      '/reports/income-statement',
      '/reports/monthly',
      `/reports/accounts/${f.acct('Bank')}/register`,
    ];
    for (const path of paths) {
      const res = await h.request(path);
      expect(res.status, path).toBe(401);
      expect(res.headers.get('www-authenticate'), path).toBe(CHALLENGE);
      expect(await json(res), path).toEqual({ error: 'authentication required' });
    }
    const res = await h.call('lg_not-a-real-token', 'GET', '/reports/balances');
    expect(res.status).toBe(401);
    expect(await json(res)).toEqual({ error: 'authentication required' });
  });
});

describeEachDatabase('reports keep exact cents for large figures (D6 limit 10^15, README: report figure ≤ 2^53 − 1)', (h) => {
  const f = new Fixture();
  let token: string;
  const get = async (path: string) => {
    const res = await h.call(token, 'GET', path);
    expect(res.status, path).toBe(200);
    return json(res);
  };

  beforeAll(async () => {
    ({ token } = await h.userWithToken('big-reports@example.com'));
    await createAccounts(h, token, f, [
      ['Vault', 'asset'],
      ['Big capital', 'equity'],
      ['Big income', 'income'],
    ]);
    // B1: two entries of 999999999999999 on Vault; Big capital −1000000000000000 and −999999999999998.
    await postTransaction(h, token, f, 'B1', '2026-05-01', 'Two huge deposits', [
      ['Vault', 999999999999999],
      ['Vault', 999999999999999],
      ['Big capital', -1000000000000000],
      ['Big capital', -999999999999998],
    ]);
    // B2: Vault +999999999999999 from Big income.
    await postTransaction(h, token, f, 'B2', '2026-05-02', 'Huge income', [
      ['Vault', 999999999999999],
      ['Big income', -999999999999999],
    ]);
  });

  it('two entries of 999999999999999 on one asset: balance 1999999999999998, exact', async () => {
    expect(await get('/reports/balances?as_of=2026-05-01')).toEqual({
      as_of: '2026-05-01',
      accounts: [
        f.row('Vault', 'asset', 1999999999999998),
        f.row('Big capital', 'equity', 1999999999999998),
        f.row('Big income', 'income', 0),
      ],
      totals: { asset: 1999999999999998, liability: 0, equity: 1999999999999998, income: 0, expense: 0 },
    });
    expect(await get(`/reports/accounts/${f.acct('Vault')}/register`)).toEqual({
      account: { id: f.acct('Vault'), name: 'Vault', kind: 'asset' },
      from: '2026-05-01',
      to: '2026-05-02',
      opening_balance_cents: 0,
      entries: [
        f.entry('B1', '2026-05-01', 'Two huge deposits', 999999999999999, 999999999999999),
        f.entry('B1', '2026-05-01', 'Two huge deposits', 999999999999999, 1999999999999998),
        f.entry('B2', '2026-05-02', 'Huge income', 999999999999999, 2999999999999997),
      ],
      closing_balance_cents: 2999999999999997,
    });
  });

  it('balance sheet, income statement and monthly stay exact near 3·10^15', async () => {
    // Vault 2999999999999997 = Big capital 1999999999999998 + net income 999999999999999.
    expect(await get('/reports/balance-sheet?as_of=2026-05-31')).toEqual({
      as_of: '2026-05-31',
      assets: { lines: [f.line('Vault', 2999999999999997)], total_cents: 2999999999999997 },
      liabilities: { lines: [], total_cents: 0 },
      equity: { lines: [f.line('Big capital', 1999999999999998)], total_cents: 1999999999999998 },
      net_income_cents: 999999999999999,
      balanced: true,
    });
    expect(await get('/reports/income-statement')).toEqual({
      from: '2026-05-01',
      to: '2026-05-02',
      income: { lines: [f.line('Big income', 999999999999999)], total_cents: 999999999999999 },
      expenses: { lines: [], total_cents: 0 },
      net_cents: 999999999999999,
    });
    expect(await get('/reports/monthly')).toEqual([
      { month: '2026-05', income_cents: 999999999999999, expense_cents: 0, net_cents: 999999999999999 },
    ]);
  });

  it('a figure beyond 2^53 − 1 cents is refused with 400 {error}, not rounded; earlier dates still report exactly', async () => {
    // B3 (2026-06-01): ten entries of +10^15 on Vault, ten of −10^15 on Big capital. Vault would be
    // 2999999999999997 + 10^16 = 12999999999999997 > 9007199254740991.
    await postTransaction(h, token, f, 'B3', '2026-06-01', 'Beyond a safe integer', [
      ...Array.from({ length: 10 }, (): [string, number] => ['Vault', 1000000000000000]),
      ...Array.from({ length: 10 }, (): [string, number] => ['Big capital', -1000000000000000]),
    ]);
    for (const path of [
      '/reports/balances?as_of=2026-06-01',
      '/reports/balance-sheet?as_of=2026-06-01',
      `/reports/accounts/${f.acct('Vault')}/register`,
    ]) {
      const res = await h.call(token, 'GET', path);
      expect(res.status, path).toBe(400);
      expect(await json(res), path).toEqual({ error: 'a figure of this report is too large to be represented exactly' });
    }
    expect((await get('/reports/balances?as_of=2026-05-31')).totals).toEqual({
      asset: 2999999999999997, liability: 0, equity: 1999999999999998, income: 999999999999999, expense: 0,
    });
  });
});

describeEachDatabase('reports on a ledger without transactions (D7 defaults)', (h) => {
  const f = new Fixture();
  let token: string;
  const get = async (path: string) => {
    const res = await h.call(token, 'GET', path);
    expect(res.status, path).toBe(200);
    return json(res);
  };

  beforeAll(async () => {
    ({ token } = await h.userWithToken('empty-reports@example.com'));
  });

  it('with no accounts at all: balances list nothing and every total is zero', async () => {
    const before = todayUtc();
    const body = await get('/reports/balances');
    expect([before, todayUtc()]).toContain(body.as_of);
    expect(body).toEqual({
      as_of: body.as_of,
      accounts: [],
      totals: { asset: 0, liability: 0, equity: 0, income: 0, expense: 0 },
    });
  });

  it('with one account of each kind and no transactions: every balance zero, balanced', async () => {
    await createAccounts(h, token, f, [
      ['Empty expense', 'expense'],
      ['Empty income', 'income'],
      ['Empty equity', 'equity'],
      ['Empty liability', 'liability'],
      ['Empty asset', 'asset'],
    ]);
    expect(await get('/reports/balances?as_of=2026-01-01')).toEqual({
      as_of: '2026-01-01',
      accounts: [
        f.row('Empty asset', 'asset', 0),
        f.row('Empty liability', 'liability', 0),
        f.row('Empty equity', 'equity', 0),
        f.row('Empty income', 'income', 0),
        f.row('Empty expense', 'expense', 0),
      ],
      totals: { asset: 0, liability: 0, equity: 0, income: 0, expense: 0 },
    });
    expect(await get('/reports/balance-sheet?as_of=2026-01-01')).toEqual({
      as_of: '2026-01-01',
      assets: { lines: [f.line('Empty asset', 0)], total_cents: 0 },
      liabilities: { lines: [f.line('Empty liability', 0)], total_cents: 0 },
      equity: { lines: [f.line('Empty equity', 0)], total_cents: 0 },
      net_income_cents: 0,
      balanced: true,
    });
  });

  it('from/to default to today when there are no transactions (README): income statement, monthly, register', async () => {
    const before = todayUtc();
    const statement = await get('/reports/income-statement');
    const monthly = await get('/reports/monthly');
    const register = await get(`/reports/accounts/${f.acct('Empty asset')}/register`);
    const after = todayUtc();
    expect(before, 'the run crossed midnight UTC; run again').toBe(after);
    expect(statement).toEqual({
      from: before,
      to: before,
      income: { lines: [f.line('Empty income', 0)], total_cents: 0 },
      expenses: { lines: [f.line('Empty expense', 0)], total_cents: 0 },
      net_cents: 0,
    });
    // Monthly with no transactions and no bounds: the current month, as zeros.
    expect(monthly).toEqual([{ month: before.slice(0, 7), income_cents: 0, expense_cents: 0, net_cents: 0 }]);
    expect(register).toEqual({
      account: { id: f.acct('Empty asset'), name: 'Empty asset', kind: 'asset' },
      from: before,
      to: before,
      opening_balance_cents: 0,
      entries: [],
      closing_balance_cents: 0,
    });
  });
});
