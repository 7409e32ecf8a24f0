import { sql, type SQL } from 'drizzle-orm';
import * as v from 'valibot';
import { rowsOf, type Db } from '../db/database';
import { RECONCILIATION_LOCK } from '../db/locks';
import { accounts, entries, INT4_MAX, reconciliations, transactions, type AccountKind } from '../db/schema';
import { conflict, invalid, notFound, Refusal } from '../errors';
import { requestSchema, strictBody } from '../shapes';
import { dateString, todayUtc } from '../text';
import { recordChange, type Actor } from './changes';
import { decimal } from './exports';
import { isCreditNormal } from './rules';
import type { Reconciliation, ReconciliationStatus } from './views';

// D20: an account proved against a bank statement. The entries a reconciliation marks, with those
// reconciled before, must come (natural sign, D6) to the statement's balance; then they are fixed:
// the database refuses to change or delete them (migration 0008), whoever writes. Only the
// latest reconciliation of an account can be undone, which unmarks its entries.

type ReconciliationView = v.InferOutput<typeof Reconciliation>;

/** A statement's balance: any safe integer of cents (a sum of entries may pass the D6 limit of one amount). */
const balanceCents = v.pipe(
  v.number('statement_balance_cents must be an integer'),
  v.safeInteger('statement_balance_cents must be an integer'),
);

/** As many transactions as a year of a busy account; a list is checked row by row. */
export const RECONCILE_IDS_MAX = 10_000;

export const NewReconciliationSchema = requestSchema('NewReconciliation', strictBody(
  {
    statement_date: dateString('statement_date'),
    statement_balance_cents: v.pipe(balanceCents, v.description("the statement's closing balance in natural sign (D6): a card's debt positive")),
    transaction_ids: v.optional(v.pipe(
      v.array(
        v.pipe(v.number('transaction_ids must be integers'), v.integer('transaction_ids must be integers'), v.minValue(1, 'transaction_ids must be positive integers'), v.maxValue(INT4_MAX, 'transaction_ids names no transaction')),
        'transaction_ids must be an array of transaction ids',
      ),
      v.maxLength(RECONCILE_IDS_MAX, `transaction_ids has at most ${RECONCILE_IDS_MAX} ids`),
      v.description('absent: every unreconciled transaction of the account dated on or before statement_date'),
    )),
  },
  'the request body must be a JSON object with statement_date and statement_balance_cents',
));
export type NewReconciliation = v.InferOutput<typeof NewReconciliationSchema>;

export const ReconciliationQuerySchema = v.object({ as_of: v.optional(dateString('as_of')) });

const sign = (kind: AccountKind): bigint => (isCreditNormal(kind) ? -1n : 1n);

async function accountKindOf(db: Db, accountId: number): Promise<AccountKind> {
  const result = await db.execute(sql`select kind from ${accounts} where id = ${accountId}`);
  const [row] = rowsOf<{ kind: AccountKind }>(result);
  if (!row) throw notFound('no such account');
  return row.kind;
}

/** The read shape of each reconciliation of `where`, newest first (statement date, then id). */
async function readReconciliations(db: Db, where: SQL, limit?: number): Promise<ReconciliationView[]> {
  const result = await db.execute(sql`
    select r.id, r.account_id, r.statement_date::text as statement_date, r.statement_balance_cents::text as balance,
      to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, r.created_by_email,
      coalesce((select array_agg(distinct e.transaction_id order by e.transaction_id) from ${entries} e where e.reconciliation_id = r.id), '{}') as transaction_ids
    from ${reconciliations} r
    where ${where}
    order by r.statement_date desc, r.id desc
    limit ${limit ?? null}::integer`);
  return rowsOf<{ id: number; account_id: number; statement_date: string; balance: string; created_at: string; created_by_email: string | null; transaction_ids: number[] }>(result).map((r) => ({
    id: Number(r.id),
    account_id: Number(r.account_id),
    statement_date: r.statement_date,
    statement_balance_cents: Number(r.balance),
    transaction_ids: r.transaction_ids.map(Number),
    created_at: r.created_at,
    created_by_email: r.created_by_email,
  }));
}

const latestOf = async (db: Db, accountId: number) => (await readReconciliations(db, sql`r.account_id = ${accountId}`, 1))[0];

/** The sum of the account's reconciled entries, as stored (debit positive). */
async function reconciledSum(db: Db, accountId: number): Promise<bigint> {
  const result = await db.execute(sql`
    select coalesce(sum(amount_cents), 0)::text as total from ${entries}
    where account_id = ${accountId} and reconciliation_id is not null`);
  return BigInt(rowsOf<{ total: string }>(result)[0]!.total);
}

/**
 * The transactions to mark, their rows locked (shared) in id order so that a correction or delete
 * of one of them (which locks it for update first, src/book/corrections.ts) happens wholly before
 * or wholly after this reconciliation. A given list is checked as D20 says (400 naming the first
 * at fault); without one, every transaction with an unreconciled entry on the account dated on or
 * before the statement date.
 */
async function lockTransactionsToMark(db: Db, accountId: number, input: NewReconciliation): Promise<number[]> {
  if (input.transaction_ids === undefined) {
    const result = await db.execute(sql`
      select t.id from ${transactions} t
      where t.id in (
        select e.transaction_id from ${entries} e
        where e.account_id = ${accountId} and e.reconciliation_id is null and e.occurred_on <= ${input.statement_date}::date)
      order by t.id
      for share`);
    return rowsOf<{ id: number }>(result).map((r) => Number(r.id));
  }
  const ids = [...new Set(input.transaction_ids)].sort((a, b) => a - b);
  if (ids.length === 0) return ids;
  await db.execute(sql`select id from ${transactions} where id = any(${`{${ids.join(',')}}`}::integer[]) order by id for share`);
  // Read after the locks were granted: a new statement sees what a correction committed meanwhile.
  const result = await db.execute(sql`
    select wanted.id, t.occurred_on::text as occurred_on,
      count(e.id)::integer as on_account, count(e.reconciliation_id)::integer as reconciled
    from unnest(${`{${ids.join(',')}}`}::integer[]) as wanted(id)
      left join ${transactions} t on t.id = wanted.id
      left join ${entries} e on e.transaction_id = wanted.id and e.account_id = ${accountId}
    group by wanted.id, t.occurred_on
    order by wanted.id`);
  for (const row of rowsOf<{ id: number; occurred_on: string | null; on_account: number; reconciled: number }>(result)) {
    if (Number(row.on_account) === 0) throw invalid(`transaction ${row.id} has no entry on the account`);
    if (Number(row.reconciled) > 0) throw invalid(`transaction ${row.id} is already reconciled`);
    if (row.occurred_on! > input.statement_date) throw invalid(`transaction ${row.id} is dated after the statement date ${input.statement_date}`);
  }
  return ids;
}

/**
 * `POST /accounts/{id}/reconciliations` (D20): the entries marked and the balance checked in one
 * database transaction; a difference refuses the whole (409 with `difference_cents`, nothing
 * changed). The change record's subject is `reconciliation`.
 */
export async function reconcileAccount(db: Db, accountId: number, input: NewReconciliation, actor: Actor): Promise<ReconciliationView> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${RECONCILIATION_LOCK}, ${accountId})`);
    const kind = await accountKindOf(tx, accountId);
    const last = await latestOf(tx, accountId);
    if (last && input.statement_date < last.statement_date) {
      throw invalid(`statement_date is before the account's last reconciliation, through ${last.statement_date}`);
    }
    const ids = await lockTransactionsToMark(tx, accountId, input);
    const [created] = await tx
      .insert(reconciliations)
      .values({ accountId, statementDate: input.statement_date, statementBalanceCents: input.statement_balance_cents, createdByEmail: actor.email })
      .returning({ id: reconciliations.id });
    if (ids.length > 0) {
      // The date again, read after the locks: a correction that committed while this waited for
      // one of them may have moved its transaction past the statement date, and the row lock's
      // recheck does not see the entries' new date (tests/reconciliation-races.test.ts).
      await tx.execute(sql`
        update ${entries} set reconciliation_id = ${created!.id}
        where account_id = ${accountId} and reconciliation_id is null and transaction_id = any(${`{${ids.join(',')}}`}::integer[])
          and occurred_on <= ${input.statement_date}::date`);
    }
    const reconciled = (await reconciledSum(tx, accountId)) * sign(kind);
    const statement = BigInt(input.statement_balance_cents);
    if (reconciled !== statement) {
      throw new Refusal(
        'conflict',
        `the statement says ${decimal(statement)} but the reconciled entries come to ${decimal(reconciled)}`,
        undefined,
        undefined,
        { difference_cents: Number(statement - reconciled) },
      );
    }
    const after = (await readReconciliations(tx, sql`r.id = ${created!.id}`))[0]!;
    await recordChange(tx, actor, { subject: 'reconciliation', subjectId: after.id, action: 'create', before: null, after });
    return after;
  });
}

/** `GET /accounts/{id}/reconciliations` (D20): newest first. */
export async function listReconciliations(db: Db, accountId: number): Promise<ReconciliationView[]> {
  await accountKindOf(db, accountId);
  return readReconciliations(db, sql`r.account_id = ${accountId}`);
}

/**
 * `GET /accounts/{id}/reconciliation?as_of=` (D20): where the account stands. `last` and the
 * reconciled balance are the latest whatever `as_of`; the book's balance and the unreconciled
 * transactions (their unreconciled entries on the account summed, oldest first) are as of `as_of`.
 * Its statements read one snapshot (issue 36 item 6): read apart, a reconciliation made or undone
 * between them showed a `last` whose balance was not the reconciled one.
 */
export async function reconciliationStatus(db: Db, accountId: number, asOf: string | undefined): Promise<v.InferOutput<typeof ReconciliationStatus>> {
  return db.transaction((tx) => statusOf(tx, accountId, asOf), { isolationLevel: 'repeatable read', accessMode: 'read only' });
}

async function statusOf(db: Db, accountId: number, asOf: string | undefined): Promise<v.InferOutput<typeof ReconciliationStatus>> {
  const kind = await accountKindOf(db, accountId);
  const day = asOf ?? todayUtc();
  const result = await db.execute(sql`
    select
      (select coalesce(sum(amount_cents), 0)::text from ${entries} where account_id = ${accountId} and reconciliation_id is not null) as reconciled,
      (select coalesce(sum(amount_cents), 0)::text from ${entries} where account_id = ${accountId} and occurred_on <= ${day}::date) as book,
      (select coalesce(json_agg(json_build_object('transaction_id', u.id, 'occurred_on', u.occurred_on, 'description', u.description, 'amount', u.amount::text)
        order by u.occurred_on, u.id), '[]'::json)::text
       from (
         select t.id, t.occurred_on, t.description, sum(e.amount_cents) as amount
         from ${entries} e join ${transactions} t on t.id = e.transaction_id
         where e.account_id = ${accountId} and e.reconciliation_id is null and e.occurred_on <= ${day}::date
         group by t.id
       ) u) as unreconciled`);
  const [row] = rowsOf<{ reconciled: string; book: string; unreconciled: string }>(result);
  const s = sign(kind);
  const natural = (stored: string) => Number(BigInt(stored) * s);
  return {
    account_id: accountId,
    last: (await latestOf(db, accountId)) ?? null,
    reconciled_balance_cents: natural(row!.reconciled),
    book_balance_cents: natural(row!.book),
    unreconciled: (JSON.parse(row!.unreconciled) as { transaction_id: number; occurred_on: string; description: string; amount: string }[]).map((u) => ({
      transaction_id: u.transaction_id,
      occurred_on: u.occurred_on,
      description: u.description,
      amount_cents: natural(u.amount),
    })),
  };
}

/**
 * `DELETE /reconciliations/{id}` (D20): undoes an account's latest reconciliation; its entries are
 * unreconciled (the foreign key sets their mark to null). An earlier one: 409.
 */
export async function undoReconciliation(db: Db, id: number, actor: Actor): Promise<void> {
  await db.transaction(async (tx) => {
    const [found] = await readReconciliations(tx, sql`r.id = ${id}`);
    if (!found) throw notFound('no such reconciliation');
    await tx.execute(sql`select pg_advisory_xact_lock(${RECONCILIATION_LOCK}, ${found.account_id})`);
    // Read again under the lock: a reconciliation made or undone meanwhile decides which is latest.
    const before = (await readReconciliations(tx, sql`r.id = ${id}`))[0];
    if (!before) throw notFound('no such reconciliation');
    const latest = await latestOf(tx, before.account_id);
    if (latest?.id !== id) throw conflict("only the account's latest reconciliation can be undone");
    await tx.delete(reconciliations).where(sql`${reconciliations.id} = ${id}`);
    await recordChange(tx, actor, { subject: 'reconciliation', subjectId: id, action: 'delete', before, after: null });
  });
}
