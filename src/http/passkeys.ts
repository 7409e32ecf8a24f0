import { Hono } from 'hono';
import { describePasskeysOf, removePasskey } from '../identity/passkeys';
import type { AppEnv } from './context';
import { requireFull, requireSession } from './tiers';
import { pathId } from './validation';

/** Spec: GET /auth/passkeys (full, bearer accepted), DELETE /auth/passkeys/{id} (session-only); D4. */
export const passkeyRoutes = new Hono<AppEnv>()
  .get('/', requireFull, async (c) => c.json(await describePasskeysOf(c.var.db, c.var.identity.userId)))
  .delete('/:id', requireSession(), async (c) => {
    // D10: a session ended meanwhile removes nothing (SessionEnded, 401).
    await removePasskey(c.var.db, c.var.session, pathId(c.req.param('id'), 'passkey'));
    return c.body(null, 204);
  });
