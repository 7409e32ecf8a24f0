import { and, desc, eq, lt, sql, type SQL } from 'drizzle-orm';
import * as v from 'valibot';
import type { Db } from '../db/database';
import { changes, INT4_MAX } from '../db/schema';
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
  via: 'session' | 'token' | 'cli' | 'schedule';
  /** The token's OAuth client (`ledger-cli` for minted tokens); null for sessions and the CLI. */
  clientId: string | null;
}

export const CLI_ACTOR: Actor = { email: null, via: 'cli', clientId: null };

/** The actor of a new transaction, and its author (`created_by`; null for the CLI and imports' own). */
export interface Author extends Actor {
  userId: number | null;
}

type Subject = 'transaction' | 'account' | 'settings' | 'reconciliation' | 'schedule' | 'attachment';
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
  subject: v.optional(v.picklist(['transaction', 'account', 'settings', 'reconciliation', 'schedule', 'attachment'], 'subject must be transaction, account, settings, reconciliation, schedule or attachment')),
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
  return { changes: page, next_before: rows.length > limit ? page.at(-1)!.id : null };
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
