import { and, desc, eq, lt, sql, type SQL } from 'drizzle-orm';
import * as v from 'valibot';
import { rowsOf, type Db } from '../db/database';
import { accounts, changes, importLines, INT4_MAX } from '../db/schema';
import { dateString, positiveIntegerParam } from '../text';
import type { Change as ChangeShape } from './views';

type Change = v.InferOutput<typeof ChangeShape>;

// D15: the change log. Every write of the book (src/book/: accounts, transactions, settings)
// records its change here in the same database transaction as the change itself, so that there is
// no change without its record and no record without its change. A repository layer rather than
// triggers: the record holds the full read shapes before and after (a transaction with its
// entries and account names), which the functions that write already have at hand, and the actor
// (who, through which app), which a trigger could only read from a transaction-local setting that
// every writer would have to remember to set.

/** Who makes a change: the person (as their email is then), and through what (D15). */
export interface Actor {
  email: string | null;
  /** D21 `schedule`, D27 `dues`: what a schedule or a dues plan posts by itself. */
  via: 'session' | 'token' | 'cli' | 'schedule' | 'dues';
  /** The token's OAuth client (`ledger-cli` for minted tokens); null for sessions and the CLI. */
  clientId: string | null;
}

export const CLI_ACTOR: Actor = { email: null, via: 'cli', clientId: null };

/** The actor of a new transaction, and its author (`created_by`; null for the CLI and imports' own). */
export interface Author extends Actor {
  userId: number | null;
}

type Subject = 'transaction' | 'account' | 'settings' | 'reconciliation' | 'schedule' | 'attachment' | 'budget' | 'person' | 'dues_plan';
type Action = 'create' | 'update' | 'delete' | 'restore';

/** Writes one change record; `db` is the transaction the change itself is written in. */
export async function recordChange(
  db: Db,
  actor: Actor,
  change: { subject: Subject; subjectId: number | null; action: Action; before: unknown; after: unknown },
): Promise<void> {
  await db.insert(changes).values({
    actorEmail: actor.email,
    via: actor.via,
    clientId: actor.clientId,
    subject: change.subject,
    subjectId: change.subjectId,
    action: change.action,
    before: change.before ?? null,
    after: change.after ?? null,
  });
}

export const CHANGES_LIMIT_DEFAULT = 50;
export const CHANGES_LIMIT_MAX = 500;

/** `GET /changes` query (D15). */
export const ChangesQuerySchema = v.object({
  subject: v.optional(v.picklist(['transaction', 'account', 'settings', 'reconciliation', 'schedule', 'attachment', 'budget', 'person', 'dues_plan'], 'subject must be transaction, account, settings, reconciliation, schedule, attachment, budget, person or dues_plan')),
  subject_id: v.optional(positiveIntegerParam('subject_id', INT4_MAX)),
  before: v.optional(positiveIntegerParam('before', Number.MAX_SAFE_INTEGER)),
  limit: v.optional(positiveIntegerParam('limit', CHANGES_LIMIT_MAX)),
  from: v.optional(v.pipe(dateString('from'), v.description('only records made on or after this day (UTC)'))),
  to: v.optional(v.pipe(dateString('to'), v.description('only records made on or before this day (UTC)'))),
});
export type ChangesQuery = v.InferOutput<typeof ChangesQuerySchema>;

/** Newest first (by id); `next_before` names the next page, or null on the last. */
export async function listChanges(db: Db, query: ChangesQuery): Promise<{ changes: Change[]; next_before: number | null }> {
  const limit = query.limit ?? CHANGES_LIMIT_DEFAULT;
  const conditions: (SQL | undefined)[] = [
    query.subject === undefined ? undefined : eq(changes.subject, query.subject),
    query.subject_id === undefined ? undefined : eq(changes.subjectId, query.subject_id),
    query.before === undefined ? undefined : lt(changes.id, query.before),
    // D15 (issue 25 item 7): `from` and `to` are days, inclusive, of `at` in UTC.
    query.from === undefined ? undefined : sql`${changes.at} >= (${query.from}::date)::timestamp at time zone 'UTC'`,
    query.to === undefined ? undefined : sql`${changes.at} < (${query.to}::date + 1)::timestamp at time zone 'UTC'`,
  ];
  const rows = await db
    .select()
    .from(changes)
    .where(and(...conditions))
    .orderBy(desc(changes.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit).map((r) => ({
    id: r.id,
    at: r.at.toISOString(),
    actor_email: r.actorEmail,
    via: r.via,
    client_id: r.clientId,
    subject: r.subject,
    subject_id: r.subjectId,
    action: r.action,
    schedule_id: r.scheduleId,
    before: r.before,
    after: r.after,
  })) as Change[];
  return { changes: await withContext(db, page), next_before: rows.length > limit ? page.at(-1)!.id : null };
}

type Context = Pick<Change, 'statement_line' | 'transaction'>;
type Bare = { id: number; subject: string; subject_id: number | null; action: string; before: unknown; after: unknown };

/**
 * Issue 37 item 6: what History needs beside some records to tell the step, read from the book
 * (never stored in the record, which stays as written): a transaction's `create` record gets the
 * statement line that made it or was linked to it since (D16's import_lines), and a receipt's
 * record its transaction as the log last held it before (its description and date). Two queries
 * for a page, whatever its length.
 */
export async function withContext<C extends Bare>(db: Db, records: C[]): Promise<(C & Context)[]> {
  const created = records.filter((c) => c.subject === 'transaction' && c.action === 'create' && c.subject_id !== null).map((c) => c.subject_id!);
  const receipts = records.filter((c) => c.subject === 'attachment');
  const lines = new Map<number, NonNullable<Context['statement_line']>>();
  if (created.length > 0) {
    // A line that made the transaction before one linked to it; then the first.
    const found = rowsOf<{ transaction_id: number; account_id: number; account_name: string; occurred_on: string; linked: boolean }>(
      await db.execute(sql`
        select distinct on (l.transaction_id) l.transaction_id, l.account_id, a.name as account_name, l.occurred_on::text as occurred_on, l.linked
        from ${importLines} l join ${accounts} a on a.id = l.account_id
        where l.transaction_id = any(${`{${created.join(',')}}`}::integer[])
        order by l.transaction_id, l.linked, l.id`),
    );
    for (const r of found) lines.set(Number(r.transaction_id), { account_id: Number(r.account_id), account_name: r.account_name, occurred_on: r.occurred_on, linked: r.linked });
  }
  const transactionsOf = new Map<number, NonNullable<Context['transaction']>>();
  if (receipts.length > 0) {
    const pairs = receipts.map((c) => [c.id, ((c.after ?? c.before) as { transaction_id: number }).transaction_id] as const);
    const found = rowsOf<{ change_id: number; id: number; description: string; occurred_on: string }>(
      await db.execute(sql`
        select r.change_id, r.transaction_id as id, t.shape ->> 'description' as description, t.shape ->> 'occurred_on' as occurred_on
        from unnest(${`{${pairs.map((p) => p[0]).join(',')}}`}::bigint[], ${`{${pairs.map((p) => p[1]).join(',')}}`}::integer[]) as r(change_id, transaction_id)
        cross join lateral (
          select coalesce(c.after, c.before) as shape from ${changes} c
          where c.subject = 'transaction' and c.subject_id = r.transaction_id and c.id < r.change_id
          order by c.id desc limit 1
        ) t`),
    );
    for (const r of found) transactionsOf.set(Number(r.change_id), { id: Number(r.id), description: r.description, occurred_on: r.occurred_on });
  }
  return records.map((c) => {
    const line = c.subject === 'transaction' && c.action === 'create' && c.subject_id !== null ? lines.get(c.subject_id) : undefined;
    const transaction = c.subject === 'attachment' ? transactionsOf.get(c.id) : undefined;
    return { ...c, ...(line && { statement_line: line }), ...(transaction && { transaction }) };
  });
}

/** What transaction `id` was when it was last deleted (the `before` of that record), if it ever was. */
export async function lastDeleted(db: Db, id: number): Promise<unknown> {
  const [row] = await db
    .select({ before: changes.before })
    .from(changes)
    .where(and(eq(changes.subject, 'transaction'), eq(changes.subjectId, id), eq(changes.action, 'delete')))
    .orderBy(desc(changes.id))
    .limit(1);
  return row?.before;
}
