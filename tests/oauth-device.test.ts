import { eq, sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { deviceGrants, oauthClients, sessions, tokens } from '../src/db/schema';
import { newUserCode, normaliseUserCode } from '../src/oauth/device-grants';
import { sha256Hex } from '../src/identity/secrets';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { describeEachDatabase, type Harness } from './support/harness';
import { formInit } from './support/http';

// Spec: Device grant state table, POST /oauth/device_authorization, GET /oauth/device_info,
// POST /oauth/device/approve, the device attempt budget, slow_down; D13.

const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';
const API = 'http://localhost:38081';
const PASSWORD = 'a device password';

interface Started {
  device_code: string;
  user_code: string;
}

async function start(h: Harness, clientId = 'ledger-desktop'): Promise<Started> {
  const res = await h.request('/oauth/device_authorization', formInit({ client_id: clientId, resource: API }));
  expect(res.status).toBe(200);
  return (await res.json()) as Started;
}

const poll = (h: Harness, deviceCode: string, clientId = 'ledger-desktop') =>
  h.request('/oauth/token', formInit({ grant_type: DEVICE, device_code: deviceCode, client_id: clientId }));

async function expectOAuth(res: Response, status: number, error: string) {
  expect(res.status, error).toBe(status);
  expect(res.headers.get('cache-control'), error).toBe('no-store');
  expect(await res.json()).toEqual({ error, error_description: expect.any(String) });
}

it('user codes: 8 symbols of the 30-symbol alphabet as XXXX-XXXX; typed input is normalised', () => {
  for (let i = 0; i < 500; i++) expect(newUserCode()).toMatch(/^[ABCDEFGHJKMNPQRSTVWXYZ2-9]{4}-[ABCDEFGHJKMNPQRSTVWXYZ2-9]{4}$/);
  expect(normaliseUserCode('abcd efgh')).toBe('ABCD-EFGH');
  expect(normaliseUserCode(' bcdf-ghjk ')).toBe('BCDF-GHJK');
  expect(normaliseUserCode('BCDFGHJK')).toBe('BCDF-GHJK');
  expect(normaliseUserCode('bcd')).toBe('BCD');
});

describeEachDatabase('device grant (spec: Device grant)', (h) => {
  let person: Browser;
  let userId: number;
  /** The person's passkey: later sign-ins in other browsers use it. */
  const key = new SoftwareAuthenticator();

  beforeAll(async () => {
    ({ userId } = await h.userWithToken('device@example.com', PASSWORD));
    person = new Browser(h);
    await person.signIn('device@example.com', PASSWORD, key);
  });

  const attempts = async (b: Browser) =>
    (await h.db.select({ n: sessions.deviceAttempts }).from(sessions).where(eq(sessions.idHash, sha256Hex(b.session!))))[0]!.n;

  it('device_authorization answers the exact shape; the device code is stored only hashed; errors per spec', async () => {
    const res = await h.request('/oauth/device_authorization', formInit({ client_id: 'ledger-desktop', resource: `${API}/mcp` }));
    const body = (await res.json()) as Started & Record<string, unknown>;
    expect(body).toEqual({
      device_code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      user_code: expect.stringMatching(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/),
      verification_uri: 'http://localhost:38080/device',
      verification_uri_complete: `http://localhost:38080/device?user_code=${body.user_code}`,
      expires_in: 600,
      interval: 5,
    });
    const [row] = await h.db.select().from(deviceGrants).where(eq(deviceGrants.userCode, body.user_code));
    expect(row!.deviceCodeHash).toBe(sha256Hex(body.device_code));
    await expectOAuth(await h.request('/oauth/device_authorization', formInit({ client_id: 'nobody', resource: API })), 401, 'invalid_client');
    await expectOAuth(await h.request('/oauth/device_authorization', formInit({ client_id: 'ledger-desktop', resource: 'https://elsewhere.example' })), 400, 'invalid_request');
    await expectOAuth(await h.request('/oauth/device_authorization', formInit({ client_id: 'ledger-desktop' })), 400, 'invalid_request');
    const json = await h.request('/oauth/device_authorization', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"client_id":"ledger-desktop"}',
    });
    expect(json.status).toBe(415);
  });

  it('polling: pending, then slow_down within 5 s (each poll stamps), pending again later; approval yields tokens once', async () => {
    const started = await start(h);
    const stamp = async () => (await h.db.select({ at: deviceGrants.lastPolledAt }).from(deviceGrants).where(eq(deviceGrants.userCode, started.user_code)))[0]!.at;
    await expectOAuth(await poll(h, started.device_code), 400, 'authorization_pending');
    const first = await stamp();
    await expectOAuth(await poll(h, started.device_code), 400, 'slow_down');
    expect((await stamp())!.getTime()).toBeGreaterThanOrEqual(first!.getTime());
    await h.db.update(deviceGrants).set({ lastPolledAt: sql`now() - interval '6 seconds'` }).where(eq(deviceGrants.userCode, started.user_code));
    await expectOAuth(await poll(h, started.device_code), 400, 'authorization_pending');
    await expectOAuth(await poll(h, started.device_code, 'ledger-cli'), 400, 'invalid_grant');

    const info = await person.request(`/oauth/device_info?user_code=${started.user_code.toLowerCase().replace('-', ' ')}`);
    expect(info.status).toBe(200);
    expect(await info.json()).toEqual({
      client: { id: 'ledger-desktop', name: 'Ledger Desktop', dynamic: false, first_use: expect.any(Boolean), redirect_uris: ['http://127.0.0.1/callback'] },
      expires_in: expect.any(Number),
    });
    expect((await person.post('/oauth/device/approve', { user_code: started.user_code, approve: true })).status).toBe(204);
    expect((await person.post('/oauth/device/approve', { user_code: started.user_code.replace('-', ''), approve: true })).status).toBe(204);
    const [client] = await h.db.select().from(oauthClients).where(eq(oauthClients.id, 'ledger-desktop'));
    expect(client!.firstUsedAt).not.toBeNull();

    // D13: still within 5 s of the previous poll, so slow_down even though approved; nothing is consumed.
    await expectOAuth(await poll(h, started.device_code), 400, 'slow_down');
    await h.db.update(deviceGrants).set({ lastPolledAt: sql`now() - interval '5 seconds'` }).where(eq(deviceGrants.userCode, started.user_code));
    const granted = await poll(h, started.device_code);
    expect(granted.status).toBe(200);
    expect(granted.headers.get('cache-control')).toBe('no-store');
    const pair = (await granted.json()) as { access_token: string };
    expect(await (await h.call(pair.access_token, 'GET', '/auth/me')).json()).toMatchObject({ email: 'device@example.com' });
    await expectOAuth(await poll(h, started.device_code), 400, 'invalid_grant');
    expect(await h.db.select().from(deviceGrants).where(eq(deviceGrants.userCode, started.user_code))).toEqual([]);
    expect(userId).toBeGreaterThan(0);
  });

  it('declined polls answer access_denied; expired ones expired_token; unknown codes invalid_grant', async () => {
    const declined = await start(h);
    expect((await person.post('/oauth/device/approve', { user_code: declined.user_code, approve: false })).status).toBe(204);
    await expectOAuth(await poll(h, declined.device_code), 400, 'access_denied');
    const expired = await start(h);
    await h.db.update(deviceGrants).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(deviceGrants.userCode, expired.user_code));
    await expectOAuth(await poll(h, expired.device_code), 400, 'expired_token');
    await expectOAuth(await poll(h, 'no-such-device-code'), 400, 'invalid_grant');
  });

  it('device_info counts down expires_in; bearer 403 invalid_client; no credential or a half-session 401', async () => {
    const started = await start(h);
    await h.db.update(deviceGrants).set({ expiresAt: sql`now() + interval '100 seconds'` }).where(eq(deviceGrants.userCode, started.user_code));
    const info = (await (await person.request(`/oauth/device_info?user_code=${started.user_code}`)).json()) as { expires_in: number };
    expect(info.expires_in).toBeGreaterThan(95);
    expect(info.expires_in).toBeLessThanOrEqual(100);
    const { token } = await h.userWithToken('device-bearer@example.com', PASSWORD);
    const bearer = await h.request(`/oauth/device_info?user_code=${started.user_code}`, { headers: { authorization: `Bearer ${token}` } });
    await expectOAuth(bearer, 403, 'invalid_client');
    expect((await h.request(`/oauth/device_info?user_code=${started.user_code}`)).status).toBe(401);
    const half = new Browser(h);
    await half.login('device@example.com', PASSWORD);
    expect((await half.request(`/oauth/device_info?user_code=${started.user_code}`)).status).toBe(401);
  });

  it('Fetch Metadata: a cross-site device_info or device/approve carries no session (401) and spends none of its attempts; the web app (Origin: WEB_ORIGIN, same-site) still works', async () => {
    const b = new Browser(h);
    await b.signIn('device@example.com', PASSWORD, key);
    const started = await start(h);
    const crossSite = { 'sec-fetch-site': 'cross-site' };
    for (const userCode of ['ZZZZ-ZZZZ', started.user_code]) {
      expect((await b.request(`/oauth/device_info?user_code=${userCode}`, { headers: crossSite })).status, userCode).toBe(401);
      const approve = await b.request('/oauth/device/approve', { method: 'POST', headers: crossSite, json: { user_code: userCode, approve: true } });
      expect(approve.status, userCode).toBe(401);
    }
    expect(await attempts(b)).toBe(0);
    const [grant] = await h.db.select().from(deviceGrants).where(eq(deviceGrants.userCode, started.user_code));
    expect(grant!.status).toBe('pending');

    const sameSite = { origin: 'http://localhost:38080', 'sec-fetch-site': 'same-site' };
    await expectOAuth(await b.request('/oauth/device_info?user_code=ZZZZ-ZZZZ', { headers: sameSite }), 400, 'invalid_grant');
    expect(await attempts(b)).toBe(1);
    expect((await b.request(`/oauth/device_info?user_code=${started.user_code}`, { headers: sameSite })).status).toBe(200);
  });

  it('the attempt budget: 10 failures answer 400, then everything is 429, even a valid re-approval; a new sign-in starts afresh', async () => {
    const b = new Browser(h);
    await b.signIn('device@example.com', PASSWORD, key);
    const good = await start(h);
    expect((await b.post('/oauth/device/approve', { user_code: good.user_code, approve: true })).status).toBe(204);
    expect((await b.post('/oauth/device/approve', { user_code: good.user_code, approve: true })).status).toBe(204);
    expect(await attempts(b)).toBe(0);
    // Declining an approved code costs one; another session's re-approval is not free either.
    await expectOAuth(await b.post('/oauth/device/approve', { user_code: good.user_code, approve: false }), 400, 'invalid_grant');
    await expectOAuth(await person.post('/oauth/device/approve', { user_code: good.user_code, approve: true }), 400, 'invalid_grant');
    for (let i = 1; i < 10; i++) {
      const res = i % 2 ? await b.request('/oauth/device_info?user_code=ZZZZ-ZZZZ') : await b.post('/oauth/device/approve', { user_code: 'ZZZZ-ZZZZ', approve: true });
      await expectOAuth(res, 400, 'invalid_grant');
    }
    expect(await attempts(b)).toBe(10);
    const fresh = await start(h);
    await expectOAuth(await b.request(`/oauth/device_info?user_code=${fresh.user_code}`), 429, 'invalid_request');
    await expectOAuth(await b.post('/oauth/device/approve', { user_code: good.user_code, approve: true }), 429, 'invalid_request');
    expect(await attempts(b)).toBe(10);
    const again = new Browser(h);
    await again.signIn('device@example.com', PASSWORD, key);
    expect((await again.request(`/oauth/device_info?user_code=${fresh.user_code}`)).status).toBe(200);
  });

  it('parallel bad lookups cannot exceed the budget', async () => {
    const b = new Browser(h);
    await b.signIn('device@example.com', PASSWORD, key);
    const answers = await Promise.all(Array.from({ length: 15 }, () => b.request('/oauth/device_info?user_code=YYYY-YYYY')));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 400).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((s) => s === 400 || s === 429).length).toBe(15);
    expect(await attempts(b)).toBe(10);
  });

  it('parallel polls of an approved code give exactly one token pair', async () => {
    const started = await start(h);
    expect((await person.post('/oauth/device/approve', { user_code: started.user_code, approve: true })).status).toBe(204);
    const answers = await Promise.all(Array.from({ length: 10 }, () => poll(h, started.device_code)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
  });

  // ---- polling and slow_down (D13, literally) ----------------------------------------------

  /** Moves the code's last poll time `seconds` into the past (relative to its stamp, or to now). */
  const polledAgo = (userCode: string, seconds: number) =>
    h.db.update(deviceGrants).set({ lastPolledAt: sql`now() - make_interval(secs => ${seconds})` }).where(eq(deviceGrants.userCode, userCode));
  const movePollBack = (userCode: string, seconds: number) =>
    h.db
      .update(deviceGrants)
      .set({ lastPolledAt: sql`${deviceGrants.lastPolledAt} - make_interval(secs => ${seconds})` })
      .where(eq(deviceGrants.userCode, userCode));
  const lastPolled = async (userCode: string) =>
    (await h.db.select({ at: deviceGrants.lastPolledAt }).from(deviceGrants).where(eq(deviceGrants.userCode, userCode)))[0]?.at;

  it('D13: issuing the code is not a poll, so the first poll right after device_authorization is never slow_down', async () => {
    const started = await start(h);
    expect(await lastPolled(started.user_code)).toBeNull();
    await expectOAuth(await poll(h, started.device_code), 400, 'authorization_pending');
    expect(await lastPolled(started.user_code)).toBeInstanceOf(Date);
  });

  it('D13 boundary: a poll 4 s after the previous one is slow_down; 5 s after, it is not', async () => {
    const started = await start(h);
    await polledAgo(started.user_code, 4);
    await expectOAuth(await poll(h, started.device_code), 400, 'slow_down');
    await polledAgo(started.user_code, 5);
    await expectOAuth(await poll(h, started.device_code), 400, 'authorization_pending');
  });

  it('D13: every poll stamps, including one refused with slow_down (measured from the previous poll, not the previous success)', async () => {
    const started = await start(h);
    await polledAgo(started.user_code, 4);
    await expectOAuth(await poll(h, started.device_code), 400, 'slow_down');
    // Had that slow_down not stamped, the previous poll would now be 8 s back and this poll pending.
    await movePollBack(started.user_code, 4);
    await expectOAuth(await poll(h, started.device_code), 400, 'slow_down');
    await movePollBack(started.user_code, 4);
    await expectOAuth(await poll(h, started.device_code), 400, 'slow_down');
    await movePollBack(started.user_code, 6);
    await expectOAuth(await poll(h, started.device_code), 400, 'authorization_pending');
  });

  it('D13: slow_down whatever the state — approved (not consumed), declined and expired codes answer slow_down within 5 s, then their own outcome', async () => {
    const approved = await start(h);
    await expectOAuth(await poll(h, approved.device_code), 400, 'authorization_pending');
    expect((await person.post('/oauth/device/approve', { user_code: approved.user_code, approve: true })).status).toBe(204);
    await expectOAuth(await poll(h, approved.device_code), 400, 'slow_down');
    expect(await lastPolled(approved.user_code)).toBeInstanceOf(Date);
    await polledAgo(approved.user_code, 6);
    expect((await poll(h, approved.device_code)).status).toBe(200);

    const declined = await start(h);
    expect((await person.post('/oauth/device/approve', { user_code: declined.user_code, approve: false })).status).toBe(204);
    await polledAgo(declined.user_code, 1);
    await expectOAuth(await poll(h, declined.device_code), 400, 'slow_down');
    await polledAgo(declined.user_code, 6);
    await expectOAuth(await poll(h, declined.device_code), 400, 'access_denied');

    const expired = await start(h);
    await h.db.update(deviceGrants).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(deviceGrants.userCode, expired.user_code));
    await polledAgo(expired.user_code, 1);
    await expectOAuth(await poll(h, expired.device_code), 400, 'slow_down');
    await polledAgo(expired.user_code, 6);
    await expectOAuth(await poll(h, expired.device_code), 400, 'expired_token');
  });

  it('D13: a poll with another client_id is invalid_grant and does not stamp', async () => {
    const started = await start(h);
    await expectOAuth(await poll(h, started.device_code, 'ledger-cli'), 400, 'invalid_grant');
    expect(await lastPolled(started.user_code)).toBeNull();
    await expectOAuth(await poll(h, started.device_code), 400, 'authorization_pending');
    const stamp = await lastPolled(started.user_code);
    await expectOAuth(await poll(h, started.device_code, 'ledger-cli'), 400, 'invalid_grant');
    expect((await lastPolled(started.user_code))!.getTime()).toBe(stamp!.getTime());
  });

  // ---- the device branch of POST /oauth/token ---------------------------------------------

  it.each([
    ['device_code missing', { device_code: undefined }],
    ['device_code empty', { device_code: '' }],
    ['client_id missing', { client_id: undefined }],
    ['client_id empty', { client_id: '' }],
  ])('D13: %s is 400 invalid_request and polls nothing (no stamp, the approved code still redeemable)', async (_why, overrides: Record<string, string | undefined>) => {
    const started = await start(h);
    expect((await person.post('/oauth/device/approve', { user_code: started.user_code, approve: true })).status).toBe(204);
    const all: Record<string, string | undefined> = { grant_type: DEVICE, device_code: started.device_code, client_id: 'ledger-desktop', ...overrides };
    const params = Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
    await expectOAuth(await h.request('/oauth/token', formInit(params)), 400, 'invalid_request');
    expect(await lastPolled(started.user_code)).toBeNull();
    expect((await poll(h, started.device_code)).status).toBe(200);
  });

  it.each([
    ['another host', 'https://elsewhere.example'],
    ['a port with a leading zero (D11: not a plain URL)', 'http://localhost:038081'],
    ['a percent-encoded host (D11: not a plain URL)', 'http://%6cocalhost:38081'],
  ])('D13: a resource that is not this API (%s) is 400 invalid_request; the approved code stays redeemable', async (_why, resource) => {
    const started = await start(h);
    expect((await person.post('/oauth/device/approve', { user_code: started.user_code, approve: true })).status).toBe(204);
    const params = { grant_type: DEVICE, device_code: started.device_code, client_id: 'ledger-desktop', resource };
    await expectOAuth(await h.request('/oauth/token', formInit(params)), 400, 'invalid_request');
    expect(await lastPolled(started.user_code)).toBeNull();
    expect((await poll(h, started.device_code)).status).toBe(200);
  });

  it.each([`${API}/mcp`, 'HTTP://LOCALHOST:38081/', API])('D11: resource %s is accepted on the device branch; the audience is API_ORIGIN', async (resource) => {
    const started = await start(h);
    expect((await person.post('/oauth/device/approve', { user_code: started.user_code, approve: true })).status).toBe(204);
    const res = await h.request('/oauth/token', formInit({ grant_type: DEVICE, device_code: started.device_code, client_id: 'ledger-desktop', resource }));
    expect(res.status).toBe(200);
    const pair = (await res.json()) as { access_token: string };
    const [row] = await h.db.select({ audience: tokens.audience }).from(tokens).where(eq(tokens.hash, sha256Hex(pair.access_token)));
    expect(row!.audience).toBe(API);
  });

  it('an approved code polled with another client_id is invalid_grant and is not consumed', async () => {
    const started = await start(h);
    expect((await person.post('/oauth/device/approve', { user_code: started.user_code, approve: true })).status).toBe(204);
    await expectOAuth(await poll(h, started.device_code, 'ledger-cli'), 400, 'invalid_grant');
    expect(await h.db.select().from(deviceGrants).where(eq(deviceGrants.userCode, started.user_code))).toHaveLength(1);
    const res = await poll(h, started.device_code);
    expect(res.status).toBe(200);
    const pair = (await res.json()) as { refresh_token: string };
    const [row] = await h.db.select({ clientId: tokens.clientId }).from(tokens).where(eq(tokens.hash, sha256Hex(pair.refresh_token)));
    expect(row!.clientId).toBe('ledger-desktop');
  });

  // ---- device_authorization ---------------------------------------------------------------

  it('device_authorization: the grant row lives 600 s (expires_at = now + 600 s), pending, never polled', async () => {
    const started = await start(h);
    const [row] = await h.db
      .select({
        status: deviceGrants.status,
        clientId: deviceGrants.clientId,
        lastPolledAt: deviceGrants.lastPolledAt,
        lifetime: sql<number>`extract(epoch from ${deviceGrants.expiresAt} - ${deviceGrants.createdAt})::float8`,
        left: sql<number>`extract(epoch from ${deviceGrants.expiresAt} - now())::float8`,
      })
      .from(deviceGrants)
      .where(eq(deviceGrants.userCode, started.user_code));
    expect(row).toMatchObject({ status: 'pending', clientId: 'ledger-desktop', lastPolledAt: null });
    expect(Number(row!.lifetime)).toBeCloseTo(600, 0);
    expect(Number(row!.left)).toBeGreaterThan(590);
    expect(Number(row!.left)).toBeLessThanOrEqual(600);
  });

  it('D11 over HTTP on device_authorization: an upper-case host with a trailing slash is accepted; a leading-zero port or a backslash is 400 invalid_request', async () => {
    const ok = await h.request('/oauth/device_authorization', formInit({ client_id: 'ledger-desktop', resource: 'HTTP://LOCALHOST:38081/' }));
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    for (const resource of ['http://localhost:038081', `${API}\\evil`, 'http://%6cocalhost:38081']) {
      await expectOAuth(await h.request('/oauth/device_authorization', formInit({ client_id: 'ledger-desktop', resource })), 400, 'invalid_request');
    }
  });

  it('open tier: device_authorization and the device poll ignore a bogus bearer token and a bogus cookie', async () => {
    const bogus = { authorization: 'Bearer lg_not_a_token', cookie: 'lg_session=not-a-session' };
    const res = await h.request('/oauth/device_authorization', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...bogus },
      body: new URLSearchParams({ client_id: 'ledger-desktop', resource: API }).toString(),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(res.headers.get('set-cookie')).toBeNull();
    const started = (await res.json()) as Started;
    const polled = await h.request('/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...bogus },
      body: new URLSearchParams({ grant_type: DEVICE, device_code: started.device_code, client_id: 'ledger-desktop' }).toString(),
    });
    await expectOAuth(polled, 400, 'authorization_pending');
  });

  // ---- approval marks the client used -----------------------------------------------------

  async function registerDynamic(name: string): Promise<string> {
    const res = await h.request('/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: name, redirect_uris: ['https://device-app.example/cb'] }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { client_id: string }).client_id;
  }

  const clientTimes = async (id: string) =>
    (await h.db
      .select({ first: oauthClients.firstUsedAt, last: oauthClients.lastUsedAt })
      .from(oauthClients)
      .where(eq(oauthClients.id, id)))[0]!;

  const firstUse = async (id: string) =>
    ((await (await person.request(`/oauth/client_info?client_id=${id}`)).json()) as { first_use: boolean }).first_use;

  it('spec Device grant pending → approved: approval marks the client used (first and last use times); a later approval moves only the last', async () => {
    const id = await registerDynamic('Device app');
    expect(await clientTimes(id)).toEqual({ first: null, last: null });
    expect(await firstUse(id)).toBe(true);

    const started = await start(h, id);
    expect((await person.post('/oauth/device/approve', { user_code: started.user_code, approve: true })).status).toBe(204);
    const used = await clientTimes(id);
    expect(used.first).toBeInstanceOf(Date);
    expect(used.last!.getTime()).toBe(used.first!.getTime());
    expect(Math.abs(used.first!.getTime() - Date.now())).toBeLessThan(30_000);
    expect(await firstUse(id)).toBe(false);

    await h.db.update(oauthClients).set({ firstUsedAt: sql`now() - interval '1 day'`, lastUsedAt: sql`now() - interval '1 day'` }).where(eq(oauthClients.id, id));
    const before = await clientTimes(id);
    const again = await start(h, id);
    expect((await person.post('/oauth/device/approve', { user_code: again.user_code, approve: true })).status).toBe(204);
    const after = await clientTimes(id);
    expect(after.first!.getTime()).toBe(before.first!.getTime());
    expect(after.last!.getTime()).toBeGreaterThan(before.last!.getTime() + 3_600_000);
  });

  it('spec Device grant pending → declined: declining leaves the client unmarked (first_use stays true)', async () => {
    const id = await registerDynamic('Declined device app');
    const started = await start(h, id);
    expect((await person.post('/oauth/device/approve', { user_code: started.user_code, approve: false })).status).toBe(204);
    expect(await clientTimes(id)).toEqual({ first: null, last: null });
    expect(await firstUse(id)).toBe(true);
    await expectOAuth(await poll(h, started.device_code, id), 400, 'access_denied');
  });

  // ---- the attempt budget never resets ----------------------------------------------------

  it('the attempt budget never resets: a successful device_info or approval after 3 failures leaves the count at 3; an expired code costs one', async () => {
    const b = new Browser(h);
    await b.signIn('device@example.com', PASSWORD, key);
    for (let i = 0; i < 3; i++) await expectOAuth(await b.request('/oauth/device_info?user_code=WWWW-WWWW'), 400, 'invalid_grant');
    expect(await attempts(b)).toBe(3);

    const live = await start(h);
    expect((await b.request(`/oauth/device_info?user_code=${live.user_code}`)).status).toBe(200);
    expect(await attempts(b)).toBe(3);
    expect((await b.request(`/oauth/device_info?user_code=${live.user_code}`)).status).toBe(200);
    expect(await attempts(b)).toBe(3);
    expect((await b.post('/oauth/device/approve', { user_code: live.user_code, approve: true })).status).toBe(204);
    expect(await attempts(b)).toBe(3);
    const declined = await start(h);
    expect((await b.post('/oauth/device/approve', { user_code: declined.user_code, approve: false })).status).toBe(204);
    expect(await attempts(b)).toBe(3);

    const expired = await start(h);
    await h.db.update(deviceGrants).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(deviceGrants.userCode, expired.user_code));
    await expectOAuth(await b.request(`/oauth/device_info?user_code=${expired.user_code}`), 400, 'invalid_grant');
    expect(await attempts(b)).toBe(4);
    await expectOAuth(await b.post('/oauth/device/approve', { user_code: expired.user_code, approve: true }), 400, 'invalid_grant');
    expect(await attempts(b)).toBe(5);
  });
});
