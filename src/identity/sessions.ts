import { and, eq, gt, lte, ne, sql } from 'drizzle-orm';
import type { Db } from '../db/database';
import { sessions, users } from '../db/schema';
import { randomSecret, sha256Hex } from './secrets';

/** Spec: Limits — a half-session lives 10 minutes. */
export const HALF_SESSION_SECONDS = 10 * 60;
/** D3: a WebAuthn challenge is single-use and lives 5 minutes. */
export const CHALLENGE_SECONDS = 5 * 60;

export type ChallengePurpose = 'register' | 'authenticate';

/** A session as a request sees it. `hash` is what the database knows; the cookie value is never stored. */
export interface SessionView {
  hash: string;
  userId: number;
  email: string;
  userLastSeenAt: Date | null;
  mfaComplete: boolean;
  expiresAt: Date;
}

/** A session id handed to the browser once, with the expiry the cookie should carry. */
export interface IssuedSession {
  id: string;
  expiresAt: Date;
}

/** Session ids are 256 random bits; only their SHA-256 digest is stored (Copenhagen Book). */
function newSessionId(): { id: string; hash: string } {
  const id = randomSecret(32);
  return { id, hash: sha256Hex(id) };
}

/** Spec: Session, none → half-session on a correct password: `mfa_complete` false, 10 minutes. */
export async function startHalfSession(db: Db, userId: number): Promise<IssuedSession> {
  const { id, hash } = newSessionId();
  const [row] = await db
    .insert(sessions)
    .values({ idHash: hash, userId, expiresAt: sql`now() + make_interval(secs => ${HALF_SESSION_SECONDS})` })
    .returning({ expiresAt: sessions.expiresAt });
  // Expired sessions of this user are of no use to anyone; sign-in is a natural time to sweep them.
  await db.delete(sessions).where(and(eq(sessions.userId, userId), lte(sessions.expiresAt, sql`now()`)));
  return { id, expiresAt: row!.expiresAt };
}

/** The live session a cookie names, or undefined (unknown, malformed or expired). */
export async function findSession(db: Db, cookieValue: string): Promise<SessionView | undefined> {
  const [row] = await db
    .select({
      hash: sessions.idHash,
      userId: sessions.userId,
      email: users.email,
      userLastSeenAt: users.lastSeenAt,
      mfaComplete: sessions.mfaComplete,
      expiresAt: sessions.expiresAt,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.idHash, sha256Hex(cookieValue)), gt(sessions.expiresAt, sql`now()`)));
  return row;
}

/**
 * Spec: Session, half-session → full session after a verified ceremony. The id is rotated and the
 * expiry set to SESSION_TTL_DAYS from now, in one conditional UPDATE: a session that ended or
 * expired meanwhile is not elevated (undefined).
 */
export async function elevateSession(db: Db, hash: string, ttlDays: number): Promise<IssuedSession | undefined> {
  const next = newSessionId();
  const [row] = await db
    .update(sessions)
    .set({
      idHash: next.hash,
      mfaComplete: true,
      expiresAt: sql`now() + make_interval(days => ${ttlDays})`,
      challenge: null,
      challengePurpose: null,
      challengeExpiresAt: null,
    })
    .where(and(eq(sessions.idHash, hash), gt(sessions.expiresAt, sql`now()`)))
    .returning({ expiresAt: sessions.expiresAt });
  return row && { id: next.id, expiresAt: row.expiresAt };
}

/**
 * D10: locks the session `hash` names, if it is still live, until the transaction ends. A change
 * made on the strength of a session (the password, a passkey, an elevation) commits only while
 * that session exists; one ended meanwhile (logout, another session's password change) yields
 * undefined and the change is not made. Take the user's row lock first (`lockUser`), so that two
 * such changes always lock in the same order and never wait on each other.
 */
export async function lockLiveSession(
  db: Db,
  hash: string,
): Promise<{ userId: number; mfaComplete: boolean } | undefined> {
  const [row] = await db
    .select({ userId: sessions.userId, mfaComplete: sessions.mfaComplete })
    .from(sessions)
    .where(and(eq(sessions.idHash, hash), gt(sessions.expiresAt, sql`now()`)))
    .for('update');
  return row;
}

/** Spec: Session, any → destroyed (POST /auth/logout). */
export async function endSession(db: Db, cookieValue: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.idHash, sha256Hex(cookieValue)));
}

/** Spec: Login and second factor, rule 6. */
export async function endAllSessionsOf(db: Db, userId: number): Promise<void> {
  await db.delete(sessions).where(eq(sessions.userId, userId));
}

/** D4: after a password change the calling session survives; every other one ends. */
export async function endOtherSessionsOf(db: Db, userId: number, keepHash: string): Promise<void> {
  await db.delete(sessions).where(and(eq(sessions.userId, userId), ne(sessions.idHash, keepHash)));
}

/** D3: a new challenge replaces any outstanding one of the session; it lives 5 minutes. */
export async function storeChallenge(db: Db, hash: string, purpose: ChallengePurpose, challenge: string): Promise<void> {
  await db
    .update(sessions)
    .set({
      challenge,
      challengePurpose: purpose,
      challengeExpiresAt: sql`now() + make_interval(secs => ${CHALLENGE_SECONDS})`,
    })
    .where(eq(sessions.idHash, hash));
}

/**
 * D3: takes the session's outstanding challenge for `purpose`, once. The row lock makes two
 * concurrent finishes see one challenge between them; an expired or other-purpose challenge is
 * cleared and yields nothing.
 */
export function takeChallenge(db: Db, hash: string, purpose: ChallengePurpose): Promise<string | undefined> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({
        challenge: sessions.challenge,
        purpose: sessions.challengePurpose,
        live: sql<boolean>`${sessions.challengeExpiresAt} > now()`,
      })
      .from(sessions)
      .where(eq(sessions.idHash, hash))
      .for('update');
    if (!row?.challenge) return undefined;
    await tx
      .update(sessions)
      .set({ challenge: null, challengePurpose: null, challengeExpiresAt: null })
      .where(eq(sessions.idHash, hash));
    return row.purpose === purpose && row.live ? row.challenge : undefined;
  });
}
