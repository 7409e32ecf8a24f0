import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { expect } from 'vitest';
import { sha256Hex } from '../../src/identity/secrets';
import { SoftwareAuthenticator } from './authenticator';
import { Browser } from './browser';

// Issue 1/7, item 1: no confirmed write is ever lost. More parallel requests than the pool has
// connections, mixing routes that run a database transaction (registration, code exchange,
// refresh, login, logout, device approval, password change) with single-statement writes
// (POST and DELETE /transactions). Then, from a connection of its own, every answer is checked
// against what the database really holds.

type Request = (path: string, init?: RequestInit) => Promise<Response>;

const API = 'http://localhost:38081';
const CALLBACK = 'http://127.0.0.1:53111/callback';
const PASSWORD = 'a storm of parallel requests';
const NEW_PASSWORD = 'the storm changed this password';

const form = (fields: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

const json = (method: string, body: unknown, token?: string): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  body: JSON.stringify(body),
});

/** The cookie value a response set, if any (the login's half-session). */
function sessionCookieOf(res: Response): string | undefined {
  for (const line of res.headers.getSetCookie()) {
    const match = /^lg_session=([^;]*)/.exec(line);
    if (match?.[1]) return match[1];
  }
  return undefined;
}

/** One request of the storm: what it did, and the check of its answer against the database. */
interface Shot {
  kind: string;
  send: () => Promise<Response>;
  expected: readonly number[];
  /** Run with the answer once every request has finished; returns the check to run on the database. */
  confirm?: (res: Response) => Promise<(sql: postgres.Sql) => Promise<void>>;
}

export interface StormUsers {
  /** A user with a full session (browser) and a minted token: most requests are theirs. */
  email: string;
  token: string;
  /** Users who each change their own password once during the storm. */
  passwordChangers: string[];
  /**
   * Users who each sign in once during the storm: parallel sign-ins to one email count as
   * failures until one succeeds (D4's throttle claims the attempt first), so each has their own.
   */
  signers: string[];
}

/** The people the storm needs; `addUser` and `mintToken` run through the caller's database. */
export async function prepareStormUsers(
  addUserWithToken: (email: string, password: string) => Promise<{ token: string }>,
): Promise<StormUsers> {
  const email = `storm-${randomBytes(4).toString('hex')}@example.com`;
  const { token } = await addUserWithToken(email, PASSWORD);
  const more = async (role: string, n: number) => {
    const emails: string[] = [];
    for (let i = 0; i < n; i++) {
      emails.push(`${role}-${i}-${randomBytes(4).toString('hex')}@example.com`);
      await addUserWithToken(emails[i]!, PASSWORD);
    }
    return emails;
  };
  return { email, token, passwordChangers: await more('changer', 3), signers: await more('signer', 15) };
}

/** Builds every request of the storm; the preparation (codes, sessions, rows to delete) runs first, one at a time. */
async function prepareShots(request: Request, users: StormUsers): Promise<Shot[]> {
  const browser = new Browser({ request });
  await browser.signIn(users.email, PASSWORD, new SoftwareAuthenticator());
  const shots: Shot[] = [];

  const approvedCode = () => browser.approveCode(CALLBACK, API);
  const exchange = (grant: { code: string; verifier: string }) =>
    request(
      '/oauth/token',
      form({ grant_type: 'authorization_code', code: grant.code, redirect_uri: CALLBACK, client_id: 'ledger-cli', code_verifier: grant.verifier }),
    );
  /** The pair a token answer issued is stored, live, under its digests. */
  const pairStored = async (res: Response) => {
    const pair = (await res.json()) as { access_token: string; refresh_token: string };
    return async (sql: postgres.Sql) => {
      const rows = await sql`select hash from tokens where hash in ${sql([sha256Hex(pair.access_token), sha256Hex(pair.refresh_token)])}
        and revoked_at is null and retired_at is null`;
      expect(rows, 'a confirmed token pair is stored and live').toHaveLength(2);
    };
  };

  for (let i = 0; i < 25; i++) {
    shots.push({
      kind: 'register',
      send: () => request('/oauth/register', json('POST', { client_name: `storm ${i}`, redirect_uris: [CALLBACK] })),
      // Spec: at most 20 dynamic clients; the rest are 429 temporarily_unavailable.
      expected: [201, 429],
      confirm: async (res) => {
        if (res.status !== 201) return async () => {};
        const { client_id } = (await res.json()) as { client_id: string };
        return async (sql) => expect(await sql`select 1 from oauth_clients where id = ${client_id}`, 'registered client').toHaveLength(1);
      },
    });
  }

  for (let i = 0; i < 20; i++) {
    const grant = await approvedCode();
    shots.push({ kind: 'code exchange', send: () => exchange(grant), expected: [200], confirm: pairStored });
  }

  for (let i = 0; i < 20; i++) {
    const first = (await (await exchange(await approvedCode())).json()) as { refresh_token: string };
    shots.push({
      kind: 'refresh',
      send: () => request('/oauth/token', form({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: 'ledger-cli' })),
      expected: [200],
      confirm: async (res) => {
        const stored = await pairStored(res);
        return async (sql) => {
          await stored(sql);
          const [old] = await sql`select retired_at from tokens where hash = ${sha256Hex(first.refresh_token)}`;
          expect(old?.retired_at, 'the rotated refresh token is retired').not.toBeNull();
        };
      },
    });
  }

  for (const signer of users.signers) {
    shots.push({
      kind: 'login',
      send: () => request('/auth/login', json('POST', { email: signer, password: PASSWORD })),
      expected: [200],
      confirm: async (res) => {
        const cookie = sessionCookieOf(res);
        expect(cookie, 'login sets a session').toBeDefined();
        return async (sql) => expect(await sql`select 1 from sessions where id_hash = ${sha256Hex(cookie!)}`, 'session').toHaveLength(1);
      },
    });
  }

  for (let i = 0; i < 20; i++) {
    const half = sessionCookieOf(await request('/auth/login', json('POST', { email: users.email, password: PASSWORD })))!;
    shots.push({
      kind: 'logout',
      send: () => request('/auth/logout', { method: 'POST', headers: { cookie: `lg_session=${half}` } }),
      expected: [204],
      confirm: async () => async (sql) =>
        expect(await sql`select 1 from sessions where id_hash = ${sha256Hex(half)}`, 'a confirmed logout ended the session').toHaveLength(0),
    });
  }

  for (let i = 0; i < 10; i++) {
    const started = (await (await request('/oauth/device_authorization', form({ client_id: 'ledger-desktop', resource: API }))).json()) as {
      device_code: string;
      user_code: string;
    };
    shots.push({
      kind: 'device approve',
      send: () => browser.post('/oauth/device/approve', { user_code: started.user_code, approve: true }),
      expected: [204],
      confirm: async () => async (sql) => {
        const [row] = await sql`select status from device_grants where device_code_hash = ${sha256Hex(started.device_code)}`;
        expect(row?.status, 'a confirmed approval is stored').toBe('approved');
      },
    });
  }

  for (const changer of users.passwordChangers) {
    const own = new Browser({ request });
    await own.signIn(changer, PASSWORD, new SoftwareAuthenticator());
    const other = sessionCookieOf(await request('/auth/login', json('POST', { email: changer, password: PASSWORD })))!;
    shots.push({
      kind: 'password change',
      send: () => own.post('/auth/password', { current_password: PASSWORD, new_password: NEW_PASSWORD }),
      expected: [204],
      confirm: async () => async (sql) => {
        // Rule 6: every other session ended, every token revoked.
        expect(await sql`select 1 from sessions where id_hash = ${sha256Hex(other)}`, 'other session ended').toHaveLength(0);
        const live = await sql`select 1 from tokens t join users u on u.id = t.user_id where u.email = ${changer} and t.revoked_at is null`;
        expect(live, 'every token of the user revoked').toHaveLength(0);
      },
    });
  }

  const accounts: number[] = [];
  for (const [name, kind] of [
    [`Bank ${randomBytes(3).toString('hex')}`, 'asset'],
    [`Food ${randomBytes(3).toString('hex')}`, 'expense'],
  ] as const) {
    const res = await request('/accounts', json('POST', { name, kind }, users.token));
    accounts.push(((await res.json()) as { id: number }).id);
  }
  const transaction = (i: number) => ({
    occurred_on: '2026-11-02',
    description: `storm ${i}`,
    entries: [
      { account_id: accounts[0], amount_cents: -(100 + i) },
      { account_id: accounts[1], amount_cents: 100 + i },
    ],
  });

  for (let i = 0; i < 60; i++) {
    shots.push({
      kind: 'POST /transactions',
      send: () => request('/transactions', json('POST', transaction(i), users.token)),
      expected: [201],
      confirm: async (res) => {
        const { id } = (await res.json()) as { id: number };
        return async (sql) => {
          const rows = await sql`select e.amount_cents from transactions t join entries e on e.transaction_id = t.id where t.id = ${id}`;
          expect(rows.map((r) => Number(r.amount_cents)).sort((a, b) => a - b), `confirmed transaction ${id} is stored`).toEqual([
            -(100 + i),
            100 + i,
          ]);
        };
      },
    });
  }

  for (let i = 0; i < 30; i++) {
    const { id } = (await (await request('/transactions', json('POST', transaction(1000 + i), users.token))).json()) as { id: number };
    shots.push({
      kind: 'DELETE /transactions',
      send: () => request(`/transactions/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${users.token}` } }),
      expected: [204],
      confirm: async () => async (sql) =>
        expect(await sql`select 1 from transactions where id = ${id}`, `confirmed delete of ${id} took effect`).toHaveLength(0),
    });
  }
  return shots;
}

/**
 * Sends every request of the storm at once through `request`, then checks each answer and, over
 * a connection of its own to `databaseUrl`, that each confirmed write is there (and each
 * confirmed delete or logout in effect) and that no connection was left inside a transaction.
 */
export async function stormAndCheck(request: Request, users: StormUsers, databaseUrl: string): Promise<{ requests: number }> {
  const shots = await prepareShots(request, users);
  const answers = await Promise.all(shots.map((shot) => shot.send()));

  const statuses = answers.map((res, i) => `${shots[i]!.kind} ${res.status}`);
  expect(statuses.filter((s) => s.endsWith(' 500')), 'no request of the storm answered 500').toEqual([]);
  shots.forEach((shot, i) => expect(shot.expected, `${shot.kind} answered ${answers[i]!.status}`).toContain(answers[i]!.status));
  const checks = await Promise.all(shots.map((shot, i) => (shot.confirm ? shot.confirm(answers[i]!) : async () => {})));

  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    for (const check of checks) await check(sql);
    const stuck = await sql`select pid from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and state like 'idle in transaction%'`;
    expect(stuck, 'no connection is left idle in a transaction').toEqual([]);
  } finally {
    await sql.end();
  }
  return { requests: shots.length };
}
