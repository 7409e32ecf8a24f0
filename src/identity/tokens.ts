import { and, eq, gt, isNull, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Db } from '../db/database';
import { tokens, users } from '../db/schema';
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
 * `email`, `user_last_seen_ms`, `token_hash` and `token_last_used_ms` (epoch milliseconds, so no
 * driver's date parsing is involved), for the placeholders of `bearerCallerValues`: a write embeds
 * it to check its own bearer in the same statement, one round trip instead of two (issue 2/7
 * item 6). The write then reports the use with `recordBearerUse`.
 */
export const BEARER_CALLER: SQL = sql`select ${tokens.userId} as user_id, ${users.email} as email,
      'token'::text as via, ${tokens.clientId} as client_id,
      (extract(epoch from ${users.lastSeenAt}) * 1000)::float8 as user_last_seen_ms,
      ${tokens.hash} as token_hash, (extract(epoch from ${tokens.lastUsedAt}) * 1000)::float8 as token_last_used_ms
    from ${tokens} join ${users} on ${users.id} = ${tokens.userId}
    where ${liveAccessToken(sql.placeholder('bearer_hash'), sql.placeholder('bearer_audience'))}`;

export function bearerCallerValues(token: string, audience: string): Record<string, string> {
  return { bearer_hash: sha256Hex(token), bearer_audience: audience };
}

/** A row of `BEARER_CALLER`, as the driver returns it. */
export interface BearerCallerRow {
  user_id: number;
  email: string;
  via: 'token';
  client_id: string;
  user_last_seen_ms: number | null;
  token_hash: string;
  token_last_used_ms: number | null;
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
 * The caller a write found with `BEARER_CALLER`, its use stamped as `authenticateBearer` stamps it
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
 * is also a use of its grant: one statement stamps the access token and the grant's live refresh
 * token, found by following the refresh chain down from the refresh token that minted it (the
 * chain is linear: each rotation has one successor). A minted token has no parent and goes alone.
 */
async function recordTokenUse(db: Db, hash: string): Promise<void> {
  await db.execute(sql`
    with recursive grant_chain(hash) as (
      select parent_hash from ${tokens} where hash = ${hash} and parent_hash is not null
      union
      select t.hash from ${tokens} t join grant_chain g on t.parent_hash = g.hash where t.kind = 'refresh'
    )
    update ${tokens} set last_used_at = now()
    where (
        hash = ${hash}
        or (hash in (select hash from grant_chain) and kind = 'refresh' and retired_at is null and revoked_at is null)
      )
      and (last_used_at is null or last_used_at < now() - interval '1 minute')`);
}

/** Spec: Login and second factor, rule 6 — every token of the user, of every kind. */
export async function revokeAllTokensOf(db: Db, userId: number): Promise<void> {
  await db
    .update(tokens)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(tokens.userId, userId), isNull(tokens.revokedAt)));
}

/** Live: neither revoked nor expired. */
export const live = () => and(isNull(tokens.revokedAt), gt(tokens.expiresAt, sql`now()`));

/** Every token whose chain of parents leads to `hash` (children of a refresh token: its access token and successor). */
export async function revokeDescendants(db: Db, hash: string): Promise<void> {
  await db.execute(sql`
    with recursive family(hash) as (
      select ${tokens.hash} from ${tokens} where ${tokens.parentHash} = ${hash}
      union
      select t.hash from ${tokens} t join family f on t.parent_hash = f.hash
    )
    update ${tokens} set revoked_at = now()
    where ${tokens.hash} in (select hash from family) and ${tokens.revokedAt} is null`);
}

/**
 * Revoking a refresh token ends its grant: every token of the family it belongs to, from the
 * grant's first refresh token down, so that access tokens minted before earlier rotations end too
 * (RFC 7009 §2.1: "SHOULD also invalidate all access tokens based on the same authorization grant").
 */
export async function revokeGrantOf(db: Db, hash: string): Promise<void> {
  await db.execute(sql`
    with recursive ancestors(hash, parent_hash) as (
      select ${tokens.hash}, ${tokens.parentHash} from ${tokens} where ${tokens.hash} = ${hash}
      union all
      select t.hash, t.parent_hash from ${tokens} t join ancestors a on t.hash = a.parent_hash
    ),
    family(hash) as (
      select hash from ancestors where parent_hash is null
      union
      select t.hash from ${tokens} t join family f on t.parent_hash = f.hash
    )
    update ${tokens} set revoked_at = now()
    where ${tokens.hash} in (select hash from family) and ${tokens.revokedAt} is null`);
}

