import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { NewAccountSchema } from '../book/accounts';
import { MAX_DYNAMIC_CLIENTS, MAX_REDIRECT_URIS } from '../oauth/clients';
import { DEVICE_ATTEMPTS_PER_SESSION, DEVICE_GRANT_SECONDS, DEVICE_POLL_INTERVAL_SECONDS } from '../oauth/device-grants';
import type { OAuthErrorCode } from '../oauth/errors';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../identity/passwords';
import { AsOfSchema, MONTHLY_MAX_MONTHS, PeriodSchema } from '../book/reports';
import { SettingsPatchSchema } from '../book/settings';
import { isCalendarDate } from '../text';
import { ACCESS_TOKEN_SECONDS } from '../oauth/grants';
import { NewTransactionSchema, TransactionRangeSchema } from '../book/transactions';
import {
  Account,
  Balances,
  BalanceSheet,
  cents,
  CreatedTransaction,
  date,
  Entry,
  IncomeStatement,
  int,
  KindTotals,
  Month,
  Monthly,
  Register,
  Section,
  Settings,
  Transaction,
} from '../book/views';
import { LoginSchema, PasswordChangeSchema } from './auth';
import {
  ApproveSchema,
  AuthorizeQuerySchema,
  ClientInfoQuerySchema,
  DeviceDecisionSchema,
  DeviceInfoQuerySchema,
  RegistrationSchema,
} from './oauth';
import { AuthenticationFinishSchema, RegistrationFinishSchema } from './webauthn';

// The API description (OpenAPI 3.1, JSON Schema 2020-12). Request schemas are the valibot schemas
// that validate the requests, converted by @valibot/to-json-schema; response schemas are written
// here once, as valibot schemas too, and converted the same way. tests/openapi.test.ts checks that
// the operations below are exactly the routes the app serves, that each names its tier, and that
// real answers of the app validate against the schemas documented here. The book's own shapes
// (accounts, transactions, reports) live in src/book/views.ts, shared with the MCP tools.

/** Spec: Endpoints, "Tiers" (session-only = the full tier, but a bearer token is refused with 403). */
export type Tier = 'open' | 'half' | 'full' | 'session-only';
type Schema = v.GenericSchema;

/** One documented answer: a JSON body, a plain-text body, both (alternatives), or none. */
interface Reply {
  description: string;
  json?: Schema;
  /** A text/plain body; the value describes it. */
  text?: string;
  /** Response headers always sent: name → description. */
  headers?: Record<string, string>;
  /** Response headers sent in some cases only: name → description. */
  sometimes?: Record<string, string>;
}

interface Operation {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  tier: Tier;
  summary: string;
  description?: string;
  /** Path parameters (every `{name}` of the path must have one). */
  params?: Record<string, Schema>;
  query?: Schema;
  json?: Schema;
  /** An `application/x-www-form-urlencoded` body (described here; read by src/http/form.ts). */
  form?: Schema;
  responses: Record<number, Reply>;
}

// ---------------------------------------------------------------------------------------------
// Building blocks of the response schemas

const timestamp = v.pipe(v.string(), v.isoTimestamp(), v.description('ISO 8601, UTC'));
const url = v.pipe(v.string(), v.url());
const tokenHash = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/), v.description('SHA-256 digest of the token, hex'));

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

const ErrorBody = v.pipe(
  v.strictObject({ error: v.string() }),
  v.description('Ledger routes and the authentication middleware (spec: Errors, Shapes).'),
);
const OAuthErrorBody = v.pipe(
  v.strictObject({
    error: v.picklist(Object.keys(OAUTH_CODES) as OAuthErrorCode[]),
    error_description: v.string(),
  }),
  v.description('OAuth routes (RFC 6749 §5.2); always with Cache-Control: no-store.'),
);

const Connection = v.strictObject({
  id: tokenHash,
  client_id: v.string(),
  client_name: v.string(),
  kind: v.picklist(['access', 'refresh']),
  label: v.nullable(v.string()),
  last_used_at: v.nullable(timestamp),
  expires_at: timestamp,
});
const Passkey = v.strictObject({ id: int, name: v.string(), created_at: timestamp, last_used_at: v.nullable(timestamp) });
const Me = v.strictObject({
  email: v.string(),
  has_passkeys: v.boolean(),
  mfa_complete: v.literal(true),
  via: v.picklist(['session', 'bearer']),
});
const LoginResult = v.strictObject({ has_passkeys: v.boolean(), mfa_complete: v.literal(false) });
const Elevated = v.strictObject({ mfa_complete: v.literal(true) });

// D3: the option documents of @simplewebauthn (WebAuthn Level 3 JSON). Open objects: the library
// may add members browsers understand.
const CredentialDescriptor = v.object({ id: v.string(), type: v.literal('public-key'), transports: v.optional(v.array(v.string())) });
const CreationOptions = v.pipe(
  v.object({
    rp: v.object({ name: v.string(), id: v.optional(v.string()) }),
    user: v.object({ id: v.string(), name: v.string(), displayName: v.string() }),
    challenge: v.pipe(v.string(), v.description('base64url; single-use, 5 minutes, bound to the session')),
    pubKeyCredParams: v.array(v.object({ alg: int, type: v.literal('public-key') })),
    timeout: v.optional(int),
    excludeCredentials: v.pipe(v.array(CredentialDescriptor), v.description("the account's passkeys")),
    authenticatorSelection: v.object({
      residentKey: v.literal('required'),
      userVerification: v.literal('required'),
      requireResidentKey: v.optional(v.boolean()),
      authenticatorAttachment: v.optional(v.string()),
    }),
    attestation: v.literal('none'),
    hints: v.optional(v.array(v.string())),
    attestationFormats: v.optional(v.array(v.string())),
    extensions: v.optional(v.record(v.string(), v.unknown())),
  }),
  v.description('PublicKeyCredentialCreationOptionsJSON, for navigator.credentials.create()'),
);
const RequestOptions = v.pipe(
  v.object({
    challenge: v.pipe(v.string(), v.description('base64url; single-use, 5 minutes, bound to the session')),
    timeout: v.optional(int),
    rpId: v.optional(v.string()),
    allowCredentials: v.pipe(v.array(CredentialDescriptor), v.description("the account's passkeys")),
    userVerification: v.literal('required'),
    hints: v.optional(v.array(v.string())),
    extensions: v.optional(v.record(v.string(), v.unknown())),
  }),
  v.description('PublicKeyCredentialRequestOptionsJSON, for navigator.credentials.get()'),
);

const ProtectedResourceMetadata = v.strictObject({
  resource: url,
  authorization_servers: v.array(url),
  bearer_methods_supported: v.array(v.literal('header')),
});
const AuthorizationServerMetadata = v.strictObject({
  issuer: url,
  authorization_endpoint: url,
  token_endpoint: url,
  device_authorization_endpoint: url,
  registration_endpoint: url,
  revocation_endpoint: url,
  response_types_supported: v.array(v.literal('code')),
  grant_types_supported: v.array(v.picklist(['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'])),
  code_challenge_methods_supported: v.array(v.literal('S256')),
  token_endpoint_auth_methods_supported: v.array(v.literal('none')),
});
const Client = v.strictObject({
  id: v.string(),
  name: v.string(),
  dynamic: v.boolean(),
  first_use: v.pipe(v.boolean(), v.description('the client never completed a grant')),
  redirect_uris: v.array(v.string()),
});
const Redirect = v.strictObject({
  redirect: v.pipe(v.string(), v.description('redirect_uri with ?code=…&state=… (approved) or ?error=access_denied&state=… (denied)')),
});
const TokenResponse = v.strictObject({
  access_token: v.string(),
  token_type: v.literal('Bearer'),
  expires_in: v.literal(ACCESS_TOKEN_SECONDS),
  refresh_token: v.string(),
});
const DeviceAuthorization = v.strictObject({
  device_code: v.string(),
  user_code: v.pipe(v.string(), v.regex(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/)),
  verification_uri: url,
  verification_uri_complete: url,
  expires_in: v.literal(DEVICE_GRANT_SECONDS),
  interval: v.literal(DEVICE_POLL_INTERVAL_SECONDS),
});
const DeviceInfo = v.strictObject({ client: Client, expires_in: v.pipe(int, v.description('seconds remaining')) });
const ClientRegistered = v.strictObject({
  client_id: v.pipe(v.string(), v.regex(/^dyn_/)),
  client_id_issued_at: v.pipe(int, v.description('Unix seconds')),
  client_name: v.string(),
  redirect_uris: v.array(v.string()),
  token_endpoint_auth_method: v.literal('none'),
  grant_types: v.array(v.picklist(['authorization_code', 'refresh_token'])),
  response_types: v.array(v.literal('code')),
});

// D8: JSON-RPC 2.0 over the Streamable HTTP transport (JSON responses, stateless).
const JsonRpcId = v.union([v.string(), int]);
const JsonRpcRequest = v.object({
  jsonrpc: v.literal('2.0'),
  id: JsonRpcId,
  method: v.pipe(v.string(), v.description('initialize, tools/list, tools/call, ping…')),
  params: v.optional(v.record(v.string(), v.unknown())),
});
const JsonRpcNotification = v.object({
  jsonrpc: v.literal('2.0'),
  method: v.pipe(v.string(), v.description('notifications/initialized…')),
  params: v.optional(v.record(v.string(), v.unknown())),
});
const McpMessage = v.union([JsonRpcRequest, JsonRpcNotification]);
const McpRequestBody = v.union([McpMessage, v.pipe(v.array(McpMessage), v.minLength(1))]);
const JsonRpcErrorObject = v.strictObject({ code: int, message: v.string(), data: v.optional(v.unknown()) });
const JsonRpcResult = v.strictObject({
  jsonrpc: v.literal('2.0'),
  id: JsonRpcId,
  result: v.pipe(v.record(v.string(), v.unknown()), v.description('the method result; tools/call gives content, structuredContent and isError')),
});
const JsonRpcError = v.strictObject({ jsonrpc: v.literal('2.0'), id: v.nullable(JsonRpcId), error: JsonRpcErrorObject });
const McpResponse = v.union([JsonRpcResult, JsonRpcError]);
const McpResponseBody = v.union([McpResponse, v.array(McpResponse)]);

// OAuth form bodies (read by src/http/form.ts, not by a valibot schema: described here).
const clientId = v.pipe(v.string(), v.description('the client'));
const resource = v.pipe(v.string(), v.description('this API (RFC 8707); when present it must resolve to API_ORIGIN'));
const TokenRequest = v.variant('grant_type', [
  v.object({
    grant_type: v.literal('authorization_code'),
    code: v.string(),
    redirect_uri: v.pipe(v.string(), v.description('exactly the one approved')),
    client_id: clientId,
    code_verifier: v.pipe(v.string(), v.description('PKCE: BASE64URL(SHA-256(verifier)) = the code_challenge')),
    resource: v.optional(resource),
  }),
  v.object({ grant_type: v.literal('refresh_token'), refresh_token: v.string(), client_id: clientId, resource: v.optional(resource) }),
  v.object({
    grant_type: v.literal('urn:ietf:params:oauth:grant-type:device_code'),
    device_code: v.string(),
    client_id: clientId,
    resource: v.optional(resource),
  }),
]);
const DeviceAuthorizationRequest = v.object({ client_id: clientId, resource: v.pipe(v.string(), v.description('this API (RFC 8707)')) });
const RevocationRequest = v.object({
  token: v.string(),
  token_type_hint: v.optional(v.pipe(v.string(), v.description('ignored'))),
  client_id: v.optional(v.pipe(v.string(), v.description('scopes the revocation: a mismatch revokes nothing (and still answers 200)'))),
});

const positiveId = v.pipe(v.number(), v.integer(), v.minValue(1));

/** Named schemas under components.schemas, referenced wherever they are used. */
const REQUEST_SCHEMAS = {
  Login: LoginSchema,
  PasswordChange: PasswordChangeSchema,
  RegistrationResponse: RegistrationFinishSchema,
  AuthenticationResponse: AuthenticationFinishSchema,
  AuthorizationApproval: ApproveSchema,
  DeviceDecision: DeviceDecisionSchema,
  ClientRegistrationRequest: RegistrationSchema,
  TokenRequest,
  NewAccount: NewAccountSchema,
  SettingsPatch: SettingsPatchSchema,
  NewTransaction: NewTransactionSchema,
  McpRequest: McpRequestBody,
};
const RESPONSE_SCHEMAS = {
  Error: ErrorBody,
  OAuthError: OAuthErrorBody,
  LoginResult,
  Elevated,
  CreationOptions,
  RequestOptions,
  Me,
  Passkey,
  Connection,
  ProtectedResourceMetadata,
  AuthorizationServerMetadata,
  Client,
  Redirect,
  TokenResponse,
  DeviceAuthorization,
  DeviceInfo,
  ClientRegistered,
  Account,
  Settings,
  Entry,
  Transaction,
  CreatedTransaction,
  Balances,
  KindTotals,
  Section,
  BalanceSheet,
  IncomeStatement,
  Month,
  Register,
  McpResponse,
  JsonRpcError,
};

// ---------------------------------------------------------------------------------------------
// Answers shared by many operations

const CHALLENGE = 'Bearer resource_metadata="{API_ORIGIN}/.well-known/oauth-protected-resource"';
const unauthenticated: Reply = {
  description: 'No credential, or an expired or invalid one, or a half-session on a full route: `{"error": "authentication required"}` (error rule 4).',
  json: ErrorBody,
  headers: { 'WWW-Authenticate': CHALLENGE },
};
const refused = (description: string): Reply => ({ description, json: ErrorBody });
const oauthRefused = (description: string): Reply => ({ description, json: OAuthErrorBody });
const bearerRefused = refused('A bearer token was used on a session-only route (error rule 5).');
const oauthBearerRefused = oauthRefused('invalid_client: a bearer token was used; approve from the web app (error rule 5).');
const fault = refused('Unexpected fault: a fixed sentence; detail goes to the server log only (error rule 3).');
const oauthFault = oauthRefused('server_error, with the same fixed sentence (error rule 3).');
const tooLarge = refused('The request body is over 1 MiB (D6).');
const oauthTooLarge = oauthRefused('invalid_request: the request body is over 1 MiB (D6).');
const notJson = refused('The body is not `Content-Type: application/json`.');
const oauthNotJson = oauthRefused('invalid_request: the body is not `Content-Type: application/json`.');
const notForm = { description: 'The body is not `application/x-www-form-urlencoded` (error rule 6).', text: 'a plain sentence' };
const badJson = (description: string) => refused(`${description}; also malformed JSON`);
const throttled = (description: string): Reply => ({ description, json: ErrorBody, headers: { 'Retry-After': 'seconds to wait, rounded up' } });
const badQuery = refused('A query parameter is malformed or repeated (for dates: not a calendar date YYYY-MM-DD).');
const badId = refused('The path id is not a positive integer.');
const noStore = { 'Cache-Control': 'no-store' };
const setCookie = (what: string) => ({ 'Set-Cookie': `lg_session: ${what} (HttpOnly, SameSite=Lax, Path=/)` });

// ---------------------------------------------------------------------------------------------
// The operations, in the spec's order

const OPERATIONS: Operation[] = [
  { method: 'get', path: '/health', tier: 'open', summary: 'Liveness', responses: { 200: { description: 'Alive.', text: '`ok`' } } },

  // Session and account management (spec; D3, D4)
  {
    method: 'post', path: '/auth/login', tier: 'open', summary: 'Password step: starts a half-session (10 minutes)', json: LoginSchema,
    responses: {
      200: { description: 'Half-session cookie set; `mfa_complete` is always false. Next: a passkey (WebAuthn routes).', json: LoginResult, headers: setCookie('the half-session') },
      400: badJson('email or password missing or too long'),
      401: refused('Wrong email or password (the same answer for an unknown email).'),
      413: tooLarge, 415: notJson,
      429: throttled('Throttled after repeated failures for this email (D4); the password is not checked.'),
      500: fault,
    },
  },
  {
    method: 'post', path: '/auth/logout', tier: 'open', summary: 'Ends the session (if any)',
    responses: { 204: { description: 'Ended; the cookie is expired. Also 204 without a session.', headers: setCookie('expired') }, 500: fault },
  },
  {
    method: 'post', path: '/auth/webauthn/register/begin', tier: 'half', summary: 'Passkey enrolment options (D3)',
    description: 'A half-session may register only while the account has no passkey; once one exists, a full session is needed (registration gate).',
    responses: {
      200: { description: 'PublicKeyCredentialCreationOptionsJSON: attestation none, resident key and user verification required, excludeCredentials = the account\'s passkeys.', json: CreationOptions },
      401: unauthenticated,
      403: refused('Registration gate: the account already has a passkey and the session is a half-session.'),
      500: fault,
    },
  },
  {
    method: 'post', path: '/auth/webauthn/register/finish', tier: 'half', summary: 'Stores the passkey; elevates a half-session (D3)', json: RegistrationFinishSchema,
    responses: {
      200: { description: 'Enrolled. A half-session enrolling its first passkey is elevated: new session id in Set-Cookie.', json: Elevated, sometimes: setCookie('the elevated session (when a half-session was elevated)') },
      400: badJson('Malformed credential, failed verification, no ceremony in progress, or a passkey already registered'),
      401: unauthenticated,
      403: refused('Registration gate (see register/begin).'),
      413: tooLarge, 415: notJson, 500: fault,
    },
  },
  {
    method: 'post', path: '/auth/webauthn/auth/begin', tier: 'half', summary: 'Passkey sign-in options (D3)',
    responses: {
      200: { description: "PublicKeyCredentialRequestOptionsJSON: allowCredentials = the account's passkeys, user verification required.", json: RequestOptions },
      400: refused('The account has no passkey yet.'),
      401: unauthenticated,
      500: fault,
    },
  },
  {
    method: 'post', path: '/auth/webauthn/auth/finish', tier: 'half', summary: 'Verifies the passkey; elevates the session (D3)', json: AuthenticationFinishSchema,
    responses: {
      200: { description: 'Full session: new session id in Set-Cookie, expiry reset to SESSION_TTL_DAYS.', json: Elevated, headers: setCookie('the elevated session') },
      400: badJson('Failed verification, no user verification, counter regression, unknown credential, or no ceremony in progress'),
      401: unauthenticated,
      413: tooLarge, 415: notJson, 500: fault,
    },
  },
  {
    method: 'get', path: '/auth/me', tier: 'full', summary: 'Who is calling (D4)',
    responses: { 200: { description: 'The caller.', json: Me }, 401: unauthenticated, 500: fault },
  },
  {
    method: 'post', path: '/auth/password', tier: 'session-only', summary: 'Changes the password (D4)', json: PasswordChangeSchema,
    description: 'The calling session survives; every other session of the user ends and every token is revoked.',
    responses: {
      204: { description: 'Changed.' },
      400: badJson(`Wrong current password, or a new password outside ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`),
      401: unauthenticated, 403: bearerRefused, 413: tooLarge, 415: notJson,
      429: throttled('The current password is being throttled (D4).'),
      500: fault,
    },
  },
  {
    method: 'get', path: '/auth/passkeys', tier: 'full', summary: "The caller's passkeys (D4)",
    responses: { 200: { description: 'Passkeys, oldest first.', json: v.array(Passkey) }, 401: unauthenticated, 500: fault },
  },
  {
    method: 'delete', path: '/auth/passkeys/{id}', tier: 'session-only', summary: 'Removes a passkey (never the last one)', params: { id: positiveId },
    responses: {
      204: { description: 'Removed.' },
      400: badId, 401: unauthenticated, 403: bearerRefused,
      404: refused('No passkey of the caller has that id.'),
      409: refused('It is the last passkey of the account.'),
      500: fault,
    },
  },
  {
    method: 'get', path: '/auth/tokens', tier: 'full', summary: "The caller's connections",
    responses: { 200: { description: 'One row per connection: minted tokens and the live refresh token of each OAuth grant.', json: v.array(Connection) }, 401: unauthenticated, 500: fault },
  },
  {
    method: 'delete', path: '/auth/tokens/{id}', tier: 'session-only', summary: 'Revokes a connection and its descendants', params: { id: tokenHash },
    responses: {
      204: { description: 'Revoked.' },
      401: unauthenticated, 403: bearerRefused,
      404: refused('Nothing live owned by the caller has that id (unknown, someone else\'s, revoked or expired).'),
      500: fault,
    },
  },

  // Discovery documents
  {
    method: 'get', path: '/.well-known/oauth-protected-resource', tier: 'open', summary: 'Protected resource metadata (RFC 9728)',
    responses: { 200: { description: 'resource = authorization server = API_ORIGIN.', json: ProtectedResourceMetadata } },
  },
  {
    method: 'get', path: '/.well-known/oauth-authorization-server', tier: 'open', summary: 'Authorization server metadata (RFC 8414)',
    responses: { 200: { description: 'issuer = API_ORIGIN; endpoints under it.', json: AuthorizationServerMetadata } },
  },

  // OAuth routes
  {
    method: 'get', path: '/oauth/authorize', tier: 'open', summary: 'Authorization request: 303 to the consent page', query: AuthorizeQuerySchema,
    description: 'response_type must be `code`, code_challenge_method `S256` with a challenge of at least 43 characters, redirect_uri registered for the client, resource this API. No session check: the consent page signs the person in.',
    responses: {
      303: { description: 'A valid request: `Location: {WEB_ORIGIN}/authorize?<the same query string>`.', headers: { Location: '{WEB_ORIGIN}/authorize?<query>' } },
      400: { description: 'invalid_request (JSON, never a redirect): bad response_type, bad PKCE shape, redirect_uri not registered, resource not this API, or a query string that is not printable ASCII. A missing query parameter is a plain-text 400.', json: OAuthErrorBody, text: 'Failed to deserialize query string: …' },
      401: oauthRefused('invalid_client: unknown client.'),
      500: oauthFault,
    },
  },
  {
    method: 'post', path: '/oauth/authorize/approve', tier: 'session-only', summary: 'The person approves or denies; mints the code', json: ApproveSchema,
    description: 'Every parameter of GET /oauth/authorize plus `approve`; fully re-validated. Only a full cookie session mints a code.',
    responses: {
      200: { description: 'Where to send the browser (there is no HTTP redirect).', json: Redirect, headers: noStore },
      400: oauthRefused('invalid_request (same validation as GET /oauth/authorize), or a malformed body.'),
      401: { description: 'invalid_client (unknown client), or no credential (`{"error": "authentication required"}`, error rule 4).', json: v.union([OAuthErrorBody, ErrorBody]), sometimes: { 'WWW-Authenticate': `${CHALLENGE} (without credential)` } },
      403: oauthBearerRefused, 413: oauthTooLarge, 415: oauthNotJson, 500: oauthFault,
    },
  },
  {
    method: 'get', path: '/oauth/client_info', tier: 'full', summary: 'A client as stored (for the consent page)', query: ClientInfoQuerySchema,
    responses: {
      200: { description: 'The client; its name is read from the store, never from the query.', json: Client },
      400: { description: 'Missing client_id.', text: 'Failed to deserialize query string: …' },
      401: { description: 'invalid_client (unknown client), or no credential (error rule 4).', json: v.union([OAuthErrorBody, ErrorBody]), sometimes: { 'WWW-Authenticate': `${CHALLENGE} (without credential)` } },
      500: oauthFault,
    },
  },
  {
    method: 'post', path: '/oauth/token', tier: 'open', summary: 'Token endpoint: authorization_code, refresh_token, device_code', form: TokenRequest,
    description: 'Every response carries `Cache-Control: no-store`. Every failure of a code or refresh token is the identical invalid_grant; a code that fails redemption is killed.',
    responses: {
      200: { description: 'A new access token (1 hour) and refresh token (60 days).', json: TokenResponse, headers: noStore },
      400: oauthRefused('invalid_request, invalid_grant, unsupported_grant_type, or for the device grant authorization_pending, slow_down, access_denied, expired_token.'),
      413: oauthTooLarge,
      415: notForm,
      422: { description: 'Missing grant_type (error rule 6).', text: 'missing field `grant_type`' },
      500: oauthFault,
    },
  },
  {
    method: 'post', path: '/oauth/device_authorization', tier: 'open', summary: 'Starts a device grant (RFC 8628)', form: DeviceAuthorizationRequest,
    responses: {
      200: { description: 'The codes; poll POST /oauth/token every `interval` seconds.', json: DeviceAuthorization, headers: noStore },
      400: oauthRefused('invalid_request: missing field, or resource not this API.'),
      401: oauthRefused('invalid_client: unknown client.'),
      413: oauthTooLarge, 415: notForm,
      500: oauthRefused('server_error: no unique user code after three tries, or an unexpected fault.'),
    },
  },
  {
    method: 'get', path: '/oauth/device_info', tier: 'session-only', summary: 'The client behind a user code (for the device page)', query: DeviceInfoQuerySchema,
    description: `user_code in any case, dash optional. Each failed lookup costs the session one of its ${DEVICE_ATTEMPTS_PER_SESSION} attempts.`,
    responses: {
      200: { description: 'The pending request.', json: DeviceInfo },
      400: { description: 'invalid_grant: no pending code matches (costs one attempt); a missing user_code is a plain-text 400.', json: OAuthErrorBody, text: 'Failed to deserialize query string: …' },
      401: unauthenticated, 403: oauthBearerRefused,
      429: oauthRefused(`invalid_request: the session has used its ${DEVICE_ATTEMPTS_PER_SESSION} attempts (sign in again).`),
      500: oauthFault,
    },
  },
  {
    method: 'post', path: '/oauth/device/approve', tier: 'session-only', summary: 'Approves or declines a user code', json: DeviceDecisionSchema,
    responses: {
      204: { description: 'Approved or declined (approving marks the client used).' },
      400: oauthRefused('invalid_grant: no pending code matches (costs one attempt), or invalid_request: a malformed body.'),
      401: unauthenticated, 403: oauthBearerRefused, 413: oauthTooLarge, 415: oauthNotJson,
      429: oauthRefused(`invalid_request: the session has used its ${DEVICE_ATTEMPTS_PER_SESSION} attempts.`),
      500: oauthFault,
    },
  },
  {
    method: 'post', path: '/oauth/register', tier: 'open', summary: 'Dynamic client registration (RFC 7591)', json: RegistrationSchema,
    description: `redirect_uris: 1 to ${MAX_REDIRECT_URIS} URIs, each \`http://127.0.0.1\` / \`http://[::1]\` (any port) or \`https://\` without userinfo; never a fragment. No secret is issued; unsupported metadata is ignored.`,
    responses: {
      201: { description: 'Registered (public client).', json: ClientRegistered },
      400: oauthRefused('invalid_redirect_uri: none given, too many, or one not acceptable; also a malformed body.'),
      413: oauthTooLarge, 415: oauthNotJson,
      429: oauthRefused(`temporarily_unavailable: ${MAX_DYNAMIC_CLIENTS} dynamic clients already exist.`),
      500: oauthFault,
    },
  },
  {
    method: 'post', path: '/oauth/revoke', tier: 'open', summary: 'Token revocation (RFC 7009)', form: RevocationRequest,
    description: 'Revoking a refresh token also revokes its descendants and the access tokens it minted.',
    responses: {
      200: { description: 'Always, also for unknown, expired or already revoked tokens; empty body.', headers: noStore },
      400: oauthRefused('invalid_request: token missing.'),
      413: oauthTooLarge, 415: notForm, 500: oauthFault,
    },
  },

  // Ledger routes
  {
    method: 'get', path: '/accounts', tier: 'full', summary: 'Accounts, by kind then name',
    responses: { 200: { description: 'Every account.', json: v.array(Account) }, 401: unauthenticated, 500: fault },
  },
  {
    method: 'post', path: '/accounts', tier: 'full', summary: 'Creates an account', json: NewAccountSchema,
    responses: {
      201: { description: 'Created.', json: Account },
      400: badJson('Blank or too long name, unknown kind, or a duplicate name'),
      401: unauthenticated, 413: tooLarge, 415: notJson, 500: fault,
    },
  },
  {
    method: 'get', path: '/settings', tier: 'full', summary: 'The settings',
    responses: { 200: { description: 'The one settings record.', json: Settings }, 401: unauthenticated, 500: fault },
  },
  {
    method: 'put', path: '/settings', tier: 'full', summary: 'Changes the book style (vocabulary only)', json: SettingsPatchSchema,
    responses: {
      200: { description: 'Updated.', json: Settings },
      400: refused('Malformed JSON.'),
      401: unauthenticated, 413: tooLarge, 415: notJson,
      422: { description: 'book_style other than club or personal (error rule 6).', text: 'a plain sentence' },
      500: fault,
    },
  },
  {
    method: 'get', path: '/transactions', tier: 'full', summary: 'Transactions, newest first', query: TransactionRangeSchema,
    description: '`from` and `to` are inclusive bounds on occurred_on. Ordered by occurred_on, then id, descending.',
    responses: { 200: { description: 'Transactions with their entries.', json: v.array(Transaction) }, 400: badQuery, 401: unauthenticated, 500: fault },
  },
  {
    method: 'post', path: '/transactions', tier: 'full', summary: 'Posts a balanced transaction', json: NewTransactionSchema,
    description: 'At least 2 entries (at most 100) summing to 0; positive = debit, negative = credit.',
    responses: {
      201: { description: 'Posted.', json: CreatedTransaction },
      400: badJson('Blank description, fewer than 2 entries, entries not summing to zero (the message states the count and the sum), or an unknown account_id'),
      401: unauthenticated, 413: tooLarge, 415: notJson, 500: fault,
    },
  },
  {
    method: 'delete', path: '/transactions/{id}', tier: 'full', summary: 'Deletes a transaction and its entries', params: { id: positiveId },
    responses: { 204: { description: 'Deleted.' }, 400: badId, 401: unauthenticated, 404: refused('`{"error": "no such transaction"}`.'), 500: fault },
  },

  // Reports (D7)
  {
    method: 'get', path: '/reports/balances', tier: 'full', summary: 'Every account as of a date', query: AsOfSchema,
    responses: { 200: { description: 'Natural balances (D6); as_of defaults to today (UTC).', json: Balances }, 400: badQuery, 401: unauthenticated, 500: fault },
  },
  {
    method: 'get', path: '/reports/balance-sheet', tier: 'full', summary: 'Balance sheet', query: AsOfSchema,
    responses: { 200: { description: 'Sections list every account of their kinds, zero balances included.', json: BalanceSheet }, 400: badQuery, 401: unauthenticated, 500: fault },
  },
  {
    method: 'get', path: '/reports/income-statement', tier: 'full', summary: 'Income statement', query: PeriodSchema,
    responses: { 200: { description: '`from`/`to` default to the first and last transaction dates.', json: IncomeStatement }, 400: badQuery, 401: unauthenticated, 500: fault },
  },
  {
    method: 'get', path: '/reports/monthly', tier: 'full', summary: 'Income and expense per month', query: PeriodSchema,
    responses: {
      200: { description: 'Oldest month first; months without transactions as zeros.', json: Monthly },
      400: refused(`A malformed date, or a period longer than ${MONTHLY_MAX_MONTHS} months.`),
      401: unauthenticated, 500: fault,
    },
  },
  {
    method: 'get', path: '/reports/accounts/{id}/register', tier: 'full', summary: "An account's register with running balances", params: { id: positiveId }, query: PeriodSchema,
    responses: {
      200: { description: 'Entries oldest first, amounts and running balances in natural sign.', json: Register },
      400: refused('A malformed date or account id.'),
      401: unauthenticated,
      404: refused('No such account.'),
      500: fault,
    },
  },

  // MCP (D8)
  {
    method: 'post', path: '/mcp', tier: 'full', summary: 'Model Context Protocol: Streamable HTTP, stateless, JSON responses', json: McpRequestBody,
    description: 'JSON-RPC 2.0. Send `Accept: application/json, text/event-stream`. `tools/list` describes the tools (accounts, transactions, money in/out, move, reports) with their input and output schemas; a refused tool call is a result with `isError: true`, never a protocol error.',
    responses: {
      200: { description: 'The JSON-RPC response (an array for a batch).', json: McpResponseBody },
      202: { description: 'The body held only notifications; nothing to answer.' },
      400: { description: 'Not JSON, or not a JSON-RPC message.', json: JsonRpcError },
      401: unauthenticated,
      406: { description: 'The Accept header does not list both application/json and text/event-stream.', json: JsonRpcError },
      413: tooLarge,
      415: { description: 'Not `Content-Type: application/json`.', json: JsonRpcError },
      500: fault,
    },
  },
  {
    method: 'get', path: '/mcp', tier: 'full', summary: 'Not used: the transport is stateless (no server-to-client stream)',
    responses: { 401: unauthenticated, 405: { description: 'Use POST.', json: ErrorBody, headers: { Allow: 'POST' } } },
  },
  {
    method: 'delete', path: '/mcp', tier: 'full', summary: 'Not used: the transport is stateless (no session to end)',
    responses: { 401: unauthenticated, 405: { description: 'Use POST.', json: ErrorBody, headers: { Allow: 'POST' } } },
  },
];

/** The method and path of every documented operation, for the drift test. */
export function documentedOperations(): { method: string; path: string; tier: Tier }[] {
  return OPERATIONS.map(({ method, path, tier }) => ({ method, path, tier }));
}

// ---------------------------------------------------------------------------------------------
// Conversion

/** Spec: Authentication. One security scheme per credential and tier; OR between the entries of a list. */
const SECURITY_SCHEMES = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'Full tier. `Authorization: Bearer lg_…`: a token from `ledger mint-token`, or an OAuth access token audienced to this API.',
  },
  fullSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'lg_session',
    description: 'Full tier. The session cookie once `mfa_complete` is true: POST /auth/login, then a passkey (WebAuthn finish).',
  },
  halfSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'lg_session',
    description: 'Half tier. The session cookie at any `mfa_complete`: POST /auth/login alone suffices (10 minutes).',
  },
} as const;

const SECURITY: Record<Tier, Partial<Record<keyof typeof SECURITY_SCHEMES, string[]>>[]> = {
  open: [],
  half: [{ halfSession: [] }],
  full: [{ bearer: [] }, { fullSession: [] }],
  'session-only': [{ fullSession: [] }],
};

const TIER_NOTES: Record<Tier, string> = {
  open: 'Tier: open (no credential).',
  half: 'Tier: half (a cookie session at any `mfa_complete`).',
  full: 'Tier: full (a bearer token, or a cookie session with `mfa_complete` true).',
  'session-only': 'Tier: session-only (a full cookie session; a valid bearer token is refused with 403).',
};

type Json = Record<string, unknown>;

/** D13 dates: a `check(isCalendarDate)` is the JSON Schema format `date`. */
const overrideAction: ConversionConfig['overrideAction'] = ({ valibotAction, jsonSchema }) =>
  valibotAction.type === 'check' && (valibotAction as { requirement?: unknown }).requirement === isCalendarDate
    ? { ...jsonSchema, format: 'date' }
    : undefined;

/** Checks and transforms without a JSON Schema form are left out; the types and constraints that have one are kept. */
const configFor = (typeMode: 'input' | 'output', definitions: Record<string, Schema>): ConversionConfig => ({
  target: 'draft-2020-12',
  typeMode,
  errorMode: 'ignore',
  definitions,
  overrideAction,
  overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
});
const REQUEST_CONFIG = configFor('input', REQUEST_SCHEMAS);
const RESPONSE_CONFIG = configFor('output', RESPONSE_SCHEMAS);

function convert(schema: Schema, config: ConversionConfig): Json {
  const { $schema: _schema, $defs: _defs, ...rest } = toJsonSchema(schema, config) as Json;
  return rest;
}

function componentSchemas(): Record<string, Json> {
  const withoutDefinitions = ({ definitions: _, ...config }: ConversionConfig) => config;
  return {
    ...(toJsonSchemaDefs(REQUEST_SCHEMAS, withoutDefinitions(REQUEST_CONFIG)) as unknown as Record<string, Json>),
    ...(toJsonSchemaDefs(RESPONSE_SCHEMAS, withoutDefinitions(RESPONSE_CONFIG)) as unknown as Record<string, Json>),
  };
}

function tagOf(path: string): string {
  if (path === '/health') return 'Health';
  if (path.startsWith('/auth/webauthn') || path.startsWith('/auth/passkeys')) return 'Passkeys';
  if (path.startsWith('/auth/tokens')) return 'Connections';
  if (path.startsWith('/auth')) return 'Session';
  if (path.startsWith('/.well-known')) return 'Discovery';
  if (path.startsWith('/oauth')) return 'OAuth';
  if (path.startsWith('/reports')) return 'Reports';
  if (path.startsWith('/mcp')) return 'MCP';
  return 'Ledger';
}

function describeReply(op: Operation, status: number, reply: Reply): Json {
  const always: Record<string, string> = { ...reply.headers };
  // Error rule 7 and D13: nothing answered in error under /oauth/ may be stored; nothing the token endpoint answers either.
  if ((op.path.startsWith('/oauth/') && status >= 400) || op.path === '/oauth/token') always['Cache-Control'] = 'no-store';
  const header = (required: boolean) => ([name, description]: [string, string]) => [name, { description, required, schema: { type: 'string' } }];
  const headers = Object.fromEntries([
    ...Object.entries(always).map(header(true)),
    ...Object.entries(reply.sometimes ?? {}).map(header(false)),
  ]);
  const content: Json = {};
  if (reply.json) content['application/json'] = { schema: convert(reply.json, RESPONSE_CONFIG) };
  if (reply.text) content['text/plain'] = { schema: { type: 'string', description: reply.text } };
  return {
    description: reply.description,
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(Object.keys(content).length ? { content } : {}),
  };
}

function describeOperation(op: Operation): Json {
  const parameters: Json[] = [];
  for (const [, name] of op.path.matchAll(/\{(\w+)\}/g)) {
    const schema = op.params?.[name!];
    if (!schema) throw new Error(`${op.method} ${op.path}: no schema for the path parameter ${name}`);
    parameters.push({ name, in: 'path', required: true, schema: convert(schema, REQUEST_CONFIG) });
  }
  if (op.query) {
    const schema = convert(op.query, REQUEST_CONFIG) as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      parameters.push({ name, in: 'query', required: schema.required?.includes(name) ?? false, schema: property });
    }
  }
  let requestBody: Json | undefined;
  if (op.json) requestBody = { required: true, content: { 'application/json': { schema: convert(op.json, REQUEST_CONFIG) } } };
  if (op.form) requestBody = { required: true, content: { 'application/x-www-form-urlencoded': { schema: convert(op.form, REQUEST_CONFIG) } } };
  const responses = Object.fromEntries(Object.entries(op.responses).map(([status, reply]) => [status, describeReply(op, Number(status), reply)]));
  return {
    operationId: `${op.method}${op.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    tags: [tagOf(op.path)],
    summary: op.summary,
    description: [TIER_NOTES[op.tier], op.description].filter(Boolean).join('\n\n'),
    'x-tier': op.tier,
    security: SECURITY[op.tier],
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

const OVERVIEW = `Double-entry bookkeeping for a family or a club. Amounts are integer cents; the entries of a transaction sum to zero.

**Tiers** (each operation names its own in \`x-tier\` and \`security\`):
- **open**: no credential.
- **half**: the \`lg_session\` cookie at any \`mfa_complete\` (scheme \`halfSession\`): the four WebAuthn routes.
- **full**: a bearer token (\`bearer\`) or a cookie session with \`mfa_complete\` true (\`fullSession\`).
- **session-only**: the full tier, but a valid bearer token is refused with 403 (\`fullSession\` only).

**Errors**: \`{error}\` on ledger routes and the authentication middleware; \`{error, error_description}\` with \`Cache-Control: no-store\` on OAuth routes; plain text for framework-level rejections.`;

/** GET /openapi.json: OpenAPI 3.1 for this instance (servers = API_ORIGIN). */
export function openApiDocument(apiOrigin: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = describeOperation(op);
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: { title: 'Ledger', version: '0.1.0', description: OVERVIEW },
    servers: [{ url: apiOrigin }],
    tags: ['Health', 'Session', 'Passkeys', 'Connections', 'Discovery', 'OAuth', 'Ledger', 'Reports', 'MCP'].map((name) => ({ name })),
    components: { securitySchemes: SECURITY_SCHEMES, schemas: componentSchemas() },
    paths,
  };
}
