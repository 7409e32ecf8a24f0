/**
 * Issue 31 item 4: GET /transactions over a month of a 100,000-transaction book (~4,000
 * transactions a month: the book spans 750 days), and the whole book streamed.
 *
 *   npm run bench:list        (after `npm run build`: it runs `ledger serve`)
 *
 * - the month at 8 connections (autocannon): req/s, p50/p99, the server's CPU and the database's
 *   (the bench database's backends only) per request; then the same at 1 connection (SECONDS / 2);
 * - the month without the HTTP server, before against after in alternating pairs at the same
 *   concurrency (BENCH_PAIR_ROUNDS rounds of BENCH_PAIR_SECONDS each, default 4 × 3 s): the
 *   statement the route ran before (the JSON written by PostgreSQL, one text, with a correlated
 *   subquery per transaction) issued directly with postgres.js, and the list as the route reads it
 *   now (listTransactionsJson, in this process); the same bytes checked first; p50, the database's
 *   CPU and this process's per request, the median of the rounds;
 * - the whole book, one request at a time (3 runs): time to the first byte, to the last, its size,
 *   and the server's peak RSS during it above its RSS before (VmHWM reset through clear_refs), to
 *   show memory does not grow with the book.
 *
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/ledger_bench_list) is dropped and
 * created afresh; BENCH_SECONDS (default 8). Writes bench-results/bench-list.json.
 */
import autocannon from 'autocannon';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { startServe } from './bench-serve';
import { measureBackends } from './bench-backends';
import { recreateDatabase } from './bench-database';
import { openConnection, openPostgres } from '../src/db/database';
import { freePort } from '../src/db/embedded';
import { mintToken } from '../src/identity/tokens';
import { addUser } from '../src/identity/users';
import { listTransactionsJson } from '../src/book/transactions';

const url = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ledger_bench_list');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const BOOK = 100_000;
const DAYS = 750;
const MONTH = { from: '2025-03-01', to: '2025-03-30' };
const CONNECTIONS = 8;
const PAIR_ROUNDS = Number(process.env.BENCH_PAIR_ROUNDS ?? 4);
const PAIR_SECONDS = Number(process.env.BENCH_PAIR_SECONDS ?? 3);

function cpuMicrosOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / 100) * 1e6;
}

function statusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
}


/** The statement GET /transactions ran before issue 31: PostgreSQL writes the whole list as one JSON text. */
const BEFORE = `
  select coalesce(json_agg(json_build_object(
    'id', t.id, 'occurred_on', t.occurred_on, 'description', t.description,
    'created_by_email', u.email, 'entries', coalesce((
      select json_agg(json_build_object('account_id', e.account_id, 'account_name', a.name, 'amount_cents', e.amount_cents) order by e.id)
      from entries e join accounts a on a.id = e.account_id
      where e.transaction_id = t.id
    ), '[]'::json)) order by t.occurred_on desc, t.id desc), '[]'::json)::text as list
  from (
    select * from transactions
    where occurred_on >= coalesce($1::date, '-infinity'::date) and occurred_on <= coalesce($2::date, 'infinity'::date)
    order by occurred_on desc, id desc
    limit $3::integer
  ) t left join users u on u.id = t.created_by`;

async function main(): Promise<void> {
  await recreateDatabase(url);
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const database = await openPostgres(url.href);
  const user = await addUser(database.db, 'bench@example.com', 'a bench password');
  const token = await mintToken(database.db, { userId: user.id, label: 'bench', days: 1, audience: base });
  await database.close();

  const sql = openConnection(url.href);
  for (const [name, kind] of [['Bank', 'asset'], ['Cash', 'asset'], ['Salary', 'income'], ['Food', 'expense'], ['Rent', 'expense']]) {
    await sql`insert into accounts (name, kind) values (${name!}, ${kind!}::account_kind)`;
  }
  const accounts = (await sql<{ id: number }[]>`select id from accounts order by id`).map((r) => r.id);
  await sql.begin(async (tx) => {
    await tx`
      with headers as (
        insert into transactions (occurred_on, description, created_by)
        select date '2024-06-01' + (g % ${DAYS}::int), 'book ' || g, ${user.id}::int from generate_series(1, ${BOOK}::int) g
        returning id, occurred_on
      )
      insert into entries (transaction_id, occurred_on, account_id, amount_cents)
      select h.id, h.occurred_on, a.account_id, a.amount from headers h
      cross join lateral (values ((${accounts}::int[])[1], 1000), ((${accounts}::int[])[4], -1000)) as a(account_id, amount)`;
  });
  await sql`vacuum analyze`;
  const [{ month }] = (await sql<{ month: number }[]>`
    select count(*)::int as month from transactions where occurred_on between ${MONTH.from}::date and ${MONTH.to}::date`) as unknown as [{ month: number }];

  const { child: server } = await startServe(port, url.href, 'bench-results/serve-list.log');
  const admin = openConnection(url.href);
  const databaseName = url.pathname.slice(1);
  const auth = { authorization: `Bearer ${token}` };
  const report: Record<string, unknown> = { book: BOOK, month_transactions: month, connections: CONNECTIONS, seconds: SECONDS };
  try {
    // The month through the route.
    const monthUrl = `${base}/transactions?from=${MONTH.from}&to=${MONTH.to}`;
    const sample = await fetch(monthUrl, { headers: auth });
    const monthBytes = (await sample.arrayBuffer()).byteLength;
    const serverBefore = cpuMicrosOf(server.pid!);
    const route = await measureBackends(admin, databaseName, false, () =>
      autocannon({ url: monthUrl, headers: auth, connections: CONNECTIONS, duration: SECONDS }),
    );
    const requests = Math.max(1, route.result.requests.total);
    report.month = {
      bytes: monthBytes,
      requests_per_second: Math.round(route.result.requests.average),
      p50_ms: route.result.latency.p50,
      p99_ms: route.result.latency.p99,
      non_2xx: route.result.non2xx,
      server_cpu_ms_per_request: Number(((cpuMicrosOf(server.pid!) - serverBefore) / requests / 1000).toFixed(2)),
      database_cpu_ms_per_request: Number((route.backendMicros / requests / 1000).toFixed(2)),
      load_average: loadavg().map((l) => Number(l.toFixed(2))),
    };
    // The month one request at a time: what a request takes when it waits for no other (on a
    // machine with a core for each connection, the p50 at 8 connections comes near it).
    {
      const serverBefore1 = cpuMicrosOf(server.pid!);
      const alone = await measureBackends(admin, databaseName, false, () =>
        autocannon({ url: monthUrl, headers: auth, connections: 1, duration: Math.max(2, SECONDS / 2) }),
      );
      const requests1 = Math.max(1, alone.result.requests.total);
      report.month_one_connection = {
        p50_ms: alone.result.latency.p50,
        p99_ms: alone.result.latency.p99,
        requests_per_second: Math.round(alone.result.requests.average),
        server_cpu_ms_per_request: Number(((cpuMicrosOf(server.pid!) - serverBefore1) / requests1 / 1000).toFixed(2)),
        database_cpu_ms_per_request: Number((alone.backendMicros / requests1 / 1000).toFixed(2)),
        load_average: loadavg().map((l) => Number(l.toFixed(2))),
      };
    }
    // Before against after, without the HTTP server, in alternating pairs (the machine's load
    // changes from one minute to the next): the statement of before straight from postgres.js, and
    // the list as the route reads it now (listTransactionsJson in this process, its own pool), each
    // at the same concurrency for PAIR_SECONDS, PAIR_ROUNDS times; medians of the rounds.
    const pool = openConnection(url.href, { max: CONNECTIONS });
    const after = await openPostgres(url.href, { max: CONNECTIONS });
    const variants: [string, () => Promise<unknown>][] = [
      ['before', () => pool.unsafe(BEFORE, [MONTH.from, MONTH.to, null], { prepare: true })],
      ['after', () => listTransactionsJson(after.db, MONTH)],
    ];
    const expected = await listTransactionsJson(after.db, MONTH);
    const [{ list }] = (await pool.unsafe(BEFORE, [MONTH.from, MONTH.to, null], { prepare: true })) as unknown as [{ list: string }];
    if (list !== expected) throw new Error('the list read now differs from the statement of before');
    const rounds: Record<string, { p50_ms: number; database_cpu_ms_per_request: number; client_cpu_ms_per_request: number }[]> = { before: [], after: [] };
    for (let round = 0; round < PAIR_ROUNDS; round++) {
      for (const [name, run] of round % 2 === 0 ? variants : [...variants].reverse()) {
        await Promise.all(Array.from({ length: CONNECTIONS }, run)); // every connection open and its statement prepared
        const deadline = Date.now() + PAIR_SECONDS * 1000;
        const latencies: number[] = [];
        const client = process.cpuUsage();
        const measured = await measureBackends(admin, databaseName, false, () =>
          Promise.all(Array.from({ length: CONNECTIONS }, async () => {
            while (Date.now() < deadline) {
              const t0 = performance.now();
              await run();
              latencies.push(performance.now() - t0);
            }
          })),
        );
        const clientCpu = process.cpuUsage(client);
        latencies.sort((a, b) => a - b);
        rounds[name]!.push({
          p50_ms: Number(latencies[Math.floor(latencies.length / 2)]!.toFixed(1)),
          database_cpu_ms_per_request: Number((measured.backendMicros / latencies.length / 1000).toFixed(2)),
          client_cpu_ms_per_request: Number(((clientCpu.user + clientCpu.system) / latencies.length / 1000).toFixed(2)),
        });
      }
    }
    await pool.end();
    await after.close();
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    report.month_before_after_pairs = Object.fromEntries(Object.entries(rounds).map(([name, runs]) => [name, {
      p50_ms: median(runs.map((r) => r.p50_ms)),
      database_cpu_ms_per_request: median(runs.map((r) => r.database_cpu_ms_per_request)),
      client_cpu_ms_per_request: median(runs.map((r) => r.client_cpu_ms_per_request)),
      rounds: runs,
    }]));
    (report.month_before_after_pairs as Record<string, unknown>).load_average = loadavg().map((l) => Number(l.toFixed(2)));
    // The whole book, streamed: first byte, last byte, and the server's memory meanwhile.
    const whole: Record<string, number>[] = [];
    for (let run = 0; run < 3; run++) {
      writeFileSync(`/proc/${server.pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
      const rssBefore = statusKiB(server.pid!, 'VmRSS');
      const t0 = performance.now();
      const res = await fetch(`${base}/transactions`, { headers: auth });
      const reader = res.body!.getReader();
      let first = 0;
      let bytes = 0;
      let reads = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (reads++ === 0) first = performance.now() - t0;
        bytes += value.byteLength;
      }
      whole.push({
        first_byte_ms: Number(first.toFixed(1)),
        last_byte_ms: Number((performance.now() - t0).toFixed(1)),
        bytes,
        reads,
        server_rss_mib_before: Math.round(rssBefore / 1024),
        server_peak_rss_mib_during: Math.round(statusKiB(server.pid!, 'VmHWM') / 1024),
      });
    }
    report.whole_book = { runs: whole, load_average: loadavg().map((l) => Number(l.toFixed(2))) };
  } finally {
    await admin.end();
    await sql.end();
    await new Promise<void>((resolve) => {
      server.once('exit', () => resolve());
      server.kill('SIGTERM');
    });
  }
  console.log(JSON.stringify(report, null, 2));
  mkdirSync('bench-results', { recursive: true });
  writeFileSync('bench-results/bench-list.json', `${JSON.stringify(report, null, 2)}\n`);
}

await main();
