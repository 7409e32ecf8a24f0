import { Hono } from 'hono';
import { notFound } from '../errors';
import { listConnectionsOf, revokeOwnToken } from '../identity/connections';
import type { AppEnv } from './context';
import { requireFull, requireSession } from './tiers';

/** Spec: GET /auth/tokens (full, bearer accepted), DELETE /auth/tokens/{id} (session-only). */
export const connectionRoutes = new Hono<AppEnv>()
  .get('/', requireFull, async (c) => c.json(await listConnectionsOf(c.var.db, c.var.identity.userId)))
  .delete('/:id', requireSession(), async (c) => {
    const id = c.req.param('id');
    // 404 whatever the reason: unknown, someone else's, revoked or expired all look alike.
    const revoked = /^[0-9a-f]{64}$/.test(id) && (await revokeOwnToken(c.var.db, c.var.identity.userId, id));
    if (!revoked) throw notFound('no such connection');
    return c.body(null, 204);
  });
