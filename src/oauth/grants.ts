import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/database';
import { grants, tokens } from '../db/schema';
import { newToken, sha256Hex } from '../identity/secrets';
import { live, lockGrantOf, revokeGrant, revokeLiveToken } from '../identity/tokens';
import { holdUserForGrant } from '../identity/users';

// The grant steps of the token endpoint and of revocation: issuing a pair, rotating a refresh
// token, revoking by token (RFC 6749 §5–6, RFC 7009).

/** Spec: Limits — access tokens live 1 hour, refresh tokens 60 days; a retired refresh token is retried within 10 s. */
export const ACCESS_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_DAYS = 60;
export const REFRESH_REUSE_GRACE_SECONDS = 10;

/** RFC 6749 §5.1 successful response. */
export interface TokenPair {
  access_token: string;
  token_type: 'Bearer';
  expires_in: typeof ACCESS_TOKEN_SECONDS;
  refresh_token: string;
}

/**
 * Issues an access and a refresh token, both audienced to API_ORIGIN (RFC 8707). Without `from`,
 * a new grant (D25: a code redeemed, a device grant claimed) whose first pair this is; with it, the
 * next pair of grant `from.grantId`, the refresh token descending from `from.parentHash` (the one
 * it replaces). The access token descends from its refresh token and both belong to the grant, so
 * revoking the grant reaches every token it issued.
 */
export async function issueTokenPair(
  db: Db,
  input: { userId: number; clientId: string; audience: string; from?: { grantId: string; parentHash: string } },
): Promise<TokenPair> {
  const refresh = newToken();
  const access = newToken();
  const refreshHash = sha256Hex(refresh);
  const grantId = input.from?.grantId ?? (await startGrant(db, input));
  const common = { userId: input.userId, clientId: input.clientId, audience: input.audience, grantId };
  await db.insert(tokens).values([
    {
      ...common,
      hash: refreshHash,
      kind: 'refresh',
      parentHash: input.from?.parentHash ?? null,
      // A successor is made by a rotation, which stamped its predecessor with this transaction's
      // now(): the connection keeps its last use across rotations (spec: Connection).
      lastUsedAt: input.from ? sql`now()` : null,
      expiresAt: sql`now() + make_interval(days => ${REFRESH_TOKEN_DAYS})`,
    },
    {
      ...common,
      hash: sha256Hex(access),
      kind: 'access',
      parentHash: refreshHash,
      expiresAt: sql`now() + make_interval(secs => ${ACCESS_TOKEN_SECONDS})`,
    },
  ]);
  return { access_token: access, token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS, refresh_token: refresh };
}

async function startGrant(db: Db, input: { userId: number; clientId: string }): Promise<string> {
  const [grant] = await db.insert(grants).values({ userId: input.userId, clientId: input.clientId }).returning({ id: grants.id });
  return grant!.id;
}

/**
 * Spec: Refresh token — live → retired with a new pair chained to it. The retirement is one
 * conditional UPDATE, so of parallel redemptions one wins. A retired token presented again within
 * 10 seconds is refused and nothing else happens (a client's retry); later, the whole family is
 * revoked, the pair in current use included (a stolen token replayed). D25: all of it happens
 * holding the family's grant row (after the user's row, the one lock order of credentials), so a
 * replay and a rotation of one family take turns, and a family revoked is never rotated again,
 * whatever the timing or the number of instances. `undefined` for every failure alike.
 * @see RFC 6749 §6, RFC 9700 §4.14.2
 */
export function rotateRefreshToken(
  db: Db,
  input: { refreshToken: string; clientId: string; audience: string },
): Promise<TokenPair | undefined> {
  const hash = sha256Hex(input.refreshToken);
  return db.transaction(async (tx) => {
    await holdUserForGrant(tx, sql`select ${tokens.userId} from ${tokens} where ${tokens.hash} = ${hash}`);
    const grant = await lockGrantOf(tx, hash);
    if (!grant || grant.revokedAt) return undefined;
    const [retired] = await tx
      .update(tokens)
      .set({ retiredAt: sql`now()`, lastUsedAt: sql`now()` })
      .where(
        and(
          eq(tokens.hash, hash),
          eq(tokens.kind, 'refresh'),
          eq(tokens.clientId, input.clientId),
          isNull(tokens.retiredAt),
          live(),
        ),
      )
      .returning({ userId: tokens.userId, clientId: tokens.clientId });
    if (retired) return issueTokenPair(tx, { ...retired, audience: input.audience, from: { grantId: grant.id, parentHash: hash } });

    const [reused] = await tx
      .select({ hash: tokens.hash })
      .from(tokens)
      .where(
        and(
          eq(tokens.hash, hash),
          eq(tokens.kind, 'refresh'),
          sql`${tokens.retiredAt} < now() - make_interval(secs => ${REFRESH_REUSE_GRACE_SECONDS})`,
        ),
      );
    if (reused) await revokeGrant(tx, grant.id);
    return undefined;
  });
}

/**
 * POST /oauth/revoke (RFC 7009 §2.1): revokes the named token if it is live and, when `clientId`
 * is given, belongs to that client. A refresh token takes its whole grant with it; an access
 * token goes alone (spec: revoking an access token leaves its refresh token alone). Unknown,
 * expired, already revoked and retired refresh tokens are not live and change nothing: a retired
 * token no longer stands for its grant (as DELETE /auth/tokens/{id} answers 404 for it), and reuse
 * of one is handled by rotation's own rule (spec: Refresh token, retired).
 */
export async function revokeByToken(db: Db, token: string, clientId: string | undefined): Promise<void> {
  await revokeLiveToken(db, and(eq(tokens.hash, sha256Hex(token)), clientId === undefined ? undefined : eq(tokens.clientId, clientId))!);
}
