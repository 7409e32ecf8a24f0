import { and, desc, eq, exists, gt, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../db/database';
import { grants, oauthClients, tokens } from '../db/schema';
import type * as v from 'valibot';
import { live, revokeGrant, revokeLiveToken } from './tokens';
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
      grant_id: tokens.grantId,
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
 * DELETE /auth/tokens/{id}: revokes the caller's live token named by its hash; for the refresh
 * token of an OAuth grant, the whole grant (spec: Refresh token, live → revoked; D25). False when
 * `hash` names nothing live owned by the caller, which the route answers 404 whatever the reason.
 */
export function revokeOwnToken(db: Db, userId: number, hash: string): Promise<boolean> {
  return revokeLiveToken(db, and(eq(tokens.hash, hash), eq(tokens.userId, userId))!);
}

/**
 * D25, DELETE /auth/grants/{grant_id}: ends the caller's live family, whatever rotated meanwhile.
 * One UPDATE of the grant's row decides (it waits for a rotation holding it); its tokens follow
 * in the same transaction. False when `grantId` is not a live family of the caller: unknown,
 * someone else's, revoked, or with no live refresh token left.
 */
export function revokeOwnGrant(db: Db, userId: number, grantId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const liveRefresh = tx
      .select({ one: sql`1` })
      .from(tokens)
      .where(and(eq(tokens.grantId, grants.id), eq(tokens.kind, 'refresh'), isNull(tokens.retiredAt), isNull(tokens.revokedAt), gt(tokens.expiresAt, sql`now()`)));
    const [ended] = await tx
      .update(grants)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(grants.id, grantId), eq(grants.userId, userId), isNull(grants.revokedAt), exists(liveRefresh)))
      .returning({ id: grants.id });
    if (!ended) return false;
    await revokeGrant(tx, grantId);
    return true;
  });
}
