import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { forbidden } from '../errors';
import { findSession, type SessionView } from '../identity/sessions';
import { authenticateBearer, bearerCaller, recordBearerUse, type BearerCallerRow } from '../identity/tokens';
import { recordUserSeen } from '../identity/users';
import type { Author } from '../book/changes';
import type { AppEnv, Identity } from './context';
import { Unauthenticated } from './errors';
import { readSessionCookie } from './session-cookie';

// Spec: Authentication — tiers. Open routes use no middleware; the others compose one of these
// per route group. D13: anything short of the tier (no credential, an invalid or expired bearer, a
// half-session on a full route) is the same 401; 403 is only for a valid bearer on a session-only route.

/** RFC 6750 §2.1: `Authorization: Bearer <b64token>`; the scheme is case-insensitive (RFC 9110 §11.1). */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

type Ctx = Context<AppEnv>;

/**
 * The identity of `Authorization: Bearer …`, or the 401 (D13). `recordUse: false` stamps neither
 * the token's last use nor the user's last seen: a session-only route refuses a valid bearer with
 * 403, and that refusal changes nothing (error rule 5).
 */
async function bearerIdentity(c: Ctx, header: string, { recordUse = true } = {}): Promise<Identity> {
  const token = BEARER.exec(header)?.[1];
  if (!token) throw new Unauthenticated();
  const found = await authenticateBearer(c.var.db, token, c.var.config.apiOrigin, { recordUse });
  if (!found) throw new Unauthenticated();
  if (recordUse) await recordUserSeen(c.var.db, found.userId, found.userLastSeenAt);
  return { userId: found.userId, email: found.email, via: 'bearer', clientId: found.clientId };
}

async function cookieSession(c: Ctx): Promise<SessionView | undefined> {
  const cookie = readSessionCookie(c);
  if (!cookie) return undefined;
  const session = await findSession(c.var.db, cookie);
  if (session) await recordUserSeen(c.var.db, session.userId, session.userLastSeenAt);
  return session;
}

function adoptSession(c: Ctx, session: SessionView): void {
  c.set('session', session);
  c.set('identity', { userId: session.userId, email: session.email, via: 'session', clientId: null });
}

/** Half tier: a cookie session at any `mfa_complete` (the four WebAuthn routes). */
export const requireHalf = createMiddleware<AppEnv>(async (c, next) => {
  const session = await cookieSession(c);
  if (!session) throw new Unauthenticated();
  adoptSession(c, session);
  await next();
});

/** Full tier: a bearer token, or a cookie session with `mfa_complete` true. */
export const requireFull = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header('Authorization');
  if (header !== undefined) {
    c.set('identity', await bearerIdentity(c, header));
    return next();
  }
  const session = await cookieSession(c);
  if (!session?.mfaComplete) throw new Unauthenticated();
  adoptSession(c, session);
  await next();
});

/**
 * The full tier of a write whose own statement checks the bearer token (POST /transactions,
 * issue 2/7 item 6: one round trip instead of two). A bearer request reaches the handler with the
 * token in `c.var.bearer`, unverified; the handler's statement finds its caller and hands it to
 * `adoptBearerCaller`, or finds none and throws Unauthenticated. Any other answer (a body refused
 * by validation, a refusal of the database) leaves only after the token has been verified here,
 * so D13 holds as in requireFull: anything short of the tier is the 401, whatever else is wrong.
 * Without an Authorization header it is requireFull.
 */
export const requireFullCheckedByWrite = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header('Authorization');
  if (header === undefined) return requireFull(c, next);
  const token = BEARER.exec(header)?.[1];
  if (!token) throw new Unauthenticated();
  c.set('bearer', token);
  await next();
  if (c.error && !(c.error instanceof Unauthenticated) && !c.get('identity')) {
    c.set('identity', await bearerIdentity(c, header));
  }
});

/**
 * For requireFullCheckedByWrite's handler: the caller subquery of the unverified bearer token, for
 * the write to embed (book/transactions.ts' postTransactionAs); undefined for a session, whose
 * identity the tier has already set.
 */
export function bearerCallerOf(c: Ctx): ReturnType<typeof bearerCaller> | undefined {
  const token = c.get('bearer');
  return token === undefined ? undefined : bearerCaller(token, c.var.config.apiOrigin);
}

/**
 * The caller a write's statement found for `c.var.bearer` (requireFullCheckedByWrite); its use is
 * stamped as requireFull stamps it.
 */
export async function adoptBearerCaller(c: Ctx, row: BearerCallerRow): Promise<void> {
  const caller = await recordBearerUse(c.var.db, row);
  await recordUserSeen(c.var.db, caller.userId, caller.userLastSeenAt);
  c.set('identity', { userId: caller.userId, email: caller.email, via: 'bearer', clientId: caller.clientId });
}

export const BEARER_REFUSED = 'this needs a signed-in session in the web app; a bearer token cannot do it';

/**
 * Session-only: the full tier, but a valid bearer token is refused with 403 — these routes issue
 * or destroy credentials, and a bearer token has no second factor behind it. `refuseBearer` lets
 * a route group answer in its own error shape (OAuth routes).
 */
export function requireSession(refuseBearer: (c: Ctx) => Response | Promise<Response> = () => { throw forbidden(BEARER_REFUSED); }) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const header = c.req.header('Authorization');
    if (header !== undefined) {
      await bearerIdentity(c, header, { recordUse: false });
      return refuseBearer(c);
    }
    const session = await cookieSession(c);
    if (!session?.mfaComplete) throw new Unauthenticated();
    adoptSession(c, session);
    await next();
  });
}

/** Who the change log names for a change made by the caller (D15): the person, and through what. */
export function authorOf(c: Ctx): Author {
  const { userId, email, via, clientId } = c.var.identity;
  return { userId, email, via: via === 'session' ? 'session' : 'token', clientId };
}
