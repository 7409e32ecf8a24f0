import { sql } from 'drizzle-orm';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertTransaction } from '../src/book/transactions';
import { rowsOf, type Db } from '../src/db/database';
import { invalid } from '../src/errors';
import type { AppEnv } from '../src/http/context';
import { answerError } from '../src/http/errors';
import { deleteExpiredIdempotencyKeys, keepAnswer, MAX_KEPT_ANSWERS_PER_USER } from '../src/db/idempotency-keys';
import { route, routeGroup } from '../src/http/route';
import { mintToken } from '../src/identity/tokens';
import { addUser } from '../src/identity/users';
import { openTestDatabase, postgresAvailable, type TestDatabase } from './support/databases';
import { describeEachDatabase } from './support/harness';
import { expectAuthenticationRequired, json } from './support/http';
import { freePort, startServe, type ServeProcess } from './support/processes';

// D21: `Idempotency-Key` on POST /transactions, POST /imports and POST /schedules. The first answer (2xx or 4xx)
// is kept 24 hours per user and key and replayed with `Idempotent-Replayed: true`, writing nothing;
// the key sent with another path or body is 422, while the first still runs 409; a malformed key
// is 400. Kept in the database, in the transaction of the write itself: exact across instances.

const IN_USE = { error: 'a request with this Idempotency-Key is still being processed' };
const CSV_OPTIONS = { date_column: 'Date', description_column: 'Description', amount_column: 'Amount', date_format: 'YYYY-MM-DD', decimal: '.' } as const;

async function countRows(db: Db, table: 'transactions' | 'idempotency_keys' | 'schedules', where = sql`true`): Promise<number> {
  return Number(rowsOf<{ n: string }>(await db.execute(sql`select count(*) as n from ${sql.identifier(table)} where ${where}`))[0]!.n);
}

/** A POST with a bearer token, a JSON body sent as the exact text given, and the key header when given. */
function keyedPost(send: (path: string, init: RequestInit) => Promise<Response>, token: string, path: string, body: string, key?: string): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  if (key !== undefined) headers['idempotency-key'] = key;
  return send(path, { method: 'POST', headers, body });
}

describeEachDatabase('Idempotency-Key (D21)', (h) => {
  let token: string;
  let userId: number;
  const ids: Record<string, number> = {};
  const send = (path: string, init: RequestInit) => h.request(path, init);
  const post = (body: string, key?: string, path = '/transactions') => keyedPost(send, token, path, body, key);
  const transactions = () => countRows(h.db, 'transactions');
  const keysOf = (user: number) => countRows(h.db, 'idempotency_keys', sql`user_id = ${user}`);
  const move = (description: string, cents = 1000, debit = 'Groceries') =>
    JSON.stringify({ occurred_on: '2026-04-01', description, entries: [{ account_id: ids[debit], amount_cents: cents }, { account_id: ids['Bank'], amount_cents: -cents }] });

  beforeAll(async () => {
    ({ token, userId } = await h.userWithToken('keys@idempotency.example'));
    for (const [name, kind] of [['Bank', 'asset'], ['Groceries', 'expense'], ['Suspense', 'expense']] as const) {
      ids[name] = (await json(await h.call(token, 'POST', '/accounts', { name, kind }))).id;
    }
  });

  it('a repeat of the same POST /transactions gets the same 201 and body with Idempotent-Replayed: true, and writes nothing', async () => {
    const before = await transactions();
    const first = await post(move('once only'), '"retry-1"');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const body = await first.text();
    for (let i = 0; i < 2; i++) {
      const again = await post(move('once only'), '"retry-1"');
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await again.text()).toBe(body);
    }
    expect(await transactions()).toBe(before + 1);
    const [kept] = rowsOf<{ method: string; path: string; status: number; hours: number }>(
      await h.db.execute(sql`select method, path, status, (extract(epoch from expires_at - created_at) / 3600)::float8 as hours from idempotency_keys where user_id = ${userId} and key = 'retry-1'`),
    );
    expect(kept).toEqual({ method: 'POST', path: '/transactions', status: 201, hours: expect.closeTo(24, 2) });
  });

  it('without the header every POST writes (the key is the only thing that dedupes)', async () => {
    const before = await transactions();
    expect((await post(move('no key'))).status).toBe(201);
    expect((await post(move('no key'))).status).toBe(201);
    expect(await transactions()).toBe(before + 2);
  });

  it('a 4xx first answer is kept and replayed too: an unbalanced post, and an unknown account (a statement the database refused)', async () => {
    const unbalanced = JSON.stringify({ occurred_on: '2026-04-01', description: 'lopsided', entries: [{ account_id: ids['Bank'], amount_cents: 5 }, { account_id: ids['Groceries'], amount_cents: 4 }] });
    const unknown = JSON.stringify({ occurred_on: '2026-04-01', description: 'nowhere', entries: [{ account_id: 999999, amount_cents: 5 }, { account_id: ids['Groceries'], amount_cents: -5 }] });
    const before = await transactions();
    for (const [body, key] of [[unbalanced, 'refused-1'], [unknown, 'refused-2']] as const) {
      const first = await post(body, key);
      expect(first.status, body).toBe(400);
      const text = await first.text();
      expect(JSON.parse(text).error).toMatch(/./);
      const again = await post(body, key);
      expect(again.status).toBe(400);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await again.text()).toBe(text);
    }
    expect(await countRows(h.db, 'idempotency_keys', sql`key in ('refused-1', 'refused-2') and status = 400`)).toBe(2);
    // The key answered its request: a corrected body needs a new key.
    const corrected = await post(move('corrected'), 'refused-1');
    expect(corrected.status).toBe(422);
    expect(await transactions()).toBe(before);
  });

  it('the same key with another body, another path or another query is 422 {error}, and nothing is written', async () => {
    expect((await post(move('first body'), 'reuse-1')).status).toBe(201);
    const before = await transactions();
    const otherBody = await post(move('other body'), 'reuse-1');
    expect(otherBody.status).toBe(422);
    expect(await json(otherBody)).toEqual({ error: 'this Idempotency-Key was first sent with another body' });
    // Byte for byte: the same JSON with a space more is another body.
    expect((await post(move('first body').replace('{', '{ '), 'reuse-1')).status).toBe(422);
    const otherQuery = await post(move('first body'), 'reuse-1', '/transactions?again=1');
    expect(otherQuery.status).toBe(422);
    expect(await json(otherQuery)).toEqual({ error: 'this Idempotency-Key was first sent with another path' });
    const otherPath = await post(JSON.stringify({ account_id: ids['Bank'], format: 'csv', content: 'Date,Description,Amount\n', unmatched_account_id: ids['Suspense'], csv: CSV_OPTIONS }), 'reuse-1', '/imports');
    expect(otherPath.status).toBe(422);
    expect(await json(otherPath)).toEqual({ error: 'this Idempotency-Key was first sent with another path' });
    expect(await transactions()).toBe(before);
  });

  it('keys are per user: two users sending one key both write', async () => {
    const other = await h.userWithToken('other@idempotency.example');
    const before = await transactions();
    const mine = await post(move('shared key'), 'shared-1');
    const theirs = await keyedPost(send, other.token, '/transactions', move('shared key'), 'shared-1');
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect((await json(mine)).id).not.toBe((await json(theirs)).id);
    expect(await transactions()).toBe(before + 2);
    expect(await keysOf(other.userId)).toBe(1);
  });

  it('after 24 hours the key is free again: the expired answer is deleted and the request runs anew; the cleanup deletes expired ones', async () => {
    const first = await json(await post(move('expiring'), 'expiring-1'));
    await h.db.execute(sql`update idempotency_keys set expires_at = now() - interval '1 minute' where user_id = ${userId} and key = 'expiring-1'`);
    const before = await transactions();
    const anew = await post(move('expiring'), 'expiring-1');
    expect(anew.status).toBe(201);
    expect(anew.headers.get('idempotent-replayed')).toBeNull();
    expect((await json(anew)).id).not.toBe(first.id);
    expect(await transactions()).toBe(before + 1);
    expect((await post(move('expiring'), 'expiring-1')).headers.get('idempotent-replayed')).toBe('true');

    expect((await post(move('stale'), 'stale-1')).status).toBe(201);
    await h.db.execute(sql`update idempotency_keys set expires_at = now() - interval '1 second' where user_id = ${userId} and key = 'stale-1'`);
    const live = await countRows(h.db, 'idempotency_keys', sql`expires_at > now()`);
    expect(await deleteExpiredIdempotencyKeys(h.db)).toBe(1);
    expect(await countRows(h.db, 'idempotency_keys', sql`key = 'stale-1'`)).toBe(0);
    expect(await countRows(h.db, 'idempotency_keys')).toBe(live);
  });

  it('issue 36 item 5 (D21): at most 10,000 answers are kept per user; the one past it drops the oldest, down to 9,000, and keeps the newest', async () => {
    const heavy = await h.userWithToken('heavy@idempotency.example');
    // 10,000 kept 400s, a millisecond apart, oldest first: as if one client sent a new key with each.
    await h.db.execute(sql`
      insert into idempotency_keys (user_id, key, method, path, body_sha256, status, content_type, body, created_at, expires_at)
      select ${heavy.userId}, 'old-' || i, 'POST', '/transactions', md5(i::text), 400, 'application/json', '{"error":"…"}',
             now() - interval '1 hour' + i * interval '1 millisecond', now() + interval '23 hours' + i * interval '1 millisecond'
      from generate_series(1, ${MAX_KEPT_ANSWERS_PER_USER}) i`);
    const othersBefore = await countRows(h.db, 'idempotency_keys', sql`user_id <> ${heavy.userId}`);
    expect(await keysOf(heavy.userId)).toBe(MAX_KEPT_ANSWERS_PER_USER);
    const res = await keyedPost(send, heavy.token, '/transactions', move('past the cap'), 'new-1');
    expect(res.status).toBe(201);
    expect(await keysOf(heavy.userId)).toBe(9_000);
    // The 9,000 newest stay: the one just kept, and old-1002 … old-10000; old-1 … old-1001 went.
    const kept = rowsOf<{ key: string }>(await h.db.execute(sql`select key from idempotency_keys where user_id = ${heavy.userId} and key in ('new-1', 'old-1', 'old-1001', 'old-1002', 'old-10000')`));
    expect(kept.map((r) => r.key).sort()).toEqual(['new-1', 'old-10000', 'old-1002']);
    expect((await keyedPost(send, heavy.token, '/transactions', move('past the cap'), 'new-1')).headers.get('idempotent-replayed')).toBe('true');
    // Other users' answers are theirs: untouched.
    expect(await countRows(h.db, 'idempotency_keys', sql`user_id <> ${heavy.userId}`)).toBe(othersBefore);
  });

  it('issue 36 item 5 (D21): the cap holds answer by answer, the oldest going first (a cap of 5 given to keepAnswer)', async () => {
    const small = await h.userWithToken('small-cap@idempotency.example');
    const keyed = (key: string) => ({ userId: small.userId, key, method: 'POST', path: '/transactions', bodySha256: key });
    const answer = { status: 400, contentType: 'application/json', body: '{}' };
    const keysNow = async () => rowsOf<{ key: string }>(await h.db.execute(sql`select key from idempotency_keys where user_id = ${small.userId}`)).map((r) => r.key).sort();
    for (let i = 1; i <= 8; i++) {
      // One transaction each, as each keyed request is; created_at (now()) differs between them.
      await h.db.transaction((tx) => keepAnswer(tx, keyed(`k${i}`), answer, 5));
    }
    expect(await keysNow()).toEqual(['k4', 'k5', 'k6', 'k7', 'k8']);
  });

  it('a malformed key is 400 {error} saying what is wrong, and nothing is run or kept', async () => {
    const before = [await transactions(), await keysOf(userId)];
    for (const [key, message] of [
      ['""', 'Idempotency-Key is empty: it must hold 1 to 255 characters'],
      ['', 'Idempotency-Key is empty: it must hold 1 to 255 characters'],
      ['a'.repeat(256), 'Idempotency-Key holds 256 characters: at most 255'],
      [`"${'a'.repeat(256)}"`, 'Idempotency-Key holds 256 characters: at most 255'],
      ['"clé"', 'Idempotency-Key may hold only visible ASCII characters (! to ~): no spaces, control characters or non-ASCII letters'],
      ['a\u0001b', 'Idempotency-Key may hold only visible ASCII characters (! to ~): no spaces, control characters or non-ASCII letters'],
      ['"a\tb"', 'Idempotency-Key may hold only visible ASCII characters (! to ~): no spaces, control characters or non-ASCII letters'],
      ['a b', 'Idempotency-Key may hold only visible ASCII characters (! to ~): no spaces, control characters or non-ASCII letters'],
      ['"open', 'Idempotency-Key must be one quoted string ("…", with \\" and \\\\ escaped inside) or a bare value'],
      ['"a", "b"', 'Idempotency-Key must be one quoted string ("…", with \\" and \\\\ escaped inside) or a bare value'],
      ['"a\\b"', 'Idempotency-Key must be one quoted string ("…", with \\" and \\\\ escaped inside) or a bare value'],
    ]) {
      const res = await post(move('malformed key'), key);
      expect(res.status, JSON.stringify(key)).toBe(400);
      expect(await json(res), JSON.stringify(key)).toEqual({ error: message });
    }
    expect([await transactions(), await keysOf(userId)]).toEqual(before);
    // The longest key there may be is taken.
    expect((await post(move('longest key'), `"${'z'.repeat(255)}"`)).status).toBe(201);
  });

  it('a quoted key and its bare value are one key; escapes inside quotes are undone', async () => {
    const before = await transactions();
    const quoted = await post(move('quoted'), '"both-ways"');
    const bare = await post(move('quoted'), 'both-ways');
    expect([quoted.status, bare.status]).toEqual([201, 201]);
    expect(bare.headers.get('idempotent-replayed')).toBe('true');
    const escaped = await post(move('escaped'), '"say-\\"hi\\""');
    const plain = await post(move('escaped'), 'say-"hi"');
    expect([escaped.status, plain.status]).toEqual([201, 201]);
    expect(plain.headers.get('idempotent-replayed')).toBe('true');
    expect(await transactions()).toBe(before + 2);
  });

  it('20 parallel requests with one key: exactly one transaction; every other answer is a replay of that 201 or 409 {error}', async () => {
    const before = await transactions();
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(move('parallel'), 'parallel-1')));
    expect(await transactions()).toBe(before + 1);
    const bodies = await Promise.all(answers.map(async (r) => ({ status: r.status, replayed: r.headers.get('idempotent-replayed'), body: await json(r) })));
    const originals = bodies.filter((b) => b.status === 201 && b.replayed === null);
    expect(originals).toHaveLength(1);
    for (const b of bodies) {
      if (b.status === 201) expect(b.body).toEqual(originals[0]!.body);
      else expect(b).toEqual({ status: 409, replayed: null, body: IN_USE });
    }
    const replay = await post(move('parallel'), 'parallel-1');
    expect(await json(replay)).toEqual(originals[0]!.body);
  });

  it('POST /imports with a key books the statement once; the repeat replays its 201', async () => {
    const statement = JSON.stringify({
      account_id: ids['Bank'], format: 'csv', unmatched_account_id: ids['Suspense'], csv: CSV_OPTIONS,
      content: 'Date,Description,Amount\n2026-05-02,Hall rent,-120.00\n2026-05-03,Dues Sam,30.00\n',
    });
    const before = await transactions();
    const first = await post(statement, 'import-1', '/imports');
    expect(first.status).toBe(201);
    const body = await json(first);
    expect(body.created).toHaveLength(2);
    const again = await post(statement, 'import-1', '/imports');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(again)).toEqual(body);
    expect(await transactions()).toBe(before + 2);
    // Without the key the same file is recognised as duplicates (D16): the replay above is not that.
    expect((await json(await post(statement, undefined, '/imports'))).duplicates).toEqual([2, 3]);
  });

  it('POST /schedules with a key makes the schedule once; the repeat replays its 201', async () => {
    const schedule = JSON.stringify({
      description: 'Rent', start_on: '2030-01-01', every: 'month', mode: 'remind',
      entries: [{ account_id: ids['Groceries'], amount_cents: 500 }, { account_id: ids['Bank'], amount_cents: -500 }],
    });
    const count = () => countRows(h.db, 'schedules');
    const before = await count();
    const first = await post(schedule, 'schedule-1', '/schedules');
    expect(first.status, await first.clone().text()).toBe(201);
    const again = await post(schedule, 'schedule-1', '/schedules');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(again)).toEqual(await json(first));
    expect(await count()).toBe(before + 1);
  });

  it('a bearer POST /transactions with a key authenticates first: an invalid token is 401 and nothing is kept or written', async () => {
    const before = [await transactions(), await countRows(h.db, 'idempotency_keys')];
    const bad = await keyedPost(send, 'lg_not-a-token', '/transactions', move('intruder'), 'intruder-1');
    await expectAuthenticationRequired(bad);
    // A malformed key does not come before the tier: still the 401 (D13).
    await expectAuthenticationRequired(await keyedPost(send, 'lg_not-a-token', '/transactions', move('intruder'), '""'));
    expect([await transactions(), await countRows(h.db, 'idempotency_keys')]).toEqual(before);
    // The same key of a real caller is untouched by the refused attempt.
    expect((await post(move('intruder'), 'intruder-1')).headers.get('idempotent-replayed')).toBeNull();
  });

  it('a cookie-less bearer post with a key is the full tier: the change record names the caller and their client', async () => {
    const res = await post(move('authored'), 'authored-1');
    const { id } = await json(res);
    const [change] = rowsOf<{ actor_email: string; via: string }>(await h.db.execute(sql`select actor_email, via from changes where subject = 'transaction' and subject_id = ${id}`));
    expect(change).toEqual({ actor_email: 'keys@idempotency.example', via: 'token' });
  });

  it('/openapi.json documents the header, its 400, 409 and 422, and Idempotent-Replayed on the keyed routes only', async () => {
    const doc = await json(await h.call(token, 'GET', '/openapi.json'));
    for (const [path, method] of [['/transactions', 'post'], ['/imports', 'post']] as const) {
      const op = doc.paths[path][method];
      expect(op.parameters, `${method} ${path}`).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }));
      expect(op.responses['409'].description).toContain('still running');
      expect(op.responses['422'].description).toContain('Idempotency-Key');
      expect(op.responses['400'].description).toContain('malformed `Idempotency-Key`');
      expect(op.responses['201'].headers['Idempotent-Replayed']).toEqual(expect.objectContaining({ required: false }));
      expect(op.responses['401'].headers['Idempotent-Replayed']).toBeUndefined();
    }
    const unkeyed = doc.paths['/imports/preview'].post;
    expect(unkeyed.parameters ?? []).not.toContainEqual(expect.objectContaining({ name: 'Idempotency-Key' }));
  });

  describe('the keyed transaction (src/http/idempotency.ts): a refusal undoes the handler\'s writes but is kept; a 5xx keeps nothing', () => {
    let probe: Hono<AppEnv>;
    let author: { userId: number; email: string; via: 'token'; clientId: null };
    const probeRequest = (what: string, key: string) =>
      keyedPost((path, init) => Promise.resolve(probe.request(new URL(path, h.config.apiOrigin).href, init)), token, `/probe/${what}`, move(what), key);

    beforeAll(() => {
      author = { userId, email: 'keys@idempotency.example', via: 'token', clientId: null };
      /** A route that writes a transaction, then ends as its path says. */
      const probeRoute = (what: string, end: (c: Parameters<Parameters<typeof route>[2]>[0]) => Response | Promise<Response>) =>
        route({ method: 'post', path: `/probe/${what}`, tier: 'full', summary: what, responses: {} }, { idempotent: true }, async (c) => {
          await insertTransaction(c.var.db, JSON.parse(await c.req.text()), author);
          return end(c);
        });
      probe = new Hono<AppEnv>();
      probe.use(async (c, next) => {
        c.set('db', h.db);
        c.set('config', h.config);
        c.set('log', h.log);
        await next();
      });
      probe.route('/probe', routeGroup('/probe', [
        probeRoute('refusal', () => { throw invalid('refused after writing'); }),
        probeRoute('fault', () => { throw new Error('a bug'); }),
        probeRoute('fault-answered', (c) => c.json({ error: 'broken' }, 503)),
        probeRoute('unbalanced', async (c) => {
          await insertTransaction(c.var.db, { occurred_on: '2026-04-01', description: 'lopsided', entries: [{ account_id: ids['Bank']!, amount_cents: 1 }, { account_id: ids['Groceries']!, amount_cents: 1 }] }, author);
          return c.json({ ok: true }, 201);
        }),
      ]));
      probe.onError(answerError);
    });

    it('a thrown refusal after a write: 400 kept and replayed, the write undone', async () => {
      const before = await transactions();
      const first = await probeRequest('refusal', 'probe-1');
      expect(first.status).toBe(400);
      expect(await json(first)).toEqual({ error: 'refused after writing' });
      expect((await probeRequest('refusal', 'probe-1')).headers.get('idempotent-replayed')).toBe('true');
      expect(await transactions()).toBe(before);
    });

    it('a 5xx (thrown or answered) after a write: nothing written, nothing kept, the key free', async () => {
      const before = [await transactions(), await keysOf(userId)];
      for (const what of ['fault', 'fault-answered']) {
        const res = await probeRequest(what, `probe-${what}`);
        expect(res.status, what).toBe(what === 'fault' ? 500 : 503);
        expect((await probeRequest(what, `probe-${what}`)).headers.get('idempotent-replayed'), what).toBeNull();
      }
      expect([await transactions(), await keysOf(userId)]).toEqual(before);
    });

    it('a deferred check (the balance trigger) refuses before the answer is kept: its 400 is kept, nothing written', async () => {
      const before = await transactions();
      const first = await probeRequest('unbalanced', 'probe-deferred');
      expect(first.status).toBe(400);
      const again = await probeRequest('unbalanced', 'probe-deferred');
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await again.json()).toEqual(await first.json());
      expect(await transactions()).toBe(before);
    });
  });
});

/** `ledger serve` (the built server) on the shared database; each instance binds a port of its own. */
async function startInstance(databaseUrl: string): Promise<ServeProcess> {
  const port = await freePort();
  return startServe({ env: { DATABASE_URL: databaseUrl, BIND_ADDR: `127.0.0.1:${port}`, WEB_BIND_ADDR: 'off', API_ORIGIN: 'http://localhost:38081' } });
}

describe.skipIf(!postgresAvailable())('Idempotency-Key across two instances on one PostgreSQL (D21, D10)', () => {
  let database: TestDatabase;
  let instances: ServeProcess[];
  let token: string;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    database = await openTestDatabase('postgres');
    const user = await addUser(database.db, 'two@idempotency.example', 'a password for two instances');
    token = await mintToken(database.db, { userId: user.id, label: null, days: 1, audience: 'http://localhost:38081' });
    instances = await Promise.all([startInstance(database.url), startInstance(database.url)]);
    for (const [name, kind] of [['Bank', 'asset'], ['Groceries', 'expense']] as const) {
      const res = await fetch(`${instances[0]!.url}/accounts`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name, kind }) });
      ids[name] = (await json(res)).id;
    }
  }, 90_000);

  afterAll(async () => {
    await Promise.all((instances ?? []).map((i) => i.stop()));
    await database?.close();
  });

  it('20 parallel requests with one key, spread over both instances: exactly one transaction', async () => {
    const body = JSON.stringify({ occurred_on: '2026-04-01', description: 'two instances', entries: [{ account_id: ids['Groceries'], amount_cents: 700 }, { account_id: ids['Bank'], amount_cents: -700 }] });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => keyedPost((path, init) => fetch(`${instances[n % 2]!.url}${path}`, init), token, '/transactions', body, '"two-instances-1"')),
    );
    const outcomes = await Promise.all(answers.map(async (r) => ({ status: r.status, replayed: r.headers.get('idempotent-replayed'), body: await json(r) })));
    expect(await countRows(database.db, 'transactions')).toBe(1);
    const originals = outcomes.filter((o) => o.status === 201 && o.replayed === null);
    expect(originals).toHaveLength(1);
    for (const o of outcomes) {
      if (o.status === 201) expect(o.body).toEqual(originals[0]!.body);
      else expect(o).toEqual({ status: 409, replayed: null, body: IN_USE });
    }
    // The answer kept by one instance is replayed by the other.
    for (const instance of instances) {
      const again = await keyedPost((path, init) => fetch(`${instance.url}${path}`, init), token, '/transactions', body, 'two-instances-1');
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await json(again)).toEqual(originals[0]!.body);
    }
    expect(await countRows(database.db, 'transactions')).toBe(1);
  }, 60_000);
});
