import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isDatabaseUnreachable, reportUnreachable } from '../db/reachability';
import { databaseRefusal, unstorableText } from '../db/refusals';
import { invalid, Refusal, SessionEnded, type RefusalReason } from '../errors';
import { describeFault } from '../log';
import { OAuthError } from '../oauth/errors';
import type { AppEnv } from './context';

/** Error rule 3: the fixed sentence of every unexpected fault; detail goes to the server log only. */
export const GENERIC_FAULT = 'something went wrong on the server';

export const AUTHENTICATION_REQUIRED = 'authentication required';

/** Error rule 4: no credential, or an expired or invalid one, on a protected route. */
export class Unauthenticated extends Error {
  constructor() {
    super(AUTHENTICATION_REQUIRED);
    this.name = 'Unauthenticated';
  }
}

/**
 * Error rule 6: a framework-level rejection, answered in plain text (a missing query parameter on
 * GET /oauth/authorize, a missing grant_type, a body that is not form-encoded).
 */
export class PlainTextRejection extends Error {
  constructor(
    readonly status: 400 | 415 | 422,
    message: string,
  ) {
    super(message);
    this.name = 'PlainTextRejection';
  }
}

/** D6: a request body over the limit; 413 in the route's error shape. */
export class BodyTooLarge extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BodyTooLarge';
  }
}

const STATUS_OF: Record<RefusalReason, ContentfulStatusCode> = {
  invalid: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unsupported_media_type: 415,
};

export function challengeHeader(apiOrigin: string): string {
  return `Bearer resource_metadata="${apiOrigin}/.well-known/oauth-protected-resource"`;
}

/** OAuth routes answer in the OAuth shape `{error, error_description}` (spec: Errors, Shapes). */
function isOAuthRoute(c: Context<AppEnv>): boolean {
  return c.req.path.startsWith('/oauth/');
}

/** The OAuth error shape (RFC 6749 §5.2); `Cache-Control: no-store` is already set by answerError. */
function answerOAuth(c: Context<AppEnv>, code: OAuthError['code'], description: string, status: ContentfulStatusCode): Response {
  return c.json({ error: code, error_description: description }, status);
}

/**
 * Issue 36 item 2: how long a client is asked to wait when the database could not be reached or
 * ended the session under its request; the answer is still the spec's 500.
 */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** A path no route serves (spec: Errors, Shapes). */
export const notFoundAnswer = (c: Context<AppEnv>): Response => c.json({ error: 'not found' }, 404);

/** The one place where errors become HTTP answers, in the spec's shapes (spec: Errors). */
export function answerError(error: unknown, c: Context<AppEnv>): Response {
  const oauth = isOAuthRoute(c);
  // Error rule 7 and D13: no error answered under /oauth/ may be stored, whatever its shape (the
  // plain 401 of approve, a plain-text rejection, a 413 and a 500 included).
  if (oauth) c.header('Cache-Control', 'no-store');
  if (error instanceof Unauthenticated || error instanceof SessionEnded) {
    // Error rule 4 — the plain shape on every route, OAuth ones included (spec: approve without credential).
    c.header('WWW-Authenticate', challengeHeader(c.var.config.apiOrigin));
    return c.json({ error: AUTHENTICATION_REQUIRED }, 401);
  }
  if (error instanceof OAuthError) return answerOAuth(c, error.code, error.description, error.status);
  if (error instanceof PlainTextRejection) return c.text(error.message, error.status);
  if (error instanceof BodyTooLarge) {
    return oauth ? answerOAuth(c, 'invalid_request', error.message, 413) : c.json({ error: error.message }, 413);
  }
  // On OAuth routes a constraint violation is our fault (say, client id allocation): only text counts.
  const unstorable = oauth ? unstorableText(error) : undefined;
  const refusal = error instanceof Refusal ? error : unstorable !== undefined ? invalid(unstorable) : oauth ? undefined : databaseRefusal(error);
  if (refusal) {
    const status = STATUS_OF[refusal.reason];
    if (oauth) return answerOAuth(c, 'invalid_request', refusal.message, status === 415 ? 415 : 400);
    return c.json(
      { error: refusal.message, ...(refusal.errors && { errors: refusal.errors }), ...(refusal.candidates && { candidates: refusal.candidates }), ...refusal.figures },
      status,
    );
  }
  if (error instanceof HTTPException && error.status < 500) {
    // Hono's own rejections (malformed JSON); their messages are fixed strings of the framework.
    const message = error.status === 400 ? 'the request body is not valid JSON' : error.message;
    if (oauth) return answerOAuth(c, 'invalid_request', message, 400);
    return c.json({ error: message }, error.status);
  }
  if (isDatabaseUnreachable(error) && c.var.db) {
    // The request may be sent again once the database is back: say when to try. The log says once
    // that the database is unreachable (src/db/reachability.ts), not once per request.
    c.header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
    reportUnreachable(c.var.db, c.var.log, error);
  } else {
    c.var.log?.error('request.fault', { method: c.req.method, path: c.req.path, ...describeFault(error) });
  }
  // Error rule 3: the fixed sentence; on OAuth routes as server_error.
  if (oauth) return answerOAuth(c, 'server_error', GENERIC_FAULT, 500);
  return c.json({ error: GENERIC_FAULT }, 500);
}
