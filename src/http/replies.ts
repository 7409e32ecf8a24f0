import * as v from 'valibot';
import type { OAuthErrorCode } from '../oauth/errors';
import { responseSchema } from '../shapes';

// The answers many routes share, as the API description shows them (src/http/route.ts adds the
// ones a route has by its tier and body; src/http/errors.ts is where they are made).

/** One documented answer: a JSON body, a text body, both (alternatives), or none. */
export interface Reply {
  description: string;
  json?: v.GenericSchema;
  /** A text body (text/plain unless `media` names another type); the value describes it. */
  text?: string;
  /** The media type of the `text` body when it is not text/plain (D17: `text/csv`). */
  media?: string;
  /** A body of raw bytes, of one of these media types (D22: a receipt as it was stored). */
  binary?: readonly string[];
  /** Response headers always sent: name → description. */
  headers?: Record<string, string>;
  /** Response headers sent in some cases only: name → description. */
  sometimes?: Record<string, string>;
}

/** Every OAuth error code (spec: OAuth error codes); a record so that a new code fails to compile here. */
const OAUTH_CODES: Record<OAuthErrorCode, true> = {
  invalid_request: true,
  invalid_grant: true,
  invalid_client: true,
  invalid_redirect_uri: true,
  unsupported_grant_type: true,
  authorization_pending: true,
  slow_down: true,
  access_denied: true,
  expired_token: true,
  temporarily_unavailable: true,
  server_error: true,
};

export const ErrorBody = responseSchema(
  'Error',
  v.pipe(v.strictObject({ error: v.string() }), v.description('Ledger routes and the authentication middleware (spec: Errors, Shapes).')),
);
export const OAuthErrorBody = responseSchema(
  'OAuthError',
  v.pipe(
    v.strictObject({
      error: v.picklist(Object.keys(OAUTH_CODES) as OAuthErrorCode[]),
      error_description: v.string(),
    }),
    v.description('OAuth routes (RFC 6749 §5.2); always with Cache-Control: no-store.'),
  ),
);

export const CHALLENGE = 'Bearer resource_metadata="{API_ORIGIN}/.well-known/oauth-protected-resource"';
export const unauthenticated: Reply = {
  description: 'No credential, or an expired or invalid one, or a half-session on a full route: `{"error": "authentication required"}` (error rule 4).',
  json: ErrorBody,
  headers: { 'WWW-Authenticate': CHALLENGE },
};
export const refused = (description: string): Reply => ({ description, json: ErrorBody });
export const oauthRefused = (description: string): Reply => ({ description, json: OAuthErrorBody });
export const bearerRefused = refused('A bearer token was used on a session-only route (error rule 5).');
export const oauthBearerRefused = oauthRefused('invalid_client: a bearer token was used; approve from the web app (error rule 5).');
export const fault = refused('Unexpected fault: a fixed sentence; detail goes to the server log only (error rule 3).');
export const oauthFault = oauthRefused('server_error, with the same fixed sentence (error rule 3).');
export const tooLarge = refused('The request body is over 1 MiB (D6).');
export const oauthTooLarge = oauthRefused('invalid_request: the request body is over 1 MiB (D6).');
export const notJson = refused('The body is not `Content-Type: application/json`.');
export const oauthNotJson = oauthRefused('invalid_request: the body is not `Content-Type: application/json`.');
export const notForm: Reply = { description: 'The body is not `application/x-www-form-urlencoded` (error rule 6).', text: 'a plain sentence' };
export const badJson = (description: string) => refused(`${description}; also malformed JSON`);
export const throttled = (description: string): Reply => ({ description, json: ErrorBody, headers: { 'Retry-After': 'seconds to wait, rounded up' } });
export const badQuery = refused('A query parameter is malformed or repeated (for dates: not a calendar date YYYY-MM-DD).');
export const badId = refused('The path id is not a positive integer.');
export const noStore = { 'Cache-Control': 'no-store' };
export const setCookie = (what: string) => ({ 'Set-Cookie': `lg_session: ${what} (HttpOnly, SameSite=Lax, Path=/)` });

/** A positive integer path id (the route reads it with pathId). */
export const positiveId = v.pipe(v.number(), v.integer(), v.minValue(1));
