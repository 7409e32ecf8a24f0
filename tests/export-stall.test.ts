import net from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { sql } from 'drizzle-orm';
import type postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openConnection } from '../src/db/database';
import { EXPORT_IDLE_MS, EXPORT_SLOTS } from '../src/http/export-budget';
import { describeEachDatabase } from './support/harness';

// Issue 26 item 1: unread export downloads must not stall the service. The app is served over real
// TCP on loopback (app.request has no back-pressure): 12 clients send GET /export/transactions.csv
// on a book of ~6 MB of CSV and never read (paused sockets, small read buffers), then 50 ordinary
// requests (GET /accounts, and POST /auth/login with a wrong password) must each answer within a
// few seconds, and the stalled downloads' database connections must be given back.

const READERS = 12;
const ORDINARY = 50;
const ANSWER_MS = 5_000;
const TRANSACTIONS = 17_000; // three entries each, ~120 bytes a row: ~6 MB of CSV

describeEachDatabase('unread export downloads do not stall the service (issue 26 item 1)', (h) => {
  let token: string;
  let server: ServerType;
  let origin: string;
  let monitor: postgres.Sql;
  const sockets: net.Socket[] = [];

  /** Connections of this database doing something (a cursor held open counts), the monitor's own query included. */
  /** The service's connections at work (client backends only: an autovacuum worker on the database is not one of ours). */
  async function busyConnections(): Promise<number> {
    const [row] = await monitor<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
      where state <> 'idle' and datname = current_database() and backend_type = 'client backend'`;
    return row!.n;
  }

  beforeAll(async () => {
    ({ token } = await h.userWithToken('stall@example.com'));
    const ids: number[] = [];
    for (const [name, kind] of [['Bank', 'asset'], ['Food', 'expense'], ['Rent', 'expense']] as const) {
      ids.push((await (await h.call(token, 'POST', '/accounts', { name, kind })).json()).id);
    }
    await h.db.execute(sql`
      with headers as (
        insert into transactions (occurred_on, description)
        select date '2025-01-01' + (g % 300), 'a description long enough to make every row of the export weigh more ' || g
        from generate_series(1, ${TRANSACTIONS}::int) g
        returning id, occurred_on
      )
      insert into entries (transaction_id, occurred_on, account_id, amount_cents)
      select h.id, h.occurred_on, a.account_id, a.amount from headers h
      cross join lateral (values (${ids[0]!}::int, -300), (${ids[1]!}::int, 100), (${ids[2]!}::int, 200)) as a(account_id, amount)`);
    monitor = openConnection(h.database.url, {}, h.backend === 'embedded' ? 'embedded' : 'postgres');
    await new Promise<void>((resolve) => {
      server = serve({ fetch: h.app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
        origin = `http://127.0.0.1:${info.port}`;
        resolve();
      });
    });
  }, 60_000);

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    if (server) {
      if ('closeAllConnections' in server) server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await monitor?.end();
  });

  it('HEAD of a download is its headers alone and holds no export slot: many HEADs, then the downloads still answer 200', async () => {
    for (const path of ['/export/transactions.csv', '/export/receipts.zip', '/export/changes.csv', '/transactions']) {
      for (let i = 0; i < 4; i++) {
        const head = await h.request(path, { method: 'HEAD', headers: { authorization: `Bearer ${token}` } });
        expect(head.status, `HEAD ${path}`).toBe(200);
        expect(await head.text()).toBe('');
      }
    }
    const csv = await h.call(token, 'GET', '/export/transactions.csv');
    expect(csv.status).toBe(200);
    await csv.arrayBuffer();
  });

  it('12 stalled readers: 50 ordinary requests answer in time, and the readers\' connections are freed', async () => {
    const idleBefore = await busyConnections();
    const port = Number(new URL(origin).port);
    const answers: string[] = [];
    for (let i = 0; i < READERS; i++) {
      const socket = net.connect({ host: '127.0.0.1', port, readableHighWaterMark: 1024 } as net.NetConnectOpts);
      sockets.push(socket);
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      socket.on('error', () => {});
      socket.write(`GET /export/transactions.csv HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
      socket.pause();
      // The first bytes tell a download (200) from a refusal (503); the rest is never read.
      socket.once('readable', () => {
        const head = socket.read(12) as Buffer | null;
        answers.push(head ? head.toString('latin1') : '');
        socket.pause();
      });
    }
    // Let the downloads fill the socket buffers and block on back-pressure.
    await new Promise((r) => setTimeout(r, 2_000));
    const whileStalled = await busyConnections();
    const stalledActivity = await monitor<{ state: string; query: string }[]>`
      select state, left(regexp_replace(query, '\s+', ' ', 'g'), 80) as query from pg_stat_activity
      where state <> 'idle' and datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()`;

    const started = performance.now();
    const timed = async (what: string, request: () => Promise<Response>): Promise<{ what: string; status: number | string; ms: number }> => {
      const t = performance.now();
      try {
        const res = await request();
        await res.arrayBuffer();
        return { what, status: res.status, ms: performance.now() - t };
      } catch (error) {
        return { what, status: (error as Error).name, ms: performance.now() - t };
      }
    };
    const results = await Promise.all(
      Array.from({ length: ORDINARY }, (_, i) =>
        i % 5 === 4
          ? timed('login', () =>
              fetch(`${origin}/auth/login`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ email: `nobody-${i}@example.com`, password: 'not the password at all' }),
                signal: AbortSignal.timeout(ANSWER_MS),
              }),
            )
          : timed('accounts', () => fetch(`${origin}/accounts`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(ANSWER_MS) })),
      ),
    );
    const elapsed = performance.now() - started;
    console.info(`[${h.backend}] 50 ordinary requests beside ${READERS} stalled readers: ${Math.round(elapsed)} ms, slowest ${Math.round(Math.max(...results.map((r) => r.ms)))} ms; busy connections before ${idleBefore}, while stalled ${whileStalled}; reader answers ${answers.map((a) => a.slice(9, 12)).join(',')}`);
    expect(results.filter((r) => r.status !== (r.what === 'login' ? 401 : 200))).toEqual([]);
    expect(elapsed).toBeLessThan(ANSWER_MS);

    // Exports hold at most their budget while they stall, and give it back once cut.
    expect(whileStalled - idleBefore, JSON.stringify(stalledActivity)).toBeLessThanOrEqual(EXPORT_SLOTS);
    const deadline = Date.now() + EXPORT_IDLE_MS + 10_000;
    let now = await busyConnections();
    while (now > idleBefore && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      now = await busyConnections();
    }
    expect(now).toBeLessThanOrEqual(idleBefore);
    // The cut downloads' responses are ended: their sockets are closed by the server.
    await new Promise((r) => setTimeout(r, 500));
    const downloads = answers.filter((a) => a.startsWith('HTTP/1.1 200')).length;
    expect(downloads).toBeLessThanOrEqual(EXPORT_SLOTS);
    expect(answers.filter((a) => a.startsWith('HTTP/1.1 503'))).toHaveLength(READERS - downloads);
  }, 50_000);
});
