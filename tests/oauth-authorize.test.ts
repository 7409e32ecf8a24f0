import { createHash } from 'node:crypto';
import { count, eq, sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { authorizationCodes, oauthClients } from '../src/db/schema';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { describeEachDatabase, type Harness } from './support/harness';
import { expectAuthenticationRequired, pkce } from './support/http';

// Spec: Discovery documents; OAuth routes (GET /oauth/authorize, POST /oauth/authorize/approve,
// GET /oauth/client_info); OAuth authorization server (authorization validation, redirect URI
// matching); Authorization code state table (none → live); D11, D13.

const API = 'http://localhost:38081';
const WEB = 'http://localhost:38080';
const FIRST_PARTY_REDIRECT = 'http://127.0.0.1/callback';
const LOOPBACK_CALLBACK = 'http://127.0.0.1:53123/callback';
const PASSWORD = 'correct horse battery staple';

/** RFC 7636: a 43-character verifier and its S256 challenge (also 43 characters). */
type Params = Record<string, string>;

/** A valid authorization request for ledger-cli; `undefined` in `overrides` removes a parameter. */
function authParams(overrides: Record<string, string | undefined> = {}): Params {
  const params: Record<string, string | undefined> = {
    client_id: 'ledger-cli',
    redirect_uri: LOOPBACK_CALLBACK,
    response_type: 'code',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    resource: API,
    state: 'st-123',
    ...overrides,
  };
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
}

const REQUIRED = ['client_id', 'redirect_uri', 'response_type', 'code_challenge', 'code_challenge_method', 'resource'];

/** The refusals shared by authorize and approve (spec: authorization validation), all 400 invalid_request. */
const INVALID_REQUESTS: [string, Record<string, string>][] = [
  ['response_type token', { response_type: 'token' }],
  ['response_type empty', { response_type: '' }],
  ['code_challenge_method plain', { code_challenge_method: 'plain' }],
  ['code_challenge_method lower-case s256', { code_challenge_method: 's256' }],
  ['a code_challenge of 42 characters', { code_challenge: 'a'.repeat(42) }],
  ['an empty code_challenge', { code_challenge: '' }],
  ['a redirect_uri not registered (another path)', { redirect_uri: 'http://127.0.0.1:53123/other' }],
  ['a redirect_uri not registered (https)', { redirect_uri: 'https://app.example/callback' }],
  ['a resource on another port', { resource: 'http://localhost:38082' }],
  ['a resource on another host', { resource: 'https://evil.example' }],
  ['a resource with a query', { resource: `${API}/mcp?x=1` }],
  ['a resource WHATWG URL would repair into ours (a backslash after the port)', { resource: `${API}\\evil` }],
  ['a resource with a percent-encoded host', { resource: 'http://%6cocalhost:38081' }],
];

/** `127.0.0.1` first-party loopback rule (spec: redirect URI matching), for a registered http://127.0.0.1/callback. */
const LOOPBACK_REFUSED: [string, string][] = [
  ['localhost is not loopback', 'http://localhost:53123/callback'],
  ['a different path', 'http://127.0.0.1:53123/other'],
  ['an authority with @ (the host is evil.example)', 'http://127.0.0.1:53123@evil.example/callback'],
  ['a port above 65535 (not a TCP port, so no port rule)', 'http://127.0.0.1:99999/callback'],
];

async function expectOAuthError(res: Response, status: number, error: string): Promise<{ error_description: string }> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('location')).toBeNull();
  const body = (await res.json()) as { error: string; error_description: string };
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
  expect(body.error).toBe(error);
  expect(body.error_description).toEqual(expect.any(String));
  expect(body.error_description.length).toBeGreaterThan(0);
  return body;
}

function authorize(h: Harness, params: Params): Promise<Response> {
  return h.request(`/oauth/authorize?${new URLSearchParams(params)}`);
}

async function codeCount(h: Harness): Promise<number> {
  const [row] = await h.db.select({ n: count() }).from(authorizationCodes);
  return row!.n;
}

async function clientRow(h: Harness, id: string) {
  const [row] = await h.db.select().from(oauthClients).where(eq(oauthClients.id, id));
  return row;
}

/** A dynamic client registered over HTTP (never used yet). */
async function registerClient(h: Harness, name: string, redirectUris: string[]): Promise<string> {
  const res = await h.request('/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: redirectUris }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

describeEachDatabase('OAuth discovery documents', (h) => {
  it('GET /.well-known/oauth-protected-resource is open and answers exactly the spec fields', async () => {
    const res = await h.request('/.well-known/oauth-protected-resource');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toStrictEqual({
      resource: API,
      authorization_servers: [API],
      bearer_methods_supported: ['header'],
    });
  });

  it('GET /.well-known/oauth-authorization-server is open and answers exactly the spec fields (issuer = API_ORIGIN), with D18\'s client_id_metadata_document_supported', async () => {
    const res = await h.request('/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toStrictEqual({
      issuer: API,
      authorization_endpoint: `${API}/oauth/authorize`,
      token_endpoint: `${API}/oauth/token`,
      device_authorization_endpoint: `${API}/oauth/device_authorization`,
      registration_endpoint: `${API}/oauth/register`,
      revocation_endpoint: `${API}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      client_id_metadata_document_supported: true,
      // D24, RFC 9207.
      authorization_response_iss_parameter_supported: true,
    });
  });

  it('both documents are open: an invalid bearer token or cookie changes nothing', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server']) {
      const plain = await (await h.request(path)).json();
      const res = await h.request(path, { headers: { authorization: 'Bearer lg_nonsense', cookie: 'lg_session=nonsense' } });
      expect(res.status).toBe(200);
      expect(await res.json()).toStrictEqual(plain);
    }
  });

  it('both documents live at the plain .well-known path only (no path suffix)', async () => {
    expect((await h.request('/.well-known/oauth-protected-resource/mcp')).status).toBe(404);
    expect((await h.request('/.well-known/oauth-authorization-server/oauth')).status).toBe(404);
  });
});

describeEachDatabase('GET /oauth/authorize', (h) => {
  it('a valid request answers 303 to WEB_ORIGIN/authorize with the same query string, and nothing else', async () => {
    const params = authParams();
    const query = new URLSearchParams(params).toString();
    const res = await h.request(`/oauth/authorize?${query}`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${WEB}/authorize?${query}`);
    expect(await res.text()).toBe('');
    // Spec: "only the Location header is set".
    expect(res.headers.get('content-type')).toBeNull();
    expect(res.headers.get('cache-control')).toBeNull();
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('www-authenticate')).toBeNull();
    // A request without Origin is not a CORS request: no CORS headers either, only Location.
    const names: string[] = [];
    res.headers.forEach((_value, name) => names.push(name));
    expect(names).toEqual(['location']);
  });

  it('the Location carries the raw query string byte for byte (order, encoding and unknown parameters kept)', async () => {
    const { challenge } = pkce();
    const raw =
      `state=a%20b+c%2Fd&resource=http://localhost:38081/mcp&code_challenge_method=S256&extra=1` +
      `&code_challenge=${challenge}&response_type=code&redirect_uri=http%3A%2F%2F127.0.0.1%3A4000%2Fcallback&client_id=ledger-cli`;
    const res = await h.request(`/oauth/authorize?${raw}`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${WEB}/authorize?${raw}`);
  });

  it('state is optional', async () => {
    const query = new URLSearchParams(authParams({ state: undefined })).toString();
    const res = await h.request(`/oauth/authorize?${query}`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${WEB}/authorize?${query}`);
  });

  it('a code_challenge of exactly 43 characters is enough', async () => {
    const res = await authorize(h, authParams({ code_challenge: 'A'.repeat(43) }));
    expect(res.status).toBe(303);
  });

  it('makes no session check: no cookie needed, and a bogus cookie or bearer token is ignored', async () => {
    const query = new URLSearchParams(authParams()).toString();
    const res = await h.request(`/oauth/authorize?${query}`, {
      headers: { cookie: 'lg_session=not-a-session', authorization: 'Bearer lg_not_a_token' },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${WEB}/authorize?${query}`);
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('is an open route with no side effect: no code is minted by authorize (only approve mints)', async () => {
    const before = await codeCount(h);
    expect((await authorize(h, authParams())).status).toBe(303);
    expect(await codeCount(h)).toBe(before);
  });

  it.each(REQUIRED)('error rule 6 / D13: a missing %s is a plain-text 400 (no JSON, no redirect), with no-store (rule 7)', async (name) => {
    const res = await authorize(h, authParams({ [name]: undefined }));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('location')).toBeNull();
    const text = await res.text();
    expect(text).toContain(name);
    expect(() => JSON.parse(text)).toThrow();
  });

  it.each(INVALID_REQUESTS)('400 invalid_request, JSON and never a redirect: %s', async (_why, overrides) => {
    await expectOAuthError(await authorize(h, authParams(overrides)), 400, 'invalid_request');
  });

  it('401 invalid_client for an unknown client, never a redirect', async () => {
    await expectOAuthError(await authorize(h, authParams({ client_id: 'no-such-client' })), 401, 'invalid_client');
    await expectOAuthError(await authorize(h, authParams({ client_id: 'dyn_unknown' })), 401, 'invalid_client');
  });

  it('an unknown client is refused even when every other parameter is wrong too (client checked first)', async () => {
    const res = await authorize(h, authParams({ client_id: 'nobody', response_type: 'token', resource: 'https://evil.example' }));
    await expectOAuthError(res, 401, 'invalid_client');
  });

  it('loopback rule: registered http://127.0.0.1/callback accepts http://127.0.0.1:<any port>/callback and itself', async () => {
    for (const uri of [LOOPBACK_CALLBACK, 'http://127.0.0.1:1/callback', FIRST_PARTY_REDIRECT]) {
      const res = await authorize(h, authParams({ redirect_uri: uri }));
      expect(res.status, uri).toBe(303);
    }
    const desktop = await authorize(h, authParams({ client_id: 'ledger-desktop' }));
    expect(desktop.status).toBe(303);
  });

  it.each(LOOPBACK_REFUSED)('loopback rule refuses %s: %s (400 invalid_request, no redirect)', async (_why, uri) => {
    await expectOAuthError(await authorize(h, authParams({ redirect_uri: uri })), 400, 'invalid_request');
  });

  it('D11: resource may be API_ORIGIN with a trailing slash, upper-cased, or a path such as /mcp', async () => {
    for (const resource of [`${API}/`, 'HTTP://LOCALHOST:38081', `${API}/mcp`]) {
      expect((await authorize(h, authParams({ resource }))).status, resource).toBe(303);
    }
  });

  it('D11: a resource with a space after the origin is not this API (400 invalid_request, no redirect)', async () => {
    // `http://localhost:38081 ` is not equal to API_ORIGIN after D11's normalisation; the space is
    // printable ASCII, so the README's query-string rule does not catch it.
    const res = await authorize(h, authParams({ resource: `${API} ` }));
    await expectOAuthError(res, 400, 'invalid_request');
  });

  it('a dynamic client is held to its exact https redirect URI', async () => {
    const id = await registerClient(h, 'Exact app', ['https://app.example/cb']);
    expect((await authorize(h, authParams({ client_id: id, redirect_uri: 'https://app.example/cb' }))).status).toBe(303);
    for (const uri of ['https://app.example/cb/', 'https://app.example:443/cb', 'https://app.example/cb?x=1', LOOPBACK_CALLBACK]) {
      await expectOAuthError(await authorize(h, authParams({ client_id: id, redirect_uri: uri })), 400, 'invalid_request');
    }
  });

  it('README: a query string with a byte outside printable ASCII (percent-encoded or literal) is 400 invalid_request', async () => {
    const query = new URLSearchParams(authParams({ state: 'café' })).toString();
    expect(query).toContain('%C3%A9');
    await expectOAuthError(await h.request(`/oauth/authorize?${query}`), 400, 'invalid_request');
    const control = `${new URLSearchParams(authParams({ state: undefined }))}&state=%0A`;
    await expectOAuthError(await h.request(`/oauth/authorize?${control}`), 400, 'invalid_request');
  });

  it('a parameter sent twice is a plain-text 400, never a redirect', async () => {
    const query = `${new URLSearchParams(authParams())}&client_id=ledger-desktop`;
    const res = await h.request(`/oauth/authorize?${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('location')).toBeNull();
  });
});

describeEachDatabase('POST /oauth/authorize/approve', (h) => {
  let browser: Browser;
  let bearer: string;
  let userId: number;

  beforeAll(async () => {
    const user = await h.userWithToken('approver@example.com', PASSWORD);
    bearer = user.token;
    userId = user.userId;
    browser = new Browser(h);
    await browser.signIn('approver@example.com', PASSWORD, new SoftwareAuthenticator());
  });

  const approve = (b: Browser, params: Params, decision: unknown = true) =>
    b.post('/oauth/authorize/approve', { ...params, approve: decision });

  it('without any credential: 401 in the plain {error} shape with WWW-Authenticate; no code minted', async () => {
    const before = await codeCount(h);
    const res = await h.request('/oauth/authorize/approve', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...authParams(), approve: true }),
    });
    await expectAuthenticationRequired(res);
    expect(await codeCount(h)).toBe(before);
  });

  it('error rule 5: a valid bearer token gets 403 invalid_client telling to approve from the web app; no code minted', async () => {
    const before = await codeCount(h);
    const res = await h.call(bearer, 'POST', '/oauth/authorize/approve', { ...authParams(), approve: true });
    const body = await expectOAuthError(res, 403, 'invalid_client');
    expect(body.error_description).toMatch(/web app/);
    expect(body.error_description).toMatch(/not with a token/);
    expect(await codeCount(h)).toBe(before);
  });

  it('D13: an invalid bearer token is 401 authentication required, not 403', async () => {
    await expectAuthenticationRequired(await h.call('lg_not_a_real_token', 'POST', '/oauth/authorize/approve', { ...authParams(), approve: true }));
  });

  it('a half-session (password only) is 401 authentication required; no code minted', async () => {
    await h.userWithToken('half-approver@example.com', PASSWORD);
    const half = new Browser(h);
    expect((await half.login('half-approver@example.com', PASSWORD)).status).toBe(200);
    const before = await codeCount(h);
    await expectAuthenticationRequired(await approve(half, authParams()));
    expect(await codeCount(h)).toBe(before);
  });

  it('approve true from a full session: 200 {redirect: redirect_uri?code=…&state=…}, no-store, a 60-second code row', async () => {
    const params = authParams();
    const res = await approve(browser, params);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('location')).toBeNull();
    const body = (await res.json()) as { redirect: string };
    expect(Object.keys(body)).toEqual(['redirect']);
    // D24, RFC 9207: the issuer, API_ORIGIN, after the state.
    const match = /^http:\/\/127\.0\.0\.1:53123\/callback\?code=([A-Za-z0-9_-]{43})&state=st-123&iss=http%3A%2F%2Flocalhost%3A38081$/.exec(body.redirect);
    expect(match, body.redirect).not.toBeNull();
    const code = match![1]!;

    const hash = createHash('sha256').update(code).digest('hex');
    const [row] = await h.db
      .select({
        clientId: authorizationCodes.clientId,
        userId: authorizationCodes.userId,
        redirectUri: authorizationCodes.redirectUri,
        codeChallenge: authorizationCodes.codeChallenge,
        lifetime: sql<number>`extract(epoch from ${authorizationCodes.expiresAt} - ${authorizationCodes.createdAt})::float8`,
        remaining: sql<number>`extract(epoch from ${authorizationCodes.expiresAt} - now())::float8`,
      })
      .from(authorizationCodes)
      .where(eq(authorizationCodes.hash, hash));
    expect(row).toBeDefined();
    // Bound to client, redirect URI (as requested, port included) and the PKCE challenge.
    expect(row!.clientId).toBe('ledger-cli');
    expect(row!.userId).toBe(userId);
    expect(row!.redirectUri).toBe(LOOPBACK_CALLBACK);
    expect(row!.codeChallenge).toBe(params.code_challenge);
    expect(Number(row!.lifetime)).toBeCloseTo(60, 0);
    expect(Number(row!.remaining)).toBeGreaterThan(50);
    expect(Number(row!.remaining)).toBeLessThanOrEqual(60);
    // Stored only as its digest.
    const [plain] = await h.db.select({ n: count() }).from(authorizationCodes).where(eq(authorizationCodes.hash, code));
    expect(plain!.n).toBe(0);
  });

  it('approve true without state: the redirect carries only the code', async () => {
    const res = await approve(browser, authParams({ state: undefined }));
    expect(res.status).toBe(200);
    const { redirect } = (await res.json()) as { redirect: string };
    expect(redirect).toMatch(/^http:\/\/127\.0\.0\.1:53123\/callback\?code=[A-Za-z0-9_-]{43}&iss=http%3A%2F%2Flocalhost%3A38081$/);
  });

  it('a state with special characters comes back intact (URL-encoded)', async () => {
    const state = 'a b&c=d/é';
    const res = await approve(browser, authParams({ state }));
    const { redirect } = (await res.json()) as { redirect: string };
    const url = new URL(redirect);
    expect(url.searchParams.get('state')).toBe(state);
    expect(url.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(`${url.origin}${url.pathname}`).toBe(LOOPBACK_CALLBACK);
  });

  it('approve false: 200 {redirect: redirect_uri?error=access_denied&state=…}, no code, client not marked used', async () => {
    const id = await registerClient(h, 'Declined app', ['http://127.0.0.1:7000/cb']);
    const before = await codeCount(h);
    const res = await approve(browser, authParams({ client_id: id, redirect_uri: 'http://127.0.0.1:7001/cb', state: 'decline-1' }), false);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toStrictEqual({ redirect: 'http://127.0.0.1:7001/cb?error=access_denied&state=decline-1&iss=http%3A%2F%2Flocalhost%3A38081' });
    expect(await codeCount(h)).toBe(before);
    const client = await clientRow(h, id);
    expect(client!.firstUsedAt).toBeNull();
    expect(client!.lastUsedAt).toBeNull();
  });

  it('approve false without state: ?error=access_denied only', async () => {
    const res = await approve(browser, authParams({ state: undefined }), false);
    expect(await res.json()).toStrictEqual({ redirect: `${LOOPBACK_CALLBACK}?error=access_denied&iss=http%3A%2F%2Flocalhost%3A38081` });
  });

  it('approve must be a boolean: anything else is 400 invalid_request and mints nothing', async () => {
    const before = await codeCount(h);
    for (const decision of ['true', 1, null]) {
      await expectOAuthError(await approve(browser, authParams(), decision), 400, 'invalid_request');
    }
    const missing = await browser.post('/oauth/authorize/approve', authParams());
    await expectOAuthError(missing, 400, 'invalid_request');
    expect(await codeCount(h)).toBe(before);
  });

  it.each(INVALID_REQUESTS)('re-validated in full: %s is 400 invalid_request and mints nothing', async (_why, overrides) => {
    const before = await codeCount(h);
    const res = await approve(browser, authParams(overrides));
    await expectOAuthError(res, 400, 'invalid_request');
    expect(await codeCount(h)).toBe(before);
  });

  it.each(LOOPBACK_REFUSED)('re-validated in full: loopback rule refuses %s: %s', async (_why, uri) => {
    const before = await codeCount(h);
    await expectOAuthError(await approve(browser, authParams({ redirect_uri: uri })), 400, 'invalid_request');
    expect(await codeCount(h)).toBe(before);
  });

  it.each(REQUIRED)('re-validated in full: a missing %s is 400 invalid_request and mints nothing', async (name) => {
    const before = await codeCount(h);
    await expectOAuthError(await approve(browser, authParams({ [name]: undefined })), 400, 'invalid_request');
    expect(await codeCount(h)).toBe(before);
  });

  it('re-validated in full: an unknown client is 401 invalid_client and mints nothing', async () => {
    const before = await codeCount(h);
    await expectOAuthError(await approve(browser, authParams({ client_id: 'no-such-client' })), 401, 'invalid_client');
    expect(await codeCount(h)).toBe(before);
  });

  it('re-validated: a refusal is refused for approve false too (no access_denied redirect to an unregistered URI)', async () => {
    const res = await approve(browser, authParams({ redirect_uri: 'https://evil.example/steal' }), false);
    await expectOAuthError(res, 400, 'invalid_request');
  });

  it('approve true marks the client used: first_used_at and last_used_at set; a second approval keeps first_used_at', async () => {
    const id = await registerClient(h, 'Marked app', ['http://127.0.0.1/cb']);
    const fresh = await clientRow(h, id);
    expect(fresh!.firstUsedAt).toBeNull();
    expect(fresh!.lastUsedAt).toBeNull();

    expect((await approve(browser, authParams({ client_id: id, redirect_uri: 'http://127.0.0.1:9001/cb' }))).status).toBe(200);
    const used = await clientRow(h, id);
    expect(used!.firstUsedAt).toBeInstanceOf(Date);
    expect(used!.lastUsedAt).toBeInstanceOf(Date);
    expect(Math.abs(used!.firstUsedAt!.getTime() - Date.now())).toBeLessThan(60_000);

    // Move both into the past, so that the second approval's effect is visible.
    await h.db.execute(
      sql`update oauth_clients set first_used_at = '2020-01-01T00:00:00Z', last_used_at = '2020-01-01T00:00:00Z' where id = ${id}`,
    );
    expect((await approve(browser, authParams({ client_id: id, redirect_uri: 'http://127.0.0.1:9002/cb' }))).status).toBe(200);
    const again = await clientRow(h, id);
    expect(again!.firstUsedAt!.toISOString()).toBe('2020-01-01T00:00:00.000Z');
    expect(again!.lastUsedAt!.getTime()).toBeGreaterThan(Date.parse('2021-01-01T00:00:00Z'));
  });

  it('approving the first-party ledger-desktop client marks it used too', async () => {
    expect((await clientRow(h, 'ledger-desktop'))!.firstUsedAt).toBeNull();
    expect((await approve(browser, authParams({ client_id: 'ledger-desktop' }))).status).toBe(200);
    const desktop = await clientRow(h, 'ledger-desktop');
    expect(desktop!.firstUsedAt).toBeInstanceOf(Date);
    expect(desktop!.lastUsedAt).toBeInstanceOf(Date);
  });

  it('approve works for a dynamic client on its registered https redirect URI, and the code goes there', async () => {
    const id = await registerClient(h, 'Web app', ['https://app.example/cb?tenant=1']);
    const res = await approve(browser, authParams({ client_id: id, redirect_uri: 'https://app.example/cb?tenant=1', state: 's' }));
    const { redirect } = (await res.json()) as { redirect: string };
    // A redirect URI that already has a query gets the code appended with &.
    expect(redirect).toMatch(/^https:\/\/app\.example\/cb\?tenant=1&code=[A-Za-z0-9_-]{43}&state=s&iss=http%3A%2F%2Flocalhost%3A38081$/);
    // RFC 9207 §2.4: a client reads iss beside the code, from the one query.
    expect(new URL(redirect).searchParams.get('iss')).toBe('http://localhost:38081');
    expect(new URL(redirect).searchParams.get('tenant')).toBe('1');
  });
});

describeEachDatabase('GET /oauth/client_info', (h) => {
  let browser: Browser;
  let bearer: string;

  beforeAll(async () => {
    bearer = (await h.userWithToken('info@example.com', PASSWORD)).token;
    browser = new Browser(h);
    await browser.signIn('info@example.com', PASSWORD, new SoftwareAuthenticator());
  });

  it('full tier, bearer accepted: 200 {id, name, dynamic, first_use, redirect_uris} of a first-party client', async () => {
    const res = await h.call(bearer, 'GET', '/oauth/client_info?client_id=ledger-cli');
    expect(res.status).toBe(200);
    expect(await res.json()).toStrictEqual({
      id: 'ledger-cli',
      name: 'Ledger CLI',
      dynamic: false,
      first_use: true,
      redirect_uris: [FIRST_PARTY_REDIRECT],
    });
  });

  it('full tier: a full cookie session is accepted too', async () => {
    const res = await browser.request('/oauth/client_info?client_id=ledger-desktop');
    expect(res.status).toBe(200);
    expect(await res.json()).toStrictEqual({
      id: 'ledger-desktop',
      name: 'Ledger Desktop',
      dynamic: false,
      first_use: true,
      redirect_uris: [FIRST_PARTY_REDIRECT],
    });
  });

  it('a dynamic client: dynamic true, and first_use flips to false after an approval', async () => {
    const id = await registerClient(h, 'Flip app', ['http://[::1]:8000/cb', 'https://flip.example/cb']);
    const before = await h.call(bearer, 'GET', `/oauth/client_info?client_id=${id}`);
    expect(await before.json()).toStrictEqual({
      id,
      name: 'Flip app',
      dynamic: true,
      first_use: true,
      redirect_uris: ['http://[::1]:8000/cb', 'https://flip.example/cb'],
    });

    const approved = await browser.post('/oauth/authorize/approve', {
      ...authParams({ client_id: id, redirect_uri: 'http://[::1]:8123/cb' }),
      approve: true,
    });
    expect(approved.status).toBe(200);

    const after = await h.call(bearer, 'GET', `/oauth/client_info?client_id=${id}`);
    expect(((await after.json()) as { first_use: boolean }).first_use).toBe(false);
  });

  it('a declined request does not flip first_use', async () => {
    const id = await registerClient(h, 'Still new', ['https://new.example/cb']);
    const declined = await browser.post('/oauth/authorize/approve', {
      ...authParams({ client_id: id, redirect_uri: 'https://new.example/cb' }),
      approve: false,
    });
    expect(declined.status).toBe(200);
    const info = await h.call(bearer, 'GET', `/oauth/client_info?client_id=${id}`);
    expect(((await info.json()) as { first_use: boolean }).first_use).toBe(true);
  });

  it('the name comes from the stored client, never from the query', async () => {
    const res = await h.call(bearer, 'GET', '/oauth/client_info?client_id=ledger-cli&name=Evil&client_name=Evil');
    expect(((await res.json()) as { name: string }).name).toBe('Ledger CLI');
  });

  it('401 invalid_client for an unknown client', async () => {
    await expectOAuthError(await h.call(bearer, 'GET', '/oauth/client_info?client_id=dyn_nobody'), 401, 'invalid_client');
  });

  it('no credential, an invalid bearer token or a half-session: 401 authentication required', async () => {
    await expectAuthenticationRequired(await h.request('/oauth/client_info?client_id=ledger-cli'));
    await expectAuthenticationRequired(await h.call('lg_invalid', 'GET', '/oauth/client_info?client_id=ledger-cli'));
    await h.userWithToken('info-half@example.com', PASSWORD);
    const half = new Browser(h);
    expect((await half.login('info-half@example.com', PASSWORD)).status).toBe(200);
    await expectAuthenticationRequired(await half.request('/oauth/client_info?client_id=ledger-cli'));
  });
});
