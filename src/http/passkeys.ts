import * as v from 'valibot';
import { describePasskeysOf, removePasskey } from '../identity/passkeys';
import { Passkey } from '../identity/views';
import { badId, positiveId, refused } from './replies';
import { route } from './route';
import { pathId } from './validation';

/** Spec: GET /auth/passkeys (full, bearer accepted), DELETE /auth/passkeys/{id} (session-only); D4. */
export const passkeyRoutes = [
  route(
    {
      method: 'get', path: '/auth/passkeys', tier: 'full', summary: "The caller's passkeys (D4)",
      responses: { 200: { description: 'Passkeys, oldest first.', json: v.array(Passkey) } },
    },
    {},
    async (c) => c.json(await describePasskeysOf(c.var.db, c.var.identity.userId)),
  ),
  route(
    {
      method: 'delete', path: '/auth/passkeys/{id}', tier: 'session-only', summary: 'Removes a passkey (never the last one)', params: { id: positiveId },
      responses: {
        204: { description: 'Removed.' },
        400: badId,
        404: refused('No passkey of the caller has that id.'),
        409: refused('It is the last passkey of the account.'),
      },
    },
    {},
    async (c) => {
      // D10: a session ended meanwhile removes nothing (SessionEnded, 401).
      await removePasskey(c.var.db, c.var.session, pathId(c.req.param('id')!, 'passkey'));
      return c.body(null, 204);
    },
  ),
];
