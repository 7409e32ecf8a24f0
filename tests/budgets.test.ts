import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { restoreBackup, writeBackup } from '../src/admin/backup';
import { describeEachDatabase } from './support/harness';
import { openTestDatabase } from './support/databases';
import { json } from './support/http';

// Issue 39 (D26) over HTTP, on both databases: budgets (every status and shape, every 400 naming
// its field, change records), the draft from last year's figures, the report's arithmetic on
// hand-computed cases (month and period lines, as_of before, inside and after, rollover across an
// overspent month, unbudgeted accounts, totals and result), a property that every actual is the
// plain sum of entries, the 409s of an account a line names, and a backup round trip.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

describeEachDatabase('issue 39: budgets (D26)', (h) => {
  let token: string;
  let email: string;
  const ids: Record<string, number> = {};
  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);
  const expectStatus = async (res: Response, status: number) => {
    expect(res.status, await res.clone().text()).toBe(status);
    return res.status === 204 ? undefined : json(res);
  };
  const post = async (occurred_on: string, account: string, amount: number, counter = 'Bank') =>
    expectStatus(
      await api('POST', '/transactions', {
        occurred_on,
        description: `${account} ${occurred_on}`,
        entries: [{ account_id: ids[account], amount_cents: amount }, { account_id: ids[counter], amount_cents: -amount }],
      }),
      201,
    );

  /** The hand-computed book: budget 2025-01 … 2025-04. */
  const plan = () => ({
    name: 'Plan 2025',
    from: '2025-01',
    to: '2025-04',
    lines: [
      { account_id: ids.Salary, amount_cents: 300_000, per: 'month' },
      { account_id: ids.Groceries, amount_cents: 40_000, per: 'month', rollover: true },
      { account_id: ids.Rent, amount_cents: 100_000, per: 'period' },
      { account_id: ids.Holiday, amount_cents: 50_000, per: 'month', rollover: false },
    ],
  });
  let planId: number;

  beforeAll(async () => {
    email = 'treasurer@budgets.example';
    ({ token } = await h.userWithToken(email));
    const kinds = [
      ['Bank', 'asset'], ['Salary', 'income'], ['Gifts', 'income'], ['Groceries', 'expense'], ['Rent', 'expense'],
      ['Holiday', 'expense'], ['Fun', 'expense'], ['Idle', 'expense'], ['Loan', 'liability'],
    ] as const;
    for (const [name, kind] of kinds) ids[name] = (await expectStatus(await api('POST', '/accounts', { name, kind }), 201)).id;
    // Salary is income: money in is a credit (a negative entry on Salary).
    await post('2025-01-10', 'Salary', -300_000);
    await post('2025-02-10', 'Salary', -310_000);
    await post('2024-12-31', 'Groceries', 9_999); // before the budget
    await post('2025-01-05', 'Groceries', 30_000);
    await post('2025-01-20', 'Groceries', 5_000);
    await post('2025-02-15', 'Groceries', 60_000); // overspent: 40,000 planned
    await post('2025-03-03', 'Groceries', 20_000);
    await post('2025-05-01', 'Groceries', 7_777); // after the budget
    await post('2025-01-02', 'Rent', 95_000);
    await post('2025-02-20', 'Fun', 1_234);
    await post('2025-03-20', 'Fun', -234);
    await post('2025-01-15', 'Gifts', -500);
    await post('2025-02-15', 'Gifts', 500); // Gifts: zero in the budget's months
    planId = (await expectStatus(await api('POST', '/budgets', plan()), 201)).id;
  });

  it('D26: POST /budgets → 201 Budget, exactly its shape, lines in the order sent; GET one and the list (by from, then id); a change record (subject budget)', async () => {
    const made = await expectStatus(await api('POST', '/budgets', { name: '  Shape check ', from: '2030-03', to: '2030-05', lines: [
      { account_id: ids.Rent, amount_cents: 0, per: 'period' },
      { account_id: ids.Salary, amount_cents: 12_345, per: 'month' },
    ] }), 201);
    expect(made).toStrictEqual({
      id: expect.any(Number),
      name: 'Shape check',
      from: '2030-03',
      to: '2030-05',
      lines: [
        { account_id: ids.Rent, account_name: 'Rent', kind: 'expense', amount_cents: 0, per: 'period', rollover: false },
        { account_id: ids.Salary, account_name: 'Salary', kind: 'income', amount_cents: 12_345, per: 'month', rollover: false },
      ],
    });
    expect(await expectStatus(await api('GET', `/budgets/${made.id}`), 200)).toStrictEqual(made);
    const early = await expectStatus(await api('POST', '/budgets', { name: 'Early', from: '2020-01', to: '2020-01', lines: [] }), 201);
    expect(early.lines).toEqual([]);
    const list = await expectStatus(await api('GET', '/budgets'), 200);
    const order = list.map((b: Json) => b.id);
    expect(order.indexOf(early.id)).toBeLessThan(order.indexOf(planId));
    expect(order.indexOf(planId)).toBeLessThan(order.indexOf(made.id));
    const page = await expectStatus(await api('GET', `/changes?subject=budget&subject_id=${made.id}`), 200);
    expect(page.changes).toHaveLength(1);
    expect(page.changes[0]).toMatchObject({ subject: 'budget', subject_id: made.id, action: 'create', actor_email: email, before: null, after: made });
  });

  it('D26: PUT /budgets/{id} replaces the whole budget → 200 (change record before/after); DELETE → 204 then 404; unknown 404, malformed id 400', async () => {
    const made = await expectStatus(await api('POST', '/budgets', { name: 'To change', from: '2031-01', to: '2031-12', lines: [{ account_id: ids.Rent, amount_cents: 100, per: 'month' }] }), 201);
    const body = { name: 'to CHANGE', from: '2031-02', to: '2031-03', lines: [{ account_id: ids.Fun, amount_cents: 5, per: 'month', rollover: true }, { account_id: ids.Rent, amount_cents: 7, per: 'period' }] };
    const changed = await expectStatus(await api('PUT', `/budgets/${made.id}`, body), 200);
    expect(changed).toStrictEqual({
      id: made.id, name: 'to CHANGE', from: '2031-02', to: '2031-03',
      lines: [
        { account_id: ids.Fun, account_name: 'Fun', kind: 'expense', amount_cents: 5, per: 'month', rollover: true },
        { account_id: ids.Rent, account_name: 'Rent', kind: 'expense', amount_cents: 7, per: 'period', rollover: false },
      ],
    });
    const page = await expectStatus(await api('GET', `/changes?subject=budget&subject_id=${made.id}`), 200);
    expect(page.changes.map((c: Json) => c.action)).toEqual(['update', 'create']);
    expect(page.changes[0]).toMatchObject({ before: made, after: changed });
    expect(await expectStatus(await api('DELETE', `/budgets/${made.id}`), 204)).toBeUndefined();
    const gone = await expectStatus(await api('GET', `/changes?subject=budget&subject_id=${made.id}`), 200);
    expect(gone.changes[0]).toMatchObject({ action: 'delete', before: changed, after: null });
    for (const [method, body2] of [['GET', undefined], ['PUT', plan()], ['DELETE', undefined]] as const) {
      expect(await expectStatus(await api(method, `/budgets/${made.id}`, body2), 404)).toEqual({ error: 'no such budget' });
      expect((await api(method, '/budgets/abc', body2)).status).toBe(400);
    }
    expect(await expectStatus(await api('GET', '/reports/budget?id=999999'), 404)).toEqual({ error: 'no such budget' });
  });

  it('D26: every bad input is 400 {error} naming the field, never a 500, and nothing is written', async () => {
    const spare = await expectStatus(await api('POST', '/budgets', { name: 'Spare', from: '2032-01', to: '2032-01', lines: [] }), 201);
    const before = await expectStatus(await api('GET', '/budgets'), 200);
    const line = (over: Record<string, unknown>) => ({ name: 'Bad', from: '2032-01', to: '2032-12', lines: [{ account_id: ids.Rent, amount_cents: 100, per: 'month', ...over }] });
    const cases: [unknown, RegExp][] = [
      [{ from: '2032-01', to: '2032-02', lines: [] }, /name/],
      [{ name: '   ', from: '2032-01', to: '2032-02', lines: [] }, /name/],
      [{ name: 'x'.repeat(101), from: '2032-01', to: '2032-02', lines: [] }, /name/],
      [{ name: 'plan 2025', from: '2032-01', to: '2032-02', lines: [] }, /name already exists/],
      [{ name: 'Bad', from: '2032-13', to: '2032-12', lines: [] }, /from must be a month/],
      [{ name: 'Bad', from: '2032-01-01', to: '2032-12', lines: [] }, /from must be a month/],
      [{ name: 'Bad', from: '2032-01', to: 2032, lines: [] }, /to must be a month/],
      [{ name: 'Bad', from: '2032-05', to: '2032-04', lines: [] }, /to must not be before from/],
      [{ name: 'Bad', from: '2032-01', to: '2035-01', lines: [] }, /at most 36 months/],
      [{ name: 'Bad', from: '2032-01', to: '2032-02' }, /lines/],
      [{ name: 'Bad', from: '2032-01', to: '2032-02', lines: {} }, /lines/],
      [line({ amount_cents: -1 }), /amount_cents/],
      [line({ amount_cents: 1.5 }), /amount_cents/],
      [line({ amount_cents: '100' }), /amount_cents/],
      [line({ amount_cents: 1e16 }), /amount_cents/],
      [line({ per: 'week' }), /per must be month or period/],
      [line({ per: 'period', rollover: true }), /rollover/],
      [line({ rollover: 'yes' }), /rollover/],
      [line({ account_id: 0 }), /account_id/],
      [line({ account_id: 999_999 }), /line 1: account_id names no account/],
      [line({ account_id: ids.Bank }), /line 1: account_id names "Bank", an asset account/],
      [line({ account_id: ids.Loan }), /liability/],
      [{ ...line({}), lines: [{ account_id: ids.Rent, amount_cents: 1, per: 'month' }, { account_id: ids.Rent, amount_cents: 2, per: 'period' }] }, /line 2: account_id/],
      [[], /JSON object|name is required/],
      ['{"name": ', /JSON/],
    ];
    for (const [body, message] of cases) {
      const res = await api('POST', '/budgets', body);
      const answer = await expectStatus(res, 400);
      expect(Object.keys(answer), JSON.stringify(body)).toEqual(['error']);
      expect(answer.error, JSON.stringify(body)).toMatch(message);
      // PUT is held to the same rules (on another budget: a budget keeps its own name).
      expect((await api('PUT', `/budgets/${spare.id}`, body)).status, JSON.stringify(body)).toBe(400);
    }
    expect(await expectStatus(await api('GET', '/budgets'), 200)).toEqual(before);
    // A budget keeps its own name on PUT (ignoring case it is its own).
    expect((await expectStatus(await api('PUT', `/budgets/${planId}`, { ...plan(), name: 'PLAN 2025' }), 200)).name).toBe('PLAN 2025');
    expect((await expectStatus(await api('PUT', `/budgets/${planId}`, plan()), 200)).name).toBe('Plan 2025');
    for (const query of ['', 'id=', 'id=abc', 'id=0', 'id=1.5', `id=${planId}&as_of=2025-02-30`, `id=${planId}&as_of=today`]) {
      const answer = await expectStatus(await api('GET', `/reports/budget?${query}`), 400);
      expect(Object.keys(answer)).toEqual(['error']);
    }
  });

  it('D26: GET /budgets/draft → a Budget not stored, one period line per income or expense account above zero over the basis, GET /accounts order; basis defaults to the 12 months before from', async () => {
    const draft = await expectStatus(await api('GET', '/budgets/draft?from=2026-01&to=2026-12'), 200);
    // Basis 2025-01-01 … 2025-12-31: Salary 610,000; Groceries 115,000 + 7,777 (May); Rent 95,000; Fun 1,000; Gifts 0 (not above zero).
    expect(draft).toStrictEqual({
      id: null, name: '', from: '2026-01', to: '2026-12',
      lines: [
        { account_id: ids.Salary, account_name: 'Salary', kind: 'income', amount_cents: 610_000, per: 'period', rollover: false },
        { account_id: ids.Fun, account_name: 'Fun', kind: 'expense', amount_cents: 1_000, per: 'period', rollover: false },
        { account_id: ids.Groceries, account_name: 'Groceries', kind: 'expense', amount_cents: 122_777, per: 'period', rollover: false },
        { account_id: ids.Rent, account_name: 'Rent', kind: 'expense', amount_cents: 95_000, per: 'period', rollover: false },
      ],
    });
    // An explicit basis, inclusive at both ends: the 31 Dec 2024 groceries only.
    const narrow = await expectStatus(await api('GET', '/budgets/draft?from=2026-01&to=2026-01&basis_from=2024-12-31&basis_to=2024-12-31'), 200);
    expect(narrow.lines).toEqual([{ account_id: ids.Groceries, account_name: 'Groceries', kind: 'expense', amount_cents: 9_999, per: 'period', rollover: false }]);
    // The default basis of from=2025-02: 2024-02-01 … 2025-01-31 (Gifts' -500 credit is 500 earned).
    const february = await expectStatus(await api('GET', '/budgets/draft?from=2025-02&to=2025-03'), 200);
    expect(february.lines.map((l: Json) => [l.account_name, l.amount_cents])).toEqual([['Gifts', 500], ['Salary', 300_000], ['Groceries', 44_999], ['Rent', 95_000]]);
    // Nothing was stored.
    expect((await expectStatus(await api('GET', '/budgets'), 200)).some((b: Json) => b.name === '')).toBe(false);
    for (const query of ['', 'from=2026-01', 'from=2026-01&to=2025-12', 'from=2026-01&to=2029-01', 'from=2026-13&to=2026-12', 'from=2026-01&to=2026-02&basis_from=2025-02-01&basis_to=2025-01-01', 'from=2026-01&to=2026-02&basis_from=x']) {
      const answer = await expectStatus(await api('GET', `/budgets/draft?${query}`), 400);
      expect(Object.keys(answer), query).toEqual(['error']);
    }
  });

  const line = (report: Json, name: string) => report.lines.find((l: Json) => l.account_name === name);

  it('D26: the report by hand, as_of inside the budget (2025-02-15): planned, to date, actual, months, rollover across an overspent month, unbudgeted, totals and result', async () => {
    const report = await expectStatus(await api('GET', `/reports/budget?id=${planId}&as_of=2025-02-15`), 200);
    expect(report).toStrictEqual({
      budget_id: planId, name: 'Plan 2025', from: '2025-01', to: '2025-04', as_of: '2025-02-15',
      lines: [
        {
          account_id: ids.Salary, account_name: 'Salary', kind: 'income', per: 'month', rollover: false,
          planned_cents: 1_200_000, planned_to_date_cents: 600_000, actual_cents: 610_000, actual_to_date_cents: 610_000,
          months: [
            { month: '2025-01', planned_cents: 300_000, actual_cents: 300_000, available_cents: null },
            { month: '2025-02', planned_cents: 300_000, actual_cents: 310_000, available_cents: null },
            { month: '2025-03', planned_cents: 300_000, actual_cents: 0, available_cents: null },
            { month: '2025-04', planned_cents: 300_000, actual_cents: 0, available_cents: null },
          ],
        },
        {
          account_id: ids.Groceries, account_name: 'Groceries', kind: 'expense', per: 'month', rollover: true,
          planned_cents: 160_000, planned_to_date_cents: 80_000, actual_cents: 115_000, actual_to_date_cents: 95_000,
          months: [
            // Jan leaves 5,000; Feb overspends by 20,000; March spends 20,000 of its 40,000.
            { month: '2025-01', planned_cents: 40_000, actual_cents: 35_000, available_cents: 40_000 },
            { month: '2025-02', planned_cents: 40_000, actual_cents: 60_000, available_cents: 45_000 },
            { month: '2025-03', planned_cents: 40_000, actual_cents: 20_000, available_cents: 25_000 },
            { month: '2025-04', planned_cents: 40_000, actual_cents: 0, available_cents: 45_000 },
          ],
        },
        {
          account_id: ids.Rent, account_name: 'Rent', kind: 'expense', per: 'period', rollover: false,
          planned_cents: 100_000, planned_to_date_cents: 100_000, actual_cents: 95_000, actual_to_date_cents: 95_000,
          months: [
            { month: '2025-01', planned_cents: null, actual_cents: 95_000, available_cents: null },
            { month: '2025-02', planned_cents: null, actual_cents: 0, available_cents: null },
            { month: '2025-03', planned_cents: null, actual_cents: 0, available_cents: null },
            { month: '2025-04', planned_cents: null, actual_cents: 0, available_cents: null },
          ],
        },
        {
          account_id: ids.Holiday, account_name: 'Holiday', kind: 'expense', per: 'month', rollover: false,
          planned_cents: 200_000, planned_to_date_cents: 100_000, actual_cents: 0, actual_to_date_cents: 0,
          months: ['2025-01', '2025-02', '2025-03', '2025-04'].map((month) => ({ month, planned_cents: 50_000, actual_cents: 0, available_cents: null })),
        },
      ],
      // Gifts come to zero in the budget's months, Idle has no entries: neither is listed.
      unbudgeted: [{ account_id: ids.Fun, account_name: 'Fun', kind: 'expense', actual_cents: 1_000 }],
      totals: {
        income: { planned_cents: 1_200_000, actual_cents: 610_000 },
        expense: { planned_cents: 460_000, actual_cents: 211_000 },
        result: { planned_cents: 740_000, actual_cents: 399_000 },
      },
    });
  });

  it('D26: as_of before the budget: nothing planned or spent to date (the 31 Dec entry is outside); after it: to date equals the whole (the May entry is outside)', async () => {
    const before = await expectStatus(await api('GET', `/reports/budget?id=${planId}&as_of=2024-12-31`), 200);
    for (const l of before.lines) {
      expect([l.account_name, l.planned_to_date_cents, l.actual_to_date_cents]).toEqual([l.account_name, 0, 0]);
    }
    expect(line(before, 'Groceries').actual_cents).toBe(115_000);
    expect(before.totals.expense.actual_cents).toBe(211_000);
    const after = await expectStatus(await api('GET', `/reports/budget?id=${planId}&as_of=2025-06-30`), 200);
    for (const l of after.lines) {
      expect([l.account_name, l.planned_to_date_cents, l.actual_to_date_cents]).toEqual([l.account_name, l.planned_cents, l.actual_cents]);
    }
    // The first day of a month begins it: on 2025-03-01 three months have begun.
    const march = await expectStatus(await api('GET', `/reports/budget?id=${planId}&as_of=2025-03-01`), 200);
    expect(line(march, 'Holiday').planned_to_date_cents).toBe(150_000);
    expect(line(march, 'Rent').planned_to_date_cents).toBe(100_000);
    expect(line(march, 'Groceries').actual_to_date_cents).toBe(95_000);
    // Without as_of: today, answered.
    const today = await expectStatus(await api('GET', `/reports/budget?id=${planId}`), 200);
    expect(today.as_of).toBe(new Date().toISOString().slice(0, 10));
  });

  it('D26: a budget without lines over months without entries answers empty lines, no unbudgeted, zero totals', async () => {
    const empty = await expectStatus(await api('POST', '/budgets', { name: 'Empty far', from: '2090-01', to: '2090-02', lines: [] }), 201);
    expect(await expectStatus(await api('GET', `/reports/budget?id=${empty.id}&as_of=2090-01-01`), 200)).toStrictEqual({
      budget_id: empty.id, name: 'Empty far', from: '2090-01', to: '2090-02', as_of: '2090-01-01', lines: [], unbudgeted: [],
      totals: { income: { planned_cents: 0, actual_cents: 0 }, expense: { planned_cents: 0, actual_cents: 0 }, result: { planned_cents: 0, actual_cents: 0 } },
    });
  });

  it('D26: an account a budget line names cannot be deleted nor made an asset, liability or equity account: 409 naming the budget; income ↔ expense and renames are allowed', async () => {
    const account = await expectStatus(await api('POST', '/accounts', { name: 'Club fees', kind: 'expense' }), 201);
    const budget = await expectStatus(await api('POST', '/budgets', { name: 'Fees plan', from: '2033-01', to: '2033-12', lines: [{ account_id: account.id, amount_cents: 1, per: 'month' }] }), 201);
    const refusal = { error: 'the account is in the budget Fees plan', budget_id: budget.id };
    expect(await expectStatus(await api('DELETE', `/accounts/${account.id}`), 409)).toStrictEqual(refusal);
    for (const kind of ['asset', 'liability', 'equity']) {
      expect(await expectStatus(await api('PUT', `/accounts/${account.id}`, { kind }), 409)).toStrictEqual(refusal);
    }
    expect((await expectStatus(await api('PUT', `/accounts/${account.id}`, { kind: 'income', name: 'Club dues' }), 200)).kind).toBe('income');
    expect((await expectStatus(await api('GET', `/budgets/${budget.id}`), 200)).lines[0]).toMatchObject({ account_name: 'Club dues', kind: 'income' });
    // Once no line names it, it goes.
    await expectStatus(await api('DELETE', `/budgets/${budget.id}`), 204);
    await expectStatus(await api('PUT', `/accounts/${account.id}`, { kind: 'asset' }), 200);
    await expectStatus(await api('DELETE', `/accounts/${account.id}`), 204);
  });

  it('D26 property (D7): for random books and budgets, every actual_cents, month actual and unbudgeted actual is the plain sum of entries in natural sign', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ account: fc.nat(4), day: fc.integer({ min: 0, max: 240 }), amount: fc.integer({ min: -50_000, max: 50_000 }).filter((a) => a !== 0) }), { maxLength: 14 }),
        fc.subarray([0, 1, 2, 3, 4]),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 0, max: 3 }),
        async (postings, budgeted, startOffset, length) => {
          run += 1;
          const names = ['In A', 'In B', 'Out A', 'Out B', 'Out C'].map((n) => `${n} ${run}`);
          const kinds = ['income', 'income', 'expense', 'expense', 'expense'];
          const accountIds: number[] = [];
          for (let i = 0; i < 5; i++) accountIds.push((await expectStatus(await api('POST', '/accounts', { name: names[i], kind: kinds[i] }), 201)).id);
          const dayOf = (n: number) => new Date(Date.UTC(2040, 0, 1 + n)).toISOString().slice(0, 10);
          for (const p of postings) {
            await expectStatus(await api('POST', '/transactions', { occurred_on: dayOf(p.day), description: 'random', entries: [{ account_id: accountIds[p.account], amount_cents: p.amount }, { account_id: ids.Bank, amount_cents: -p.amount }] }), 201);
          }
          const from = `2040-${String(1 + startOffset).padStart(2, '0')}`;
          const to = `2040-${String(1 + startOffset + length).padStart(2, '0')}`;
          const budget = await expectStatus(await api('POST', '/budgets', { name: `Random ${run}`, from, to, lines: budgeted.map((i) => ({ account_id: accountIds[i], amount_cents: 100, per: i % 2 ? 'period' : 'month', rollover: i === 2 })) }), 201);
          const report = await expectStatus(await api('GET', `/reports/budget?id=${budget.id}&as_of=2040-12-31`), 200);
          const sumOf = (i: number, month?: string) =>
            postings
              .filter((p) => p.account === i && dayOf(p.day).slice(0, 7) >= from && dayOf(p.day).slice(0, 7) <= to && (month === undefined || dayOf(p.day).startsWith(month)))
              .reduce((s, p) => s + p.amount, 0) * (kinds[i] === 'income' ? -1 : 1) + 0;
          for (const i of [0, 1, 2, 3, 4]) {
            const l = report.lines.find((x: Json) => x.account_id === accountIds[i]);
            const u = report.unbudgeted.find((x: Json) => x.account_id === accountIds[i]);
            if (budgeted.includes(i)) {
              expect(l.actual_cents).toBe(sumOf(i));
              for (const m of l.months) expect(m.actual_cents).toBe(sumOf(i, m.month));
              expect(u).toBeUndefined();
            } else {
              expect(l).toBeUndefined();
              expect(u?.actual_cents ?? 0).toBe(sumOf(i));
            }
          }
        },
      ),
      { numRuns: 12 },
    );
  });

  it('D26, D14: a backup carries budgets and their lines; restored into an empty database the budget and its report are the same', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ledger-budgets-'));
    const target = await openTestDatabase(h.backend);
    try {
      const file = path.join(dir, 'book.ledger-backup');
      await writeBackup(h.db, file);
      await restoreBackup(target.db, file);
      const { createApp } = await import('../src/http/app');
      const app = createApp({ db: target.db, config: h.config, log: { info() {}, error() {} } });
      const read = (p: string) => Promise.resolve(app.request(new URL(p, h.config.apiOrigin).href, { headers: { authorization: `Bearer ${token}` } }));
      for (const p of ['/budgets', `/budgets/${planId}`, `/reports/budget?id=${planId}&as_of=2025-02-15`]) {
        const [mine, theirs] = await Promise.all([api('GET', p), read(p)]);
        expect(theirs.status, p).toBe(200);
        expect(await theirs.json(), p).toEqual(await mine.json());
      }
      // A budget made after the restore gets an id past every restored one.
      const list = await (await read('/budgets')).json();
      const res = await Promise.resolve(app.request(new URL('/budgets', h.config.apiOrigin).href, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'After the restore', from: '2040-01', to: '2040-01', lines: [] }),
      }));
      expect(res.status).toBe(201);
      expect((await res.json()).id).toBeGreaterThan(Math.max(...list.map((b: Json) => b.id)));
    } finally {
      await target.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

