import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from './db/database';
import { tokens, users } from './db/schema';
import { newToken, sha256Hex } from './secrets';
import { usageStampDue } from './usage';

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
  userLastSeenAt: Date | null;
  tokenHash: string;
}

/**
 * Resolves `Authorization: Bearer <token>` by the SHA-256 digest of the token: an access token,
 * neither revoked nor expired, audienced to this API (RFC 8707). Anything else is no identity.
 */
export async function authenticateBearer(
  db: Db,
  token: string,
  audience: string,
): Promise<BearerIdentity | undefined> {
  const hash = sha256Hex(token);
  const [row] = await db
    .select({
      userId: tokens.userId,
      email: users.email,
      userLastSeenAt: users.lastSeenAt,
      tokenHash: tokens.hash,
      lastUsedAt: tokens.lastUsedAt,
    })
    .from(tokens)
    .innerJoin(users, eq(users.id, tokens.userId))
    .where(
      and(
        eq(tokens.hash, hash),
        eq(tokens.kind, 'access'),
        eq(tokens.audience, audience),
        isNull(tokens.revokedAt),
        gt(tokens.expiresAt, sql`now()`),
      ),
    );
  if (!row) return undefined;
  if (usageStampDue(row.lastUsedAt)) await recordTokenUse(db, hash);
  const { lastUsedAt: _, ...identity } = row;
  return identity;
}

/** Issue 1/6: `last_used_at` is written at most once per token per minute, however busy the token. */
async function recordTokenUse(db: Db, hash: string): Promise<void> {
  await db
    .update(tokens)
    .set({ lastUsedAt: sql`now()` })
    .where(
      sql`${tokens.hash} = ${hash} and (${tokens.lastUsedAt} is null or ${tokens.lastUsedAt} < now() - interval '1 minute')`,
    );
}

/** Spec: Login and second factor, rule 6 — every token of the user, of every kind. */
export async function revokeAllTokensOf(db: Db, userId: number): Promise<void> {
  await db
    .update(tokens)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(tokens.userId, userId), isNull(tokens.revokedAt)));
}
