import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { NewAccountSchema } from '../accounts';
import { accountKind, bookStyle } from '../db/schema';
import { AsOfSchema, PeriodSchema } from '../reports';
import { SettingsPatchSchema } from '../settings';
import { NewTransactionSchema, TransactionRangeSchema } from '../transactions';
import { LoginSchema, PasswordChangeSchema } from './auth';
import { ApproveSchema, AuthorizeQuerySchema, DeviceDecisionSchema, RegistrationSchema } from './oauth';
import { AuthenticationFinishSchema, RegistrationFinishSchema } from './webauthn';

// The API description (OpenAPI 3.1). Request schemas are the valibot schemas that validate the
// requests, converted by @valibot/to-json-schema; response schemas are written here once.
// tests/openapi.test.ts checks that the operations below are exactly the routes the app serves.

type Tier = 'open' | 'half' | 'full' | 'session';
type Schema = v.GenericSchema;

interface Operation {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  tier: Tier;
  summary: string;
  json?: Schema;
  form?: Record<string, { required: boolean; description: string }>;
  query?: Schema;
  responses: Record<number, { description: string; schema?: Schema; text?: true; empty?: true }>;
}

const Error_ = v.object({ error: v.string() });
const OAuthError_ = v.object({ error: v.string(), error_description: v.string() });
const Account = v.object({ id: v.number(), name: v.string(), kind: v.picklist(accountKind.enumValues) });
const Settings = v.object({ book_style: v.picklist(bookStyle.enumValues) });
const Transaction = v.object({
  id: v.number(),
  occurred_on: v.string(),
  description: v.string(),
  created_by_email: v.nullable(v.string()),
  entries: v.array(v.object({ account_id: v.number(), account_name: v.string(), amount_cents: v.number() })),
});
const Connection = v.object({
  id: v.string(),
  client_id: v.string(),
  client_name: v.string(),
  kind: v.picklist(['access', 'refresh']),
  label: v.nullable(v.string()),
  last_used_at: v.nullable(v.string()),
  expires_at: v.string(),
});
const Client = v.object({
  id: v.string(),
  name: v.string(),
  dynamic: v.boolean(),
  first_use: v.boolean(),
  redirect_uris: v.array(v.string()),
});
const TokenResponse = v.object({
  access_token: v.string(),
  token_type: v.literal('Bearer'),
  expires_in: v.number(),
  refresh_token: v.string(),
});
const Section = v.object({
  lines: v.array(v.object({ id: v.number(), name: v.string(), balance_cents: v.number() })),
  total_cents: v.number(),
});
const Mfa = v.object({ mfa_complete: v.literal(true) });
const AnyObject = v.looseObject({});

const unauthenticated = { description: 'authentication required (with WWW-Authenticate)', schema: Error_ };
const bad = { description: 'invalid request', schema: Error_ };
const oauthBad = { description: 'OAuth error', schema: OAuthError_ };
const bearerRefused = { description: 'a bearer token cannot use this route', schema: Error_ };

const OPERATIONS: Operation[] = [
  { method: 'get', path: '/health', tier: 'open', summary: 'Liveness', responses: { 200: { description: 'ok', text: true } } },
  {
    method: 'post', path: '/auth/login', tier: 'open', summary: 'Password step: starts a half-session', json: LoginSchema,
    responses: {
      200: { description: 'half-session cookie set', schema: v.object({ has_passkeys: v.boolean(), mfa_complete: v.literal(false) }) },
      400: bad, 401: { description: 'wrong email or password', schema: Error_ }, 429: { description: 'throttled; see Retry-After', schema: Error_ },
    },
  },
  { method: 'post', path: '/auth/logout', tier: 'open', summary: 'Ends the session', responses: { 204: { description: 'ended', empty: true } } },
  {
    method: 'post', path: '/auth/webauthn/register/begin', tier: 'half', summary: 'Passkey enrolment options',
    responses: { 200: { description: 'PublicKeyCredentialCreationOptionsJSON', schema: AnyObject }, 401: unauthenticated, 403: { description: 'registration gate', schema: Error_ } },
  },
  {
    method: 'post', path: '/auth/webauthn/register/finish', tier: 'half', summary: 'Enrols the passkey; elevates a half-session', json: RegistrationFinishSchema,
    responses: { 200: { description: 'full session', schema: Mfa }, 400: bad, 401: unauthenticated, 403: { description: 'registration gate', schema: Error_ } },
  },
  {
    method: 'post', path: '/auth/webauthn/auth/begin', tier: 'half', summary: 'Passkey sign-in options',
    responses: { 200: { description: 'PublicKeyCredentialRequestOptionsJSON', schema: AnyObject }, 400: bad, 401: unauthenticated },
  },
  {
    method: 'post', path: '/auth/webauthn/auth/finish', tier: 'half', summary: 'Verifies the passkey; elevates the session', json: AuthenticationFinishSchema,
    responses: { 200: { description: 'full session, new session id', schema: Mfa }, 400: bad, 401: unauthenticated },
  },
  {
    method: 'get', path: '/auth/me', tier: 'full', summary: 'Who is calling',
    responses: {
      200: { description: 'the caller', schema: v.object({ email: v.string(), has_passkeys: v.boolean(), mfa_complete: v.boolean(), via: v.picklist(['session', 'bearer']) }) },
      401: unauthenticated,
    },
  },
  {
    method: 'post', path: '/auth/password', tier: 'session', summary: 'Changes the password; ends other sessions, revokes every token', json: PasswordChangeSchema,
    responses: { 204: { description: 'changed', empty: true }, 400: bad, 401: unauthenticated, 403: bearerRefused, 429: { description: 'throttled', schema: Error_ } },
  },
  {
    method: 'get', path: '/auth/passkeys', tier: 'full', summary: "The caller's passkeys",
    responses: { 200: { description: 'passkeys', schema: v.array(v.object({ id: v.number(), name: v.string(), created_at: v.string(), last_used_at: v.nullable(v.string()) })) }, 401: unauthenticated },
  },
  {
    method: 'delete', path: '/auth/passkeys/{id}', tier: 'session', summary: 'Removes a passkey (never the last)',
    responses: { 204: { description: 'removed', empty: true }, 400: bad, 401: unauthenticated, 403: bearerRefused, 404: bad, 409: { description: 'the last passkey', schema: Error_ } },
  },
  { method: 'get', path: '/auth/tokens', tier: 'full', summary: "The caller's connections", responses: { 200: { description: 'connections', schema: v.array(Connection) }, 401: unauthenticated } },
  {
    method: 'delete', path: '/auth/tokens/{id}', tier: 'session', summary: 'Revokes a connection and its descendants',
    responses: { 204: { description: 'revoked', empty: true }, 401: unauthenticated, 403: bearerRefused, 404: bad },
  },
  {
    method: 'get', path: '/.well-known/oauth-protected-resource', tier: 'open', summary: 'RFC 9728 metadata',
    responses: { 200: { description: 'metadata', schema: v.object({ resource: v.string(), authorization_servers: v.array(v.string()), bearer_methods_supported: v.array(v.string()) }) } },
  },
  { method: 'get', path: '/.well-known/oauth-authorization-server', tier: 'open', summary: 'RFC 8414 metadata', responses: { 200: { description: 'metadata', schema: AnyObject } } },
  {
    method: 'get', path: '/oauth/authorize', tier: 'open', summary: 'Authorization request: 303 to the consent page', query: AuthorizeQuerySchema,
    responses: { 303: { description: 'to WEB_ORIGIN/authorize', empty: true }, 400: oauthBad, 401: oauthBad },
  },
  {
    method: 'post', path: '/oauth/authorize/approve', tier: 'session', summary: 'The person approves or denies; returns the redirect', json: ApproveSchema,
    responses: { 200: { description: 'where to send the browser', schema: v.object({ redirect: v.string() }) }, 400: oauthBad, 401: oauthBad, 403: oauthBad },
  },
  {
    method: 'get', path: '/oauth/client_info', tier: 'full', summary: 'A client as stored', query: v.object({ client_id: v.string() }),
    responses: { 200: { description: 'the client', schema: Client }, 401: oauthBad },
  },
  {
    method: 'post', path: '/oauth/token', tier: 'open', summary: 'Token endpoint (authorization_code, refresh_token, device_code)',
    form: {
      grant_type: { required: true, description: 'authorization_code, refresh_token or urn:ietf:params:oauth:grant-type:device_code' },
      client_id: { required: true, description: 'the client' },
      code: { required: false, description: 'authorization_code grant' },
      redirect_uri: { required: false, description: 'authorization_code grant' },
      code_verifier: { required: false, description: 'authorization_code grant (PKCE S256)' },
      refresh_token: { required: false, description: 'refresh_token grant' },
      device_code: { required: false, description: 'device grant' },
      resource: { required: false, description: 'this API (RFC 8707)' },
    },
    responses: { 200: { description: 'tokens', schema: TokenResponse }, 400: oauthBad, 415: { description: 'not form-encoded', text: true }, 422: { description: 'no grant_type', text: true } },
  },
  {
    method: 'post', path: '/oauth/device_authorization', tier: 'open', summary: 'Starts a device grant',
    form: { client_id: { required: true, description: 'the client' }, resource: { required: true, description: 'this API' } },
    responses: {
      200: { description: 'codes', schema: v.object({ device_code: v.string(), user_code: v.string(), verification_uri: v.string(), verification_uri_complete: v.string(), expires_in: v.number(), interval: v.number() }) },
      400: oauthBad, 401: oauthBad,
    },
  },
  {
    method: 'get', path: '/oauth/device_info', tier: 'session', summary: 'The client behind a user code', query: v.object({ user_code: v.string() }),
    responses: { 200: { description: 'the request', schema: v.object({ client: Client, expires_in: v.number() }) }, 400: oauthBad, 401: unauthenticated, 403: oauthBad, 429: oauthBad },
  },
  {
    method: 'post', path: '/oauth/device/approve', tier: 'session', summary: 'Approves or declines a user code', json: DeviceDecisionSchema,
    responses: { 204: { description: 'decided', empty: true }, 400: oauthBad, 401: unauthenticated, 403: oauthBad, 429: oauthBad },
  },
  {
    method: 'post', path: '/oauth/register', tier: 'open', summary: 'Dynamic client registration (RFC 7591)', json: RegistrationSchema,
    responses: { 201: { description: 'registered', schema: AnyObject }, 400: oauthBad, 429: oauthBad },
  },
  {
    method: 'post', path: '/oauth/revoke', tier: 'open', summary: 'Token revocation (RFC 7009)',
    form: { token: { required: true, description: 'the token' }, token_type_hint: { required: false, description: 'ignored' }, client_id: { required: false, description: 'scopes the revocation' } },
    responses: { 200: { description: 'always', empty: true }, 400: oauthBad },
  },
  { method: 'get', path: '/accounts', tier: 'full', summary: 'Accounts by kind, then name', responses: { 200: { description: 'accounts', schema: v.array(Account) }, 401: unauthenticated } },
  { method: 'post', path: '/accounts', tier: 'full', summary: 'Creates an account', json: NewAccountSchema, responses: { 201: { description: 'created', schema: Account }, 400: bad, 401: unauthenticated } },
  { method: 'get', path: '/settings', tier: 'full', summary: 'The settings', responses: { 200: { description: 'settings', schema: Settings }, 401: unauthenticated } },
  {
    method: 'put', path: '/settings', tier: 'full', summary: 'Changes the book style', json: SettingsPatchSchema,
    responses: { 200: { description: 'updated', schema: Settings }, 401: unauthenticated, 422: { description: 'bad book_style', text: true } },
  },
  {
    method: 'get', path: '/transactions', tier: 'full', summary: 'Transactions, newest first', query: TransactionRangeSchema,
    responses: { 200: { description: 'transactions', schema: v.array(Transaction) }, 400: bad, 401: unauthenticated },
  },
  {
    method: 'post', path: '/transactions', tier: 'full', summary: 'Posts a balanced transaction', json: NewTransactionSchema,
    responses: { 201: { description: 'posted', schema: v.object({ id: v.number() }) }, 400: bad, 401: unauthenticated },
  },
  {
    method: 'delete', path: '/transactions/{id}', tier: 'full', summary: 'Deletes a transaction',
    responses: { 204: { description: 'deleted', empty: true }, 400: bad, 401: unauthenticated, 404: bad },
  },
  {
    method: 'get', path: '/reports/balances', tier: 'full', summary: 'Every account as of a date (D7)', query: AsOfSchema,
    responses: { 200: { description: 'balances', schema: AnyObject }, 400: bad, 401: unauthenticated },
  },
  {
    method: 'get', path: '/reports/balance-sheet', tier: 'full', summary: 'Balance sheet (D7)', query: AsOfSchema,
    responses: {
      200: { description: 'balance sheet', schema: v.object({ as_of: v.string(), assets: Section, liabilities: Section, equity: Section, net_income_cents: v.number(), balanced: v.boolean() }) },
      400: bad, 401: unauthenticated,
    },
  },
  {
    method: 'get', path: '/reports/income-statement', tier: 'full', summary: 'Income statement (D7)', query: PeriodSchema,
    responses: {
      200: { description: 'income statement', schema: v.object({ from: v.string(), to: v.string(), income: Section, expenses: Section, net_cents: v.number() }) },
      400: bad, 401: unauthenticated,
    },
  },
  {
    method: 'get', path: '/reports/monthly', tier: 'full', summary: 'Income and expense per month (D7)', query: PeriodSchema,
    responses: {
      200: { description: 'months', schema: v.array(v.object({ month: v.string(), income_cents: v.number(), expense_cents: v.number(), net_cents: v.number() })) },
      400: bad, 401: unauthenticated,
    },
  },
  {
    method: 'get', path: '/reports/accounts/{id}/register', tier: 'full', summary: "An account's register with running balances (D7)", query: PeriodSchema,
    responses: { 200: { description: 'register', schema: AnyObject }, 400: bad, 401: unauthenticated, 404: bad },
  },
  {
    method: 'post', path: '/mcp', tier: 'full', summary: 'Model Context Protocol, Streamable HTTP, stateless (D8)',
    responses: { 200: { description: 'JSON-RPC response', schema: AnyObject }, 401: unauthenticated },
  },
  { method: 'get', path: '/mcp', tier: 'full', summary: 'Not used by the stateless transport', responses: { 405: { description: 'use POST', schema: Error_ } } },
  { method: 'delete', path: '/mcp', tier: 'full', summary: 'Not used by the stateless transport', responses: { 405: { description: 'use POST', schema: Error_ } } },
];

/** The method and path of every documented operation, for the drift test. */
export function documentedOperations(): { method: string; path: string }[] {
  return OPERATIONS.map(({ method, path }) => ({ method, path }));
}

const SECURITY: Record<Tier, Record<string, string[]>[]> = {
  open: [],
  half: [{ session: [] }],
  full: [{ bearer: [] }, { session: [] }],
  session: [{ session: [] }],
};

function jsonSchema(schema: Schema): Record<string, unknown> {
  // Checks and transforms have no JSON Schema form; the types and constraints that do are kept.
  const { $schema: _, ...rest } = toJsonSchema(schema, { typeMode: 'input', errorMode: 'ignore' }) as Record<string, unknown>;
  return rest;
}

function describeOperation(op: Operation) {
  const parameters: unknown[] = [];
  for (const match of op.path.matchAll(/\{(\w+)\}/g)) {
    parameters.push({ name: match[1], in: 'path', required: true, schema: { type: 'string' } });
  }
  if (op.query) {
    const schema = jsonSchema(op.query) as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      parameters.push({ name, in: 'query', required: schema.required?.includes(name) ?? false, schema: property });
    }
  }
  let requestBody: unknown;
  if (op.json) requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(op.json) } } };
  if (op.form) {
    const properties = Object.fromEntries(Object.entries(op.form).map(([k, f]) => [k, { type: 'string', description: f.description }]));
    const required = Object.entries(op.form).filter(([, f]) => f.required).map(([k]) => k);
    requestBody = { required: true, content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties, required } } } };
  }
  const responses = Object.fromEntries(
    Object.entries(op.responses).map(([status, r]) => [
      status,
      {
        description: r.description,
        ...(r.schema ? { content: { 'application/json': { schema: jsonSchema(r.schema) } } } : {}),
        ...(r.text ? { content: { 'text/plain': { schema: { type: 'string' } } } } : {}),
      },
    ]),
  );
  return {
    summary: op.summary,
    security: SECURITY[op.tier],
    ...(op.tier === 'session' ? { description: 'Session-only: a full cookie session; a bearer token is refused with 403.' } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

/** GET /openapi.json: OpenAPI 3.1 for this instance (servers = API_ORIGIN). */
export function openApiDocument(apiOrigin: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = describeOperation(op);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Ledger',
      version: '0.1.0',
      description: 'Double-entry bookkeeping for a family or a club. Amounts are integer cents; entries of a transaction sum to zero.',
    },
    servers: [{ url: apiOrigin }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A minted token (ledger mint-token) or an OAuth access token' },
        session: { type: 'apiKey', in: 'cookie', name: 'lg_session', description: 'A session from /auth/login and a passkey' },
      },
    },
    paths,
  };
}
