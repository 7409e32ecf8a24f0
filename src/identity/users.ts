import { count, eq, sql, type SQL } from 'drizzle-orm';
import * as v from 'valibot';
import type { Db } from '../db/database';
import { authorizationCodes, deviceGrants, passkeys, users } from '../db/schema';
import { conflict, invalid, notFound, SessionEnded } from '../errors';
import { checkNewPassword, hashPassword } from './passwords';
import { endAllSessionsOf, endOtherSessionsOf, lockLiveSession } from './sessions';
import { revokeAllTokensOf } from './tokens';
import { usageStampDue } from './usage';

/** Emails are trimmed and lower-cased everywhere (issue 1/6, D4 throttle key). */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

const EmailSchema = v.pipe(
  v.string(),
  v.transform(normaliseEmail),
  v.maxLength(254, 'an email address has at most 254 characters'),
  v.regex(/^[^\s@]+@[^\s@]+$/, 'that is not an email address'),
);

export function parseEmail(email: string): string {
  const result = v.safeParse(EmailSchema, email);
  if (!result.success) throw invalid(`${result.issues[0].message}: ${JSON.stringify(email)}`);
  return result.output;
}

export async function findUserByEmail(db: Db, email: string) {
  const [user] = await db.select().from(users).where(eq(users.email, normaliseEmail(email)));
  return user;
}

async function requireUser(db: Db, email: string) {
  const user = await findUserByEmail(db, email);
  if (!user) throw notFound(`no user ${normaliseEmail(email)}`);
  return user;
}

export async function addUser(db: Db, email: string, password: string) {
  const normalised = parseEmail(email);
  checkNewPassword(password);
  const passwordHash = await hashPassword(password);
  const [user] = await db
    .insert(users)
    .values({ email: normalised, passwordHash })
    .onConflictDoNothing({ target: users.email })
    .returning();
  if (!user) throw conflict(`a user ${normalised} already exists`);
  return user;
}

/** D14: `serve` tells the operator how to create the first user while there is none. */
export async function hasAnyUser(db: Db): Promise<boolean> {
  const rows = await db.select({ id: users.id }).from(users).limit(1);
  return rows.length > 0;
}

export interface UserSummary {
  email: string;
  passkeyCount: number;
  lastSeenAt: Date | null;
}

export async function listUsers(db: Db): Promise<UserSummary[]> {
  return db
    .select({
      email: users.email,
      passkeyCount: count(passkeys.id),
      lastSeenAt: users.lastSeenAt,
    })
    .from(users)
    .leftJoin(passkeys, eq(passkeys.userId, users.id))
    .groupBy(users.id)
    .orderBy(users.email);
}

/**
 * The user's row lock: it serialises every change to that user's credentials (password, passkeys)
 * and is always taken before a session's row lock (`lockLiveSession`) and before the user's codes,
 * device grants and tokens are revoked.
 */
async function lockUser(db: Db, userId: number): Promise<void> {
  await db.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
}

/**
 * Issue 26 item 4: a grant about to issue tokens (a rotation, a code redemption, a device claim)
 * first takes its user's row in KEY SHARE, found through the credential it redeems (`userOf`, a
 * subquery of one user id), before it touches that credential's row. A password change holds the
 * same row FOR UPDATE before it revokes: one lock order for both, so whichever comes first the other
 * waits for it whole (a rotation after a password change finds its token revoked; a password change
 * after a rotation revokes the new pair), and neither waits for a row the other holds, which was
 * the deadlock (40P01, a 500) of a password change racing a rotation.
 */
export async function holdUserForGrant(db: Db, userOf: SQL): Promise<void> {
  await db.execute(sql`select id from ${users} where id = (${userOf}) for key share`);
}

/**
 * D10: `change` runs in one transaction while the calling session is live, under the user's row
 * lock and then the session's (always in that order, so two such changes never wait on each
 * other). A session ended meanwhile (logout, another session's password change) throws
 * SessionEnded and nothing is changed.
 */
export function underLiveSession<T>(
  db: Db,
  session: { userId: number; hash: string },
  change: (tx: Db, live: { mfaComplete: boolean }) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    await lockUser(tx, session.userId);
    const live = await lockLiveSession(tx, session.hash);
    if (live?.userId !== session.userId) throw new SessionEnded();
    return change(tx, live);
  });
}

/**
 * Spec rule 6: every token of the user is revoked, and so are credentials not yet issued: an
 * authorization code approved but not redeemed (60 s) and a device grant approved but not claimed
 * would each still yield a token pair. Both go before the tokens: a device poll or a code
 * redemption claiming its row holds that row's lock, so this delete waits for it, and the
 * revocation that follows then sees the pair it issued.
 */
async function revokeAllCredentialsOf(db: Db, userId: number): Promise<void> {
  await db.delete(authorizationCodes).where(eq(authorizationCodes.userId, userId));
  // Only an approval sets user_id (a declined or pending grant has none), and a claim deletes the row.
  await db.delete(deviceGrants).where(eq(deviceGrants.userId, userId));
  await revokeAllTokensOf(db, userId);
}

/** Spec rule 6: a password reset ends every session and revokes every token of that user. */
export async function resetPassword(db: Db, email: string, password: string): Promise<void> {
  checkNewPassword(password);
  const user = await requireUser(db, email);
  const passwordHash = await hashPassword(password);
  await db.transaction(async (tx) => {
    // The lock order of every credential change (holdUserForGrant): the user first.
    await lockUser(tx, user.id);
    await tx.update(users).set({ passwordHash }).where(eq(users.id, user.id));
    await endAllSessionsOf(tx, user.id);
    await revokeAllCredentialsOf(tx, user.id);
  });
}

/**
 * D4: POST /auth/password, after the current password was checked. The calling session survives;
 * every other session ends and every token of the user is revoked (spec rule 6). D10: the change
 * commits only while the calling session is live, checked under its row lock: false (nothing
 * changed) when it ended meanwhile, so that of two sessions changing the password at once one
 * wins and the other, ended by the winner, is refused.
 */
export async function changePassword(db: Db, session: { userId: number; hash: string }, password: string): Promise<void> {
  checkNewPassword(password);
  const passwordHash = await hashPassword(password);
  await underLiveSession(db, session, async (tx) => {
    await tx.update(users).set({ passwordHash }).where(eq(users.id, session.userId));
    await endOtherSessionsOf(tx, session.userId, session.hash);
    await revokeAllCredentialsOf(tx, session.userId);
  });
}

/**
 * Deletes the user. Sessions, passkeys, tokens, codes and device grants cascade; the user's
 * transactions stay with created_by set to null (foreign keys in src/db/schema.ts).
 */
export async function removeUser(db: Db, email: string): Promise<void> {
  const user = await requireUser(db, email);
  await db.delete(users).where(eq(users.id, user.id));
}

/** "Last seen" of `ledger user list`: written at most once a minute per user. */
export async function recordUserSeen(db: Db, userId: number, lastSeenAt: Date | null): Promise<void> {
  if (!usageStampDue(lastSeenAt)) return;
  await db
    .update(users)
    .set({ lastSeenAt: sql`now()` })
    .where(
      sql`${users.id} = ${userId} and (${users.lastSeenAt} is null or ${users.lastSeenAt} < now() - interval '1 minute')`,
    );
}
