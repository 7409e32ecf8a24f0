import { expect } from 'vitest';
import type { WebSession } from './web-session';

// Issue 39 (D26): the book the "Plan and reality" browser tests share, made through the API, with
// its figures computed by hand. Its budget runs from two months before this month (where the
// browser is, Europe/Berlin) to nine months after it, so that "this month" is inside it on any day
// the tests run:
//   Salary (income, 3,000.00 a month): 3,000.00, 3,000.00, then 2,800.00 this month;
//   Groceries (450.00 a month, rollover): 500.00 (50.00 over), 387.90 (62.10 under), then 312.40
//     this month: available 450.00 − 50.00 + 62.10 = 462.10, left 462.10 − 312.40 = 149.70,
//     carried in 12.10 from the two months before;
//   Eating out (100.00 a month): 120.00 this month, 20.00 over;
//   Insurance (600.00 for the whole budget): 250.00 last month, 350.00 left;
//   Fun (no line): 30.00 last month, "not in the plan".
// Totals: income planned 12 × 3,000.00 = 36,000.00, actual 8,800.00; spending planned
// 12 × 450.00 + 12 × 100.00 + 600.00 = 7,200.00, actual 500.00 + 387.90 + 312.40 + 120.00 + 250.00
// + 30.00 = 1,600.30; result planned 28,800.00, actual 7,199.70.

/** Today where the browser is (Europe/Berlin), as the web app counts it. */
export const TODAY = new Date().toLocaleDateString('en-CA', { timeZone: 'Europe/Berlin' });
export const THIS_MONTH = TODAY.slice(0, 7);

/** `YYYY-MM` moved by `n` months. */
export function addMonths(month: string, n: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const index = y * 12 + (m - 1) + n;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

export const FIRST = addMonths(THIS_MONTH, -2);
export const LAST = addMonths(THIS_MONTH, 9);

/** The accounts' names in the test's language. */
export interface PlanNames {
  bank: string;
  opening: string;
  salary: string;
  groceries: string;
  eatingOut: string;
  insurance: string;
  fun: string;
}

/** The hand-computed figures, in cents (D26 natural sign). */
export const FIGURES = {
  salary: { month: 280_000, planned: 300_000, left: 20_000, whole: 3_600_000, actual: 880_000 },
  groceries: { month: 31_240, planned: 45_000, available: 46_210, left: 14_970, carried: 1_210, whole: 540_000, actual: 120_030, availableBefore: 40_000 },
  eatingOut: { month: 12_000, planned: 10_000, over: 2_000, whole: 120_000, actual: 12_000 },
  insurance: { planned: 60_000, actual: 25_000, left: 35_000 },
  fun: { actual: 3_000 },
  income: { planned: 3_600_000, actual: 880_000 },
  expense: { planned: 720_000, actual: 160_030 },
  result: { planned: 2_880_000, actual: 719_970 },
  /** Home's card: the spending planned by the month, this month. */
  card: { planned: 55_000, spent: 43_240 },
} as const;

/** Makes the accounts, the transactions and the budget; answers the accounts' ids and the budget's id. */
export async function makePlanBook(s: WebSession, names: PlanNames, budgetName: string): Promise<{ ids: Record<keyof PlanNames, number>; budgetId: number }> {
  const ids = {} as Record<keyof PlanNames, number>;
  const kinds: Record<keyof PlanNames, string> = { bank: 'asset', opening: 'equity', salary: 'income', groceries: 'expense', eatingOut: 'expense', insurance: 'expense', fun: 'expense' };
  for (const key of Object.keys(kinds) as (keyof PlanNames)[]) {
    const made = await s.post('/accounts', { name: names[key], kind: kinds[key] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    ids[key] = made.body.id;
  }
  const [before, last, now] = [FIRST, addMonths(THIS_MONTH, -1), THIS_MONTH];
  const spent: [string, keyof PlanNames, number][] = [
    [`${before}-10`, 'groceries', 50_000],
    [`${last}-10`, 'groceries', 38_790],
    [`${now}-01`, 'groceries', 31_240],
    [`${now}-01`, 'eatingOut', 12_000],
    [`${last}-12`, 'insurance', 25_000],
    [`${last}-15`, 'fun', 3_000],
  ];
  const earned: [string, number][] = [
    [`${before}-01`, 300_000],
    [`${last}-01`, 300_000],
    [`${now}-01`, 280_000],
  ];
  const post = async (occurred_on: string, description: string, to: number, from: number, cents: number) => {
    const made = await s.post('/transactions', { occurred_on, description, entries: [{ account_id: to, amount_cents: cents }, { account_id: from, amount_cents: -cents }] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
  };
  await post(`${before}-01`, names.opening, ids.bank, ids.opening, 100_000);
  for (const [on, account, cents] of spent) await post(on, names[account], ids[account], ids.bank, cents);
  for (const [on, cents] of earned) await post(on, names.salary, ids.bank, ids.salary, cents);
  return { ids, budgetId: await makePlanBudget(s, ids, budgetName) };
}

/** The budget of the book (POST /budgets); answers its id. */
export async function makePlanBudget(s: WebSession, ids: Record<keyof PlanNames, number>, name: string): Promise<number> {
  const budget = await s.post('/budgets', {
    name,
    from: FIRST,
    to: LAST,
    lines: [
      { account_id: ids.salary, amount_cents: 300_000, per: 'month' },
      { account_id: ids.groceries, amount_cents: 45_000, per: 'month', rollover: true },
      { account_id: ids.eatingOut, amount_cents: 10_000, per: 'month' },
      { account_id: ids.insurance, amount_cents: 60_000, per: 'period' },
    ],
  });
  expect(budget.status, JSON.stringify(budget.body)).toBe(201);
  return budget.body.id;
}

/** The API's report agrees with the hand-computed figures (so the page is checked against both). */
export async function expectReportFigures(s: WebSession, budgetId: number, ids: Record<keyof PlanNames, number>): Promise<void> {
  const { status, body } = await s.call('GET', `/reports/budget?id=${budgetId}&as_of=${TODAY}`);
  expect(status).toBe(200);
  const line = (id: number) => body.lines.find((l: { account_id: number }) => l.account_id === id);
  const month = (id: number, m: string) => line(id).months.find((x: { month: string }) => x.month === m);
  expect(month(ids.salary, THIS_MONTH)).toEqual({ month: THIS_MONTH, planned_cents: FIGURES.salary.planned, actual_cents: FIGURES.salary.month, available_cents: null });
  expect(month(ids.groceries, THIS_MONTH)).toEqual({ month: THIS_MONTH, planned_cents: 45_000, actual_cents: FIGURES.groceries.month, available_cents: FIGURES.groceries.available });
  expect(month(ids.groceries, addMonths(THIS_MONTH, -1)).available_cents).toBe(FIGURES.groceries.availableBefore);
  expect(month(ids.eatingOut, THIS_MONTH)).toMatchObject({ planned_cents: 10_000, actual_cents: FIGURES.eatingOut.month });
  expect(line(ids.insurance)).toMatchObject({ per: 'period', planned_cents: FIGURES.insurance.planned, actual_cents: FIGURES.insurance.actual });
  expect(line(ids.groceries)).toMatchObject({ planned_cents: FIGURES.groceries.whole, actual_cents: FIGURES.groceries.actual });
  expect(body.unbudgeted).toEqual([{ account_id: ids.fun, account_name: expect.any(String), kind: 'expense', actual_cents: FIGURES.fun.actual }]);
  expect(body.totals).toEqual({
    income: { planned_cents: FIGURES.income.planned, actual_cents: FIGURES.income.actual },
    expense: { planned_cents: FIGURES.expense.planned, actual_cents: FIGURES.expense.actual },
    result: { planned_cents: FIGURES.result.planned, actual_cents: FIGURES.result.actual },
  });
}

/** Pages of a PDF: its `/Type /Page` objects (not the `/Pages` tree). */
export function pdfPages(pdf: Buffer): number {
  return (pdf.toString('latin1').match(/\/Type\s*\/Page(?![a-zA-Z])/g) ?? []).length;
}

/** A month in words as the web app shows it ("September"; with its year "September 2026"). */
export function monthShown(month: string, locale: string, withYear = false): string {
  return new Date(`${month}-01T00:00:00Z`).toLocaleDateString(locale, { timeZone: 'UTC', month: 'long', ...(withYear ? { year: 'numeric' } : {}) });
}
