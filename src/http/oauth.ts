import type { Context } from 'hono';
import * as v from 'valibot';
import {
  issueAuthorizationCode,
  exchangeAuthorizationCode,
  validateAuthorizationRequest,
} from '../oauth/authorization';
import {
  checkRedirectUris,
  MAX_DYNAMIC_CLIENTS,
  MAX_REDIRECT_URIS,
  describeClient,
  hasMetadataDocument,
  reapUnusedClients,
  requireClient,
  registerClient,
  sanitiseClientName,
} from '../oauth/clients';
import {
  decideDeviceGrant,
  describePendingDeviceGrant,
  DEVICE_ATTEMPTS_PER_SESSION,
  DEVICE_GRANT_SECONDS,
  DEVICE_POLL_INTERVAL_SECONDS,
  pollDeviceCode,
  startDeviceGrant,
} from '../oauth/device-grants';
import { invalidGrant, invalidRequest, OAuthError } from '../oauth/errors';
import { isMetadataDocumentUrl } from '../oauth/metadata-documents';
import { resolvesToThisApi } from '../oauth/resource';
import { Client, ClientRegistered, DeviceAuthorization, DeviceInfo, Redirect, TokenResponse } from '../oauth/views';
import { revokeByToken, rotateRefreshToken, type TokenPair } from '../oauth/grants';
import type { AppEnv } from './context';
import { PlainTextRejection } from './errors';
import { readForm, required } from './form';
import { CHALLENGE, ErrorBody, noStore, OAuthErrorBody, oauthRefused } from './replies';
import {
  ApproveSchema,
  AuthorizeQuerySchema,
  ClientInfoQuerySchema,
  DeviceAuthorizationRequest,
  DeviceDecisionSchema,
  DeviceInfoQuerySchema,
  RegistrationSchema,
  RevocationRequest,
  TokenRequest,
} from './oauth-requests';
import { route } from './route';
import { requireSession } from './tiers';
import type { Rejection } from './validation';

type Ctx = Context<AppEnv>;

const DEVICE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

/** Spec error rule 5: a bearer token on a session-only OAuth route. */
const refuseBearer = () => {
  throw new OAuthError('invalid_client', 'approve a client from the web app, not with a token', 403);
};

/** Every byte of the raw query string, literal or percent-encoded, is printable ASCII. */
function isPrintableAscii(rawQuery: string): boolean {
  if (/[^\x20-\x7e]/.test(rawQuery)) return false;
  for (const [, hex] of rawQuery.matchAll(/%([0-9A-Fa-f]{2})/g)) {
    const byte = Number.parseInt(hex!, 16);
    if (byte < 0x20 || byte > 0x7e) return false;
  }
  return true;
}

function rawQueryOf(c: Ctx): string {
  const url = c.req.url;
  const at = url.indexOf('?');
  return at === -1 ? '' : url.slice(at + 1);
}

/**
 * RFC 6749 §4.1.2: the redirect back to the client, with the code or the refusal, and the state;
 * D24, RFC 9207 §2: and `iss`, the issuer, so a client talking to several servers knows whose
 * answer this is (mix-up attacks). A registered URI's own query is kept, the parameters added to it.
 */
function redirectWith(redirectUri: string, issuer: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...params, iss: issuer })) if (value !== undefined) query.set(key, value);
  const separator = !redirectUri.includes('?') ? '?' : /[?&]$/.test(redirectUri) ? '' : '&';
  return `${redirectUri}${separator}${query}`;
}

/** When present, `resource` must be this API (D11); tokens are always audienced to API_ORIGIN. */
function checkOptionalResource(c: Ctx, form: Record<string, string>): void {
  const resource = form.resource;
  if (resource !== undefined && !resolvesToThisApi(resource, c.var.config.apiOrigin)) {
    throw invalidRequest('resource must be this API');
  }
}

/**
 * D18: a client_id that is an https URL is its metadata document's, fetched (or cached) and
 * accepted before anything else happens: a refusal is 401 invalid_client and consumes nothing.
 * Other ids are checked by the grant itself (D13: an unknown one is the grant's invalid_grant).
 */
async function checkMetadataDocumentClient(c: Ctx, clientId: string | undefined): Promise<void> {
  if (clientId !== undefined && isMetadataDocumentUrl(clientId)) await requireClient(c.var.db, c.var.clientMetadata, clientId);
}

/** D13: the request is validated in full before any grant is looked up (nothing is consumed by a bad request). */
async function exchange(c: Ctx, form: Record<string, string>): Promise<TokenPair> {
  const audience = c.var.config.apiOrigin;
  const grantType = form.grant_type;
  if (grantType === 'authorization_code') {
    const input = {
      code: required(form, 'code'),
      redirectUri: required(form, 'redirect_uri'),
      clientId: required(form, 'client_id'),
      codeVerifier: required(form, 'code_verifier'),
    };
    checkOptionalResource(c, form);
    await checkMetadataDocumentClient(c, input.clientId);
    const pair = await exchangeAuthorizationCode(c.var.db, input, audience);
    if (!pair) throw invalidGrant('that code is not redeemable');
    return pair;
  }
  if (grantType === 'refresh_token') {
    const input = { refreshToken: required(form, 'refresh_token'), clientId: required(form, 'client_id') };
    checkOptionalResource(c, form);
    await checkMetadataDocumentClient(c, input.clientId);
    const pair = await rotateRefreshToken(c.var.db, { ...input, audience });
    if (!pair) throw invalidGrant('that refresh token is not redeemable');
    return pair;
  }
  if (grantType === DEVICE_GRANT_TYPE) {
    const input = { deviceCode: required(form, 'device_code'), clientId: required(form, 'client_id') };
    checkOptionalResource(c, form);
    await checkMetadataDocumentClient(c, input.clientId);
    return pollDeviceCode(c.var.db, { ...input, audience });
  }
  throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code, refresh_token or the device code grant');
}

/** Query parameters refused by their schema: a plain-text 400 (spec: GET /oauth/authorize). */
const rejectQuery: Rejection = (message) => {
  throw new PlainTextRejection(400, `Failed to deserialize query string: ${message}`);
};
const sessionOnly = requireSession(refuseBearer);
const unknownClientOrNoCredential = {
  description: 'invalid_client (unknown client), or no credential (error rule 4).',
  json: v.union([OAuthErrorBody, ErrorBody]),
  sometimes: { 'WWW-Authenticate': `${CHALLENGE} (without credential)` },
};

/** Spec: OAuth routes. Errors in the OAuth shape with `Cache-Control: no-store` (src/http/errors.ts). */
export const oauthRoutes = [
  route(
    {
      method: 'get', path: '/oauth/authorize', tier: 'open', errors: 'oauth', summary: 'Authorization request: 303 to the consent page', query: AuthorizeQuerySchema,
      description: 'response_type must be `code`, code_challenge_method `S256` with a challenge of at least 43 characters, redirect_uri registered for the client, resource this API. A client_id that is an https URL names its Client ID Metadata Document, which is fetched (or taken from the cache) for its name and redirect URIs (D18). No session check: the consent page signs the person in.',
      responses: {
        303: { description: 'A valid request: `Location: {WEB_ORIGIN}/authorize?<the same query string>`.', headers: { Location: '{WEB_ORIGIN}/authorize?<query>' } },
        400: { description: 'invalid_request (JSON, never a redirect): bad response_type, bad PKCE shape, redirect_uri not registered, resource not this API, or a query string that is not printable ASCII. A missing query parameter is a plain-text 400.', json: OAuthErrorBody, text: 'Failed to deserialize query string: …' },
        401: oauthRefused('invalid_client: unknown client, or an https client_id whose metadata document could not be fetched or was refused (D18).'),
      },
    },
    { rejectQuery },
    async (c, { query }) => {
      if (!isPrintableAscii(rawQueryOf(c))) throw invalidRequest('the query string must be printable ASCII');
      // No session check here: the web app's consent page signs the person in and approves.
      await validateAuthorizationRequest(c.var.db, c.var.clientMetadata, query, c.var.config.apiOrigin);
      return c.body(null, 303, { Location: `${c.var.config.webOrigin}/authorize?${rawQueryOf(c)}` });
    },
  ),
  route(
    {
      method: 'post', path: '/oauth/authorize/approve', tier: 'session-only', errors: 'oauth', summary: 'The person approves or denies; mints the code', json: ApproveSchema,
      description: 'Every parameter of GET /oauth/authorize plus `approve`; fully re-validated. Only a full cookie session mints a code.',
      responses: {
        200: { description: 'Where to send the browser (there is no HTTP redirect).', json: Redirect, headers: noStore },
        400: oauthRefused('invalid_request (same validation as GET /oauth/authorize), or a malformed body.'),
        401: { ...unknownClientOrNoCredential, description: 'invalid_client (unknown client), or no credential (`{"error": "authentication required"}`, error rule 4).' },
      },
    },
    { guard: sessionOnly },
    async (c, { json: request }) => {
      const client = await validateAuthorizationRequest(c.var.db, c.var.clientMetadata, request, c.var.config.apiOrigin);
      c.header('Cache-Control', 'no-store');
      if (!request.approve) {
        return c.json({ redirect: redirectWith(request.redirect_uri, c.var.config.apiOrigin, { error: 'access_denied', state: request.state }) });
      }
      const code = await issueAuthorizationCode(c.var.db, {
        client,
        userId: c.var.identity.userId,
        redirectUri: request.redirect_uri,
        codeChallenge: request.code_challenge,
      });
      return c.json({ redirect: redirectWith(request.redirect_uri, c.var.config.apiOrigin, { code, state: request.state }) });
    },
  ),
  route(
    {
      method: 'get', path: '/oauth/client_info', tier: 'full', errors: 'oauth', summary: 'A client as stored (for the consent page)', query: ClientInfoQuerySchema,
      responses: {
        200: { description: 'The client; its name is read from the store, never from the query.', json: Client },
        400: { description: 'Missing client_id.', text: 'Failed to deserialize query string: …' },
        401: unknownClientOrNoCredential,
      },
    },
    { rejectQuery },
    async (c, { query }) => {
      return c.json(describeClient(await requireClient(c.var.db, c.var.clientMetadata, query.client_id)));
    },
  ),
  route(
    {
      method: 'post', path: '/oauth/token', tier: 'open', errors: 'oauth', summary: 'Token endpoint: authorization_code, refresh_token, device_code', form: TokenRequest,
      description: 'Every response carries `Cache-Control: no-store`. Every failure of a code or refresh token is the identical invalid_grant; a code that fails redemption is killed.',
      responses: {
        200: { description: 'A new access token (1 hour) and refresh token (60 days).', json: TokenResponse, headers: noStore },
        400: oauthRefused('invalid_request, invalid_grant, unsupported_grant_type, or for the device grant authorization_pending, slow_down, access_denied, expired_token.'),
        401: oauthRefused('invalid_client: an https client_id whose metadata document could not be fetched or was refused (D18); nothing is consumed.'),
        422: { description: 'Missing grant_type (error rule 6).', text: 'missing field `grant_type`' },
      },
    },
    {},
    async (c) => {
      // Spec: every response of the token endpoint carries Cache-Control: no-store (D13: the plain-text ones too).
      c.header('Cache-Control', 'no-store');
      const form = await readForm(c);
      if (form.grant_type === undefined) throw new PlainTextRejection(422, 'missing field `grant_type`');
      return c.json(await exchange(c, form));
    },
  ),
  route(
    {
      method: 'post', path: '/oauth/device_authorization', tier: 'open', errors: 'oauth', summary: 'Starts a device grant (RFC 8628)', form: DeviceAuthorizationRequest,
      responses: {
        200: { description: 'The codes; poll POST /oauth/token every `interval` seconds.', json: DeviceAuthorization, headers: noStore },
        400: oauthRefused('invalid_request: missing field, or resource not this API.'),
        401: oauthRefused('invalid_client: unknown client, or an https client_id whose metadata document could not be fetched or was refused (D18).'),
        500: oauthRefused('server_error: no unique user code after three tries, or an unexpected fault.'),
      },
    },
    {},
    async (c) => {
      const form = await readForm(c);
      const clientId = required(form, 'client_id');
      const resource = required(form, 'resource');
      const client = await requireClient(c.var.db, c.var.clientMetadata, clientId);
      if (!resolvesToThisApi(resource, c.var.config.apiOrigin)) throw invalidRequest('resource must be this API');
      const { deviceCode, userCode } = await startDeviceGrant(c.var.db, client);
      const verificationUri = `${c.var.config.webOrigin}/device`;
      c.header('Cache-Control', 'no-store');
      return c.json({
        device_code: deviceCode,
        user_code: userCode,
        verification_uri: verificationUri,
        verification_uri_complete: `${verificationUri}?user_code=${userCode}`,
        expires_in: DEVICE_GRANT_SECONDS,
        interval: DEVICE_POLL_INTERVAL_SECONDS,
      });
    },
  ),
  route(
    {
      method: 'get', path: '/oauth/device_info', tier: 'session-only', errors: 'oauth', summary: 'The client behind a user code (for the device page)', query: DeviceInfoQuerySchema,
      description: `user_code in any case, dash optional. Each failed lookup costs the session one of its ${DEVICE_ATTEMPTS_PER_SESSION} attempts.`,
      responses: {
        200: { description: 'The pending request.', json: DeviceInfo },
        400: { description: 'invalid_grant: no pending code matches (costs one attempt); a missing user_code is a plain-text 400.', json: OAuthErrorBody, text: 'Failed to deserialize query string: …' },
        401: {
          ...unknownClientOrNoCredential,
          description: "invalid_client: the client's metadata document could not be fetched or was refused (D18); or no credential (error rule 4).",
        },
        429: oauthRefused(`invalid_request: the session has used its ${DEVICE_ATTEMPTS_PER_SESSION} attempts (sign in again).`),
      },
    },
    { guard: sessionOnly, rejectQuery },
    async (c, { query }) => {
      const found = await describePendingDeviceGrant(c.var.db, c.var.session.hash, query.user_code);
      // D18: a client with a metadata document is described by the document, as everywhere.
      const client = hasMetadataDocument(found.client)
        ? await requireClient(c.var.db, c.var.clientMetadata, found.client.id)
        : found.client;
      return c.json({ client: describeClient(client), expires_in: found.expiresIn });
    },
  ),
  route(
    {
      method: 'post', path: '/oauth/device/approve', tier: 'session-only', errors: 'oauth', summary: 'Approves or declines a user code', json: DeviceDecisionSchema,
      responses: {
        204: { description: 'Approved or declined (approving marks the client used).' },
        400: oauthRefused('invalid_grant: no pending code matches (costs one attempt), or invalid_request: a malformed body.'),
        429: oauthRefused(`invalid_request: the session has used its ${DEVICE_ATTEMPTS_PER_SESSION} attempts.`),
      },
    },
    { guard: sessionOnly },
    async (c, { json: { user_code, approve } }) => {
      await decideDeviceGrant(c.var.db, {
        sessionHash: c.var.session.hash,
        userId: c.var.identity.userId,
        typedUserCode: user_code,
        approve,
      });
      return c.body(null, 204);
    },
  ),
  route(
    {
      method: 'post', path: '/oauth/register', tier: 'open', errors: 'oauth', summary: 'Dynamic client registration (RFC 7591)', json: RegistrationSchema,
      description: `redirect_uris: 1 to ${MAX_REDIRECT_URIS} URIs, each \`http://127.0.0.1\` / \`http://[::1]\` (any port) or \`https://\` without userinfo; never a fragment. No secret is issued; unsupported metadata is ignored.`,
      responses: {
        201: { description: 'Registered (public client).', json: ClientRegistered },
        400: oauthRefused('invalid_redirect_uri: none given, too many, or one not acceptable; also a malformed body.'),
        429: oauthRefused(`temporarily_unavailable: ${MAX_DYNAMIC_CLIENTS} dynamic clients already exist.`),
      },
    },
    {
      before: [
        async (c, next) => {
          await reapUnusedClients(c.var.db);
          await next();
        },
      ],
      rejectJson: (message) => {
        throw new OAuthError('invalid_redirect_uri', message);
      },
    },
    async (c, { json: body }) => {
      // RFC 7591 §2: metadata we do not support (grant_types, scope, logo_uri…) is ignored; every client is public.
      checkRedirectUris(body.redirect_uris);
      const client = await registerClient(c.var.db, {
        redirectUris: body.redirect_uris,
        name: sanitiseClientName(body.client_name),
      });
      return c.json(
        {
          client_id: client.id,
          client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
          client_name: client.name,
          redirect_uris: client.redirectUris,
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
        },
        201,
      );
    },
  ),
  route(
    {
      method: 'post', path: '/oauth/revoke', tier: 'open', errors: 'oauth', summary: 'Token revocation (RFC 7009)', form: RevocationRequest,
      description: 'Revoking a refresh token also revokes its descendants and the access tokens it minted.',
      responses: {
        200: { description: 'Always, also for unknown, expired or already revoked tokens; empty body.', headers: noStore },
        400: oauthRefused('invalid_request: token missing.'),
        401: oauthRefused('invalid_client: client_id is an https URL whose metadata document could not be fetched or was refused (D18); nothing is revoked.'),
      },
    },
    {},
    async (c) => {
      // RFC 7009 §2.2: 200 whether or not anything was revoked.
      c.header('Cache-Control', 'no-store');
      const form = await readForm(c);
      const token = required(form, 'token');
      await checkMetadataDocumentClient(c, form.client_id);
      await revokeByToken(c.var.db, token, form.client_id);
      return c.body(null, 200);
    },
  ),
];
