import { and, desc, eq, gt, isNull, or, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Db } from './db/database';
import { oauthClients, tokens, users } from './db/schema';
import { newToken, sha256Hex } from './secrets';
import { usageStampDue } from './usage';

const DAY_MS = 86_400_000;

/** Spec: Limits — access tokens live 1 hour, refresh tokens 60 days; a retired refresh token is retried within 10 s. */
export const ACCESS_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_DAYS = 60;
export const REFRESH_REUSE_GRACE_SECONDS = 10;

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
 * The caller a write found with `bearerCaller`, its use stamped as `authenticateBearer` stamps it
 * (the token and its grant at most once a minute; the user's last seen is the caller's to stamp).
 */
export async function recordBearerUse(db: Db, row: BearerCallerRow): Promise<BearerIdentity> {
  const lastUsedAt = row.token_last_used_ms === null ? null : new Date(row.token_last_used_ms);
  if (usageStampDue(lastUsedAt)) await recordTokenUse(db, row.token_hash);
  return {
    userId: Number(row.user_id),
    email: row.email,
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

/** Spec: Connection (GET /auth/tokens). */
export interface Connection {
  id: string;
  client_id: string;
  client_name: string;
  kind: 'access' | 'refresh';
  label: string | null;
  last_used_at: Date | null;
  expires_at: Date;
}

/** Live: neither revoked nor expired. */
const live = () => and(isNull(tokens.revokedAt), gt(tokens.expiresAt, sql`now()`));

/**
 * One row per connection: a minted token (an access token with no parent), or the one live
 * refresh token of an OAuth grant (retired ones are history, not connections).
 */
export function listConnectionsOf(db: Db, userId: number): Promise<Connection[]> {
  return db
    .select({
      id: tokens.hash,
      client_id: tokens.clientId,
      client_name: oauthClients.name,
      kind: tokens.kind,
      label: tokens.label,
      last_used_at: tokens.lastUsedAt,
      expires_at: tokens.expiresAt,
    })
    .from(tokens)
    .innerJoin(oauthClients, eq(oauthClients.id, tokens.clientId))
    .where(
      and(
        eq(tokens.userId, userId),
        live(),
        or(
          and(eq(tokens.kind, 'access'), isNull(tokens.parentHash)),
          and(eq(tokens.kind, 'refresh'), isNull(tokens.retiredAt)),
        ),
      ),
    )
    .orderBy(desc(tokens.createdAt), tokens.hash);
}

/**
 * DELETE /auth/tokens/{id}: revokes the caller's live token named by its hash and every token
 * descended from it (spec: Refresh token, live → revoked); for the refresh token of an OAuth grant,
 * the whole grant (revokeGrantOf). False when `hash` names nothing live
 * owned by the caller, which the route answers 404 whatever the reason.
 */
export function revokeOwnToken(db: Db, userId: number, hash: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const revoked = await tx
      .update(tokens)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(tokens.hash, hash), eq(tokens.userId, userId), isNull(tokens.retiredAt), live()))
      .returning({ kind: tokens.kind });
    if (!revoked[0]) return false;
    await (revoked[0].kind === 'refresh' ? revokeGrantOf(tx, hash) : revokeDescendants(tx, hash));
    return true;
  });
}

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

/** RFC 6749 §5.1 successful response. */
export interface TokenPair {
  access_token: string;
  token_type: 'Bearer';
  expires_in: typeof ACCESS_TOKEN_SECONDS;
  refresh_token: string;
}

/**
 * Issues an access and a refresh token for a grant, both audienced to API_ORIGIN (RFC 8707). The
 * refresh token descends from `parentHash` (the refresh token it replaces; null at the root of a
 * grant) and the access token from that refresh token, so revoking a refresh token reaches the
 * access tokens it minted.
 */
export async function issueTokenPair(
  db: Db,
  input: { userId: number; clientId: string; audience: string; parentHash: string | null },
): Promise<TokenPair> {
  const refresh = newToken();
  const access = newToken();
  const refreshHash = sha256Hex(refresh);
  const common = { userId: input.userId, clientId: input.clientId, audience: input.audience };
  await db.insert(tokens).values([
    {
      ...common,
      hash: refreshHash,
      kind: 'refresh',
      parentHash: input.parentHash,
      // A successor is made by a rotation, which stamped its predecessor with this transaction's
      // now(): the connection keeps its last use across rotations (spec: Connection).
      lastUsedAt: input.parentHash === null ? null : sql`now()`,
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

/**
 * Spec: Refresh token — live → retired with a new pair chained to it. The retirement is one
 * conditional UPDATE, so of parallel redemptions one wins. A retired token presented again within
 * 10 seconds is refused and nothing else happens (a client's retry); later, the whole family
 * descending from it is revoked, the pair in current use included (a stolen token replayed).
 * `undefined` for every failure alike.
 * @see RFC 6749 §6, RFC 9700 §4.14.2
 */
export function rotateRefreshToken(
  db: Db,
  input: { refreshToken: string; clientId: string; audience: string },
): Promise<TokenPair | undefined> {
  const hash = sha256Hex(input.refreshToken);
  return db.transaction(async (tx) => {
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
    if (retired) return issueTokenPair(tx, { ...retired, audience: input.audience, parentHash: hash });

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
    if (reused) await revokeDescendants(tx, hash);
    return undefined;
  });
}

/**
 * Revoking a refresh token ends its grant: every token of the family it belongs to, from the
 * grant's first refresh token down, so that access tokens minted before earlier rotations end too
 * (RFC 7009 §2.1: "SHOULD also invalidate all access tokens based on the same authorization grant").
 */
async function revokeGrantOf(db: Db, hash: string): Promise<void> {
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

/**
 * POST /oauth/revoke (RFC 7009 §2.1): revokes the named token if it is live and, when `clientId`
 * is given, belongs to that client. A refresh token takes its whole grant with it; an access
 * token goes alone (spec: revoking an access token leaves its refresh token alone). Unknown,
 * expired, already revoked and retired refresh tokens are not live and change nothing: a retired
 * token no longer stands for its grant (as DELETE /auth/tokens/{id} answers 404 for it), and reuse
 * of one is handled by rotation's own rule (spec: Refresh token, retired).
 */
export async function revokeByToken(db: Db, token: string, clientId: string | undefined): Promise<void> {
  const hash = sha256Hex(token);
  await db.transaction(async (tx) => {
    const [revoked] = await tx
      .update(tokens)
      .set({ revokedAt: sql`now()` })
      .where(
        and(
          eq(tokens.hash, hash),
          clientId === undefined ? undefined : eq(tokens.clientId, clientId),
          isNull(tokens.retiredAt),
          live(),
        ),
      )
      .returning({ kind: tokens.kind });
    if (revoked?.kind === 'refresh') await revokeGrantOf(tx, hash);
  });
}
