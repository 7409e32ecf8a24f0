import { and, eq, lte, sql } from 'drizzle-orm';
import { rowsOf, type Db } from './database';
import { IDEMPOTENCY_TRIM_LOCK, idempotencyKeyLock } from './locks';
import { idempotencyKeys } from './schema';

// D21: the answers kept for `Idempotency-Key`, one row per user and key (table idempotency_keys,
// migration 0011). Every function but the cleanup runs inside the transaction of the keyed
// request itself (src/http/idempotency.ts), so a kept answer commits with what the request wrote.
// Here rather than in http/ so that the background job's cleanup (src/background.ts) needs no
// part of the HTTP layer (issue 36 item 7).

/** How long a first answer is kept (D21: 24 hours per user and key). */
const KEPT_FOR = sql`interval '24 hours'`;

/** A request sent with a key: who sent it, the key, and what the key stands for. */
export interface KeyedRequest {
  userId: number;
  key: string;
  method: string;
  /** The path with its query, as sent. */
  path: string;
  /** SHA-256 of the body's bytes, hex. */
  bodySha256: string;
}

/** A first answer as kept: replayed as it was. */
export interface KeptAnswer {
  status: number;
  contentType: string | null;
  body: string;
}

/**
 * Issue 36 item 5: at most this many answers are kept per user, expired or not; beyond it the
 * oldest go first. Without it one client sending a new key with every request (even every 400)
 * keeps a row each for 24 hours.
 */
export const MAX_KEPT_ANSWERS_PER_USER = 10_000;

/**
 * The transaction-scoped advisory lock of one user's key (src/db/locks.ts): false when another
 * request with that key holds it (still running, on this instance or another).
 */
export async function claimKey(tx: Db, request: Pick<KeyedRequest, 'userId' | 'key'>): Promise<boolean> {
  const lock = idempotencyKeyLock(request.userId, request.key);
  const [row] = rowsOf<{ locked: boolean }>(await tx.execute(sql`select pg_try_advisory_xact_lock(${lock}::bigint) as locked`));
  return row!.locked;
}

/**
 * The live answer kept for the user's key, with what it was the answer to; an expired one is
 * deleted on the way (the key is free again), and undefined comes back.
 */
export async function findKeptAnswer(tx: Db, request: Pick<KeyedRequest, 'userId' | 'key'>): Promise<(KeptAnswer & Omit<KeyedRequest, 'userId' | 'key'>) | undefined> {
  const mine = and(eq(idempotencyKeys.userId, request.userId), eq(idempotencyKeys.key, request.key));
  const [row] = await tx
    .select({
      method: idempotencyKeys.method,
      path: idempotencyKeys.path,
      bodySha256: idempotencyKeys.bodySha256,
      status: idempotencyKeys.status,
      contentType: idempotencyKeys.contentType,
      body: idempotencyKeys.body,
      live: sql<boolean>`${idempotencyKeys.expiresAt} > now()`,
    })
    .from(idempotencyKeys)
    .where(mine);
  if (!row) return undefined;
  const { live, ...kept } = row;
  if (live) return kept;
  await tx.delete(idempotencyKeys).where(mine);
  return undefined;
}

/**
 * Keeps the first answer to a keyed request for 24 hours (D21), then holds the user to `cap` kept
 * answers (issue 36 item 5). `cap` is a parameter for the tests only.
 */
export async function keepAnswer(tx: Db, request: KeyedRequest, answer: KeptAnswer, cap = MAX_KEPT_ANSWERS_PER_USER): Promise<void> {
  await tx.insert(idempotencyKeys).values({ ...request, ...answer, expiresAt: sql`now() + ${KEPT_FOR}` });
  await trimKeptAnswers(tx, request.userId, cap);
}

/**
 * Past the cap, the user's oldest answers go, down to 90 % of it, so that a client sending a new
 * key each time pays the sort once per tenth of the cap rather than on every request. What every
 * request pays is the probe: at most cap + 1 entries of the primary key's index (user_id, key),
 * about 2 ms at 10,000, nothing for a user far below it. One trim per user at a time (a try-lock:
 * a second request leaves it to the first) and rows locked by another request are skipped, so a
 * trim never waits and never deadlocks with a request deleting its own expired answer.
 */
async function trimKeptAnswers(tx: Db, userId: number, cap: number): Promise<void> {
  const over = rowsOf(await tx.execute(sql`select 1 from ${idempotencyKeys} where ${idempotencyKeys.userId} = ${userId} offset ${cap} limit 1`));
  if (over.length === 0) return;
  const [trim] = rowsOf<{ mine: boolean }>(await tx.execute(sql`select pg_try_advisory_xact_lock(${IDEMPOTENCY_TRIM_LOCK}, ${userId}) as mine`));
  if (!trim!.mine) return;
  const keep = cap - Math.floor(cap / 10);
  await tx.execute(sql`
    delete from ${idempotencyKeys} k using (
      select key from ${idempotencyKeys} where user_id = ${userId}
      order by created_at desc, key desc offset ${keep}
      for update skip locked
    ) oldest
    where k.user_id = ${userId} and k.key = oldest.key`);
}

/** D21: deletes every answer kept longer than 24 hours; how many there were. For the server's periodic job. */
export async function deleteExpiredIdempotencyKeys(db: Db): Promise<number> {
  const deleted = await db.delete(idempotencyKeys).where(lte(idempotencyKeys.expiresAt, sql`now()`)).returning({ userId: idempotencyKeys.userId });
  return deleted.length;
}
