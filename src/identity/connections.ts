import { and, desc, eq, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../db/database';
import { oauthClients, tokens } from '../db/schema';
import type * as v from 'valibot';
import { live, revokeDescendants, revokeGrantOf } from './tokens';
import type { Connection as ConnectionShape } from './views';

/** Spec: Connection (GET /auth/tokens). */
export type Connection = v.InferOutput<typeof ConnectionShape>;

/**
 * One row per connection: a minted token (an access token with no parent), or the one live
 * refresh token of an OAuth grant (retired ones are history, not connections).
 */
export async function listConnectionsOf(db: Db, userId: number): Promise<Connection[]> {
  const rows = await db
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
  return rows.map((r) => ({ ...r, last_used_at: r.last_used_at?.toISOString() ?? null, expires_at: r.expires_at.toISOString() }));
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
