import { createHash } from 'node:crypto';
import { and, eq, lte, sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../db/database';
import { idempotencyKeys } from '../db/schema';

// D21: the answers kept for `Idempotency-Key`, one row per user and key (table idempotency_keys,
// migration 0011). Every function but the cleanup runs inside the transaction of the keyed
// request itself (src/http/idempotency.ts), so a kept answer commits with what the request wrote.

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
 * The transaction-scoped advisory lock of one user's key: false when another request with that
 * key holds it (still running, on this instance or another). The lock's 64-bit key is the first 8
 * bytes of SHA-256 over user and key: a collision with another key, or with the few fixed keys of
 * other locks, is as likely as guessing a 64-bit number.
 */
export async function claimKey(tx: Db, request: Pick<KeyedRequest, 'userId' | 'key'>): Promise<boolean> {
  const lock = createHash('sha256').update(`idempotency-key\n${request.userId}\n${request.key}`).digest().readBigInt64BE(0);
  const [row] = rowsOf<{ locked: boolean }>(await tx.execute(sql`select pg_try_advisory_xact_lock(${lock.toString()}::bigint) as locked`));
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

/** Keeps the first answer to a keyed request for 24 hours (D21). */
export async function keepAnswer(tx: Db, request: KeyedRequest, answer: KeptAnswer): Promise<void> {
  await tx.insert(idempotencyKeys).values({ ...request, ...answer, expiresAt: sql`now() + ${KEPT_FOR}` });
}

/** D21: deletes every answer kept longer than 24 hours; how many there were. For the server's periodic job. */
export async function deleteExpiredIdempotencyKeys(db: Db): Promise<number> {
  const deleted = await db.delete(idempotencyKeys).where(lte(idempotencyKeys.expiresAt, sql`now()`)).returning({ userId: idempotencyKeys.userId });
  return deleted.length;
}
