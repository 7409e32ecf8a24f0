import { sql } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import { createHash, randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { users } from '../src/db/schema';
import type { AppEnv } from '../src/http/context';
import { answerError, GENERIC_FAULT } from '../src/http/errors';
import { describeFault } from '../src/log';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { describeEachDatabase, type Harness } from './support/harness';
import { formInit } from './support/http';

// D10 and issue 6/6: no log line ever holds a token, cookie, password, code or verifier. One full
// run of every credential the service issues or accepts, then a grep of every line it logged.

/** An app whose GET `path` runs `fault` and is answered by the real error mapper (error rule 3). */
function faultingApp(h: Harness, path: string, fault: (c: Context<AppEnv>) => Promise<unknown>): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use((c, next) => {
    c.set('db', h.db);
    c.set('config', h.config);
    c.set('log', h.log);
    return next();
  });
  app.get(path, async (c) => c.json(await fault(c)));
  app.onError(answerError);
  return app;
}

/** Runs the faulting route; expects the generic 500 and returns its one `request.fault` line, as JSON. */
async function loggedFault(h: Harness, path: string, fault: (c: Context<AppEnv>) => Promise<unknown>): Promise<string> {
  const from = h.logs.length;
  const res = await faultingApp(h, path, fault).request(path);
  expect(res.status).toBe(500);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body.error === GENERIC_FAULT || body.error_description === GENERIC_FAULT, JSON.stringify(body)).toBe(true);
  const faults = h.logs.slice(from).filter((line) => line.event === 'request.fault');
  expect(faults).toHaveLength(1);
  return JSON.stringify(faults[0]);
}

describeEachDatabase('no secret in any log line (D10)', (h) => {
  it('logs none of the passwords, session ids, tokens, codes, user codes or verifiers it handled', async () => {
    const secrets: string[] = [];
    const password = 'correct horse battery staple';
    const { token: minted } = await h.userWithToken('logs@example.com', password);
    secrets.push(password, minted);

    const person = new Browser(h);
    await person.login('logs@example.com', 'a wrong password, also secret');
    secrets.push('a wrong password, also secret');
    await person.signIn('logs@example.com', password, new SoftwareAuthenticator());
    secrets.push(person.session!);

    const client = (await (
      await h.request('/oauth/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:7777/cb'] }),
      })
    ).json()) as { client_id: string };
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const params = {
      client_id: client.client_id,
      redirect_uri: 'http://127.0.0.1:7777/cb',
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: 'http://localhost:38081',
      state: 'state-that-is-not-secret',
    };
    await h.request(`/oauth/authorize?${new URLSearchParams(params)}`);
    const approval = (await (await person.post('/oauth/authorize/approve', { ...params, approve: true })).json()) as { redirect: string };
    const code = new URL(approval.redirect).searchParams.get('code')!;
    secrets.push(code, verifier);
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: params.redirect_uri, client_id: client.client_id, code_verifier: verifier };
    const pair = (await (await h.request('/oauth/token', formInit(exchange))).json()) as { access_token: string; refresh_token: string };
    await h.request('/oauth/token', formInit(exchange)); // a failed redemption logs nothing secret either
    secrets.push(pair.access_token, pair.refresh_token);
    const rotated = (await (
      await h.request('/oauth/token', formInit({ grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: client.client_id }))
    ).json()) as { access_token: string; refresh_token: string };
    secrets.push(rotated.access_token, rotated.refresh_token);
    await h.call(rotated.access_token, 'GET', '/accounts');

    const device = (await (
      await h.request('/oauth/device_authorization', formInit({ client_id: 'ledger-desktop', resource: 'http://localhost:38081' }))
    ).json()) as { device_code: string; user_code: string };
    secrets.push(device.device_code, device.user_code);
    await person.request(`/oauth/device_info?user_code=${device.user_code}`);
    await person.post('/oauth/device/approve', { user_code: device.user_code, approve: true });
    const deviceTokens = (await (
      await h.request('/oauth/token', formInit({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: device.device_code, client_id: 'ledger-desktop' }))
    ).json()) as { access_token: string; refresh_token: string };
    secrets.push(deviceTokens.access_token, deviceTokens.refresh_token);
    await h.request('/oauth/revoke', formInit({ token: deviceTokens.refresh_token }));
    await person.post('/auth/password', { current_password: password, new_password: 'another long password' });
    secrets.push('another long password');
    await person.post('/auth/logout');

    expect(h.logs.filter((l) => l.event === 'request').length, 'requests were logged').toBeGreaterThan(15);
    const logged = h.logs.map((line) => JSON.stringify(line)).join('\n');
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(7);
      expect(logged.includes(secret), `a log line holds the secret ${secret.slice(0, 6)}…`).toBe(false);
    }
  });

  // Issue 1/7: drizzle's DrizzleQueryError says "Failed query: <sql>\nparams: <params>", and
  // PostgreSQL's own messages quote values; a fault logs its SQLSTATE and names, never either.
  it('a failed query whose message quotes its parameter (22P02) logs the SQLSTATE and the operation, not the value', async () => {
    const secret = `lg_${randomBytes(24).toString('base64url')}`;
    const line = await loggedFault(h, '/cast', (c) => c.var.db.execute(sql`select ${secret}::int as n`));
    expect(line.includes(secret), 'the parameter is in the log').toBe(false);
    expect(JSON.parse(line).fields).toMatchObject({ fault: 'DrizzleQueryError', code: '22P02', operation: 'select', severity: 'ERROR' });
    expect(line).not.toMatch(/invalid input syntax|Failed query|params:/);
  });

  it('a constraint violation on an OAuth route (a fault there) logs code, constraint, table and operation, not the email', async () => {
    const email = `taken-${randomBytes(6).toString('hex')}@example.com`;
    const hash = `$argon2id$${randomBytes(18).toString('base64url')}`;
    await h.db.insert(users).values({ email, passwordHash: 'first' });
    const line = await loggedFault(h, '/oauth/duplicate', (c) => c.var.db.insert(users).values({ email, passwordHash: hash }));
    for (const secret of [email, hash]) expect(line.includes(secret), `${secret.slice(0, 8)}… is in the log`).toBe(false);
    expect(JSON.parse(line).fields).toMatchObject({ code: '23505', constraint: 'users_email_unique', table: 'users', operation: 'insert into users' });
    expect(line).not.toMatch(/already exists|duplicate key|Key \(/);
  });

  it('a plain Error wrapping a database error via cause leaks neither its own message nor the cause\'s', async () => {
    const secret = `user-code-${randomBytes(8).toString('hex')}`;
    const line = await loggedFault(h, '/wrapped', async (c) => {
      try {
        return await c.var.db.execute(sql`select ${secret}::int as n`);
      } catch (error) {
        throw new Error(`lookup of ${secret} failed: ${(error as Error).message}`, { cause: error });
      }
    });
    expect(line.includes(secret), 'the value is in the log').toBe(false);
    expect(JSON.parse(line).fields).toMatchObject({ fault: 'Error', causes: ['DrizzleQueryError', expect.any(String)], code: '22P02', operation: 'select' });
  });

  it('a fault of our own code (no database in it) keeps its name, message and stack', async () => {
    const line = await loggedFault(h, '/bug', async () => {
      throw new TypeError('a bug of ours: total is undefined');
    });
    const fields = JSON.parse(line).fields;
    expect(fields).toMatchObject({ fault: 'TypeError', message: 'a bug of ours: total is undefined' });
    expect(fields.stack).toMatch(/^TypeError: a bug of ours[\s\S]*\n\s+at /);
    expect(describeFault(new Error('outer', { cause: new RangeError('inner') }))).toMatchObject({ message: 'outer', cause: { fault: 'RangeError', message: 'inner' } });
  });
});
