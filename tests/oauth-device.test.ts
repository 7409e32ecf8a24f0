import { eq, sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { deviceGrants, oauthClients, sessions } from '../src/db/schema';
import { newUserCode, normaliseUserCode } from '../src/oauth/device-grants';
import { sha256Hex } from '../src/secrets';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { describeEachDatabase, type Harness } from './support/harness';

// Spec: Device grant state table, POST /oauth/device_authorization, GET /oauth/device_info,
// POST /oauth/device/approve, the device attempt budget, slow_down; D13.

const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';
const API = 'http://localhost:38081';
const PASSWORD = 'a device password';

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

interface Started {
  device_code: string;
  user_code: string;
}

async function start(h: Harness, clientId = 'ledger-desktop'): Promise<Started> {
  const res = await h.request('/oauth/device_authorization', form({ client_id: clientId, resource: API }));
  expect(res.status).toBe(200);
  return (await res.json()) as Started;
}

const poll = (h: Harness, deviceCode: string, clientId = 'ledger-desktop') =>
  h.request('/oauth/token', form({ grant_type: DEVICE, device_code: deviceCode, client_id: clientId }));

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
    const res = await h.request('/oauth/device_authorization', form({ client_id: 'ledger-desktop', resource: `${API}/mcp` }));
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
    await expectOAuth(await h.request('/oauth/device_authorization', form({ client_id: 'nobody', resource: API })), 401, 'invalid_client');
    await expectOAuth(await h.request('/oauth/device_authorization', form({ client_id: 'ledger-desktop', resource: 'https://elsewhere.example' })), 400, 'invalid_request');
    await expectOAuth(await h.request('/oauth/device_authorization', form({ client_id: 'ledger-desktop' })), 400, 'invalid_request');
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

});
