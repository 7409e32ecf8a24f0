import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/database';
import { passkeys } from '../db/schema';
import { conflict, notFound } from '../errors';
import { underLiveSession } from './users';
import type { Passkey as PasskeyShape } from './views';
import type * as v from 'valibot';

export type Passkey = typeof passkeys.$inferSelect;
export type NewPasskey = Pick<typeof passkeys.$inferInsert, 'credentialId' | 'publicKey' | 'counter' | 'transports' | 'name'>;

/** D4: GET /auth/passkeys shape. */
export type PasskeyView = v.InferOutput<typeof PasskeyShape>;

export const PASSKEY_NAME_MAX_LENGTH = 60;

export function listPasskeysOf(db: Db, userId: number): Promise<Passkey[]> {
  return db.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(asc(passkeys.id));
}

export async function describePasskeysOf(db: Db, userId: number): Promise<PasskeyView[]> {
  const rows = await db
    .select({ id: passkeys.id, name: passkeys.name, created_at: passkeys.createdAt, last_used_at: passkeys.lastUsedAt })
    .from(passkeys)
    .where(eq(passkeys.userId, userId))
    .orderBy(asc(passkeys.id));
  return rows.map((r) => ({ ...r, created_at: r.created_at.toISOString(), last_used_at: r.last_used_at?.toISOString() ?? null }));
}

export async function countPasskeysOf(db: Db, userId: number): Promise<number> {
  const [row] = await db.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, userId));
  return row?.n ?? 0;
}

/**
 * Stores a verified credential for the user; undefined when that credential id is already
 * registered (to anyone). The caller holds the user's row lock and has checked the registration
 * gate under it (src/identity/webauthn.ts, finishRegistration).
 */
export async function storePasskey(db: Db, userId: number, passkey: NewPasskey): Promise<Passkey | undefined> {
  const [row] = await db
    .insert(passkeys)
    .values({ ...passkey, userId })
    .onConflictDoNothing({ target: passkeys.credentialId })
    .returning();
  return row;
}

/** One of the user's passkeys, by the credential id the browser reports. */
export async function findPasskeyOf(db: Db, userId: number, credentialId: string): Promise<Passkey | undefined> {
  const [row] = await db
    .select()
    .from(passkeys)
    .where(and(eq(passkeys.userId, userId), eq(passkeys.credentialId, credentialId)));
  return row;
}

/**
 * Stores the counter of a verified assertion, only if the stored counter is still the one the
 * verification compared against: of two assertions raced with one counter value, one wins.
 */
export async function recordPasskeyUse(db: Db, passkey: Passkey, newCounter: number): Promise<boolean> {
  const updated = await db
    .update(passkeys)
    .set({ counter: newCounter, lastUsedAt: sql`now()` })
    .where(and(eq(passkeys.id, passkey.id), eq(passkeys.counter, passkey.counter)))
    .returning({ id: passkeys.id });
  return updated.length === 1;
}

/**
 * DELETE /auth/passkeys/{id}: 404 for none of the caller's; 409 for the last one (spec: Other
 * status codes). Under the user's row lock, so that of two deletes racing on a two-passkey account
 * one removes and the other finds the last one; and under the calling session's row lock (D10):
 * SessionEnded (nothing removed) when that session ended meanwhile.
 */
export function removePasskey(
  db: Db,
  session: { userId: number; hash: string },
  passkeyId: number,
): Promise<void> {
  return underLiveSession(db, session, async (tx) => {
    const [target] = await tx
      .select({ id: passkeys.id })
      .from(passkeys)
      .where(and(eq(passkeys.id, passkeyId), eq(passkeys.userId, session.userId)));
    if (!target) throw notFound('no such passkey');
    if ((await countPasskeysOf(tx, session.userId)) <= 1) {
      throw conflict('this is your only passkey; add another before removing it');
    }
    await tx.delete(passkeys).where(eq(passkeys.id, passkeyId));
  });
}
