import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { createHash, randomBytes } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { documentedOperations } from '../src/http/openapi';
import { mintToken } from '../src/identity/tokens';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { describeEachDatabase } from './support/harness';
import { sha256Hex } from './support/http';

// Issue 4/6: the OpenAPI 3.1 document covers every route, with request and response schemas and
// the auth tiers as security schemes; request schemas come from the validating valibot schemas.
// Here: drift against the served routes, completeness of the responses, the spec's tier table,
// and real answers of the app validated against the document's schemas (ajv, JSON Schema 2020-12).

/** Hono's `/:id` → OpenAPI's `/{id}`. */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

const API = 'http://localhost:38081';
const CLI_REDIRECT = 'http://127.0.0.1/callback';
const MCP_ACCEPT = 'application/json, text/event-stream';

// Spec: Authentication, the tier table and the session-only list, transcribed (not read from the document).
const OPEN = [
  'get /health',
  'post /auth/login',
  'post /auth/logout',
  'get /.well-known/oauth-protected-resource',
  'get /.well-known/oauth-authorization-server',
  'get /oauth/authorize',
  'post /oauth/token',
  'post /oauth/device_authorization',
  'post /oauth/register',
  'post /oauth/revoke',
];
const HALF = [
  'post /auth/webauthn/register/begin',
  'post /auth/webauthn/register/finish',
  'post /auth/webauthn/auth/begin',
  'post /auth/webauthn/auth/finish',
];
const SESSION_ONLY = [
  'post /auth/password',
  'delete /auth/passkeys/{id}',
  'delete /auth/tokens/{id}',
  // D25 (beyond the spec; session-only like the spec's credential routes).
  'delete /auth/grants/{grant_id}',
  'post /oauth/authorize/approve',
  'get /oauth/device_info',
  'post /oauth/device/approve',
];
/** Full tier: the ledger routes, /reports/*, /mcp, and the listed auth and OAuth routes. */
const FULL = [
  'get /accounts',
  'post /accounts',
  'get /settings',
  'put /settings',
  'get /transactions',
  'post /transactions',
  'delete /transactions/{id}',
  'get /auth/me',
  'get /auth/passkeys',
  'get /auth/tokens',
  'get /oauth/client_info',
  // D15 (beyond the spec; full tier).
  'get /transactions/{id}',
  'put /transactions/{id}',
  'post /transactions/{id}/restore',
  'put /accounts/{id}',
  'delete /accounts/{id}',
  'get /changes',
  // D16 (beyond the spec; full tier).
  'post /imports/preview',
  'post /imports',
  'get /import-rules',
  'post /import-rules',
  'delete /import-rules/{id}',
  // D17 (full tier).
  'get /export/transactions.csv',
  'get /export/ledger.journal',
  'get /export/ledger.beancount',
  // D22 (full tier).
  'get /export/receipts.zip',
  'get /export/changes.csv',
  // D28 (full tier).
  'get /export/audit.zip',
  // D20 (full tier).
  'post /accounts/{id}/reconciliations',
  'get /accounts/{id}/reconciliations',
  'get /accounts/{id}/reconciliation',
  'delete /reconciliations/{id}',
  // D21 (full tier).
  'get /schedules',
  'post /schedules',
  'get /schedules/due',
  'get /schedules/{id}',
  'put /schedules/{id}',
  'delete /schedules/{id}',
  'post /schedules/{id}/occurrences/{date}/post',
  'post /schedules/{id}/occurrences/{date}/skip',
  'get /budgets',
  'post /budgets',
  'get /budgets/draft',
  'get /budgets/{id}',
  'put /budgets/{id}',
  'delete /budgets/{id}',
  // D27 (full tier).
  'get /dues-plans',
  'post /dues-plans',
  'get /dues-plans/{id}',
  'put /dues-plans/{id}',
  'delete /dues-plans/{id}',
  'get /people',
  'post /people',
  'post /people/batch',
  'get /people/{id}',
  'put /people/{id}',
  'delete /people/{id}',
  'post /people/{id}/forget',
  'get /people/{id}/statement',
  'post /direct-debits',
  'get /direct-debits',
  'get /direct-debits/draft',
  'get /direct-debits/{id}',
  'get /direct-debits/{id}/pain.008.xml',
  'get /direct-debits/{id}/pre-notifications',
  'get /direct-debits/{id}/pre-notifications.csv',
  'delete /direct-debits/{id}',
  // D22 (full tier).
  'post /transactions/{id}/attachments',
  'get /transactions/{id}/attachments',
  'get /attachments/usage',
  'get /attachments/{id}',
  'delete /attachments/{id}',
];
/** D22: receipts travel as their own bytes, of these media types. */
const RECEIPT_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/heic', 'image/heif', 'application/pdf'];
const BYTE_BODIES = ['post /transactions/{id}/attachments'];

function specTier(operation: string): string | undefined {
  if (OPEN.includes(operation)) return 'open';
  if (HALF.includes(operation)) return 'half';
  if (SESSION_ONLY.includes(operation)) return 'session-only';
  const path = operation.split(' ')[1]!;
  if (FULL.includes(operation) || path.startsWith('/reports/') || path === '/mcp') return 'full';
  return undefined;
}

const SECURITY_OF_TIER: Record<string, unknown> = {
  open: [],
  half: [{ halfSession: [] }],
  full: [{ bearer: [] }, { fullSession: [] }],
  'session-only': [{ fullSession: [] }],
};

/** Successes without a body: 204, 303 and these (spec: revoke answers 200 with an empty body; MCP notifications 202). */
const BODYLESS_SUCCESSES = ['post /oauth/revoke 200', 'post /mcp 202', 'get /attachments/{id} 304'];
/** Operations that never succeed (D8: a stateless transport has no stream and no session). */
const NO_SUCCESS = ['get /mcp', 'delete /mcp'];
/** POST operations without a request body. */
const NO_REQUEST_BODY = ['post /auth/logout', 'post /auth/webauthn/register/begin', 'post /auth/webauthn/auth/begin', 'post /transactions/{id}/restore', 'post /schedules/{id}/occurrences/{date}/skip', 'post /people/{id}/forget'];

type Json = any;
interface Doc {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; securitySchemes: Record<string, Json> };
}

/** Every operation of the document as `method path` with its object. */
function operationsOf(doc: Doc): [string, Json][] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => [`${method} ${path}`, op] as [string, Json]),
  );
}

/** A schema that says something: not `{}`, not an object without properties, not an array of nothing. */
function isInformative(doc: Doc, schema: Json, seen = new Set<string>()): boolean {
  if (!schema || typeof schema !== 'object') return false;
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/components/schemas/', '');
    if (seen.has(name)) return true;
    return isInformative(doc, doc.components.schemas[name], new Set([...seen, name]));
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key])) return schema[key].length > 0 && schema[key].every((s: Json) => isInformative(doc, s, seen));
  }
  if ('const' in schema || Array.isArray(schema.enum)) return true;
  if (schema.type === 'object') return Object.keys(schema.properties ?? {}).length > 0;
  if (schema.type === 'array') return isInformative(doc, schema.items, seen);
  return typeof schema.type === 'string';
}

const isSuccess = (status: string) => /^[23]\d\d$/.test(status);

describeEachDatabase('GET /openapi.json and /docs (issue 4/6)', (h) => {
  let doc: Doc;
  let ajv: InstanceType<typeof Ajv2020>;
  /** `method path status` of every real answer validated against the document. */
  const exercised = new Set<string>();

  let reader: string;

  beforeAll(async () => {
    reader = (await h.userWithToken('openapi-reader@example.com')).token;
    const res = await h.call(reader, 'GET', '/openapi.json');
    doc = (await res.json()) as Doc;
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, 'openapi.json');
  });

  const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

  /**
   * Checks a real answer against the document: its status is documented for the operation, its
   * Content-Type is one of the documented media types (none when none is documented), a JSON body
   * validates against the documented schema, and every header documented as required is present.
   * Returns the parsed body.
   */
  async function expectDocumented(res: Response, method: string, template: string): Promise<Json> {
    const key = `${method.toLowerCase()} ${template}`;
    const op = doc.paths[template]?.[method.toLowerCase()];
    expect(op, `${key} is documented`).toBeDefined();
    const status = String(res.status);
    const documented = op.responses[status];
    const text = await res.text();
    expect(documented, `${key} answered ${status}, which is not documented (${text.slice(0, 200)})`).toBeDefined();
    exercised.add(`${key} ${status}`);
    for (const [name, header] of Object.entries<Json>(documented.headers ?? {})) {
      if (header.required) expect(res.headers.get(name), `${key} ${status}: header ${name}`).not.toBeNull();
    }
    if (!documented.content) {
      expect(text, `${key} ${status} has no documented body`).toBe('');
      return undefined;
    }
    const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
    expect(Object.keys(documented.content), `${key} ${status}: Content-Type ${mediaType}`).toContain(mediaType);
    if (mediaType !== 'application/json') return text;
    const body = JSON.parse(text);
    const ref = `openapi.json#/${pointer('paths', template, method.toLowerCase(), 'responses', status, 'content', 'application/json', 'schema')}`;
    const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
    const valid = validate(body);
    expect(valid, `${key} ${status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`).toBe(true);
    return body;
  }

  it('documents exactly the routes the app serves, method for method', () => {
    const served = new Set(
      h.app.routes
        // The document and its reference page (with its two scripts, issue 1/7) are not API operations.
        .filter((r) => r.method !== 'ALL' && r.path !== '/openapi.json' && r.path !== '/docs' && !r.path.startsWith('/docs/'))
        .map((r) => `${r.method.toLowerCase()} ${openApiPath(r.path)}`),
    );
    const documented = new Set(documentedOperations().map((o) => `${o.method} ${o.path}`));
    expect([...documented].filter((o) => !served.has(o)), 'documented but not served').toEqual([]);
    expect([...served].filter((o) => !documented.has(o)), 'served but not documented').toEqual([]);
    expect(operationsOf(doc).map(([o]) => o).sort()).toEqual([...documented].sort());
  });

  it('is an OpenAPI 3.1 document with request schemas from the validating valibot schemas, for the full tier', async () => {
    const res = await h.call(reader, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: API }]);
    const post = doc.paths['/transactions']!.post;
    expect(post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/NewTransaction' });
    const body = doc.components.schemas.NewTransaction;
    expect(body.required).toEqual(['occurred_on', 'description', 'entries']);
    expect(body.properties.occurred_on).toMatchObject({ type: 'string', format: 'date' });
    expect(body.properties.entries).toMatchObject({ type: 'array', minItems: 2, maxItems: 100 });
    expect(body.properties.entries.items.properties.amount_cents).toMatchObject({ type: 'integer', minimum: -(10 ** 15), maximum: 10 ** 15 });
    expect(doc.components.schemas.NewAccount.properties.kind.enum).toEqual(['asset', 'liability', 'equity', 'income', 'expense']);
    const listParameters = doc.paths['/transactions']!.get.parameters;
    expect(listParameters.slice(0, 2)).toEqual([
      { name: 'from', in: 'query', required: false, schema: { type: 'string', format: 'date' } },
      { name: 'to', in: 'query', required: false, schema: { type: 'string', format: 'date' } },
    ]);
    // D15: search and paging, all optional.
    expect(listParameters.slice(2).map((p: Json) => [p.name, p.required])).toEqual([
      ['q', false],
      ['account_id', false],
      ['limit', false],
      ['cursor', false],
    ]);
    // Every request body the app reads is documented (the MCP JSON-RPC body and the OAuth forms included).
    for (const [operation, op] of operationsOf(doc)) {
      const method = operation.split(' ')[0]!;
      if (!['post', 'put'].includes(method) || NO_REQUEST_BODY.includes(operation)) continue;
      const content = op.requestBody?.content ?? {};
      if (BYTE_BODIES.includes(operation)) expect(Object.keys(content), `${operation}: request body`).toEqual(RECEIPT_TYPES);
      else expect(Object.keys(content), `${operation}: request body`).toHaveLength(1);
      const [schema] = Object.values<Json>(content).map((c) => c.schema);
      expect(isInformative(doc, schema), `${operation}: request body schema`).toBe(true);
    }
    expect(Object.keys(doc.paths['/oauth/token']!.post.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
    // Every {id} of a path is a documented path parameter.
    for (const [operation, op] of operationsOf(doc)) {
      const names = [...operation.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const params = (op.parameters ?? []).filter((p: Json) => p.in === 'path').map((p: Json) => p.name);
      expect(params, `${operation}: path parameters`).toEqual(names);
    }
  });

  it('gives every operation a success response with a real schema (or no body for 204/303), and every error a shape', () => {
    for (const [operation, op] of operationsOf(doc)) {
      const statuses = Object.keys(op.responses);
      const successes = statuses.filter(isSuccess);
      if (NO_SUCCESS.includes(operation)) {
        expect(successes, `${operation}: no success`).toEqual([]);
      } else {
        expect(successes.length, `${operation}: a success response`).toBeGreaterThan(0);
      }
      for (const status of statuses) {
        const response = op.responses[status];
        const what = `${operation} ${status}`;
        expect(response.description, `${what}: description`).toMatch(/\S/);
        if (!response.content) {
          expect(['204', '303'].includes(status) || BODYLESS_SUCCESSES.includes(what), `${what} has no body`).toBe(true);
          continue;
        }
        for (const [mediaType, { schema }] of Object.entries<Json>(response.content)) {
          expect(['application/json', 'text/plain', 'text/csv', 'application/zip', 'application/xml', ...RECEIPT_TYPES], `${what}: media type`).toContain(mediaType);
          expect(isInformative(doc, schema), `${what} ${mediaType}: an informative schema`).toBe(true);
          if (mediaType === 'application/json' && !isSuccess(status)) {
            // Spec: Errors, Shapes ({error} / {error, error_description}); MCP answers JSON-RPC errors (D8).
            const refs = [schema.$ref, ...(schema.anyOf ?? []).map((s: Json) => s.$ref)].filter(Boolean);
            expect(refs.length, `${what}: a named error shape`).toBeGreaterThan(0);
            for (const ref of refs) {
              expect(['Error', 'OAuthError', 'JsonRpcError', 'StatementRefusal', 'ReconciliationDifference', 'AccountInUse', 'PeopleBatchErrors'].map((n) => `#/components/schemas/${n}`), `${what}: error shape`).toContain(ref);
            }
          }
        }
      }
      // Every protected operation documents the 401 of error rule 4.
      if (op['x-tier'] !== 'open') expect(statuses, `${operation}: 401`).toContain('401');
      if (op['x-tier'] === 'session-only') expect(statuses, `${operation}: 403`).toContain('403');
    }
    // D7 and D3 shapes, named rather than "any object".
    expect(doc.components.schemas.Balances.required).toEqual(['as_of', 'accounts', 'totals']);
    expect(doc.components.schemas.Register.required).toEqual([
      'account', 'from', 'to', 'opening_balance_cents', 'entries', 'closing_balance_cents',
    ]);
    expect(doc.components.schemas.CreationOptions.required).toEqual(
      expect.arrayContaining(['rp', 'user', 'challenge', 'pubKeyCredParams', 'excludeCredentials', 'authenticatorSelection']),
    );
    expect(doc.paths['/oauth/register']!.post.responses['201'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ClientRegistered',
    });
  });

  it("names each operation's tier in x-tier and security, as the spec's tier table says", () => {
    const schemes = doc.components.securitySchemes;
    expect(Object.keys(schemes).sort()).toEqual(['bearer', 'fullSession', 'halfSession']);
    expect(schemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.fullSession).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'lg_session' });
    expect(schemes.halfSession).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'lg_session' });
    const tiers = new Set<string>();
    for (const [operation, op] of operationsOf(doc)) {
      const tier = specTier(operation);
      expect(tier, `${operation} is in the spec's tier table`).toBeDefined();
      expect(op['x-tier'], `${operation}: x-tier`).toBe(tier);
      expect(op.security, `${operation}: security`).toEqual(SECURITY_OF_TIER[tier!]);
      tiers.add(tier!);
    }
    expect([...tiers].sort()).toEqual(['full', 'half', 'open', 'session-only']);
    for (const operation of [...OPEN, ...HALF, ...SESSION_ONLY, ...FULL]) {
      const [method, path] = operation.split(' ') as [string, string];
      expect(doc.paths[path]?.[method], `${operation} (spec) is documented`).toBeDefined();
    }
  });

  it('answers as documented without a credential (401) and with a bearer token where the tier refuses it', async () => {
    const { token } = await h.userWithToken('openapi-probe@example.com');
    const concrete = (path: string) => path.replace('/auth/tokens/{id}', `/auth/tokens/${'0'.repeat(64)}`).replace('{grant_id}', '00000000-0000-4000-8000-000000000000').replace('{id}', '2147483000');
    for (const [operation, op] of operationsOf(doc)) {
      if (op['x-tier'] === 'open') continue;
      const [method, template] = operation.split(' ') as [string, string];
      const none = await h.request(concrete(template), { method: method.toUpperCase() });
      expect(none.status, `${operation} without a credential`).toBe(401);
      expect(await expectDocumented(none, method, template)).toEqual({ error: 'authentication required' });
      const bearer = await h.call(token, method.toUpperCase(), concrete(template));
      if (op['x-tier'] === 'session-only') expect(bearer.status, `${operation} with a bearer token`).toBe(403);
      else if (op['x-tier'] === 'half') expect(bearer.status, `${operation} with a bearer token`).toBe(401);
      else expect([401, 403], `${operation} with a bearer token`).not.toContain(bearer.status);
      await expectDocumented(bearer, method, template);
    }
  });

  it('answers every route with bodies that validate against the documented schemas', async () => {
    const password = 'openapi owner password 0001';
    const { userId, token } = await h.userWithToken('openapi-owner@example.com', password);
    const b = new Browser(h);
    const key = new SoftwareAuthenticator();
    const form = (fields: Record<string, string>): RequestInit => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });

    // Health, discovery.
    expect(await expectDocumented(await h.request('/health'), 'GET', '/health')).toBe('ok');
    await expectDocumented(await h.request('/.well-known/oauth-protected-resource'), 'GET', '/.well-known/oauth-protected-resource');
    const metadata = await expectDocumented(await h.request('/.well-known/oauth-authorization-server'), 'GET', '/.well-known/oauth-authorization-server');
    expect(metadata.issuer).toBe(API);

    // Password, then passkeys (D3): enrol, sign in, enrol a second one, remove one, refuse the last.
    await expectDocumented(await b.login('openapi-owner@example.com', 'wrong password'), 'POST', '/auth/login');
    expect(await expectDocumented(await b.login('openapi-owner@example.com', password), 'POST', '/auth/login')).toEqual({
      has_passkeys: false,
      mfa_complete: false,
    });
    const creation = await expectDocumented(await b.post('/auth/webauthn/register/begin'), 'POST', '/auth/webauthn/register/begin');
    await expectDocumented(await b.post('/auth/webauthn/register/finish', key.register(creation)), 'POST', '/auth/webauthn/register/finish');
    const request = await expectDocumented(await b.post('/auth/webauthn/auth/begin'), 'POST', '/auth/webauthn/auth/begin');
    await expectDocumented(await b.post('/auth/webauthn/auth/finish', key.authenticate(request)), 'POST', '/auth/webauthn/auth/finish');
    await expectDocumented(await b.post('/auth/webauthn/auth/finish', { id: 'x', rawId: 'x', type: 'public-key', response: {} }), 'POST', '/auth/webauthn/auth/finish');
    const second = new SoftwareAuthenticator();
    const more = await expectDocumented(await b.post('/auth/webauthn/register/begin'), 'POST', '/auth/webauthn/register/begin');
    await expectDocumented(await b.post('/auth/webauthn/register/finish', { ...second.register(more), name: 'Spare key' }), 'POST', '/auth/webauthn/register/finish');
    expect(await expectDocumented(await b.request('/auth/me'), 'GET', '/auth/me')).toMatchObject({ via: 'session' });
    expect(await expectDocumented(await h.call(token, 'GET', '/auth/me'), 'GET', '/auth/me')).toMatchObject({ via: 'bearer' });
    const passkeys = await expectDocumented(await b.request('/auth/passkeys'), 'GET', '/auth/passkeys');
    expect(passkeys).toHaveLength(2);
    await expectDocumented(await b.request(`/auth/passkeys/${passkeys[1].id}`, { method: 'DELETE' }), 'DELETE', '/auth/passkeys/{id}');
    await expectDocumented(await b.request(`/auth/passkeys/${passkeys[0].id}`, { method: 'DELETE' }), 'DELETE', '/auth/passkeys/{id}');
    await expectDocumented(await b.request('/auth/passkeys/abc', { method: 'DELETE' }), 'DELETE', '/auth/passkeys/{id}');

    // Connections.
    const spare = await mintToken(h.db, { userId, label: 'spare', days: 1, audience: API });
    const connections = await expectDocumented(await h.call(token, 'GET', '/auth/tokens'), 'GET', '/auth/tokens');
    expect(connections.map((c: Json) => c.id)).toContain(sha256Hex(spare));
    await expectDocumented(await b.request(`/auth/tokens/${sha256Hex(spare)}`, { method: 'DELETE' }), 'DELETE', '/auth/tokens/{id}');
    await expectDocumented(await b.request(`/auth/tokens/${sha256Hex(spare)}`, { method: 'DELETE' }), 'DELETE', '/auth/tokens/{id}');

    // OAuth: authorization code with PKCE, refresh, revoke.
    const verifier = randomBytes(32).toString('base64url');
    const authorization = {
      client_id: 'ledger-cli',
      redirect_uri: CLI_REDIRECT,
      response_type: 'code',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: API,
      state: 'openapi',
    };
    await expectDocumented(await h.request(`/oauth/authorize?${new URLSearchParams(authorization)}`), 'GET', '/oauth/authorize');
    await expectDocumented(await h.request(`/oauth/authorize?${new URLSearchParams({ ...authorization, response_type: 'token' })}`), 'GET', '/oauth/authorize');
    await expectDocumented(await h.request(`/oauth/authorize?${new URLSearchParams({ ...authorization, client_id: 'nobody' })}`), 'GET', '/oauth/authorize');
    await expectDocumented(await h.request('/oauth/authorize?client_id=ledger-cli'), 'GET', '/oauth/authorize');
    const { redirect } = await expectDocumented(await b.post('/oauth/authorize/approve', { ...authorization, approve: true }), 'POST', '/oauth/authorize/approve');
    const code = new URL(redirect).searchParams.get('code')!;
    const grant = { grant_type: 'authorization_code', code, redirect_uri: CLI_REDIRECT, client_id: 'ledger-cli', code_verifier: verifier };
    const tokens = await expectDocumented(await h.request('/oauth/token', form(grant)), 'POST', '/oauth/token');
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect((await expectDocumented(await h.request('/oauth/token', form(grant)), 'POST', '/oauth/token')).error).toBe('invalid_grant');
    await expectDocumented(await h.request('/oauth/token', { ...form(grant), headers: { 'content-type': 'application/json' } }), 'POST', '/oauth/token');
    await expectDocumented(await h.request('/oauth/token', form({ client_id: 'ledger-cli' })), 'POST', '/oauth/token');
    const refreshed = await expectDocumented(
      await h.request('/oauth/token', form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'ledger-cli' })),
      'POST',
      '/oauth/token',
    );
    // D25: the connection ends by its family, once; then it is no live family of the caller.
    const grantRow = (await expectDocumented(await b.request('/auth/tokens'), 'GET', '/auth/tokens')).find((c: Json) => c.client_id === 'ledger-cli' && c.kind === 'refresh');
    expect(grantRow.grant_id).toMatch(/^[0-9a-f-]{36}$/);
    const ended = await b.request(`/auth/grants/${grantRow.grant_id}`, { method: 'DELETE' });
    expect(ended.status).toBe(204);
    await expectDocumented(ended, 'DELETE', '/auth/grants/{grant_id}');
    const again = await b.request(`/auth/grants/${grantRow.grant_id}`, { method: 'DELETE' });
    expect(again.status).toBe(404);
    await expectDocumented(again, 'DELETE', '/auth/grants/{grant_id}');
    await expectDocumented(await b.request('/auth/grants/not-a-grant', { method: 'DELETE' }), 'DELETE', '/auth/grants/{grant_id}');
    await expectDocumented(await h.request('/oauth/revoke', form({ token: refreshed.refresh_token })), 'POST', '/oauth/revoke');
    await expectDocumented(await h.request('/oauth/revoke', form({})), 'POST', '/oauth/revoke');
    await expectDocumented(await h.call(token, 'GET', '/oauth/client_info?client_id=ledger-cli'), 'GET', '/oauth/client_info');
    await expectDocumented(await h.call(token, 'GET', '/oauth/client_info?client_id=nobody'), 'GET', '/oauth/client_info');

    // OAuth: device grant.
    const device = await expectDocumented(
      await h.request('/oauth/device_authorization', form({ client_id: 'ledger-cli', resource: API })),
      'POST',
      '/oauth/device_authorization',
    );
    await expectDocumented(await h.request('/oauth/device_authorization', form({ client_id: 'nobody', resource: API })), 'POST', '/oauth/device_authorization');
    const userCode = device.user_code.toLowerCase().replace('-', '');
    await expectDocumented(await b.request(`/oauth/device_info?user_code=${userCode}`), 'GET', '/oauth/device_info');
    await expectDocumented(await b.request('/oauth/device_info?user_code=ZZZZ-ZZZZ'), 'GET', '/oauth/device_info');
    await expectDocumented(await b.post('/oauth/device/approve', { user_code: device.user_code, approve: true }), 'POST', '/oauth/device/approve');
    const deviceGrant = { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: device.device_code, client_id: 'ledger-cli' };
    await expectDocumented(await h.request('/oauth/token', form(deviceGrant)), 'POST', '/oauth/token');

    // OAuth: dynamic registration.
    const registered = await expectDocumented(
      await h.request('/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9000/cb'], client_name: 'OpenAPI check' }) }),
      'POST',
      '/oauth/register',
    );
    expect(registered.client_id).toMatch(/^dyn_/);
    await expectDocumented(
      await h.request('/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['http://localhost/cb'] }) }),
      'POST',
      '/oauth/register',
    );
    await expectDocumented(await h.request('/oauth/register', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }), 'POST', '/oauth/register');

    // Ledger routes.
    const ids: Record<string, number> = {};
    for (const [name, kind] of [['OA Bank', 'asset'], ['OA Salary', 'income'], ['OA Food', 'expense']] as const) {
      ids[name] = (await expectDocumented(await h.call(token, 'POST', '/accounts', { name, kind }), 'POST', '/accounts')).id;
    }
    await expectDocumented(await h.call(token, 'POST', '/accounts', { name: 'OA Bank', kind: 'asset' }), 'POST', '/accounts');
    await expectDocumented(await h.call(token, 'POST', '/accounts', '{"name":'), 'POST', '/accounts');
    await expectDocumented(await h.request('/accounts', { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: 'name=x' }), 'POST', '/accounts');
    await expectDocumented(await h.call(token, 'GET', '/accounts'), 'GET', '/accounts');
    await expectDocumented(await h.call(token, 'GET', '/settings'), 'GET', '/settings');
    await expectDocumented(await h.call(token, 'PUT', '/settings', { book_style: 'club' }), 'PUT', '/settings');
    await expectDocumented(await h.call(token, 'PUT', '/settings', { book_style: 'corporate' }), 'PUT', '/settings');
    const entries = (amount: number) => [
      { account_id: ids['OA Bank']!, amount_cents: amount },
      { account_id: ids['OA Salary']!, amount_cents: -amount },
    ];
    const posted = await expectDocumented(
      await h.call(token, 'POST', '/transactions', { occurred_on: '2024-01-15', description: 'Salary', entries: entries(250_000) }),
      'POST',
      '/transactions',
    );
    const doomed = await expectDocumented(
      await h.call(token, 'POST', '/transactions', { occurred_on: '2024-02-03', description: 'Groceries', entries: [{ account_id: ids['OA Food']!, amount_cents: 4_250 }, { account_id: ids['OA Bank']!, amount_cents: -4_250 }] }),
      'POST',
      '/transactions',
    );
    await expectDocumented(
      await h.call(token, 'POST', '/transactions', { occurred_on: '2024-01-15', description: 'Unbalanced', entries: [{ account_id: ids['OA Bank']!, amount_cents: 1 }, { account_id: ids['OA Salary']!, amount_cents: 2 }] }),
      'POST',
      '/transactions',
    );
    const listed = await expectDocumented(await h.call(token, 'GET', '/transactions?from=2024-01-01&to=2024-12-31'), 'GET', '/transactions');
    expect(listed.map((t: Json) => t.id)).toEqual([doomed.id, posted.id]);
    await expectDocumented(await h.call(token, 'GET', '/transactions?from=2023-02-29'), 'GET', '/transactions');
    await expectDocumented(await h.call(token, 'DELETE', `/transactions/${doomed.id}`), 'DELETE', '/transactions/{id}');
    await expectDocumented(await h.call(token, 'DELETE', `/transactions/${doomed.id}`), 'DELETE', '/transactions/{id}');
    await expectDocumented(await h.call(token, 'DELETE', '/transactions/x'), 'DELETE', '/transactions/{id}');


    // Reports (D7).
    const balances = await expectDocumented(await h.call(token, 'GET', '/reports/balances?as_of=2024-12-31'), 'GET', '/reports/balances');
    expect(balances.totals.asset).toBe(250_000);
    await expectDocumented(await h.call(token, 'GET', '/reports/balances?as_of=2023-02-29'), 'GET', '/reports/balances');
    await expectDocumented(await h.call(token, 'GET', '/reports/balance-sheet?as_of=2024-12-31'), 'GET', '/reports/balance-sheet');
    await expectDocumented(await h.call(token, 'GET', '/reports/income-statement?from=2024-01-01&to=2024-12-31'), 'GET', '/reports/income-statement');
    await expectDocumented(await h.call(token, 'GET', '/reports/monthly?from=2024-01-01&to=2024-03-31'), 'GET', '/reports/monthly');
    const register = await expectDocumented(
      await h.call(token, 'GET', `/reports/accounts/${ids['OA Bank']}/register?from=2024-01-01&to=2024-12-31`),
      'GET',
      '/reports/accounts/{id}/register',
    );
    expect(register.entries).toHaveLength(1);
    await expectDocumented(await h.call(token, 'GET', '/reports/accounts/2147483000/register'), 'GET', '/reports/accounts/{id}/register');

    // D15: one transaction, corrected, restored; accounts renamed and deleted; the change log; paging.
    const one = await expectDocumented(await h.call(token, 'GET', `/transactions/${posted.id}`), 'GET', '/transactions/{id}');
    expect(one.id).toBe(posted.id);
    await expectDocumented(await h.call(token, 'GET', `/transactions/${doomed.id}`), 'GET', '/transactions/{id}');
    const corrected = { occurred_on: '2024-02-04', description: 'Groceries, corrected', entries: [{ account_id: ids['OA Food']!, amount_cents: 4_300 }, { account_id: ids['OA Bank']!, amount_cents: -4_300 }] };
    await expectDocumented(await h.call(token, 'PUT', `/transactions/${posted.id}`, corrected), 'PUT', '/transactions/{id}');
    await expectDocumented(await h.call(token, 'PUT', `/transactions/${posted.id}`, { ...corrected, entries: corrected.entries.slice(0, 1) }), 'PUT', '/transactions/{id}');
    await expectDocumented(await h.call(token, 'PUT', `/transactions/${doomed.id}`, corrected), 'PUT', '/transactions/{id}');
    await expectDocumented(await h.call(token, 'POST', `/transactions/${doomed.id}/restore`), 'POST', '/transactions/{id}/restore');
    await expectDocumented(await h.call(token, 'POST', `/transactions/${doomed.id}/restore`), 'POST', '/transactions/{id}/restore');
    await expectDocumented(await h.call(token, 'POST', '/transactions/999999/restore'), 'POST', '/transactions/{id}/restore');
    const paged = await h.call(token, 'GET', '/transactions?limit=1');
    expect(paged.headers.get('next-cursor')).not.toBeNull();
    await expectDocumented(paged, 'GET', '/transactions');
    const spareAccount = await expectDocumented(await h.call(token, 'POST', '/accounts', { name: 'OA Spare', kind: 'asset' }), 'POST', '/accounts');
    await expectDocumented(await h.call(token, 'PUT', `/accounts/${spareAccount.id}`, { name: 'OA Spare renamed' }), 'PUT', '/accounts/{id}');
    await expectDocumented(await h.call(token, 'PUT', `/accounts/${spareAccount.id}`, {}), 'PUT', '/accounts/{id}');
    await expectDocumented(await h.call(token, 'PUT', '/accounts/999999', { kind: 'expense' }), 'PUT', '/accounts/{id}');
    await expectDocumented(await h.call(token, 'DELETE', `/accounts/${ids['OA Bank']}`), 'DELETE', '/accounts/{id}');
    await expectDocumented(await h.call(token, 'DELETE', `/accounts/${spareAccount.id}`), 'DELETE', '/accounts/{id}');
    await expectDocumented(await h.call(token, 'DELETE', `/accounts/${spareAccount.id}`), 'DELETE', '/accounts/{id}');
    const changes = await expectDocumented(await h.call(token, 'GET', '/changes?limit=500'), 'GET', '/changes');
    expect(changes.changes.length).toBeGreaterThan(0);
    await expectDocumented(await h.call(token, 'GET', '/changes?limit=0'), 'GET', '/changes');

    // D16: a statement previewed, imported, refused; import rules.
    const rule = await expectDocumented(await h.call(token, 'POST', '/import-rules', { pattern: 'Groceries', account_id: ids['OA Food']! }), 'POST', '/import-rules');
    await expectDocumented(await h.call(token, 'POST', '/import-rules', { pattern: '', account_id: ids['OA Food']! }), 'POST', '/import-rules');
    await expectDocumented(await h.call(token, 'GET', '/import-rules'), 'GET', '/import-rules');
    const statementAccount = await expectDocumented(await h.call(token, 'POST', '/accounts', { name: 'OA Statement', kind: 'asset' }), 'POST', '/accounts');
    const statement = {
      account_id: statementAccount.id, format: 'csv', unmatched_account_id: ids['OA Food']!,
      content: 'Date,Description,Amount\n2024-03-01,Groceries,-1.00\n', csv: { date_column: 'Date', description_column: 'Description', amount_column: 'Amount', date_format: 'YYYY-MM-DD', decimal: '.' },
    };
    const previewed = await expectDocumented(await h.call(token, 'POST', '/imports/preview', statement), 'POST', '/imports/preview');
    expect(previewed.lines).toHaveLength(1);
    await expectDocumented(await h.call(token, 'POST', '/imports/preview', { ...statement, format: 'ofx', csv: undefined }), 'POST', '/imports/preview');
    await expectDocumented(await h.call(token, 'POST', '/imports', statement), 'POST', '/imports');
    await expectDocumented(await h.call(token, 'POST', '/imports', { ...statement, content: 'Date,Description,Amount\n2024-02-30,Groceries,-1.00\n' }), 'POST', '/imports');
    await expectDocumented(await h.call(token, 'DELETE', `/import-rules/${rule.id}`), 'DELETE', '/import-rules/{id}');
    await expectDocumented(await h.call(token, 'DELETE', `/import-rules/${rule.id}`), 'DELETE', '/import-rules/{id}');

    // D20: a reconciliation refused (409, 400, 404) and made, where the account stands, the list, an undo; a closed period.
    const reconciled = await expectDocumented(await h.call(token, 'POST', '/accounts', { name: 'OA Reconciled', kind: 'asset' }), 'POST', '/accounts');
    const reconciliations = `/accounts/${reconciled.id}/reconciliations`;
    await expectDocumented(await h.call(token, 'POST', reconciliations, { statement_date: '2024-03-31', statement_balance_cents: 5 }), 'POST', '/accounts/{id}/reconciliations');
    await expectDocumented(await h.call(token, 'POST', reconciliations, { statement_date: '2024-03-31' }), 'POST', '/accounts/{id}/reconciliations');
    await expectDocumented(await h.call(token, 'POST', '/accounts/999999/reconciliations', { statement_date: '2024-03-31', statement_balance_cents: 0 }), 'POST', '/accounts/{id}/reconciliations');
    const made = await expectDocumented(await h.call(token, 'POST', reconciliations, { statement_date: '2024-03-31', statement_balance_cents: 0 }), 'POST', '/accounts/{id}/reconciliations');
    await expectDocumented(await h.call(token, 'GET', reconciliations), 'GET', '/accounts/{id}/reconciliations');
    await expectDocumented(await h.call(token, 'GET', '/accounts/999999/reconciliations'), 'GET', '/accounts/{id}/reconciliations');
    await expectDocumented(await h.call(token, 'GET', `/accounts/${reconciled.id}/reconciliation?as_of=2024-03-31`), 'GET', '/accounts/{id}/reconciliation');
    await expectDocumented(await h.call(token, 'GET', `/accounts/${reconciled.id}/reconciliation?as_of=soon`), 'GET', '/accounts/{id}/reconciliation');
    await expectDocumented(await h.call(token, 'DELETE', `/reconciliations/${made.id}`), 'DELETE', '/reconciliations/{id}');
    await expectDocumented(await h.call(token, 'DELETE', `/reconciliations/${made.id}`), 'DELETE', '/reconciliations/{id}');
    await expectDocumented(await h.call(token, 'PUT', '/settings', { closed_through: '2000-01-01', currency: 'EUR' }), 'PUT', '/settings');
    await expectDocumented(await h.call(token, 'PUT', '/settings', { closed_through: null }), 'PUT', '/settings');

    // D21: schedules, an occurrence posted and skipped, the due list, the forecast.
    const schedule = {
      description: 'OA Rent', entries: [{ account_id: ids['OA Food']!, amount_cents: 100 }, { account_id: statementAccount.id, amount_cents: -100 }],
      start_on: '2031-01-31', every: 'month', mode: 'remind',
    };
    const planned = await expectDocumented(await h.call(token, 'POST', '/schedules', schedule), 'POST', '/schedules');
    await expectDocumented(await h.call(token, 'POST', '/schedules', { ...schedule, every: 'day' }), 'POST', '/schedules');
    await expectDocumented(await h.call(token, 'GET', '/schedules'), 'GET', '/schedules');
    await expectDocumented(await h.call(token, 'GET', `/schedules/${planned.id}`), 'GET', '/schedules/{id}');
    await expectDocumented(await h.call(token, 'GET', '/schedules/x'), 'GET', '/schedules/{id}');
    await expectDocumented(await h.call(token, 'GET', '/schedules/999999'), 'GET', '/schedules/{id}');
    await expectDocumented(await h.call(token, 'PUT', `/schedules/${planned.id}`, { ...schedule, interval: 2 }), 'PUT', '/schedules/{id}');
    await expectDocumented(await h.call(token, 'PUT', '/schedules/999999', schedule), 'PUT', '/schedules/{id}');
    await expectDocumented(await h.call(token, 'PUT', `/schedules/${planned.id}`, { ...schedule, interval: 0 }), 'PUT', '/schedules/{id}');
    await expectDocumented(await h.call(token, 'GET', '/schedules/due?through=2031-12-31'), 'GET', '/schedules/due');
    await expectDocumented(await h.call(token, 'GET', '/schedules/due?through=soon'), 'GET', '/schedules/due');
    const occurrence = (date: string, action: string) => `/schedules/${planned.id}/occurrences/${date}/${action}`;
    await expectDocumented(await h.call(token, 'POST', occurrence('2031-01-31', 'post'), { description: 'OA Rent, this time' }), 'POST', '/schedules/{id}/occurrences/{date}/post');
    await expectDocumented(await h.call(token, 'POST', occurrence('2031-01-31', 'post')), 'POST', '/schedules/{id}/occurrences/{date}/post');
    await expectDocumented(await h.call(token, 'POST', occurrence('2031-02-01', 'post')), 'POST', '/schedules/{id}/occurrences/{date}/post');
    await expectDocumented(await h.call(token, 'POST', occurrence('2031-03-31', 'post'), { entries: [] }), 'POST', '/schedules/{id}/occurrences/{date}/post');
    await expectDocumented(await h.call(token, 'POST', occurrence('2031-03-31', 'skip')), 'POST', '/schedules/{id}/occurrences/{date}/skip');
    await expectDocumented(await h.call(token, 'POST', occurrence('2031-03-31', 'skip')), 'POST', '/schedules/{id}/occurrences/{date}/skip');
    await expectDocumented(await h.call(token, 'POST', occurrence('2031-03-30', 'skip')), 'POST', '/schedules/{id}/occurrences/{date}/skip');
    await expectDocumented(await h.call(token, 'POST', occurrence('2031-02-30', 'skip')), 'POST', '/schedules/{id}/occurrences/{date}/skip');
    await expectDocumented(await h.call(token, 'GET', '/reports/forecast?to=2031-12-31'), 'GET', '/reports/forecast');
    await expectDocumented(await h.call(token, 'GET', '/reports/forecast?to=3000-01-01'), 'GET', '/reports/forecast');
    await expectDocumented(await h.call(token, 'DELETE', `/schedules/${planned.id}`), 'DELETE', '/schedules/{id}');
    await expectDocumented(await h.call(token, 'DELETE', `/schedules/${planned.id}`), 'DELETE', '/schedules/{id}');

    // D26: budgets, the draft, plan and reality.
    const budgetBody = { name: 'OA plan', from: '2031-01', to: '2031-12', lines: [{ account_id: ids['OA Food']!, amount_cents: 100, per: 'month', rollover: true }] };
    const budget = await expectDocumented(await h.call(token, 'POST', '/budgets', budgetBody), 'POST', '/budgets');
    await expectDocumented(await h.call(token, 'POST', '/budgets', { ...budgetBody, from: '2031-13' }), 'POST', '/budgets');
    await expectDocumented(await h.call(token, 'GET', '/budgets'), 'GET', '/budgets');
    await expectDocumented(await h.call(token, 'GET', '/budgets/draft?from=2025-01&to=2025-12'), 'GET', '/budgets/draft');
    await expectDocumented(await h.call(token, 'GET', '/budgets/draft?from=2025-01'), 'GET', '/budgets/draft');
    await expectDocumented(await h.call(token, 'GET', `/budgets/${budget.id}`), 'GET', '/budgets/{id}');
    await expectDocumented(await h.call(token, 'GET', '/budgets/x'), 'GET', '/budgets/{id}');
    await expectDocumented(await h.call(token, 'GET', '/budgets/999999'), 'GET', '/budgets/{id}');
    await expectDocumented(await h.call(token, 'PUT', `/budgets/${budget.id}`, { ...budgetBody, to: '2031-06' }), 'PUT', '/budgets/{id}');
    await expectDocumented(await h.call(token, 'PUT', `/budgets/${budget.id}`, { ...budgetBody, lines: [{ account_id: statementAccount.id, amount_cents: 1, per: 'month' }] }), 'PUT', '/budgets/{id}');
    await expectDocumented(await h.call(token, 'PUT', '/budgets/999999', budgetBody), 'PUT', '/budgets/{id}');
    await expectDocumented(await h.call(token, 'GET', `/reports/budget?id=${budget.id}&as_of=2031-03-01`), 'GET', '/reports/budget');
    await expectDocumented(await h.call(token, 'GET', '/reports/budget?id=999999'), 'GET', '/reports/budget');
    await expectDocumented(await h.call(token, 'GET', '/reports/budget?id=x'), 'GET', '/reports/budget');
    await expectDocumented(await h.call(token, 'DELETE', `/budgets/${budget.id}`), 'DELETE', '/budgets/{id}');
    await expectDocumented(await h.call(token, 'DELETE', `/budgets/${budget.id}`), 'DELETE', '/budgets/{id}');

    // D27: dues plans (a future start: nothing is charged), the 409 of a plan a person follows.
    const duesBody = { name: 'OA dues', amount_cents: 500, every: 'quarter', start_on: '2031-01-31', income_account_id: ids['OA Salary']! };
    const duesPlan = await expectDocumented(await h.call(token, 'POST', '/dues-plans', duesBody), 'POST', '/dues-plans');
    await expectDocumented(await h.call(token, 'POST', '/dues-plans', { ...duesBody, income_account_id: ids['OA Food']! }), 'POST', '/dues-plans');
    await expectDocumented(await h.call(token, 'GET', '/dues-plans'), 'GET', '/dues-plans');
    await expectDocumented(await h.call(token, 'GET', `/dues-plans/${duesPlan.id}`), 'GET', '/dues-plans/{id}');
    await expectDocumented(await h.call(token, 'GET', '/dues-plans/x'), 'GET', '/dues-plans/{id}');
    await expectDocumented(await h.call(token, 'GET', '/dues-plans/999999'), 'GET', '/dues-plans/{id}');
    await expectDocumented(await h.call(token, 'PUT', `/dues-plans/${duesPlan.id}`, { ...duesBody, amount_cents: 600 }), 'PUT', '/dues-plans/{id}');
    await expectDocumented(await h.call(token, 'PUT', `/dues-plans/${duesPlan.id}`, { ...duesBody, every: 'week' }), 'PUT', '/dues-plans/{id}');
    await expectDocumented(await h.call(token, 'PUT', '/dues-plans/999999', duesBody), 'PUT', '/dues-plans/{id}');
    const duesMember = await (await h.call(token, 'POST', '/people', { name: 'OA dues member', dues_plan_id: duesPlan.id })).json();
    await expectDocumented(await h.call(token, 'DELETE', `/dues-plans/${duesPlan.id}`), 'DELETE', '/dues-plans/{id}');
    expect((await h.call(token, 'DELETE', `/people/${duesMember.id}`)).status).toBe(204);
    await expectDocumented(await h.call(token, 'DELETE', `/dues-plans/${duesPlan.id}`), 'DELETE', '/dues-plans/{id}');
    await expectDocumented(await h.call(token, 'DELETE', `/dues-plans/${duesPlan.id}`), 'DELETE', '/dues-plans/{id}');

    // D27: people and their accounts, the batch, forget, a statement, who owes; an account in use.
    const person = await expectDocumented(await h.call(token, 'POST', '/people', { name: 'OA person', iban: 'DE89 3704 0044 0532 0130 00', mandate: { id: 'OA-1', signed_on: '2024-01-01' } }), 'POST', '/people');
    await expectDocumented(await h.call(token, 'POST', '/people', { name: 'OA person 2', iban: 'DE00' }), 'POST', '/people');
    await expectDocumented(await h.call(token, 'POST', '/people/batch', { people: [{ name: 'OA batch 1' }, { name: 'OA batch 2', member_no: 'OA-B2' }] }), 'POST', '/people/batch');
    await expectDocumented(await h.call(token, 'POST', '/people/batch', { people: [{ name: 'OA batch 3' }, { name: 'oa batch 3' }] }), 'POST', '/people/batch');
    await expectDocumented(await h.call(token, 'GET', '/people?q=oa&active_on=2024-01-01'), 'GET', '/people');
    await expectDocumented(await h.call(token, 'GET', '/people?active_on=2024-02-30'), 'GET', '/people');
    await expectDocumented(await h.call(token, 'GET', `/people/${person.id}`), 'GET', '/people/{id}');
    await expectDocumented(await h.call(token, 'GET', '/people/x'), 'GET', '/people/{id}');
    await expectDocumented(await h.call(token, 'GET', '/people/999999'), 'GET', '/people/{id}');
    await expectDocumented(await h.call(token, 'PUT', `/people/${person.id}`, { name: 'OA person renamed', joined_on: '2024-01-01' }), 'PUT', '/people/{id}');
    await expectDocumented(await h.call(token, 'PUT', `/people/${person.id}`, { name: 'OA person renamed', left_on: '2023-01-01', joined_on: '2024-01-01' }), 'PUT', '/people/{id}');
    await expectDocumented(await h.call(token, 'PUT', '/people/999999', { name: 'Nobody' }), 'PUT', '/people/{id}');
    await expectDocumented(await h.call(token, 'PUT', `/accounts/${person.account_id}`, { name: 'OA taken over' }), 'PUT', '/accounts/{id}');
    await expectDocumented(await h.call(token, 'DELETE', `/accounts/${person.account_id}`), 'DELETE', '/accounts/{id}');
    await expectDocumented(await h.call(token, 'POST', `/people/${person.id}/forget`), 'POST', '/people/{id}/forget');
    await expectDocumented(await h.call(token, 'POST', '/people/999999/forget'), 'POST', '/people/{id}/forget');
    await expectDocumented(await h.call(token, 'POST', '/transactions', { occurred_on: '2024-03-01', description: 'OA dues paid', entries: [{ account_id: person.account_id, amount_cents: -500 }, { account_id: statementAccount.id, amount_cents: 500 }] }), 'POST', '/transactions');
    await expectDocumented(await h.call(token, 'GET', `/people/${person.id}/statement?from=2024-01-01`), 'GET', '/people/{id}/statement');
    await expectDocumented(await h.call(token, 'GET', `/people/${person.id}/statement?to=2024-13-01`), 'GET', '/people/{id}/statement');
    await expectDocumented(await h.call(token, 'GET', '/people/999999/statement'), 'GET', '/people/{id}/statement');
    await expectDocumented(await h.call(token, 'GET', '/reports/people?as_of=2024-12-31'), 'GET', '/reports/people');
    await expectDocumented(await h.call(token, 'GET', '/reports/people?as_of=2024-12-32'), 'GET', '/reports/people');
    await expectDocumented(await h.call(token, 'DELETE', `/people/${person.id}`), 'DELETE', '/people/{id}');
    const leaving = await expectDocumented(await h.call(token, 'POST', '/people', { name: 'OA leaving' }), 'POST', '/people');
    await expectDocumented(await h.call(token, 'DELETE', `/people/${leaving.id}`), 'DELETE', '/people/{id}');
    await expectDocumented(await h.call(token, 'DELETE', `/people/${leaving.id}`), 'DELETE', '/people/{id}');

    // D27's direct debit: refused without creditor details, a collection made, read, its files, deleted.
    const collectOn = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    await expectDocumented(await h.call(token, 'POST', '/direct-debits', { collect_on: collectOn }), 'POST', '/direct-debits');
    await expectDocumented(await h.call(token, 'PUT', '/settings', { sepa: { creditor_name: 'OA club', creditor_iban: 'DE89370400440532013000', creditor_id: 'DE98ZZZ09999999999' } }), 'PUT', '/settings');
    const debtor = await expectDocumented(await h.call(token, 'POST', '/people', { name: 'OA debtor', iban: 'DE02120300000000202051', mandate: { id: 'OA-DD-1', signed_on: '2024-01-01' } }), 'POST', '/people');
    await expectDocumented(await h.call(token, 'POST', '/transactions', { occurred_on: '2024-03-01', description: 'OA dues', entries: [{ account_id: debtor.account_id, amount_cents: 500 }, { account_id: ids['OA Food']!, amount_cents: -500 }] }), 'POST', '/transactions');
    await expectDocumented(await h.call(token, 'GET', `/direct-debits/draft?collect_on=${collectOn}`), 'GET', '/direct-debits/draft');
    await expectDocumented(await h.call(token, 'GET', '/direct-debits/draft?collect_on=soon'), 'GET', '/direct-debits/draft');
    await expectDocumented(await h.call(token, 'POST', '/direct-debits', { collect_on: '2000-01-01' }), 'POST', '/direct-debits');
    const debit = await expectDocumented(await h.call(token, 'POST', '/direct-debits', { collect_on: collectOn }), 'POST', '/direct-debits');
    await expectDocumented(await h.call(token, 'GET', '/direct-debits'), 'GET', '/direct-debits');
    await expectDocumented(await h.call(token, 'GET', `/direct-debits/${debit.id}`), 'GET', '/direct-debits/{id}');
    await expectDocumented(await h.call(token, 'GET', '/direct-debits/x'), 'GET', '/direct-debits/{id}');
    await expectDocumented(await h.call(token, 'GET', '/direct-debits/999999'), 'GET', '/direct-debits/{id}');
    await expectDocumented(await h.call(token, 'GET', `/direct-debits/${debit.id}/pain.008.xml`), 'GET', '/direct-debits/{id}/pain.008.xml');
    await expectDocumented(await h.call(token, 'GET', `/direct-debits/${debit.id}/pain.008.xml?version=001.07`), 'GET', '/direct-debits/{id}/pain.008.xml');
    await expectDocumented(await h.call(token, 'GET', '/direct-debits/999999/pain.008.xml'), 'GET', '/direct-debits/{id}/pain.008.xml');
    await expectDocumented(await h.call(token, 'GET', `/direct-debits/${debit.id}/pre-notifications`), 'GET', '/direct-debits/{id}/pre-notifications');
    await expectDocumented(await h.call(token, 'GET', '/direct-debits/999999/pre-notifications'), 'GET', '/direct-debits/{id}/pre-notifications');
    await expectDocumented(await h.call(token, 'GET', `/direct-debits/${debit.id}/pre-notifications.csv`), 'GET', '/direct-debits/{id}/pre-notifications.csv');
    await expectDocumented(await h.call(token, 'POST', '/direct-debits', { collect_on: collectOn }), 'POST', '/direct-debits');
    await expectDocumented(await h.call(token, 'DELETE', `/direct-debits/${debit.id}`), 'DELETE', '/direct-debits/{id}');
    await expectDocumented(await h.call(token, 'DELETE', `/direct-debits/${debit.id}`), 'DELETE', '/direct-debits/{id}');
    await expectDocumented(await h.call(token, 'PUT', '/settings', { sepa: null }), 'PUT', '/settings');

    // D22: a receipt added (and refused: too large, not a receipt, no such transaction, 20 already), listed, read, removed.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
    const receiptTx = await expectDocumented(await h.call(token, 'POST', '/transactions', { occurred_on: '2024-05-01', description: 'OA receipt', entries: [{ account_id: ids['OA Food']!, amount_cents: 1 }, { account_id: statementAccount.id, amount_cents: -1 }] }), 'POST', '/transactions');
    const send = (path: string, body: Uint8Array<ArrayBuffer>, type: string) =>
      h.request(path, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': type }, body });
    const receipt = await expectDocumented(await send(`/transactions/${receiptTx.id}/attachments?name=till.png`, new Uint8Array(png), 'image/png'), 'POST', '/transactions/{id}/attachments');
    await expectDocumented(await send(`/transactions/${receiptTx.id}/attachments`, new Uint8Array(Buffer.from('<svg/>')), 'image/svg+xml'), 'POST', '/transactions/{id}/attachments');
    await expectDocumented(await send(`/transactions/${receiptTx.id}/attachments`, new Uint8Array(10 * 1024 * 1024 + 1), 'image/png'), 'POST', '/transactions/{id}/attachments');
    await expectDocumented(await send('/transactions/999999/attachments', new Uint8Array(png), 'image/png'), 'POST', '/transactions/{id}/attachments');
    await expectDocumented(await send('/transactions/x/attachments', new Uint8Array(png), 'image/png'), 'POST', '/transactions/{id}/attachments');
    for (let i = 1; i < 20; i++) await send(`/transactions/${receiptTx.id}/attachments`, new Uint8Array(png), 'image/png');
    await expectDocumented(await send(`/transactions/${receiptTx.id}/attachments`, new Uint8Array(png), 'image/png'), 'POST', '/transactions/{id}/attachments');
    await expectDocumented(await h.call(token, 'GET', `/transactions/${receiptTx.id}/attachments`), 'GET', '/transactions/{id}/attachments');
    await expectDocumented(await h.call(token, 'GET', '/transactions/999999/attachments'), 'GET', '/transactions/{id}/attachments');
    await expectDocumented(await h.call(token, 'GET', '/transactions/x/attachments'), 'GET', '/transactions/{id}/attachments');
    await expectDocumented(await h.call(token, 'GET', '/attachments/usage'), 'GET', '/attachments/usage');
    await expectDocumented(await h.call(token, 'GET', `/attachments/${receipt.id}?inline=1`), 'GET', '/attachments/{id}');
    await expectDocumented(await h.request(`/attachments/${receipt.id}`, { headers: { authorization: `Bearer ${token}`, 'if-none-match': `"${receipt.sha256}"` } }), 'GET', '/attachments/{id}');
    await expectDocumented(await h.call(token, 'GET', '/attachments/999999'), 'GET', '/attachments/{id}');
    await expectDocumented(await h.call(token, 'GET', '/attachments/x'), 'GET', '/attachments/{id}');
    await expectDocumented(await h.call(token, 'DELETE', `/attachments/${receipt.id}`), 'DELETE', '/attachments/{id}');
    await expectDocumented(await h.call(token, 'DELETE', `/attachments/${receipt.id}`), 'DELETE', '/attachments/{id}');
    await expectDocumented(await h.call(token, 'DELETE', '/attachments/x'), 'DELETE', '/attachments/{id}');
    await expectDocumented(await h.call(token, 'PUT', '/settings', { closed_through: '2024-05-31' }), 'PUT', '/settings');
    const closedReceipt = (await expectDocumented(await h.call(token, 'GET', `/transactions/${receiptTx.id}/attachments`), 'GET', '/transactions/{id}/attachments'))[0];
    await expectDocumented(await h.call(token, 'DELETE', `/attachments/${closedReceipt.id}`), 'DELETE', '/attachments/{id}');
    await expectDocumented(await h.call(token, 'PUT', '/settings', { closed_through: null }), 'PUT', '/settings');
    await expectDocumented(await h.call(token, 'GET', '/export/receipts.zip?from=2024-05-01&to=2024-05-31'), 'GET', '/export/receipts.zip');
    await expectDocumented(await h.call(token, 'GET', '/export/receipts.zip?from=may'), 'GET', '/export/receipts.zip');
    await expectDocumented(await h.call(token, 'GET', '/export/changes.csv'), 'GET', '/export/changes.csv');
    await expectDocumented(await h.call(token, 'GET', '/export/changes.csv?to=june'), 'GET', '/export/changes.csv');
    await expectDocumented(await h.call(token, 'GET', '/export/audit.zip?from=2024-05-01&to=2024-05-31&lang=de'), 'GET', '/export/audit.zip');
    await expectDocumented(await h.call(token, 'GET', '/export/audit.zip?from=2024-05-01'), 'GET', '/export/audit.zip');
    await expectDocumented(await h.call(token, 'GET', '/export/audit.zip?from=2024-05-01&to=2024-04-30'), 'GET', '/export/audit.zip');

    // MCP (D8).
    const mcp = (body: unknown, accept = MCP_ACCEPT) =>
      h.request('/mcp', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept },
        body: JSON.stringify(body),
      });
    const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'openapi-test', version: '1' } };
    await expectDocumented(await mcp({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initialize }), 'POST', '/mcp');
    const tools = await expectDocumented(await mcp({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), 'POST', '/mcp');
    expect(tools.result.tools.length).toBeGreaterThan(0);
    await expectDocumented(await mcp({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_accounts', arguments: {} } }), 'POST', '/mcp');
    await expectDocumented(await mcp({ jsonrpc: '2.0', method: 'notifications/initialized' }), 'POST', '/mcp');
    await expectDocumented(await mcp({ jsonrpc: '2.0', id: 4, method: 'tools/list' }, 'application/json'), 'POST', '/mcp');
    await expectDocumented(await mcp({ hello: 'world' }), 'POST', '/mcp');
    await expectDocumented(await h.call(token, 'GET', '/mcp'), 'GET', '/mcp');
    await expectDocumented(await h.call(token, 'DELETE', '/mcp'), 'DELETE', '/mcp');

    // Last: the password change (revokes every token of the user), then logout.
    await expectDocumented(await b.post('/auth/password', { current_password: 'not it', new_password: 'openapi owner password 0002' }), 'POST', '/auth/password');
    await expectDocumented(await b.post('/auth/password', { current_password: password, new_password: 'openapi owner password 0002' }), 'POST', '/auth/password');
    await expectDocumented(await b.post('/auth/logout'), 'POST', '/auth/logout');
    await expectDocumented(await b.post('/auth/logout'), 'POST', '/auth/logout');

    // Every operation's success answer (405 for the unused MCP methods) was seen and validated.
    const missing = operationsOf(doc)
      .filter(([operation, op]) => {
        const statuses = Object.keys(op.responses).filter((s) => (NO_SUCCESS.includes(operation) ? s === '405' : isSuccess(s)));
        return !statuses.some((s) => exercised.has(`${operation} ${s}`));
      })
      .map(([operation]) => operation);
    expect(missing, 'operations whose success answer was never exercised').toEqual([]);
  });

  it('spec Authentication: /openapi.json and /docs are not listed as open, so they need the full tier (401 without)', async () => {
    for (const path of ['/openapi.json', '/docs']) {
      const res = await h.request(path);
      expect(res.status, path).toBe(401);
      expect(res.headers.get('www-authenticate'), path).toBe(`Bearer resource_metadata="${API}/.well-known/oauth-protected-resource"`);
      expect(await res.json()).toEqual({ error: 'authentication required' });
    }
  });

  it('serves a rendered reference page at /docs that loads the document', async () => {
    const res = await h.call(reader, 'GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    // Issue 1/7: the page's scripts are our own files (no inline script under its CSP); one of them loads the document.
    const scripts = [...(await res.text()).matchAll(/<script\b[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!);
    const texts = await Promise.all(scripts.map(async (src) => (await h.call(reader, 'GET', src)).text()));
    expect(texts.some((text) => text.includes('/openapi.json'))).toBe(true);
  });
});
