import { count, eq, sql } from 'drizzle-orm';
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { authorizationCodes, deviceGrants, oauthClients, tokens } from '../src/db/schema';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { describeEachDatabase, type Harness } from './support/harness';
import { pkce } from './support/http';

// Spec: POST /oauth/register; OAuth client (name rules); OAuth authorization server (redirect URIs
// accepted at registration; dynamic registration bounds: cap of 20, reaper); Dynamic client state
// table; Limits (20 dynamic clients, 5 redirect URIs, 60-character name); D5, D13; README choices
// (unused metadata ignored; a missing or non-array redirect_uris is invalid_redirect_uri).

const API = 'http://localhost:38081';
const PASSWORD = 'correct horse battery staple';
const UNNAMED = 'an unnamed client';

function register(h: Harness, body: unknown): Promise<Response> {
  return h.request('/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

interface Registration {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: string;
  grant_types: string[];
  response_types: string[];
}

async function registered(h: Harness, body: unknown): Promise<Registration> {
  const res = await register(h, body);
  expect(res.status).toBe(201);
  return (await res.json()) as Registration;
}

async function dynamicCount(h: Harness): Promise<number> {
  const [row] = await h.db.select({ n: count() }).from(oauthClients).where(eq(oauthClients.dynamic, true));
  return row!.n;
}

async function clientExists(h: Harness, id: string): Promise<boolean> {
  const [row] = await h.db.select({ n: count() }).from(oauthClients).where(eq(oauthClients.id, id));
  return row!.n === 1;
}

async function expectRegistrationError(res: Response, status: number, error: string): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const body = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
  expect(body.error).toBe(error);
  expect(body.error_description).toEqual(expect.any(String));
}

/** Moves a client's creation time back by `hours` (instead of waiting 24 hours). */
async function ageClient(h: Harness, id: string, hours: number): Promise<void> {
  await h.db.execute(sql`update oauth_clients set created_at = now() - make_interval(hours => ${hours}) where id = ${id}`);
}

describeEachDatabase('POST /oauth/register', (h) => {
  let browser: Browser;

  beforeAll(async () => {
    await h.userWithToken('registrar@example.com', PASSWORD);
    browser = new Browser(h);
    await browser.signIn('registrar@example.com', PASSWORD, new SoftwareAuthenticator());
  });

  // Each test starts with no dynamic client, so the cap of 20 is the test's own business.
  beforeEach(async () => {
    await h.db.delete(oauthClients).where(eq(oauthClients.dynamic, true));
  });

  /** Approves `clientId` from the full session: a live code row, and the client marked used. */
  async function approve(clientId: string, redirectUri: string): Promise<{ code: string; verifier: string }> {
    const { verifier, challenge } = pkce();
    const res = await browser.post('/oauth/authorize/approve', {
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: API,
      approve: true,
    });
    expect(res.status).toBe(200);
    const { redirect } = (await res.json()) as { redirect: string };
    return { code: new URL(redirect).searchParams.get('code')!, verifier };
  }

  it('201 with exactly the spec fields: dyn_ id, issued-at in Unix seconds, the name, the URIs, public-client metadata', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await register(h, { client_name: 'My script', redirect_uris: ['http://127.0.0.1:8765/callback'] });
    const after = Math.ceil(Date.now() / 1000);
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const text = await res.text();
    const body = JSON.parse(text) as Registration;
    expect(body).toStrictEqual({
      client_id: expect.stringMatching(/^dyn_[A-Za-z0-9_-]{22}$/),
      client_id_issued_at: expect.any(Number),
      client_name: 'My script',
      redirect_uris: ['http://127.0.0.1:8765/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    expect(Number.isInteger(body.client_id_issued_at)).toBe(true);
    expect(body.client_id_issued_at).toBeGreaterThanOrEqual(before - 5);
    expect(body.client_id_issued_at).toBeLessThanOrEqual(after + 5);
    // No secret is ever issued: not in the answer, not in the stored client.
    expect(text).not.toMatch(/secret/i);

    const [row] = await h.db.select().from(oauthClients).where(eq(oauthClients.id, body.client_id));
    expect(row).toMatchObject({
      id: body.client_id,
      name: 'My script',
      dynamic: true,
      redirectUris: ['http://127.0.0.1:8765/callback'],
      firstUsedAt: null,
      lastUsedAt: null,
    });
    expect(Object.keys(row!).some((k) => /secret/i.test(k))).toBe(false);
    expect(body.client_id_issued_at).toBe(Math.floor(row!.createdAt.getTime() / 1000));
  });

  it('each registration gets its own client_id (D5: dyn_ + 16 random bytes)', async () => {
    const a = await registered(h, { redirect_uris: ['https://a.example/cb'] });
    const b = await registered(h, { redirect_uris: ['https://a.example/cb'] });
    expect(a.client_id).not.toBe(b.client_id);
    expect(Buffer.from(a.client_id.slice(4), 'base64url')).toHaveLength(16);
    expect(await dynamicCount(h)).toBe(2);
  });

  it('metadata real clients send is accepted and ignored: every client stays public, code grant only', async () => {
    const body = await registered(h, {
      client_name: 'Rich client',
      redirect_uris: ['https://rich.example/cb'],
      grant_types: ['authorization_code', 'refresh_token', 'client_credentials', 'implicit'],
      response_types: ['code', 'token'],
      scope: 'openid profile ledger',
      application_type: 'native',
      token_endpoint_auth_method: 'client_secret_post',
      logo_uri: 'https://rich.example/logo.png',
      client_uri: 'https://rich.example/',
      contacts: ['admin@rich.example'],
    });
    expect(body).toStrictEqual({
      client_id: expect.stringMatching(/^dyn_/),
      client_id_issued_at: expect.any(Number),
      client_name: 'Rich client',
      redirect_uris: ['https://rich.example/cb'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
  });

  it('open tier: a bogus bearer token and a bogus cookie are ignored (201 as if none)', async () => {
    const res = await h.request('/oauth/register', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: 'Bearer lg_not_a_token',
        cookie: 'lg_session=not-a-session',
      },
      body: JSON.stringify({ client_name: 'Bogus credentials', redirect_uris: ['https://app.example/cb'] }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(((await res.json()) as Registration).client_name).toBe('Bogus credentials');
  });

  it("the MCP SDK client's registration body {client_name, redirect_uris, scope} is accepted", async () => {
    const body = await registered(h, { client_name: 'Claude', redirect_uris: ['http://127.0.0.1:33418/callback'], scope: '' });
    expect(body.client_name).toBe('Claude');
  });

  it.each([
    ['http on 127.0.0.1 with a port', 'http://127.0.0.1:8765/cb'],
    ['http on [::1] with a port', 'http://[::1]:8765/cb'],
    ['https on a host name', 'https://app.example/cb'],
    ['http on 127.0.0.1 without a port', 'http://127.0.0.1/cb'],
    ['http on 127.0.0.1, the highest port', 'http://127.0.0.1:65535/cb'],
  ])('accepts a redirect URI: %s', async (_why, uri) => {
    const body = await registered(h, { client_name: 'x', redirect_uris: [uri] });
    expect(body.redirect_uris).toEqual([uri]);
  });

  it('accepts up to 5 redirect URIs, kept in order', async () => {
    const uris = [
      'http://127.0.0.1:8765/cb',
      'http://[::1]:8765/cb',
      'https://app.example/cb',
      'https://app.example/other?x=1',
      'http://127.0.0.1/cb',
    ];
    const body = await registered(h, { redirect_uris: uris });
    expect(body.redirect_uris).toEqual(uris);
    const [row] = await h.db.select().from(oauthClients).where(eq(oauthClients.id, body.client_id));
    expect(row!.redirectUris).toEqual(uris);
  });

  const sixUris = Array.from({ length: 6 }, (_, i) => `https://app.example/cb${i}`);

  it.each([
    ['none given (an empty array)', { redirect_uris: [] }],
    ['the field missing', { client_name: 'No URIs' }],
    ['D13: six redirect URIs', { redirect_uris: sixUris }],
    ['redirect_uris a string, not an array', { redirect_uris: 'https://app.example/cb' }],
    ['redirect_uris null', { redirect_uris: null }],
    ['a non-string entry', { redirect_uris: [42] }],
    ['http localhost', { redirect_uris: ['http://localhost:8765/cb'] }],
    ['https localhost', { redirect_uris: ['https://localhost/cb'] }],
    ['userinfo on https', { redirect_uris: ['https://user@app.example/cb'] }],
    ['userinfo hiding the host behind 127.0.0.1', { redirect_uris: ['http://127.0.0.1:8765@evil.example/cb'] }],
    ['a fragment on https', { redirect_uris: ['https://app.example/cb#frag'] }],
    ['a fragment on loopback', { redirect_uris: ['http://127.0.0.1:8765/cb#frag'] }],
    ['a custom scheme', { redirect_uris: ['com.example:/cb'] }],
    ['http on a non-loopback host', { redirect_uris: ['http://app.example/cb'] }],
    ['whitespace inside', { redirect_uris: ['https://app.example/c b'] }],
    ['trailing whitespace', { redirect_uris: ['https://app.example/cb '] }],
    ['a newline', { redirect_uris: ['https://app.example/cb\n'] }],
    ['one bad URI among good ones', { redirect_uris: ['https://good.example/cb', 'http://localhost/cb'] }],
    ['a loopback port above 65535', { redirect_uris: ['http://127.0.0.1:99999/cb'] }],
    ['loopback port 0', { redirect_uris: ['http://[::1]:0/cb'] }],
    ['README: a non-ASCII host', { redirect_uris: ['https://bücher.example/cb'] }],
    ['README: https on a subdomain of localhost', { redirect_uris: ['https://app.localhost/cb'] }],
    ['README: a URI over 2000 characters', { redirect_uris: [`https://app.example/${'a'.repeat(2000)}`] }],
  ])('400 invalid_redirect_uri, nothing registered: %s', async (_why, body) => {
    await registered(h, { client_name: 'Existing', redirect_uris: ['https://existing.example/cb'] });
    await expectRegistrationError(await register(h, body), 400, 'invalid_redirect_uri');
    expect(await dynamicCount(h)).toBe(1);
  });

  // A name with trailing dots is the same name to the resolver (a fully qualified `localhost.`),
  // so it is refused like localhost itself; percent-encoded dots decode to the same host.
  it.each([
    ['https://localhost./cb'],
    ['https://LOCALHOST./cb'],
    ['https://foo.localhost./cb'],
    ['https://localhost../cb'],
    ['https://localhost.:8443/cb'],
    ['https://localhost%2E/cb'],
    ['https://App.LocalHost%2e%2E/cb'],
  ])('README: localhost with a trailing dot is refused like localhost (400 invalid_redirect_uri, nothing registered): %s', async (uri) => {
    await registered(h, { client_name: 'Existing', redirect_uris: ['https://existing.example/cb'] });
    await expectRegistrationError(await register(h, { redirect_uris: [uri] }), 400, 'invalid_redirect_uri');
    expect(await dynamicCount(h)).toBe(1);
  });

  it('an https host with a trailing dot that is not localhost stays acceptable', async () => {
    const body = await registered(h, { redirect_uris: ['https://app.example./cb'] });
    expect(body.redirect_uris).toEqual(['https://app.example./cb']);
  });

  it('the name is stored as answered and read back by client_info', async () => {
    const { token } = await h.userWithToken('registrar-bearer@example.com', PASSWORD);
    const body = await registered(h, { client_name: '  Spaced \u202Eout\u202C  ', redirect_uris: ['https://app.example/cb'] });
    expect(body.client_name).toBe('Spaced out');
    const info = await h.call(token, 'GET', `/oauth/client_info?client_id=${body.client_id}`);
    expect(((await info.json()) as { name: string }).name).toBe('Spaced out');
  });

  it.each([
    ['NUL', '\u0000'],
    ['tab', '\t'],
    ['newline', '\n'],
    ['escape', '\u001b'],
    ['DEL', '\u007f'],
    ['C1 NEL', '\u0085'],
  ])('client_name: the control character %s is removed', async (_why, ch) => {
    const body = await registered(h, { client_name: `Bad${ch}Name`, redirect_uris: ['https://app.example/cb'] });
    expect(body.client_name).toBe('BadName');
  });

  const FORMAT = ['202A', '202B', '202C', '202D', '202E', '2066', '2067', '2068', '2069', '200E', '200F', '2028', '2029'];

  it.each(FORMAT)('client_name: the format character U+%s is removed', async (hex) => {
    const ch = String.fromCodePoint(Number.parseInt(hex, 16));
    const body = await registered(h, { client_name: `Safe${ch}Name${ch}`, redirect_uris: ['https://app.example/cb'] });
    expect(body.client_name).toBe('SafeName');
  });

  it('client_name: 60 code points are kept, then the result is trimmed (D13)', async () => {
    const long = await registered(h, { client_name: '😀'.repeat(70), redirect_uris: ['https://app.example/cb'] });
    expect(long.client_name).toBe('😀'.repeat(60));
    const cut = await registered(h, { client_name: `${'x'.repeat(59)} and more`, redirect_uris: ['https://app.example/cb'] });
    expect(cut.client_name).toBe('x'.repeat(59));
    const removedFirst = await registered(h, {
      client_name: '\u202E'.repeat(20) + 'y'.repeat(60),
      redirect_uris: ['https://app.example/cb'],
    });
    expect(removedFirst.client_name).toBe('y'.repeat(60));
  });

  it.each([
    ['missing', {}],
    ['empty', { client_name: '' }],
    ['only spaces', { client_name: '   ' }],
    ['only removed characters', { client_name: '\u202E\u2066\u0000\n' }],
    ['a number', { client_name: 42 }],
    ['null', { client_name: null }],
    ['an object', { client_name: { en: 'Name' } }],
    ['an array', { client_name: ['Name'] }],
  ])(`client_name ${'%s'} gives "${UNNAMED}"`, async (_why, name) => {
    const body = await registered(h, { ...name, redirect_uris: ['https://app.example/cb'] });
    expect(body.client_name).toBe(UNNAMED);
    const [row] = await h.db.select({ name: oauthClients.name }).from(oauthClients).where(eq(oauthClients.id, body.client_id));
    expect(row!.name).toBe(UNNAMED);
  });

  it('the cap: with 20 dynamic clients, a registration is 429 temporarily_unavailable and nothing is added', async () => {
    for (let i = 0; i < 20; i++) await registered(h, { client_name: `Client ${i}`, redirect_uris: ['https://app.example/cb'] });
    expect(await dynamicCount(h)).toBe(20);
    await expectRegistrationError(
      await register(h, { client_name: 'One too many', redirect_uris: ['https://app.example/cb'] }),
      429,
      'temporarily_unavailable',
    );
    expect(await dynamicCount(h)).toBe(20);
    // First-party clients do not count towards the cap and are untouched.
    expect(await clientExists(h, 'ledger-cli')).toBe(true);
    expect(await clientExists(h, 'ledger-desktop')).toBe(true);
  });

  it('the cap counts live clients: the reaper runs first, so a reapable client frees a place for this attempt', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await registered(h, { redirect_uris: ['https://app.example/cb'] })).client_id);
    await ageClient(h, ids[0]!, 25);
    const res = await register(h, { client_name: 'Takes the place', redirect_uris: ['https://app.example/cb'] });
    expect(res.status).toBe(201);
    expect(await clientExists(h, ids[0]!)).toBe(false);
    expect(await dynamicCount(h)).toBe(20);
  });

  it('reaper: a never-used dynamic client older than 24 h is deleted, with its device grants, on a successful registration', async () => {
    const old = (await registered(h, { client_name: 'Old', redirect_uris: ['https://old.example/cb'] })).client_id;
    const device = await h.request('/oauth/device_authorization', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: old, resource: API }).toString(),
    });
    expect(device.status).toBe(200);
    const grants = () =>
      h.db.select({ n: count() }).from(deviceGrants).where(eq(deviceGrants.clientId, old)).then((r) => r[0]!.n);
    expect(await grants()).toBe(1);
    await ageClient(h, old, 25);

    await registered(h, { client_name: 'Newcomer', redirect_uris: ['https://new.example/cb'] });
    expect(await clientExists(h, old)).toBe(false);
    expect(await grants()).toBe(0);
  });

  it('reaper: runs first on every attempt, also one refused with 400 invalid_redirect_uri or malformed JSON', async () => {
    const a = (await registered(h, { redirect_uris: ['https://a.example/cb'] })).client_id;
    const b = (await registered(h, { redirect_uris: ['https://b.example/cb'] })).client_id;
    await ageClient(h, a, 25);
    await expectRegistrationError(await register(h, { redirect_uris: ['http://localhost/cb'] }), 400, 'invalid_redirect_uri');
    expect(await clientExists(h, a)).toBe(false);

    await ageClient(h, b, 25);
    const malformed = await register(h, '{"redirect_uris": [');
    expect(malformed.status).toBe(400);
    expect(await clientExists(h, b)).toBe(false);
    expect(await dynamicCount(h)).toBe(0);
  });

  it('reaper: clients 23 h old are not reaped, so a full house stays full: 429 temporarily_unavailable', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await registered(h, { redirect_uris: ['https://app.example/cb'] })).client_id);
    // 24 hours is "more than 24 hours" only once passed: 23 h old clients are kept.
    for (const id of ids) await ageClient(h, id, 23);
    await expectRegistrationError(await register(h, { redirect_uris: ['https://app.example/cb'] }), 429, 'temporarily_unavailable');
    expect(await dynamicCount(h)).toBe(20);
  });

  it('reaper: keeps a client younger than 24 h, one with a code row, one with a token row, one used, and first-party clients', async () => {
    const reg = async (name: string, uri: string) => (await registered(h, { client_name: name, redirect_uris: [uri] })).client_id;
    const young = await reg('Young', 'https://young.example/cb');
    const withCode = await reg('With code', 'http://127.0.0.1/cb');
    const withToken = await reg('With token', 'http://127.0.0.1/cb');
    const used = await reg('Used', 'http://127.0.0.1/cb');
    const doomed = await reg('Doomed', 'https://doomed.example/cb');

    // A live code row (approval marks the client used: undo that, so only the row protects it).
    await approve(withCode, 'http://127.0.0.1:4001/cb');
    // A token row: the code redeemed (its code row is gone), the use mark undone again.
    const { code, verifier } = await approve(withToken, 'http://127.0.0.1:4002/cb');
    const redeemed = await h.request('/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: 'http://127.0.0.1:4002/cb',
        client_id: withToken,
        code_verifier: verifier,
      }).toString(),
    });
    expect(redeemed.status).toBe(200);
    await h.db.execute(
      sql`update oauth_clients set first_used_at = null, last_used_at = null where id in (${withCode}, ${withToken})`,
    );
    // Used: approved once, its code row removed, so only the use mark protects it.
    await approve(used, 'http://127.0.0.1:4003/cb');
    await h.db.delete(authorizationCodes).where(eq(authorizationCodes.clientId, used));

    const [codeRows] = await h.db.select({ n: count() }).from(authorizationCodes).where(eq(authorizationCodes.clientId, withCode));
    expect(codeRows!.n).toBe(1);
    const [tokenRows] = await h.db.select({ n: count() }).from(tokens).where(eq(tokens.clientId, withToken));
    expect(tokenRows!.n).toBe(2);
    const [codeOfToken] = await h.db.select({ n: count() }).from(authorizationCodes).where(eq(authorizationCodes.clientId, withToken));
    expect(codeOfToken!.n).toBe(0);

    await ageClient(h, young, 23);
    for (const id of [withCode, withToken, used, doomed]) await ageClient(h, id, 25);
    await h.db.execute(
      sql`update oauth_clients set created_at = now() - interval '100 days' where id in ('ledger-cli', 'ledger-desktop')`,
    );

    await registered(h, { client_name: 'Trigger', redirect_uris: ['https://trigger.example/cb'] });
    expect(await clientExists(h, doomed)).toBe(false);
    for (const id of [young, withCode, withToken, used, 'ledger-cli', 'ledger-desktop']) {
      expect(await clientExists(h, id), id).toBe(true);
    }
  });

  it('concurrency: with 18 clients, 10 parallel registrations give exactly 2 × 201 and 8 × 429; 20 clients in all', async () => {
    for (let i = 0; i < 18; i++) await registered(h, { redirect_uris: ['https://app.example/cb'] });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => register(h, { client_name: `Racer ${i}`, redirect_uris: ['https://race.example/cb'] })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 429, 429, 429, 429, 429, 429, 429, 429]);
    for (const res of results.filter((r) => r.status === 429)) {
      expect(((await res.json()) as { error: string }).error).toBe('temporarily_unavailable');
    }
    expect(await dynamicCount(h)).toBe(20);
  });
});
