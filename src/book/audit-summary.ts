import { sql, type SQL } from 'drizzle-orm';
import * as v from 'valibot';
import { rowsOf, type Db } from '../db/database';
import { accounts, attachments, changes, entries, people, reconciliations } from '../db/schema';
import { dateString } from '../text';
import { listAccounts } from './accounts';
import { budgetReport } from './budget-report';
import { listBudgets } from './budgets';
import { IN_TRANSIT_ACCOUNT } from './direct-debits';
import { whoOwes } from './people-report';
import { listReconciliations } from './reconciliation';
import { balanceSheetReport, incomeStatementReport } from './reports';
import type { BalanceSheet, BudgetReport, IncomeStatement, Reconciliation, WhoOwes } from './views';

// D28: the auditors' pack's summary.json. Every part is what its route answers for the same dates,
// built by the route's own function (issue 42: never recomputed here); only the checklist is this
// module's own, one SQL statement per item (no query per transaction).

/** An amount of money like `50.00` (a dot, at most two decimals; not negative), in cents. */
function moneyParam(field: string) {
  const message = `${field} must be an amount like 50.00`;
  return v.pipe(
    v.string(message),
    v.regex(/^\d{1,13}(\.\d{1,2})?$/, message),
    v.transform((s) => {
      const [whole, fraction = ''] = s.split('.');
      return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
    }),
  );
}

/** GET /export/audit.zip's query (D28): `receipts_over` in cents. */
export const AuditQuerySchema = v.pipe(
  v.object({
    from: v.pipe(dateString('from'), v.description('the first day of the period')),
    to: v.pipe(dateString('to'), v.description('the last day of the period, not before from')),
    receipts_over: v.pipe(
      v.optional(moneyParam('receipts_over'), '50.00'),
      v.description('the checklist lists expenses above this amount without a receipt (default 50.00)'),
    ),
    lang: v.pipe(v.optional(v.picklist(['en', 'de'], 'lang must be en or de'), 'en'), v.description('the language of index.html and signature.html (D29)')),
  }),
  v.check((q) => q.to >= q.from, 'to must not be before from'),
  // The opening balance sheet is the day before `from`; there is no day before 0001-01-01 (D7's dates).
  v.check((q) => q.from > '0001-01-01', 'from must be after 0001-01-01'),
);
export type AuditQuery = v.InferOutput<typeof AuditQuerySchema>;

type ReconciliationView = v.InferOutput<typeof Reconciliation>;

export interface AuditAccount {
  id: number;
  name: string;
  kind: 'asset' | 'liability';
  /** Natural sign (D6), at the day before `from`. */
  opening_cents: number;
  /** Natural sign, at `to`. */
  closing_cents: number;
  /** Those dated in the period, newest first. */
  reconciliations: ReconciliationView[];
}

export interface AuditChecklist {
  missing_receipts: number[];
  changed_after: number[];
  unreconciled_accounts: number[];
}

/** D28's summary.json. */
export interface AuditSummary {
  from: string;
  to: string;
  balance_sheet_opening: v.InferOutput<typeof BalanceSheet>;
  balance_sheet_closing: v.InferOutput<typeof BalanceSheet>;
  income_statement: v.InferOutput<typeof IncomeStatement>;
  budgets: v.InferOutput<typeof BudgetReport>[];
  accounts: AuditAccount[];
  people: v.InferOutput<typeof WhoOwes> | null;
  checklist: AuditChecklist;
}

/** A change written more than this many days after the transaction's date is a late one (D28). */
const LATE_AFTER_DAYS = 7;

/** The day before `day` (`YYYY-MM-DD`). */
function dayBefore(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

/** The accounts D28 leaves out of `accounts` and the checklist: people's (D27) and the in-transit one. */
const leftOut = (accountId: SQL) =>
  sql`(exists (select 1 from ${people} p where p.account_id = ${accountId}) or ${accountId} in (select a2.id from ${accounts} a2 where lower(a2.name) = lower(${IN_TRANSIT_ACCOUNT})))`;

/** Transactions of the period whose expense entries sum to more than `over` cents, with no receipt. */
async function missingReceipts(db: Db, from: string, to: string, over: number): Promise<number[]> {
  const rows = rowsOf<{ id: number }>(await db.execute(sql`
    select e.transaction_id as id
    from ${entries} e
    join ${accounts} a on a.id = e.account_id and a.kind = 'expense'
    where e.occurred_on between ${from}::date and ${to}::date
      and not exists (select 1 from ${attachments} x where x.transaction_id = e.transaction_id)
    group by e.transaction_id
    having sum(e.amount_cents) > ${over}
    order by e.transaction_id`));
  return rows.map((r) => Number(r.id));
}

/**
 * Update, delete and restore records of transactions dated (before or after) in the period, written
 * (the UTC day of `at`, whenever) more than 7 days after the later of the two dates.
 */
async function changedAfter(db: Db, from: string, to: string): Promise<number[]> {
  const rows = rowsOf<{ id: number }>(await db.execute(sql`
    select c.id
    from (
      select id, at, (before->>'occurred_on')::date as before_on, (after->>'occurred_on')::date as after_on
      from ${changes}
      where subject = 'transaction' and action in ('update', 'delete', 'restore')
    ) c
    where (c.before_on between ${from}::date and ${to}::date or c.after_on between ${from}::date and ${to}::date)
      and (c.at at time zone 'UTC')::date > greatest(c.before_on, c.after_on) + ${LATE_AFTER_DAYS}::int
    order by c.id`));
  return rows.map((r) => Number(r.id));
}

/** Asset accounts (not people's, not in transit) with entries in the period and no reconciliation dated in it. */
async function unreconciledAccounts(db: Db, from: string, to: string): Promise<number[]> {
  const rows = rowsOf<{ id: number }>(await db.execute(sql`
    select a.id
    from ${accounts} a
    where a.kind = 'asset'
      and not ${leftOut(sql.raw('a.id'))}
      and exists (select 1 from ${entries} e where e.account_id = a.id and e.occurred_on between ${from}::date and ${to}::date)
      and not exists (select 1 from ${reconciliations} r where r.account_id = a.id and r.statement_date between ${from}::date and ${to}::date)
    order by a.id`));
  return rows.map((r) => Number(r.id));
}

/** The accounts D28 leaves out of `accounts`: people's and "Direct debits in transit". */
async function leftOutAccountIds(db: Db): Promise<Set<number>> {
  const rows = rowsOf<{ id: number }>(await db.execute(sql`
    select a.id from ${accounts} a where ${leftOut(sql.raw('a.id'))}`));
  return new Set(rows.map((r) => Number(r.id)));
}

async function hasPeople(db: Db): Promise<boolean> {
  const rows = rowsOf<{ any: boolean }>(await db.execute(sql`select exists (select 1 from ${people}) as any`));
  return Boolean(rows[0]?.any);
}

/** D28: summary.json of the pack for `query`'s period. */
export async function auditSummary(db: Db, query: AuditQuery): Promise<AuditSummary> {
  // One snapshot: a transaction posted while the pack is made is in every part or in none.
  return db.transaction((tx) => summaryOf(tx, query), { isolationLevel: 'repeatable read', accessMode: 'read only' });
}

async function summaryOf(db: Db, query: AuditQuery): Promise<AuditSummary> {
  const { from, to } = query;
  const opening = await balanceSheetReport(db, { as_of: dayBefore(from) });
  const closing = await balanceSheetReport(db, { as_of: to });
  const income = await incomeStatementReport(db, { from, to });

  // D26: a budget overlaps the period when its months and the period's months meet.
  const budgets: AuditSummary['budgets'] = [];
  for (const b of await listBudgets(db)) {
    if (b.id !== null && b.from <= to.slice(0, 7) && b.to >= from.slice(0, 7)) budgets.push(await budgetReport(db, { id: b.id, as_of: to }));
  }

  const excluded = await leftOutAccountIds(db);
  const balanceOf = (sheet: typeof opening, id: number) =>
    [...sheet.assets.lines, ...sheet.liabilities.lines].find((l) => l.id === id)?.balance_cents ?? 0;
  const auditAccounts: AuditAccount[] = [];
  for (const a of await listAccounts(db)) {
    if ((a.kind !== 'asset' && a.kind !== 'liability') || excluded.has(a.id)) continue;
    const reconciled = (await listReconciliations(db, a.id)).filter((r) => r.statement_date >= from && r.statement_date <= to);
    auditAccounts.push({
      id: a.id,
      name: a.name,
      kind: a.kind,
      opening_cents: balanceOf(opening, a.id),
      closing_cents: balanceOf(closing, a.id),
      reconciliations: reconciled,
    });
  }

  return {
    from,
    to,
    balance_sheet_opening: opening,
    balance_sheet_closing: closing,
    income_statement: income,
    budgets,
    accounts: auditAccounts,
    people: (await hasPeople(db)) ? await whoOwes(db, { as_of: to }) : null,
    checklist: {
      missing_receipts: await missingReceipts(db, from, to, query.receipts_over),
      changed_after: await changedAfter(db, from, to),
      unreconciled_accounts: await unreconciledAccounts(db, from, to),
    },
  };
}
