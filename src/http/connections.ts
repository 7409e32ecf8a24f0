import * as v from 'valibot';
import { notFound } from '../errors';
import { listConnectionsOf, revokeOwnGrant, revokeOwnToken } from '../identity/connections';
import { Connection, grantId, tokenHash } from '../identity/views';
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

/**
 * D25: DELETE /auth/grants/{grant_id} (session-only, like the spec's credential routes) ends an
 * OAuth connection by its family, which stays the same while the client rotates its refresh token
 * (the Connection's `id`, the live refresh token's digest, does not).
 */
export const grantRoutes = [
  route(
    {
      method: 'delete', path: '/auth/grants/{grant_id}', tier: 'session-only', summary: 'Ends an OAuth connection: every token of its family',
      params: { grant_id: grantId },
      responses: {
        204: { description: 'The family is revoked: every token it issued, whatever rotated meanwhile; it is never rotated again.' },
        404: refused('Not a live family of the caller (unknown, someone else\'s, revoked or expired).'),
      },
    },
    {},
    async (c) => {
      const id = c.req.param('grant_id')!;
      // 404 whatever the reason, a malformed id included: unknown and someone else's look alike.
      const revoked = v.is(grantId, id) && (await revokeOwnGrant(c.var.db, c.var.identity.userId, id.toLowerCase()));
      if (!revoked) throw notFound('no such connection');
      return c.body(null, 204);
    },
  ),
];
