import { and, asc, eq, gte, inArray, lte, max, min, sql, type SQL } from 'drizzle-orm';
import * as v from 'valibot';
import type { Db } from '../db/database';
import { accountDayTotals, accounts, entries, transactions, type AccountKind } from '../db/schema';
import { invalid, notFound } from '../errors';
import { dateString, todayUtc } from '../text';
import { isCreditNormal } from './rules';
import { Balances, BalanceSheet, IncomeStatement, Monthly, Register, Section as SectionShape } from './views';

// D7: every report is computed by SQL aggregates, and none loads every entry. The balances, the
// balance sheet, the income statement, the monthly report and a register's opening balance add up
// account_day_totals (per account and day, kept by triggers on entries: drizzle/0014), so at
// 1,000,000 entries they read tens of thousands of account-days instead of every entry (issue 31
// item 5); a register's lines are entries, filtered by the date each carries (entries.occurred_on,
// kept equal to its transaction's). Figures are in natural sign (D6): assets and expenses are the
// sum of their entries, liabilities, equity and income minus that sum.

/** The factor that puts a sum of entries of `kind` in natural sign (D6; src/book/rules.ts). */
function naturalSign(kind: AccountKind): 1n | -1n {
  return isCreditNormal(kind) ? -1n : 1n;
}

/** The longest monthly report (100 years): a bound on generated rows, refused beyond with 400. */
export const MONTHLY_MAX_MONTHS = 1200;

export const AsOfSchema = v.object({ as_of: v.optional(dateString('as_of')) });
export const PeriodSchema = v.object({ from: v.optional(dateString('from')), to: v.optional(dateString('to')) });

/**
 * Sums travel as numeric text from the database and are converted exactly. A JSON number is exact
 * up to 2^53 − 1 cents (about 90 trillion in whole units); a figure beyond that is refused rather
 * than rounded.
 */
export function exactCents(raw: string | number | bigint | null): number {
  return cents(raw);
}

function cents(raw: string | number | bigint | null): number {
  const value = BigInt(raw ?? 0);
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw invalid('a figure of this report is too large to be represented exactly');
  }
  return Number(value);
}

/** D7: `from` and `to` default to the first and last transaction dates (today when there are none). */
async function resolvePeriod(db: Db, period: v.InferOutput<typeof PeriodSchema>): Promise<{ from: string; to: string }> {
  if (period.from && period.to) return { from: period.from, to: period.to };
  const [bounds] = await db
    .select({ first: min(transactions.occurredOn), last: max(transactions.occurredOn) })
    .from(transactions);
  const today = todayUtc();
  return { from: period.from ?? bounds?.first ?? today, to: period.to ?? bounds?.last ?? today };
}

interface AccountBalance {
  id: number;
  name: string;
  kind: AccountKind;
  balance_cents: number;
}

/** The kinds of the income statement: it reads only their accounts' entries. */
const INCOME_STATEMENT_KINDS: AccountKind[] = ['income', 'expense'];

/**
 * The one statement of a balances report: every account (of `kinds`, when given) with the raw sum
 * of its entries on the days in `range`, added up from account_day_totals. With `kinds`, only
 * those accounts' days are read, found through account_day_totals_account_id_occurred_on_idx for
 * all of them at once (`account_id = any(array(…))`).
 */
function balancesStatement(db: Db, range: SQL | undefined, kinds?: AccountKind[]) {
  const ofKinds = kinds && sql`${accountDayTotals.accountId} = any(array(select ${accounts.id} from ${accounts} where ${inArray(accounts.kind, kinds)}))`;
  const sums = db
    .select({ accountId: accountDayTotals.accountId, total: sql<string>`sum(${accountDayTotals.totalCents})`.as('total') })
    .from(accountDayTotals)
    .where(and(range, ofKinds))
    .groupBy(accountDayTotals.accountId)
    .as('sums');
  return db
    .select({ id: accounts.id, name: accounts.name, kind: accounts.kind, total: sums.total })
    .from(accounts)
    .leftJoin(sums, eq(sums.accountId, accounts.id))
    .where(kinds && inArray(accounts.kind, kinds))
    .orderBy(asc(accounts.kind), sql`lower(${accounts.name}) collate "C"`, sql`${accounts.name} collate "C"`);
}

/** The statements of the balance sheet and the income statement, for scripts/bench-reports.ts's EXPLAIN. */
export const reportStatements = {
  balanceSheet: (db: Db, asOf: string) => balancesStatement(db, onOrBefore(asOf)).toSQL(),
  incomeStatement: (db: Db, from: string, to: string) => balancesStatement(db, between(from, to), INCOME_STATEMENT_KINDS).toSQL(),
};

/** The days of account_day_totals up to `asOf`, and from `from` to `to` (inclusive). */
const onOrBefore = (asOf: string) => lte(accountDayTotals.occurredOn, asOf);
const between = (from: string, to: string) => and(gte(accountDayTotals.occurredOn, from), lte(accountDayTotals.occurredOn, to));

/** Every account (of `kinds`; GET /accounts order) with its natural balance over the days in `range`. */
async function balancesWhere(db: Db, range: SQL | undefined, kinds?: AccountKind[]): Promise<AccountBalance[]> {
  const rows = await balancesStatement(db, range, kinds);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    kind: r.kind,
    balance_cents: cents((BigInt(r.total ?? 0) * naturalSign(r.kind)).toString()),
  }));
}

type Totals = Record<AccountKind, number>;

function totalsOf(balances: AccountBalance[]): Totals {
  const totals: Record<AccountKind, bigint> = { asset: 0n, liability: 0n, equity: 0n, income: 0n, expense: 0n };
  for (const b of balances) totals[b.kind] += BigInt(b.balance_cents);
  return {
    asset: cents(totals.asset),
    liability: cents(totals.liability),
    equity: cents(totals.equity),
    income: cents(totals.income),
    expense: cents(totals.expense),
  };
}

type Section = v.InferOutput<typeof SectionShape>;

/** D13: a section lists every account of its kinds, zero balances included, in the GET /accounts order. */
function sectionOf(balances: AccountBalance[], kind: AccountKind): Section {
  const lines = balances.filter((b) => b.kind === kind).map(({ id, name, balance_cents }) => ({ id, name, balance_cents }));
  return { lines, total_cents: cents(lines.reduce((sum, l) => sum + BigInt(l.balance_cents), 0n)) };
}

/** D7: GET /reports/balances. */
export async function balancesReport(db: Db, query: v.InferOutput<typeof AsOfSchema>): Promise<v.InferOutput<typeof Balances>> {
  const asOf = query.as_of ?? todayUtc();
  const balances = await balancesWhere(db, onOrBefore(asOf));
  return { as_of: asOf, accounts: balances, totals: totalsOf(balances) };
}

/** D7: GET /reports/balance-sheet. `balanced`: assets = liabilities + equity + net income. */
export async function balanceSheetReport(db: Db, query: v.InferOutput<typeof AsOfSchema>): Promise<v.InferOutput<typeof BalanceSheet>> {
  const asOf = query.as_of ?? todayUtc();
  const balances = await balancesWhere(db, onOrBefore(asOf));
  const totals = totalsOf(balances);
  const netIncome = BigInt(totals.income) - BigInt(totals.expense);
  return {
    as_of: asOf,
    assets: sectionOf(balances, 'asset'),
    liabilities: sectionOf(balances, 'liability'),
    equity: sectionOf(balances, 'equity'),
    net_income_cents: cents(netIncome),
    balanced: BigInt(totals.asset) === BigInt(totals.liability) + BigInt(totals.equity) + netIncome,
  };
}

/** D7: GET /reports/income-statement. */
export async function incomeStatementReport(db: Db, query: v.InferOutput<typeof PeriodSchema>): Promise<v.InferOutput<typeof IncomeStatement>> {
  const { from, to } = await resolvePeriod(db, query);
  const balances = await balancesWhere(db, between(from, to), INCOME_STATEMENT_KINDS);
  const income = sectionOf(balances, 'income');
  const expenses = sectionOf(balances, 'expense');
  return { from, to, income, expenses, net_cents: cents(BigInt(income.total_cents) - BigInt(expenses.total_cents)) };
}

function monthsBetween(from: string, to: string): number {
  const [fy, fm] = from.split('-').map(Number) as [number, number];
  const [ty, tm] = to.split('-').map(Number) as [number, number];
  return (ty - fy) * 12 + (tm - fm) + 1;
}

/** D7: GET /reports/monthly — oldest month first, months without transactions as zeros. */
export async function monthlyReport(db: Db, query: v.InferOutput<typeof PeriodSchema>): Promise<v.InferOutput<typeof Monthly>> {
  const { from, to } = await resolvePeriod(db, query);
  if (from > to) return [];
  if (monthsBetween(from, to) > MONTHLY_MAX_MONTHS) {
    throw invalid(`a monthly report covers at most ${MONTHLY_MAX_MONTHS} months`);
  }
  const rows = await db
    .select({
      month: sql<string>`to_char(${accountDayTotals.occurredOn}, 'YYYY-MM')`.as('month'),
      kind: accounts.kind,
      total: sql<string>`sum(${accountDayTotals.totalCents})`,
    })
    .from(accountDayTotals)
    .innerJoin(accounts, eq(accounts.id, accountDayTotals.accountId))
    .where(and(between(from, to), sql`${accounts.kind} in ('income', 'expense')`))
    .groupBy(sql`1`, accounts.kind);
  const byMonth = new Map<string, { income: bigint; expense: bigint }>();
  for (const r of rows) {
    const month = byMonth.get(r.month) ?? { income: 0n, expense: 0n };
    if (r.kind === 'income') month.income -= BigInt(r.total);
    else month.expense += BigInt(r.total);
    byMonth.set(r.month, month);
  }
  const months: { month: string; income_cents: number; expense_cents: number; net_cents: number }[] = [];
  let [year, month] = from.split('-').map(Number) as [number, number];
  for (let i = 0; i < monthsBetween(from, to); i++) {
    const key = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`;
    const figures = byMonth.get(key) ?? { income: 0n, expense: 0n };
    months.push({
      month: key,
      income_cents: cents(figures.income),
      expense_cents: cents(figures.expense),
      net_cents: cents(figures.income - figures.expense),
    });
    month += 1;
    if (month === 13) [year, month] = [year + 1, 1];
  }
  return months;
}

/**
 * D7: GET /reports/accounts/{id}/register — the account's entries in the period, oldest first
 * (occurred_on, then transaction id, then entry id), with the running balance computed by a
 * window function on top of the opening balance; all in natural sign. The opening balance and the
 * lines are read in one snapshot (issue 36 item 6): apart, a transaction moved across the period's
 * first day between the two reads was counted twice or not at all.
 */
export async function accountRegisterReport(
  db: Db,
  accountId: number,
  query: v.InferOutput<typeof PeriodSchema>,
): Promise<v.InferOutput<typeof Register>> {
  return db.transaction((tx) => registerOf(tx, accountId, query), { isolationLevel: 'repeatable read', accessMode: 'read only' });
}

async function registerOf(db: Db, accountId: number, query: v.InferOutput<typeof PeriodSchema>): Promise<v.InferOutput<typeof Register>> {
  const [account] = await db
    .select({ id: accounts.id, name: accounts.name, kind: accounts.kind })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  if (!account) throw notFound('no such account');
  const { from, to } = await resolvePeriod(db, query);
  const sign = naturalSign(account.kind);

  const [opening] = await db
    .select({ total: sql<string | null>`sum(${accountDayTotals.totalCents})` })
    .from(accountDayTotals)
    .where(and(eq(accountDayTotals.accountId, accountId), sql`${accountDayTotals.occurredOn} < ${from}`));
  const openingRaw = BigInt(opening?.total ?? 0);

  const lines = await db
    .select({
      transaction_id: transactions.id,
      occurred_on: transactions.occurredOn,
      description: transactions.description,
      amount: entries.amountCents,
      reconciled: sql<boolean>`${entries.reconciliationId} is not null`,
      running: sql<string>`sum(${entries.amountCents}) over (order by ${entries.occurredOn}, ${entries.transactionId}, ${entries.id})`,
    })
    .from(entries)
    .innerJoin(transactions, eq(transactions.id, entries.transactionId))
    .where(and(eq(entries.accountId, accountId), gte(entries.occurredOn, from), lte(entries.occurredOn, to)))
    .orderBy(asc(entries.occurredOn), asc(entries.transactionId), asc(entries.id));

  const registerLines = lines.map((l) => ({
    transaction_id: l.transaction_id,
    occurred_on: l.occurred_on,
    description: l.description,
    amount_cents: cents(BigInt(l.amount) * sign),
    balance_cents: cents((openingRaw + BigInt(l.running)) * sign),
    reconciled: l.reconciled,
  }));
  const closing = registerLines.at(-1)?.balance_cents ?? cents(openingRaw * sign);
  return {
    account,
    from,
    to,
    opening_balance_cents: cents(openingRaw * sign),
    entries: registerLines,
    closing_balance_cents: closing,
  };
}
