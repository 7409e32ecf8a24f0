import { randomInt } from 'node:crypto';
import { and, eq, gt, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/database';
import { deviceGrants, oauthClients, sessions } from '../db/schema';
import { randomSecret, sha256Hex } from '../identity/secrets';
import { holdUserForGrant } from '../identity/users';
import { issueTokenPair, type TokenPair } from './grants';
import {
  hasMetadataDocument,
  markClientUsed,
  reapUnusedMetadataDocumentClients,
  storeMetadataDocumentClient,
  type OAuthClient,
} from './clients';
import { OAuthError, invalidGrant, invalidRequest } from './errors';
import { DEVICE_GRANT_SECONDS, DEVICE_POLL_INTERVAL_SECONDS } from './lifetimes';

/** Spec: Limits and Tokens and codes (the two lifetimes live in lifetimes.ts, which views.ts takes too). */
export { DEVICE_GRANT_SECONDS, DEVICE_POLL_INTERVAL_SECONDS };
export const DEVICE_ATTEMPTS_PER_SESSION = 10;
export const USER_CODE_TRIES = 3;
export const USER_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTVWXYZ23456789';

/** `XXXX-XXXX` from the 30-symbol alphabet, each symbol uniformly chosen (~39 bits). */
export function newUserCode(): string {
  const symbols = Array.from({ length: 8 }, () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)]);
  return `${symbols.slice(0, 4).join('')}-${symbols.slice(4).join('')}`;
}

/**
 * Spec: normalisation of typed input — keep only alphanumerics, upper-case, and insert a dash
 * after position 4 when the result has 8 characters.
 */
export function normaliseUserCode(input: string): string {
  const kept = input.replace(/[^A-Za-z0-9]/g, '').toUpperCase();
  return kept.length === 8 ? `${kept.slice(0, 4)}-${kept.slice(4)}` : kept;
}

/**
 * Spec: Device grant, none → pending. A user code already taken is drawn again, three tries in
 * all (spec: Limits); then a fault, which the route answers 500 server_error with the generic
 * description (error rule 3). Grants expired for over a day are swept here; for a client with a
 * metadata document (D18), so are the rows of such clients nothing references any more, and its
 * own row is written before the grant that references it.
 * @see RFC 8628 §3.1–3.2
 */
export async function startDeviceGrant(db: Db, client: OAuthClient): Promise<{ deviceCode: string; userCode: string }> {
  await db.delete(deviceGrants).where(lt(deviceGrants.expiresAt, sql`now() - interval '1 day'`));
  if (hasMetadataDocument(client)) {
    await reapUnusedMetadataDocumentClients(db);
    await storeMetadataDocumentClient(db, client);
  }
  const deviceCode = randomSecret(32);
  for (let attempt = 0; attempt < USER_CODE_TRIES; attempt++) {
    const userCode = newUserCode();
    const inserted = await db
      .insert(deviceGrants)
      .values({
        deviceCodeHash: sha256Hex(deviceCode),
        userCode,
        clientId: client.id,
        expiresAt: sql`now() + make_interval(secs => ${DEVICE_GRANT_SECONDS})`,
      })
      .onConflictDoNothing({ target: deviceGrants.userCode })
      .returning({ userCode: deviceGrants.userCode });
    if (inserted.length === 1) return { deviceCode, userCode };
  }
  throw new Error(`no unique user code after ${USER_CODE_TRIES} tries`);
}

const ATTEMPTS_EXHAUSTED = 'this session has used all its attempts at entering a code; sign in again';

/**
 * Spec: device attempt budget — an attempt is charged before the lookup (one conditional UPDATE,
 * so parallel guesses cannot exceed 10) and refunded when the lookup or decision succeeds. Once a
 * session has 10, the answer is 429 invalid_request first, for everything (D13).
 */
async function chargeAttempt(db: Db, sessionHash: string): Promise<void> {
  const charged = await db
    .update(sessions)
    .set({ deviceAttempts: sql`${sessions.deviceAttempts} + 1` })
    .where(and(eq(sessions.idHash, sessionHash), lt(sessions.deviceAttempts, DEVICE_ATTEMPTS_PER_SESSION)))
    .returning({ attempts: sessions.deviceAttempts });
  if (charged.length === 0) throw invalidRequest(ATTEMPTS_EXHAUSTED, 429);
}

async function refundAttempt(db: Db, sessionHash: string): Promise<void> {
  await db
    .update(sessions)
    .set({ deviceAttempts: sql`greatest(${sessions.deviceAttempts} - 1, 0)` })
    .where(eq(sessions.idHash, sessionHash));
}

const NO_SUCH_CODE = 'no pending request matches that code';

/** GET /oauth/device_info: the client asking, and the seconds left to decide. */
export async function describePendingDeviceGrant(
  db: Db,
  sessionHash: string,
  typedUserCode: string,
): Promise<{ client: OAuthClient; expiresIn: number }> {
  await chargeAttempt(db, sessionHash);
  const [row] = await db
    .select({
      client: oauthClients,
      expiresIn: sql<number>`ceil(extract(epoch from ${deviceGrants.expiresAt} - now()))::int`,
    })
    .from(deviceGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, deviceGrants.clientId))
    .where(
      and(
        eq(deviceGrants.userCode, normaliseUserCode(typedUserCode)),
        eq(deviceGrants.status, 'pending'),
        gt(deviceGrants.expiresAt, sql`now()`),
      ),
    );
  if (!row) throw invalidGrant(NO_SUCH_CODE);
  await refundAttempt(db, sessionHash);
  return row;
}

/**
 * POST /oauth/device/approve: pending → approved (the client marked used) or declined. The same
 * session re-approving a code it already approved is a success that costs nothing; anything else
 * that is not a live pending code costs one attempt.
 */
export async function decideDeviceGrant(
  db: Db,
  input: { sessionHash: string; userId: number; typedUserCode: string; approve: boolean },
): Promise<void> {
  await chargeAttempt(db, input.sessionHash);
  const userCode = normaliseUserCode(input.typedUserCode);
  const decided = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(deviceGrants)
      .set(
        input.approve
          ? { status: 'approved', userId: input.userId, approvedBySessionHash: input.sessionHash }
          : { status: 'declined' },
      )
      .where(
        and(eq(deviceGrants.userCode, userCode), eq(deviceGrants.status, 'pending'), gt(deviceGrants.expiresAt, sql`now()`)),
      )
      .returning({ clientId: deviceGrants.clientId });
    if (row && input.approve) await markClientUsed(tx, row.clientId);
    return row !== undefined;
  });
  if (decided) return refundAttempt(db, input.sessionHash);
  if (input.approve) {
    const [again] = await db
      .select({ userCode: deviceGrants.userCode })
      .from(deviceGrants)
      .where(
        and(
          eq(deviceGrants.userCode, userCode),
          eq(deviceGrants.status, 'approved'),
          eq(deviceGrants.approvedBySessionHash, input.sessionHash),
          gt(deviceGrants.expiresAt, sql`now()`),
        ),
      );
    if (again) return refundAttempt(db, input.sessionHash);
  }
  throw invalidGrant(NO_SUCH_CODE);
}

/**
 * POST /oauth/token with the device_code grant (RFC 8628 §3.4–3.5). D13, literally: every poll of
 * an existing device code by its own client stamps its time under the row lock, and a poll less
 * than 5 s after the previous poll of that code is slow_down whatever the code's state (pending,
 * approved, declined or expired); otherwise the state answers. Issuing the code is not a poll, so a
 * first poll is never slow_down. A poll by another client is invalid_grant and stamps nothing. An
 * approved grant is deleted as it is redeemed, so it yields tokens once. Refusals are returned
 * from the transaction, not thrown in it, so that the stamp commits.
 */
export async function pollDeviceCode(
  db: Db,
  input: { deviceCode: string; clientId: string; audience: string },
): Promise<TokenPair> {
  const hash = sha256Hex(input.deviceCode);
  const outcome = await db.transaction(async (tx): Promise<TokenPair | OAuthError> => {
    await holdUserForGrant(tx, sql`select ${deviceGrants.userId} from ${deviceGrants} where ${deviceGrants.deviceCodeHash} = ${hash}`);
    const [grant] = await tx
      .select({
        clientId: deviceGrants.clientId,
        status: deviceGrants.status,
        userId: deviceGrants.userId,
        expired: sql<boolean>`${deviceGrants.expiresAt} <= now()`,
        tooSoon: sql<boolean>`coalesce(${deviceGrants.lastPolledAt} > now() - make_interval(secs => ${DEVICE_POLL_INTERVAL_SECONDS}), false)`,
      })
      .from(deviceGrants)
      .where(eq(deviceGrants.deviceCodeHash, hash))
      .for('update');
    if (!grant || grant.clientId !== input.clientId) return invalidGrant('that device code is not redeemable');
    await tx.update(deviceGrants).set({ lastPolledAt: sql`now()` }).where(eq(deviceGrants.deviceCodeHash, hash));
    if (grant.tooSoon) return new OAuthError('slow_down', 'polling too fast; add 5 seconds to the interval');
    if (grant.expired) return new OAuthError('expired_token', 'the device code has expired; start again');
    if (grant.status === 'declined') return new OAuthError('access_denied', 'the request was declined');
    if (grant.status === 'approved' && grant.userId !== null) {
      await tx.delete(deviceGrants).where(eq(deviceGrants.deviceCodeHash, hash));
      return issueTokenPair(tx, { userId: grant.userId, clientId: grant.clientId, audience: input.audience });
    }
    return new OAuthError('authorization_pending', 'nobody has decided yet; keep polling');
  });
  if (outcome instanceof OAuthError) throw outcome;
  return outcome;
}
