import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginThrottle, oauthClients, sessions } from '../src/db/schema';
import { sha256Hex } from '../src/identity/secrets';
import { addUser } from '../src/identity/users';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { openTestDatabase, postgresAvailable, type TestDatabase } from './support/databases';
import { freePort, startServe, type ServeProcess } from './support/processes';
import { formInit } from './support/http';

// Issue 6/6 scope 3 (D10): two `ledger serve` processes on one PostgreSQL, sharing no memory.
// The concurrency guarantees of 3/6 and 2/6 hold when the parallel requests are spread across
// both: one code redemption, one refresh winner, the cap of 20 dynamic clients, the device
// attempt budget and the password throttle all live in the database.

const API = 'http://localhost:38081';
const PASSWORD = 'two instances, one database';
const CALLBACK = 'http://127.0.0.1:53999/callback';
const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';

/** `ledger serve` on the shared database; each instance binds a port of its own. */
async function startInstance(databaseUrl: string): Promise<ServeProcess> {
  const port = await freePort();
  return startServe({
    env: { DATABASE_URL: databaseUrl, BIND_ADDR: `127.0.0.1:${port}`, WEB_BIND_ADDR: 'off', API_ORIGIN: API },
  });
}

function statuses(responses: Response[]): number[] {
  return responses.map((r) => r.status).sort((a, b) => a - b);
}

describe.skipIf(!postgresAvailable())('two instances on one PostgreSQL (D10)', () => {
  let database: TestDatabase;
  let instances: ServeProcess[];
  let authenticator: SoftwareAuthenticator;
  let browser: Browser;
  let turn = 0;

  /** Request number n goes to instance n mod 2: parallel requests are spread over both. */
  const spread = (path: string, init?: RequestInit) => fetch(`${instances[turn++ % 2]!.url}${path}`, init);

  beforeAll(async () => {
    database = await openTestDatabase('postgres');
    await addUser(database.db, 'two@example.com', PASSWORD);
    instances = await Promise.all([startInstance(database.url!), startInstance(database.url!)]);
    browser = new Browser({ request: spread });
    authenticator = new SoftwareAuthenticator();
    await browser.signIn('two@example.com', PASSWORD, authenticator);
  }, 90_000);

  afterAll(async () => {
    await Promise.all((instances ?? []).map((i) => i.stop()));
    await database?.close();
  });

  const approvedCode = () => browser.approveCode(CALLBACK, API);


  const redeem = (grant: { code: string; verifier: string }) =>
    spread(
      '/oauth/token',
      formInit({ grant_type: 'authorization_code', code: grant.code, redirect_uri: CALLBACK, client_id: 'ledger-cli', code_verifier: grant.verifier }),
    );

  it('the session made on one instance is honoured by the other', async () => {
    const answers = await Promise.all([browser.request('/auth/me'), browser.request('/auth/me')]);
    expect(statuses(answers)).toEqual([200, 200]);
  });

  it('one authorization code redeemed 10 times in parallel across both: exactly one 200', async () => {
    const grant = await approvedCode();
    const answers = await Promise.all(Array.from({ length: 10 }, () => redeem(grant)));
    expect(statuses(answers)).toEqual([200, ...Array(9).fill(400)]);
    for (const res of answers.filter((r) => r.status === 400)) {
      expect(await res.json()).toEqual({ error: 'invalid_grant', error_description: 'that code is not redeemable' });
    }
  });

  it('one refresh token rotated 10 times in parallel across both: exactly one 200, and the grant survives', async () => {
    const pair = (await (await redeem(await approvedCode())).json()) as { refresh_token: string };
    const rotate = (token: string) =>
      spread('/oauth/token', formInit({ grant_type: 'refresh_token', refresh_token: token, client_id: 'ledger-cli' }));
    const answers = await Promise.all(Array.from({ length: 10 }, () => rotate(pair.refresh_token)));
    expect(statuses(answers)).toEqual([200, ...Array(9).fill(400)]);
    const winner = (await answers.find((r) => r.status === 200)!.json()) as { refresh_token: string; access_token: string };
    // The losers were retries inside the grace period: the new pair still works on both instances.
    expect((await spread('/accounts', { headers: { authorization: `Bearer ${winner.access_token}` } })).status).toBe(200);
    expect((await spread('/accounts', { headers: { authorization: `Bearer ${winner.access_token}` } })).status).toBe(200);
    expect((await rotate(winner.refresh_token)).status).toBe(200);
  });

  it('one approved device code polled 10 times in parallel across both: exactly one token pair', async () => {
    const started = (await (await spread('/oauth/device_authorization', formInit({ client_id: 'ledger-desktop', resource: API }))).json()) as {
      device_code: string;
      user_code: string;
    };
    expect((await browser.post('/oauth/device/approve', { user_code: started.user_code, approve: true })).status).toBe(204);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        spread('/oauth/token', formInit({ grant_type: DEVICE, device_code: started.device_code, client_id: 'ledger-desktop' })),
      ),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 400)).toHaveLength(9);
  });

  it('the device attempt budget: 15 parallel wrong codes across both give exactly 10 × 400 and 5 × 429', async () => {
    const b = new Browser({ request: spread });
    await b.signIn('two@example.com', PASSWORD, authenticator);
    const answers = await Promise.all(Array.from({ length: 15 }, () => b.request('/oauth/device_info?user_code=YYYY-YYYY')));
    expect(statuses(answers)).toEqual([...Array(10).fill(400), ...Array(5).fill(429)]);
    const [row] = await database.db
      .select({ attempts: sessions.deviceAttempts })
      .from(sessions)
      .where(eq(sessions.idHash, sha256Hex(b.session!)));
    expect(row!.attempts).toBe(10);
  });

  it('the cap of 20 dynamic clients: with 18 registered, 10 parallel registrations across both give 2 × 201 and 8 × 429', async () => {
    const register = () =>
      spread('/oauth/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'parallel', redirect_uris: [CALLBACK] }),
      });
    for (let i = 0; i < 18; i++) expect((await register()).status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 10 }, register));
    expect(statuses(answers)).toEqual([201, 201, ...Array(8).fill(429)]);
    const [{ n }] = (await database.db.select({ n: count() }).from(oauthClients).where(eq(oauthClients.dynamic, true))) as [
      { n: number },
    ];
    expect(n).toBe(20);
  });

  it('the password throttle: 10 parallel wrong logins across both give at most 4 × 401 (3 free, 1 counted), the rest 429', async () => {
    const email = 'throttled@two.example';
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        spread('/auth/login', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, password: 'not the password at all' }),
        }),
      ),
    );
    const refused = answers.filter((r) => r.status === 401).length;
    expect(refused).toBeLessThanOrEqual(4);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(10 - refused);
    const [row] = await database.db.select().from(loginThrottle).where(eq(loginThrottle.email, email));
    expect(row!.failures).toBe(refused);
  });


  it('both instances really answered: each logged token, registration and login requests', () => {
    for (const instance of instances) {
      const paths = new Set(instance.logs.filter((l) => l.event === 'request').map((l) => l.path));
      for (const path of ['/oauth/token', '/oauth/register', '/auth/login', '/oauth/device_info']) expect(paths).toContain(path);
    }
  });
});
