import * as v from 'valibot';
import { notFound } from '../errors';
import { listConnectionsOf, revokeOwnToken } from '../identity/connections';
import { Connection, tokenHash } from '../identity/views';
import { refused } from './replies';
import { route } from './route';

/** Spec: GET /auth/tokens (full, bearer accepted), DELETE /auth/tokens/{id} (session-only). */
export const connectionRoutes = [
  route(
    {
      method: 'get', path: '/auth/tokens', tier: 'full', summary: "The caller's connections",
      responses: { 200: { description: 'One row per connection: minted tokens and the live refresh token of each OAuth grant.', json: v.array(Connection) } },
    },
    {},
    async (c) => c.json(await listConnectionsOf(c.var.db, c.var.identity.userId)),
  ),
  route(
    {
      method: 'delete', path: '/auth/tokens/{id}', tier: 'session-only', summary: 'Revokes a connection and its descendants', params: { id: tokenHash },
      responses: {
        204: { description: 'Revoked.' },
        404: refused('Nothing live owned by the caller has that id (unknown, someone else\'s, revoked or expired).'),
      },
    },
    {},
    async (c) => {
      const id = c.req.param('id')!;
      // 404 whatever the reason: unknown, someone else's, revoked or expired all look alike.
      const revoked = /^[0-9a-f]{64}$/.test(id) && (await revokeOwnToken(c.var.db, c.var.identity.userId, id));
      if (!revoked) throw notFound('no such connection');
      return c.body(null, 204);
    },
  ),
];
