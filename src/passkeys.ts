import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from './db/database';
import { passkeys, users } from './db/schema';
import { conflict, notFound } from './errors';

export type Passkey = typeof passkeys.$inferSelect;
export type NewPasskey = Pick<typeof passkeys.$inferInsert, 'credentialId' | 'publicKey' | 'counter' | 'transports' | 'name'>;

/** D4: GET /auth/passkeys shape. */
export interface PasskeyView {
  id: number;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

export const PASSKEY_NAME_MAX_LENGTH = 60;

export function listPasskeysOf(db: Db, userId: number): Promise<Passkey[]> {
  return db.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(asc(passkeys.id));
}

export function describePasskeysOf(db: Db, userId: number): Promise<PasskeyView[]> {
  return db
    .select({ id: passkeys.id, name: passkeys.name, created_at: passkeys.createdAt, last_used_at: passkeys.lastUsedAt })
    .from(passkeys)
    .where(eq(passkeys.userId, userId))
    .orderBy(asc(passkeys.id));
}

export async function countPasskeysOf(db: Db, userId: number): Promise<number> {
  const [row] = await db.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, userId));
  return row?.n ?? 0;
}

/** The user's row lock serialises every change to that user's set of passkeys. */
async function lockUser(db: Db, userId: number): Promise<boolean> {
  const [row] = await db.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
  return row !== undefined;
}

export type EnrolOutcome = { enrolled: true; passkey: Passkey } | { enrolled: false; reason: 'gate' | 'duplicate' };

/**
 * Spec: Login and second factor, rule 3 (the registration gate), checked again at the moment of
 * storing under the user's row lock: two half-sessions racing to enrol a "first" passkey get one
 * passkey between them, not two.
 */
export function enrolPasskey(db: Db, userId: number, mfaComplete: boolean, passkey: NewPasskey): Promise<EnrolOutcome> {
  return db.transaction(async (tx) => {
    if (!(await lockUser(tx, userId))) return { enrolled: false, reason: 'gate' };
    if (!mfaComplete && (await countPasskeysOf(tx, userId)) > 0) return { enrolled: false, reason: 'gate' };
    const [row] = await tx
      .insert(passkeys)
      .values({ ...passkey, userId })
      .onConflictDoNothing({ target: passkeys.credentialId })
      .returning();
    return row ? { enrolled: true, passkey: row } : { enrolled: false, reason: 'duplicate' };
  });
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

/** DELETE /auth/passkeys/{id}: 404 for none of the caller's; 409 for the last one (spec: Other status codes). */
export function removePasskey(db: Db, userId: number, passkeyId: number): Promise<void> {
  return db.transaction(async (tx) => {
    await lockUser(tx, userId);
    const [target] = await tx
      .select({ id: passkeys.id })
      .from(passkeys)
      .where(and(eq(passkeys.id, passkeyId), eq(passkeys.userId, userId)));
    if (!target) throw notFound('no such passkey');
    if ((await countPasskeysOf(tx, userId)) <= 1) {
      throw conflict('this is your only passkey; add another before removing it');
    }
    await tx.delete(passkeys).where(eq(passkeys.id, passkeyId));
  });
}
