import { createMiddleware } from 'hono/factory';
import { authenticateBearer } from '../tokens';
import { recordUserSeen } from '../users';
import type { AppEnv, Identity } from './context';
import { Unauthenticated } from './errors';

/** RFC 6750 §2.1: `Authorization: Bearer <b64token>`; the scheme is case-insensitive (RFC 9110 §11.1). */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

async function bearerIdentity(c: Parameters<Parameters<typeof createMiddleware<AppEnv>>[0]>[0]) {
  const header = c.req.header('Authorization');
  if (header === undefined) return undefined;
  const token = BEARER.exec(header)?.[1];
  // A malformed or unknown credential is the same 401 as none at all (error rule 4, D13).
  if (!token) throw new Unauthenticated();
  const found = await authenticateBearer(c.var.db, token, c.var.config.apiOrigin);
  if (!found) throw new Unauthenticated();
  await recordUserSeen(c.var.db, found.userId, found.userLastSeenAt);
  return { userId: found.userId, email: found.email, via: 'bearer' } satisfies Identity;
}

/** Full tier: a bearer token (cookie sessions join in issue 2/6). */
export const requireFull = createMiddleware<AppEnv>(async (c, next) => {
  const identity = await bearerIdentity(c);
  if (!identity) throw new Unauthenticated();
  c.set('identity', identity);
  await next();
});
