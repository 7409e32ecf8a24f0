import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { openConnection, openPostgres, rowsOf } from '../src/db/database';
import { createApp } from '../src/http/app';
import { accounts, settings, tokens, transactions, users } from '../src/db/schema';
import { mintToken, revokeAllTokensOf } from '../src/identity/tokens';
import { issueTokenPair } from '../src/oauth/grants';
import { addUser, removeUser } from '../src/identity/users';
import { openTestDatabase } from './support/databases';
import { describeEachDatabase, type Harness } from './support/harness';
import { CHALLENGE, sha256Hex } from './support/http';

// Spec: Authentication (tiers, the 401 with WWW-Authenticate), Credentials 2 (lookup by SHA-256
// digest), Tokens and codes; Errors rule 4; D5 (token format, hex digest); D13 (an invalid or
// expired bearer is the same 401 as none). README: last_used_at written at most once a minute.


/** Every full-tier ledger route (spec: Ledger routes), with a body a valid caller could send. */
const LEDGER_ROUTES: [method: string, path: string, body?: unknown][] = [
  ['GET', '/accounts'],
  ['POST', '/accounts', { name: 'Refused account', kind: 'asset' }],
  ['GET', '/settings'],
  ['PUT', '/settings', { book_style: 'club' }],
  ['GET', '/transactions'],
  ['POST', '/transactions', { occurred_on: '2026-01-01', description: 'refused', entries: [{ account_id: 1, amount_cents: 1 }, { account_id: 2, amount_cents: -1 }] }],
  ['DELETE', '/transactions/1'],
];

/** A request to a route with a raw Authorization header (or none when `authorization` is undefined). */
function send(h: Harness, method: string, path: string, authorization: string | undefined, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = {};
  if (authorization !== undefined) headers.authorization = authorization;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return h.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function expectChallenge(res: Response, label: string): Promise<void> {
  expect(res.status, label).toBe(401);
  expect(res.headers.get('www-authenticate'), label).toBe(CHALLENGE);
  expect(res.headers.get('content-type'), label).toMatch(/^application\/json/);
  expect(await res.text(), label).toBe('{"error":"authentication required"}');
}

/** Everything a refused request could have changed. */
async function snapshot(h: Harness) {
  return {
    accounts: await h.db.select().from(accounts).orderBy(accounts.id),
    settings: await h.db.select().from(settings),
    transactions: await h.db.select().from(transactions).orderBy(transactions.id),
  };
}

async function tokenRow(h: Harness, token: string) {
  const [row] = await h.db.select().from(tokens).where(eq(tokens.hash, sha256Hex(token)));
  if (!row) throw new Error('no such token row');
  return row;
}

async function lastSeen(h: Harness, userId: number): Promise<Date | null> {
  const [row] = await h.db.select({ lastSeenAt: users.lastSeenAt }).from(users).where(eq(users.id, userId));
  if (!row) throw new Error('no such user');
  return row.lastSeenAt;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeEachDatabase('bearer tokens on the full-tier ledger routes (spec: Authentication; error rule 4; D13)', (h) => {
  let valid: string;
  let validUserId: number;
  /** Credentials that must all be refused alike: label → Authorization header value (undefined: none). */
  const refused = new Map<string, string | undefined>();

  beforeAll(async () => {
    ({ token: valid, userId: validUserId } = await h.userWithToken('bearer@example.com'));
    const audience = h.config.apiOrigin;

    // Expired: a real minted token whose expiry is moved into the past.
    const expired = await mintToken(h.db, { userId: validUserId, label: 'expired', days: 1, audience });
    await h.db.update(tokens).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(tokens.hash, sha256Hex(expired)));

    // Revoked: every token of its own user, through the repository function (spec rule 6 uses it).
    const revokedUser = await addUser(h.db, 'bearer-revoked@example.com', 'correct horse battery staple');
    const revoked = await mintToken(h.db, { userId: revokedUser.id, label: 'revoked', days: 1, audience });
    await revokeAllTokensOf(h.db, revokedUser.id);

    // Another audience (RFC 8707): valid in every other respect.
    const foreign = await mintToken(h.db, { userId: validUserId, label: 'foreign', days: 1, audience: 'http://other.example' });

    // A refresh token is not an access token, although it has the same format and storage.
    const pair = await issueTokenPair(h.db, { userId: validUserId, clientId: 'ledger-cli', audience });

    // A token whose user was removed (tokens cascade with the user).
    const goneUser = await addUser(h.db, 'bearer-gone@example.com', 'correct horse battery staple');
    const orphan = await mintToken(h.db, { userId: goneUser.id, label: 'orphan', days: 1, audience });
    expect((await send(h, 'GET', '/accounts', `Bearer ${orphan}`)).status).toBe(200);
    await removeUser(h.db, 'bearer-gone@example.com');

    refused.set('no Authorization header', undefined);
    refused.set('empty header', '');
    refused.set('"Bearer" alone', 'Bearer');
    refused.set('"Bearer " with nothing after', 'Bearer ');
    refused.set('Basic scheme', 'Basic xxx');
    refused.set('Basic scheme with the valid token', `Basic ${valid}`);
    refused.set('two words after Bearer', 'Bearer a b');
    refused.set('the valid token without a scheme', valid);
    refused.set('the valid token with a character added', `Bearer ${valid}x`);
    refused.set('unknown lg_ token', `Bearer lg_${randomBytes(32).toString('base64url')}`);
    refused.set('the digest of the valid token', `Bearer ${sha256Hex(valid)}`);
    refused.set('expired token', `Bearer ${expired}`);
    refused.set('revoked token', `Bearer ${revoked}`);
    refused.set('token of another audience', `Bearer ${foreign}`);
    refused.set('refresh token', `Bearer ${pair.refresh_token}`);
    refused.set('token of a removed user', `Bearer ${orphan}`);

    // Controls: the same construction, unbroken, is accepted.
    expect((await send(h, 'GET', '/accounts', `Bearer ${pair.access_token}`)).status).toBe(200);
  });

  it('a valid token reaches every ledger route (the control: no 401 anywhere)', async () => {
    for (const [method, path] of LEDGER_ROUTES) {
      // Without a body, so nothing is created here; a write answers 400, not 401.
      const res = await send(h, method, path, `Bearer ${valid}`, method === 'GET' || method === 'DELETE' ? undefined : {});
      expect(res.status, `${method} ${path}`).not.toBe(401);
      expect(res.headers.has('www-authenticate'), `${method} ${path}`).toBe(false);
    }
  });

  it('no credential, a malformed header, an unknown, expired, revoked, foreign-audience or refresh token, or a removed user: the same 401 with the challenge, on every ledger route', async () => {
    expect(refused.size).toBe(16);
    for (const [label, authorization] of refused) {
      for (const [method, path, body] of LEDGER_ROUTES) {
        await expectChallenge(await send(h, method, path, authorization, body), `${label}: ${method} ${path}`);
      }
    }
  });

  it('refused requests change nothing: no account, transaction or settings change, no stamps', async () => {
    const bank = (await (await send(h, 'POST', '/accounts', `Bearer ${valid}`, { name: 'Kept bank', kind: 'asset' })).json()) as { id: number };
    const income = (await (await send(h, 'POST', '/accounts', `Bearer ${valid}`, { name: 'Kept income', kind: 'income' })).json()) as { id: number };
    const created = await send(h, 'POST', '/transactions', `Bearer ${valid}`, {
      occurred_on: '2026-02-01',
      description: 'kept',
      entries: [{ account_id: bank.id, amount_cents: 500 }, { account_id: income.id, amount_cents: -500 }],
    });
    expect(created.status).toBe(201);
    const { id: transactionId } = (await created.json()) as { id: number };
    const stampsBefore = await h.db.select({ hash: tokens.hash, lastUsedAt: tokens.lastUsedAt }).from(tokens).orderBy(tokens.hash);
    const seenBefore = await h.db.select({ id: users.id, lastSeenAt: users.lastSeenAt }).from(users).orderBy(users.id);
    const before = await snapshot(h);
    expect(before.transactions.map((t) => t.id)).toContain(transactionId);

    for (const [label, authorization] of refused) {
      const writes: [string, string, unknown?][] = [
        ['POST', '/accounts', { name: `Refused ${label}`, kind: 'asset' }],
        ['PUT', '/settings', { book_style: 'club' }],
        ['POST', '/transactions', { occurred_on: '2026-02-02', description: `refused ${label}`, entries: [{ account_id: bank.id, amount_cents: 1 }, { account_id: income.id, amount_cents: -1 }] }],
        ['DELETE', `/transactions/${transactionId}`],
      ];
      for (const [method, path, body] of writes) {
        await expectChallenge(await send(h, method, path, authorization, body), `${label}: ${method} ${path}`);
      }
    }
    expect(await snapshot(h)).toEqual(before);
    expect(await h.db.select({ hash: tokens.hash, lastUsedAt: tokens.lastUsedAt }).from(tokens).orderBy(tokens.hash)).toEqual(stampsBefore);
    expect(await h.db.select({ id: users.id, lastSeenAt: users.lastSeenAt }).from(users).orderBy(users.id)).toEqual(seenBefore);
  });

  it('the scheme is case-insensitive: "bearer" and "BEARER" work like "Bearer"', async () => {
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      const res = await send(h, 'GET', '/settings', `${scheme} ${valid}`);
      expect(res.status, scheme).toBe(200);
      expect(await res.json()).toEqual({ book_style: 'personal', currency: 'EUR', closed_through: null });
    }
    const write = await send(h, 'POST', '/accounts', `bearer ${valid}`, { name: 'Lower-case scheme', kind: 'expense' });
    expect(write.status).toBe(201);
  });

  it('D10: no token that was presented appears in any log line', async () => {
    const logged = JSON.stringify(h.logs);
    expect(logged).not.toContain(valid);
    for (const authorization of refused.values()) {
      const token = authorization?.split(' ').at(-1);
      if (token?.startsWith('lg_')) expect(logged).not.toContain(token);
    }
  });
});

describeEachDatabase('tokens are stored only as SHA-256 hex digests (spec: Tokens and codes; Credentials 2; D5)', (h) => {
  it('the raw token is in no column of any table; the hash column is its SHA-256 hex digest', async () => {
    const { token, userId } = await h.userWithToken('digest@example.com');
    // D5: lg_ + base64url of 32 random bytes.
    expect(token).toMatch(/^lg_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token.slice(3), 'base64url')).toHaveLength(32);

    const rows = await h.db.select().from(tokens).where(eq(tokens.userId, userId));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.hash).toBe(sha256Hex(token));
    expect(rows[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]!.kind).toBe('access');
    expect(rows[0]!.audience).toBe('http://localhost:38081');

    // Use it once, so that any stamp or log a request writes is in the database too.
    expect((await h.call(token, 'GET', '/accounts')).status).toBe(200);

    const tables = rowsOf<{ table_name: string }>(
      await h.db.execute(sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`),
    ).map((r) => r.table_name);
    expect(tables).toContain('tokens');
    const secret = token.slice(3);
    for (const table of tables) {
      const found = rowsOf<{ n: number | string }>(
        await h.db.execute(sql`select count(*) as n from ${sql.identifier(table)} t where t::text like ${`%${secret}%`}`),
      );
      expect(Number(found[0]!.n), table).toBe(0);
    }
    // The control for the search: the digest is found where it is stored.
    const digest = rowsOf<{ n: number | string }>(
      await h.db.execute(sql`select count(*) as n from tokens t where t::text like ${`%${sha256Hex(token)}%`}`),
    );
    expect(Number(digest[0]!.n)).toBe(1);
  });
});

describeEachDatabase('usage stamps: last_used_at and last_seen_at are written at most once a minute (README; issue 1/6)', (h) => {
  it('last_used_at is null before use, set by the first authenticated request, not rewritten by a second within a minute', async () => {
    const { token, userId } = await h.userWithToken('stamp@example.com');
    expect((await tokenRow(h, token)).lastUsedAt).toBeNull();
    expect(await lastSeen(h, userId)).toBeNull();

    const [{ now: before }] = rowsOf<{ now: string | Date }>(await h.db.execute(sql`select now() as now`)) as [{ now: string | Date }];
    expect((await h.call(token, 'GET', '/accounts')).status).toBe(200);
    const first = (await tokenRow(h, token)).lastUsedAt;
    const firstSeen = await lastSeen(h, userId);
    expect(first).toBeInstanceOf(Date);
    expect(firstSeen).toBeInstanceOf(Date);
    expect(first!.getTime()).toBeGreaterThanOrEqual(new Date(before).getTime());
    expect(firstSeen!.getTime()).toBeGreaterThanOrEqual(new Date(before).getTime());

    await pause(20);
    expect((await h.call(token, 'GET', '/settings')).status).toBe(200);
    await pause(20);
    expect((await h.call(token, 'POST', '/accounts', { name: 'Stamped', kind: 'asset' })).status).toBe(201);
    expect((await tokenRow(h, token)).lastUsedAt!.getTime()).toBe(first!.getTime());
    expect((await lastSeen(h, userId))!.getTime()).toBe(firstSeen!.getTime());
  });

  it('not rewritten while the stamp is 30 seconds old; rewritten once it is more than a minute old', async () => {
    const { token, userId } = await h.userWithToken('stamp-age@example.com');
    const hash = sha256Hex(token);
    expect((await h.call(token, 'GET', '/accounts')).status).toBe(200);

    await h.db.update(tokens).set({ lastUsedAt: sql`now() - interval '30 seconds'` }).where(eq(tokens.hash, hash));
    await h.db.update(users).set({ lastSeenAt: sql`now() - interval '30 seconds'` }).where(eq(users.id, userId));
    const recent = (await tokenRow(h, token)).lastUsedAt!;
    const recentSeen = (await lastSeen(h, userId))!;
    expect((await h.call(token, 'GET', '/accounts')).status).toBe(200);
    expect((await tokenRow(h, token)).lastUsedAt!.getTime()).toBe(recent.getTime());
    expect((await lastSeen(h, userId))!.getTime()).toBe(recentSeen.getTime());

    await h.db.update(tokens).set({ lastUsedAt: sql`now() - interval '2 minutes'` }).where(eq(tokens.hash, hash));
    await h.db.update(users).set({ lastSeenAt: sql`now() - interval '2 minutes'` }).where(eq(users.id, userId));
    const old = (await tokenRow(h, token)).lastUsedAt!;
    const oldSeen = (await lastSeen(h, userId))!;
    expect((await h.call(token, 'GET', '/accounts')).status).toBe(200);
    const renewed = (await tokenRow(h, token)).lastUsedAt!;
    const renewedSeen = (await lastSeen(h, userId))!;
    expect(renewed.getTime()).toBeGreaterThanOrEqual(old.getTime() + 115_000);
    expect(renewedSeen.getTime()).toBeGreaterThanOrEqual(oldSeen.getTime() + 115_000);

    // And the fresh stamp holds again for the next request.
    await pause(20);
    expect((await h.call(token, 'GET', '/accounts')).status).toBe(200);
    expect((await tokenRow(h, token)).lastUsedAt!.getTime()).toBe(renewed.getTime());
    expect((await lastSeen(h, userId))!.getTime()).toBe(renewedSeen.getTime());
  });

  it('the stamps are per token and per user: using one token leaves the user\'s other tokens unstamped', async () => {
    const { token, userId } = await h.userWithToken('stamp-two@example.com');
    const other = await mintToken(h.db, { userId, label: 'second', days: 1, audience: h.config.apiOrigin });
    const bystander = await h.userWithToken('stamp-bystander@example.com');
    expect((await h.call(token, 'GET', '/accounts')).status).toBe(200);
    expect((await tokenRow(h, token)).lastUsedAt).toBeInstanceOf(Date);
    expect((await tokenRow(h, other)).lastUsedAt).toBeNull();
    expect((await tokenRow(h, bystander.token)).lastUsedAt).toBeNull();
    expect(await lastSeen(h, bystander.userId)).toBeNull();
  });
});

describeEachDatabase('POST /transactions checks its bearer in its own statement (issue 2/7 item 6; D13 unchanged)', (h) => {
  let bank: number;
  let income: number;
  const body = (description: string, cents = 700) => ({
    occurred_on: '2026-03-01',
    description,
    entries: [{ account_id: bank, amount_cents: cents }, { account_id: income, amount_cents: -700 }],
  });

  beforeAll(async () => {
    const { token } = await h.userWithToken('one-statement-setup@example.com');
    bank = ((await (await h.call(token, 'POST', '/accounts', { name: 'One-statement bank', kind: 'asset' })).json()) as { id: number }).id;
    income = ((await (await h.call(token, 'POST', '/accounts', { name: 'One-statement income', kind: 'income' })).json()) as { id: number }).id;
  });

  it('a post by bearer is authored by the token\'s user and stamps the token and the user as the tier did', async () => {
    const { token, userId } = await h.userWithToken('one-statement-author@example.com');
    const res = await h.call(token, 'POST', '/transactions', body('authored'));
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: number };
    const [row] = await h.db.select({ createdBy: transactions.createdBy }).from(transactions).where(eq(transactions.id, id));
    expect(row?.createdBy).toBe(userId);
    expect((await tokenRow(h, token)).lastUsedAt).toBeInstanceOf(Date);
    expect(await lastSeen(h, userId)).toBeInstanceOf(Date);
  });

  it('a refused token is the 401 whatever else is wrong with the request (bad JSON, a bad body, an unbalanced one, an unknown account), and nothing is written or stamped', async () => {
    const { token, userId } = await h.userWithToken('one-statement-refused@example.com');
    await revokeAllTokensOf(h.db, userId);
    const before = await snapshot(h);
    const unknownAccount = { ...body('unknown account'), entries: [{ account_id: 2_000_000, amount_cents: 1 }, { account_id: bank, amount_cents: -1 }] };
    for (const [label, sent] of [
      ['a valid body', body('refused')],
      ['malformed JSON', '{"occurred_on":'],
      ['a body the schema refuses', { description: 'no date' }],
      ['unbalanced entries', body('unbalanced', 701)],
      ['an unknown account', unknownAccount],
    ] as const) {
      await expectChallenge(await h.call(token, 'POST', '/transactions', sent), label);
    }
    expect(await snapshot(h)).toEqual(before);
    expect((await tokenRow(h, token)).lastUsedAt).toBeNull();
    expect(await lastSeen(h, userId)).toBeNull();
  });

  it('a valid token with a refused body is that refusal (400), and the use is stamped as before', async () => {
    const { token, userId } = await h.userWithToken('one-statement-invalid@example.com');
    const before = await snapshot(h);
    const unbalanced = await h.call(token, 'POST', '/transactions', body('unbalanced', 701));
    expect(unbalanced.status).toBe(400);
    expect(await unbalanced.json()).toEqual({ error: 'entries must sum to zero: 2 entries sum to 1' });
    const unknown = await h.call(token, 'POST', '/transactions', {
      ...body('unknown account'),
      entries: [{ account_id: 2_000_000, amount_cents: 1 }, { account_id: bank, amount_cents: -1 }],
    });
    expect(unknown.status).toBe(400);
    expect(await snapshot(h)).toEqual(before);
    expect((await tokenRow(h, token)).lastUsedAt).toBeInstanceOf(Date);
    expect(await lastSeen(h, userId)).toBeInstanceOf(Date);
  });

  it('one statement per post: the database commits one transaction per request, not two', async () => {
    // A database of its own, which nothing else touches while it is counted: the statistics are
    // per database, and the harness's own pool reports its statements whenever it likes.
    const counted = await openTestDatabase(h.backend);
    try {
      const setup = await openPostgres(counted.url);
      const user = await addUser(setup.db, 'one-statement-count@example.com', 'correct horse battery staple');
      const token = await mintToken(setup.db, { userId: user.id, label: null, days: 1, audience: h.config.apiOrigin });
      // Stamps already fresh, so that no request is due to write them (they are once a minute).
      await setup.db.update(tokens).set({ lastUsedAt: sql`now()` }).where(eq(tokens.hash, sha256Hex(token)));
      await setup.db.update(users).set({ lastSeenAt: sql`now()` }).where(eq(users.id, user.id));
      const [from, to] = await setup.db
        .insert(accounts)
        .values([{ name: 'Counted bank', kind: 'asset' }, { name: 'Counted income', kind: 'income' }])
        .returning({ id: accounts.id });
      // Nor may autovacuum's analyze of the tables being written count.
      for (const table of ['transactions', 'entries', 'tokens', 'users']) {
        await setup.db.execute(sql`alter table ${sql.identifier(table)} set (autovacuum_enabled = false)`);
      }
      await setup.close();
      const commits = async () => {
        // A backend reports its statistics when it exits: each reading comes after its pool closed.
        await pause(300);
        const reader = openConnection(counted.url);
        try {
          const [row] = await reader<{ n: string }[]>`select xact_commit::text as n from pg_stat_database where datname = current_database()`;
          return Number(row!.n);
        } finally {
          await reader.end();
        }
      };
      /** Commits during `posts` sequential posts by an app on a pool of its own (connecting included). */
      const commitsOf = async (posts: number) => {
        const before = await commits();
        const own = await openPostgres(counted.url);
        const app = createApp({ db: own.db, config: h.config, log: h.log, now: () => new Date() });
        for (let i = 0; i < posts; i++) {
          const res = await app.request(new URL('/transactions', h.config.apiOrigin).href, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              occurred_on: '2026-03-01',
              description: `counted ${i}`,
              entries: [{ account_id: from!.id, amount_cents: 700 }, { account_id: to!.id, amount_cents: -700 }],
            }),
          });
          expect(res.status).toBe(201);
        }
        await own.close();
        return (await commits()) - before;
      };
      // Connecting, the driver's type lookup and the readers cost the same in both runs; the
      // difference is what 10 more posts cost.
      const ten = await commitsOf(10);
      const twenty = await commitsOf(20);
      expect(twenty - ten).toBe(10);
    } finally {
      await counted.close();
    }
  });
});
