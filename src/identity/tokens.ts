import { and, eq, gt, isNull, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Db } from '../db/database';
import { grants, tokens, users } from '../db/schema';
import { newToken, sha256Hex } from './secrets';
import { usageStampDue } from './usage';

// The tokens table: minting, bearer authentication and usage stamps, and the families of tokens
// that revocation follows. The OAuth grants that issue and rotate tokens are src/oauth/grants.ts;
// the caller's list of connections is src/identity/connections.ts.

const DAY_MS = 86_400_000;

/** D5: a minted token is an `access` token of client `ledger-cli`, no parent, 365 days by default. */
export const MINTED_TOKEN_DEFAULT_DAYS = 365;
export const MINTED_TOKEN_MAX_DAYS = 3650;
const MINT_CLIENT_ID = 'ledger-cli';

/** `ledger mint-token`: returns the token, which exists nowhere else afterwards (only its digest). */
export async function mintToken(
  db: Db,
  input: { userId: number; label: string | null; days: number; audience: string },
): Promise<string> {
  const token = newToken();
  await db.insert(tokens).values({
    hash: sha256Hex(token),
    kind: 'access',
    userId: input.userId,
    clientId: MINT_CLIENT_ID,
    label: input.label,
    audience: input.audience,
    expiresAt: new Date(Date.now() + input.days * DAY_MS),
  });
  return token;
}

export interface BearerIdentity {
  userId: number;
  email: string;
  /** The token's OAuth client (`ledger-cli` for minted tokens), for the change log (D15). */
  clientId: string;
  userLastSeenAt: Date | null;
  tokenHash: string;
}

/**
 * The lookup behind every bearer request, built once per database: drizzle then skips building
 * the SQL on each request (the hot path of the full tier).
 */
const bearerLookups = new WeakMap<Db, ReturnType<typeof buildBearerLookup>>();

/**
 * A live access token of `hash` for `audience`: neither revoked nor expired, audienced to this API
 * (RFC 8707). The one condition of the bearer lookup and of a write that checks its own bearer.
 */
function liveAccessToken(hash: string | SQLWrapper, audience: string | SQLWrapper): SQL {
  return and(
    eq(tokens.hash, hash),
    eq(tokens.kind, 'access'),
    eq(tokens.audience, audience),
    isNull(tokens.revokedAt),
    gt(tokens.expiresAt, sql`now()`),
  )!;
}

function buildBearerLookup(db: Db) {
  return db
    .select({
      userId: tokens.userId,
      email: users.email,
      clientId: tokens.clientId,
      userLastSeenAt: users.lastSeenAt,
      tokenHash: tokens.hash,
      lastUsedAt: tokens.lastUsedAt,
    })
    .from(tokens)
    .innerJoin(users, eq(users.id, tokens.userId))
    .where(liveAccessToken(sql.placeholder('hash'), sql.placeholder('audience')))
    .prepare('authenticate_bearer');
}

/**
 * The caller of a bearer token as a subquery of one row or none, with the columns `user_id`,
 * `email`, `via`, `client_id`, `user_last_seen_ms`, `token_hash` and `token_last_used_ms` (epoch
 * milliseconds, so no driver's date parsing is involved), for the placeholders `bearer_hash` and
 * `bearer_audience`: a write embeds it (book/transactions.ts' `postTransactionAs`, handed in by
 * http/) to check its own bearer in the same statement, one round trip instead of two (issue 2/7
 * item 6; issue 31 measured it again). The write then reports the use with `recordBearerUse`.
 */
const BEARER_CALLER: SQL = sql`select ${tokens.userId} as user_id, ${users.email} as email,
      'token'::text as via, ${tokens.clientId} as client_id,
      (extract(epoch from ${users.lastSeenAt}) * 1000)::float8 as user_last_seen_ms,
      ${tokens.hash} as token_hash, (extract(epoch from ${tokens.lastUsedAt}) * 1000)::float8 as token_last_used_ms
    from ${tokens} join ${users} on ${users.id} = ${tokens.userId}
    where ${liveAccessToken(sql.placeholder('bearer_hash'), sql.placeholder('bearer_audience'))}`;

/** A row of the bearer's caller subquery, as the driver returns it. */
export interface BearerCallerRow {
  user_id: number;
  email: string;
  via: 'token';
  client_id: string;
  user_last_seen_ms: number | null;
  token_hash: string;
  token_last_used_ms: number | null;
}

/** The holder of `token`, for this API (`audience`), as the one-row subquery a write embeds. */
export function bearerCaller(token: string, audience: string): { query: SQL; values: Record<string, string>; readonly row?: BearerCallerRow } {
  return { query: BEARER_CALLER, values: { bearer_hash: sha256Hex(token), bearer_audience: audience } };
}

function bearerLookup(db: Db) {
  let lookup = bearerLookups.get(db);
  if (!lookup) bearerLookups.set(db, (lookup = buildBearerLookup(db)));
  return lookup;
}

/**
 * Resolves `Authorization: Bearer <token>` by the SHA-256 digest of the token: an access token,
 * neither revoked nor expired, audienced to this API (RFC 8707). Anything else is no identity.
 * `recordUse: false` checks without stamping: a request refused anyway (the 403 of a session-only
 * route) is not a use of the token and changes nothing (error rule 5).
 */
export async function authenticateBearer(
  db: Db,
  token: string,
  audience: string,
  { recordUse = true }: { recordUse?: boolean } = {},
): Promise<BearerIdentity | undefined> {
  const hash = sha256Hex(token);
  const [row] = await bearerLookup(db).execute({ hash, audience });
  if (!row) return undefined;
  if (recordUse && usageStampDue(row.lastUsedAt)) await recordTokenUse(db, hash);
  const { lastUsedAt: _, ...identity } = row;
  return identity;
}

/**
 * The caller a write found with `bearerCaller`, its use stamped as `authenticateBearer` stamps it
 * (the token and its grant at most once a minute; the user's last seen is the caller's to stamp).
 */
export async function recordBearerUse(db: Db, row: BearerCallerRow): Promise<BearerIdentity> {
  const lastUsedAt = row.token_last_used_ms === null ? null : new Date(row.token_last_used_ms);
  if (usageStampDue(lastUsedAt)) await recordTokenUse(db, row.token_hash);
  return {
    userId: Number(row.user_id),
    email: row.email,
    clientId: row.client_id,
    userLastSeenAt: row.user_last_seen_ms === null ? null : new Date(row.user_last_seen_ms),
    tokenHash: row.token_hash,
  };
}

/**
 * Issue 1/6: `last_used_at` is written at most once per token per minute, however busy the token.
 * Spec: Connection — the row of an OAuth grant is its live refresh token, so using an access token
 * is also a use of its grant: one statement stamps the access token and the live refresh token of
 * its grant (D25). A minted token has no grant and goes alone.
 */
async function recordTokenUse(db: Db, hash: string): Promise<void> {
  await db.execute(sql`
    update ${tokens} set last_used_at = now()
    where (
        hash = ${hash}
        or (grant_id = (select grant_id from ${tokens} where hash = ${hash}) and kind = 'refresh' and retired_at is null and revoked_at is null)
      )
      and (last_used_at is null or last_used_at < now() - interval '1 minute')`);
}

/** Live: neither revoked nor expired. */
export const live = () => and(isNull(tokens.revokedAt), gt(tokens.expiresAt, sql`now()`));

/**
 * Spec: Login and second factor, rule 6 — every token of the user, of every kind, and every grant,
 * so that no rotation in flight issues a pair after it (D25). Grants before tokens: the lock order
 * of rotation (user, grant, tokens).
 */
export async function revokeAllTokensOf(db: Db, userId: number): Promise<void> {
  await db.update(grants).set({ revokedAt: sql`now()` }).where(and(eq(grants.userId, userId), isNull(grants.revokedAt)));
  await db
    .update(tokens)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(tokens.userId, userId), isNull(tokens.revokedAt)));
}

/**
 * D25: the grant (family) of the refresh token `hash`, its row locked until the transaction ends,
 * so that rotation and revocation of one family take turns whatever the number of instances; the
 * lock is taken after the user's (holdUserForGrant) and before any token's. Read after the lock,
 * `revokedAt` is the latest committed: a family a replay revoked a moment ago is seen revoked.
 */
export async function lockGrantOf(db: Db, hash: string): Promise<{ id: string; revokedAt: Date | null } | undefined> {
  const [grant] = await db
    .select({ id: grants.id, revokedAt: grants.revokedAt })
    .from(grants)
    .where(eq(grants.id, sql`(select ${tokens.grantId} from ${tokens} where ${tokens.hash} = ${hash} and ${tokens.kind} = 'refresh')`))
    .for('no key update');
  return grant;
}

/**
 * D25: ends a family — the grant's row first (its update waits for a rotation holding it, and
 * makes every later rotation refused), then every token of it, read after that wait, so the pair
 * a rotation just issued is among them. RFC 7009 §2.1, RFC 9700 §4.14.2.
 */
export async function revokeGrant(db: Db, grantId: string): Promise<void> {
  await db.update(grants).set({ revokedAt: sql`now()` }).where(and(eq(grants.id, grantId), isNull(grants.revokedAt)));
  await db.update(tokens).set({ revokedAt: sql`now()` }).where(and(eq(tokens.grantId, grantId), isNull(tokens.revokedAt)));
}

/**
 * Revokes the live, unretired token that `which` chooses: a refresh token ends its whole grant, an
 * access token goes alone (spec: revoking an access token leaves its refresh token alone). False
 * when nothing live matched. A retired refresh token no longer stands for its grant.
 */
export function revokeLiveToken(db: Db, which: SQL): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [token] = await tx
      .select({ hash: tokens.hash, kind: tokens.kind, grantId: tokens.grantId })
      .from(tokens)
      .where(and(which, isNull(tokens.retiredAt), live()));
    if (!token) return false;
    if (token.kind === 'refresh') await revokeGrant(tx, token.grantId!);
    else await tx.update(tokens).set({ revokedAt: sql`now()` }).where(and(eq(tokens.hash, token.hash), isNull(tokens.revokedAt)));
    return true;
  });
}
