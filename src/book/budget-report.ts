import { sql } from 'drizzle-orm';
import * as v from 'valibot';
import { rowsOf, type Db } from '../db/database';
import { accountDayTotals, accounts, budgetLines, budgets, INT4_MAX } from '../db/schema';
import { invalid, notFound } from '../errors';
import { dateString, positiveIntegerParam, todayUtc } from '../text';
import { addMonths, monthCount, NO_SUCH_BUDGET } from './budgets';
import type { BudgetReport as BudgetReportShape } from './views';

// D26: plan and reality. One statement (D7) reads the budget, its lines and, from
// account_day_totals, every income and expense account's sum per month of the budget and through
// as_of; the arithmetic (planned, to date, rollover, totals) is done here on those few rows, in
// bigint, so that no figure is rounded.

export type BudgetReport = v.InferOutput<typeof BudgetReportShape>;

export const BudgetReportQuerySchema = v.object({
  id: positiveIntegerParam('id', INT4_MAX),
  as_of: v.optional(dateString('as_of')),
});
export type BudgetReportQuery = v.InferOutput<typeof BudgetReportQuerySchema>;

interface Row {
  name: string;
  from_month: string;
  to_month: string;
  account_id: number | null;
  account_name: string | null;
  kind: 'income' | 'expense' | null;
  position: number | null;
  amount_cents: string | null;
  per: 'month' | 'period' | null;
  rollover: boolean | null;
  /** The month of `actual`, `YYYY-MM-DD` (its first day); null for an account with no entries in the budget's months. */
  month: string | null;
  /** Natural sign (D6), the month's entries. */
  actual: string | null;
  /** Natural sign, the entries from the budget's first day through as_of (or its last day, whichever is first). */
  to_date: string | null;
}

/**
 * The one statement: a row per (account, month with entries) for every income or expense account
 * that a line names or that has entries in the budget's months, a line's account also with a row
 * when it has none; the budget's own columns on every row, and one row of them alone for a budget
 * with neither. No row at all: no such budget.
 */
function reportStatement(id: number, asOf: string) {
  return sql`
    with b as (
      select name, from_month, to_month, (to_month + interval '1 month' - interval '1 day')::date as last_day
      from ${budgets} where id = ${id}
    ), kinds as (
      select id, name, kind, case when kind = 'income' then -1 else 1 end as sign
      from ${accounts} where kind in ('income', 'expense')
    ), monthly as (
      select d.account_id, date_trunc('month', d.occurred_on)::date as month, sum(d.total_cents) as total
      from ${accountDayTotals} d, b
      where d.account_id = any(array(select id from kinds))
        and d.occurred_on between b.from_month and b.last_day
      group by d.account_id, date_trunc('month', d.occurred_on)
    ), to_date as (
      select d.account_id, sum(d.total_cents) as total
      from ${accountDayTotals} d, b
      where d.account_id = any(array(select id from kinds))
        and d.occurred_on between b.from_month and least(b.last_day, ${asOf}::date)
      group by d.account_id
    ), named as (
      select k.id, k.name, k.kind, k.sign, l.position, l.amount_cents, l.per, l.rollover
      from kinds k
      left join ${budgetLines} l on l.account_id = k.id and l.budget_id = ${id}
      where l.budget_id is not null or exists (select 1 from monthly m where m.account_id = k.id)
    )
    select b.name, b.from_month::text, b.to_month::text,
      n.id as account_id, n.name as account_name, n.kind::text as kind, n.position,
      n.amount_cents::text as amount_cents, n.per::text as per, n.rollover,
      m.month::text as month, (m.total * n.sign)::text as actual, (t.total * n.sign)::text as to_date
    from b
    left join named n on true
    left join monthly m on m.account_id = n.id
    left join to_date t on t.account_id = n.id
    order by n.kind, lower(n.name) collate "C", n.name collate "C", m.month`;
}

/** The statement of the report, for scripts/bench-reports.ts's EXPLAIN. */
export const budgetReportStatement = reportStatement;

function safe(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw invalid('a figure of this report is too large to be represented exactly');
  }
  return Number(value);
}

interface Account {
  account_id: number;
  account_name: string;
  kind: 'income' | 'expense';
  line: { position: number; amount: bigint; per: 'month' | 'period'; rollover: boolean } | null;
  /** By month `YYYY-MM`. */
  actual: Map<string, bigint>;
  toDate: bigint;
}

/** GET /reports/budget (D26): natural sign throughout. */
export async function budgetReport(db: Db, query: BudgetReportQuery): Promise<BudgetReport> {
  const asOf = query.as_of ?? todayUtc();
  const rows = rowsOf<Row>(await db.execute(reportStatement(query.id, asOf)));
  const head = rows[0];
  if (!head) throw notFound(NO_SUCH_BUDGET);
  const from = head.from_month.slice(0, 7);
  const to = head.to_month.slice(0, 7);
  const months = Array.from({ length: monthCount(from, to) }, (_, i) => addMonths(from, i));
  // A month has begun by as_of when its first day is on or before it.
  const begun = months.filter((m) => `${m}-01` <= asOf).length;

  const byAccount = new Map<number, Account>();
  for (const r of rows) {
    if (r.account_id === null) continue;
    let account = byAccount.get(r.account_id);
    if (!account) {
      account = {
        account_id: r.account_id,
        account_name: r.account_name!,
        kind: r.kind!,
        line: r.position === null ? null : { position: r.position, amount: BigInt(r.amount_cents!), per: r.per!, rollover: r.rollover! },
        actual: new Map(),
        toDate: BigInt(r.to_date ?? 0),
      };
      byAccount.set(r.account_id, account);
    }
    if (r.month !== null) account.actual.set(r.month.slice(0, 7), BigInt(r.actual ?? 0));
  }

  const totals = { income: { planned: 0n, actual: 0n }, expense: { planned: 0n, actual: 0n } };
  const lines: BudgetReport['lines'] = [];
  const unbudgeted: BudgetReport['unbudgeted'] = [];
  const planned = [...byAccount.values()].filter((a) => a.line !== null).sort((a, b) => a.line!.position - b.line!.position);
  for (const a of planned) {
    const line = a.line!;
    const actuals = months.map((m) => a.actual.get(m) ?? 0n);
    const actual = actuals.reduce((s, x) => s + x, 0n);
    const perMonth = line.per === 'month';
    const plannedCents = perMonth ? line.amount * BigInt(months.length) : line.amount;
    const plannedToDate = perMonth ? line.amount * BigInt(begun) : begun > 0 ? line.amount : 0n;
    let carried = 0n;
    const monthRows = months.map((m, i) => {
      const available = line.rollover ? line.amount + carried : null;
      carried += line.amount - actuals[i]!;
      return { month: m, planned_cents: perMonth ? safe(line.amount) : null, actual_cents: safe(actuals[i]!), available_cents: available === null ? null : safe(available) };
    });
    totals[a.kind].planned += plannedCents;
    totals[a.kind].actual += actual;
    lines.push({
      account_id: a.account_id,
      account_name: a.account_name,
      kind: a.kind,
      per: line.per,
      rollover: line.rollover,
      planned_cents: safe(plannedCents),
      planned_to_date_cents: safe(plannedToDate),
      actual_cents: safe(actual),
      actual_to_date_cents: safe(a.toDate),
      months: monthRows,
    });
  }
  // The statement's order is GET /accounts order.
  for (const a of byAccount.values()) {
    if (a.line !== null) continue;
    const actual = [...a.actual.values()].reduce((s, x) => s + x, 0n);
    if (actual === 0n) continue;
    totals[a.kind].actual += actual;
    unbudgeted.push({ account_id: a.account_id, account_name: a.account_name, kind: a.kind, actual_cents: safe(actual) });
  }
  const pair = (p: { planned: bigint; actual: bigint }) => ({ planned_cents: safe(p.planned), actual_cents: safe(p.actual) });
  return {
    budget_id: query.id,
    name: head.name,
    from,
    to,
    as_of: asOf,
    lines,
    unbudgeted,
    totals: {
      income: pair(totals.income),
      expense: pair(totals.expense),
      result: pair({ planned: totals.income.planned - totals.expense.planned, actual: totals.income.actual - totals.expense.actual }),
    },
  };
}

