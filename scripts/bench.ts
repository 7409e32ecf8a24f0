/**
 * npm run bench — issues 6/6 and 2/7: the embedded default's start and memory
 * (scripts/bench-embedded.ts), then `ledger serve` on PostgreSQL and on the embedded default,
 * each driven over loopback by autocannon with minted bearer tokens. Prints req/s, p50/p99 latency and the server's peak RSS per scenario and
 * writes bench-results/bench.json. For POST /transactions it also measures the database's own
 * limit (the same inserts issued directly with postgres.js at the same concurrency) and prints the
 * ratio service/direct.
 *
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/ledger_bench_http) is dropped and
 * created afresh. BENCH_SECONDS (default 8) is the length of each scenario.
 */
import autocannon from 'autocannon';
import type postgres from 'postgres';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { startServe } from './bench-serve';
import { recreateDatabase } from './bench-database';
import { measureCost } from './bench-cost';
import { measureBackends, statementsAvailable } from './bench-backends';
import { measureEmbedded } from './bench-embedded';
import { openConnection, openPostgres } from '../src/db/database';
import { freePort, openEmbedded } from '../src/db/embedded';
import { mintToken } from '../src/identity/tokens';
import { issueTokenPair } from '../src/oauth/grants';
import { addUser } from '../src/identity/users';

const url = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ledger_bench_http');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 32;
const BOOK = 100_000;
/** BENCH_ONLY=post runs only the POST /transactions scenarios, on PostgreSQL: for profiling. */
const ONLY_POST = process.env.BENCH_ONLY === 'post';
/**
 * BENCH_POST_CASES: the POST cases as `entries x connections`, comma-separated (default
 * `2x32,10x32,2x8,10x8`); issue 31 compares 2 entries at 8 connections (`2x8`).
 */
const POST_CASES = (process.env.BENCH_POST_CASES ?? '2x32,10x32,2x8,10x8')
  .split(',')
  .map((c) => c.split('x').map(Number) as [number, number]);

interface Figures {
  requests: number;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  non_2xx: number;
}

/** Peak resident set of the server process (VmHWM), in MiB. */
function peakRssMiB(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kib = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kib / 1024);
}


async function cannon(options: autocannon.Options): Promise<Figures> {
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  return {
    requests: result.requests.total,
    requests_per_second: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    errors: result.errors,
    non_2xx: result.non2xx,
  };
}

function transactionBody(accounts: number[], entries: number): string {
  const lines = Array.from({ length: entries }, (_, i) => ({
    account_id: accounts[i % accounts.length]!,
    amount_cents: i === entries - 1 ? -(entries - 1) * 1250 : 1250,
  }));
  return JSON.stringify({ occurred_on: '2026-06-15', description: 'bench', entries: lines });
}

/**
 * The database's own limit, as strong an anchor as we can make it: the service's own statement
 * (header and entries in one data-modifying CTE, the deferred trigger at commit), prepared, one
 * round trip per post, from a postgres.js pool as large as the concurrency. What the service adds
 * on top (HTTP, the bearer lookup, validation, JSON) is what the ratio measures.
 */
/**
 * Inserts done in SECONDS on `sql`, a pool of `connections` already connected: as fast as the
 * database answers, or, with `perSecond`, each insert sent at its due time of an even rate (the
 * paced anchor: the service's own rate, see below).
 */
async function directInserts(sql: postgres.Sql, accounts: number[], entries: number, connections: number, perSecond?: number): Promise<number> {
  const start = Date.now();
  const deadline = start + SECONDS * 1000;
  let scheduled = 0;
  const accountIds = `{${Array.from({ length: entries }, (_, i) => accounts[i % accounts.length]!).join(',')}}`;
  const amounts = `{${Array.from({ length: entries }, (_, i) => (i === entries - 1 ? -(entries - 1) * 1250 : 1250)).join(',')}}`;
  let done = 0;
  const worker = async () => {
    while (Date.now() < deadline) {
      if (perSecond) {
        const wait = start + (scheduled++ / perSecond) * 1000 - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        if (Date.now() >= deadline) break;
      }
      await sql`
        with header as (
          insert into transactions (occurred_on, description, created_by)
          values (${'2026-06-15'}::date, ${'direct'}, ${null}::integer)
          returning id, occurred_on
        ), written as (
          insert into entries (transaction_id, occurred_on, account_id, amount_cents)
          select header.id, header.occurred_on, line.account_id, line.amount_cents
          from header, unnest(${accountIds}::integer[], ${amounts}::bigint[]) with ordinality as line(account_id, amount_cents, n)
          order by line.n
          returning transaction_id
        )
        select id from header`;
      done++;
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  return done;
}

/** Refresh rotation: each worker holds one grant and rotates it as fast as the server answers. */
async function refreshRotation(base: string, refreshTokens: string[]): Promise<Figures> {
  const latencies: number[] = [];
  let failures = 0;
  const deadline = Date.now() + SECONDS * 1000;
  await Promise.all(
    refreshTokens.map(async (initial) => {
      let token = initial;
      while (Date.now() < deadline) {
        const t0 = performance.now();
        const res = await fetch(`${base}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: 'ledger-cli' }),
        });
        const body = (await res.json()) as { refresh_token?: string };
        latencies.push(performance.now() - t0);
        if (res.status !== 200 || !body.refresh_token) {
          failures++;
          return;
        }
        token = body.refresh_token;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (p: number) => Number(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(1));
  return { requests: latencies.length, requests_per_second: Math.round(latencies.length / SECONDS), p50_ms: at(0.5), p99_ms: at(0.99), errors: failures, non_2xx: failures };
}

/** The read scenarios: health, accounts, and one day of the 100,000-transaction book. */
async function readScenarios(base: string, auth: Record<string, string>): Promise<Record<string, Figures>> {
  return {
    'GET /health': await cannon({ url: `${base}/health` }),
    'GET /accounts': await cannon({ url: `${base}/accounts`, headers: auth }),
    'GET /transactions?from=&to= (one day of a 100,000-transaction book)': await cannon({
      url: `${base}/transactions?from=2025-03-01&to=2025-03-01`,
      headers: auth,
    }),
    // The same list below saturation: 32 connections measure queueing on two cores as much as the route.
    'GET /transactions?from=&to= at 8 connections': await cannon({
      url: `${base}/transactions?from=2025-03-01&to=2025-03-01`,
      headers: auth,
      connections: 8,
    }),
    // D15: the first page of the whole book (issue 4/7 item 6), at 8 connections.
    'GET /transactions?limit=50 (first page of a 100,000-transaction book) at 8 connections': await cannon({
      url: `${base}/transactions?limit=50`,
      headers: auth,
      connections: 8,
    }),
  };
}

/** A database to measure: where to seed it and reach it directly, and the DATABASE_URL `serve` gets. */
interface Target {
  /** A postgres.js URL of the database, for seeding and the direct anchor (open while `connect` holds it). */
  connect(): Promise<{ url: string; release(): Promise<void> }>;
  serveDatabaseUrl: string;
}

/** Every HTTP scenario against `ledger serve` on `target`, with a 100,000-transaction book. */
async function scenarios(target: Target): Promise<Record<string, unknown>> {
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const seeding = await target.connect();
  const database = await openPostgres(seeding.url);
  const user = await addUser(database.db, 'bench@example.com', 'a bench password');
  const token = await mintToken(database.db, { userId: user.id, label: 'bench', days: 1, audience: base });
  const grants = await Promise.all(
    Array.from({ length: CONNECTIONS }, () => issueTokenPair(database.db, { userId: user.id, clientId: 'ledger-cli', audience: base })),
  );
  await database.close();

  const sql = openConnection(seeding.url);
  for (const [name, kind] of [['Bank', 'asset'], ['Cash', 'asset'], ['Salary', 'income'], ['Food', 'expense'], ['Rent', 'expense']]) {
    await sql`insert into accounts (name, kind) values (${name!}, ${kind!}::account_kind)`;
  }
  const accounts = (await sql<{ id: number }[]>`select id from accounts order by id`).map((r) => r.id);
  await sql.begin(async (tx) => {
    await tx`
      with headers as (
        insert into transactions (occurred_on, description)
        select date '2024-01-01' + (g % 1095), 'book ' || g from generate_series(1, ${BOOK}::int) g
        returning id, occurred_on
      )
      insert into entries (transaction_id, occurred_on, account_id, amount_cents)
      select h.id, h.occurred_on, a.account_id, a.amount from headers h
      cross join lateral (values ((${accounts}::int[])[1], 1000), ((${accounts}::int[])[3], -1000)) as a(account_id, amount)`;
  });
  // What autovacuum does after a bulk load; it also marks the pages all-visible, so that the
  // list is read from its indexes alone, as in a book that has been running for a while.
  await sql`vacuum analyze`;
  await sql.end();
  await seeding.release();

  const { child: server } = await startServe(port, target.serveDatabaseUrl, 'bench-results/serve.log');
  const direct = await target.connect();
  const auth = { authorization: `Bearer ${token}` };
  const results: Record<string, unknown> = {};
  try {
    if (!ONLY_POST) Object.assign(results, await readScenarios(base, auth));
    // The database's own share (issue 31): the CPU of the bench database's backends only, and with
    // pg_stat_statements (when the server loads it) what each statement cost.
    const admin = openConnection(direct.url);
    const database = new URL(direct.url).pathname.slice(1);
    const withStatements = await statementsAvailable(admin);
    for (const [entries, connections] of POST_CASES) {
      const serviceBackends = await measureBackends(admin, database, withStatements, () => measureCost(
        server.pid,
        () =>
          cannon({
            url: `${base}/transactions`,
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: transactionBody(accounts, entries),
            connections,
          }),
        (figures) => figures.requests,
      ));
      const service = serviceBackends.result;
      // The anchor's pool connects before and closes after its measurement: a backend that ends
      // takes its CPU figures with it.
      const pool = openConnection(direct.url, { max: connections });
      await Promise.all(Array.from({ length: connections }, () => pool`select pg_sleep(0.05)`));
      const anchorBackends = await measureBackends(admin, database, withStatements, () => measureCost(
        undefined,
        () => directInserts(pool, accounts, entries, connections),
        (inserts) => inserts,
      ));
      const anchor = anchorBackends.result;
      // The same inserts at the service's rate: a database that is sent fewer commits a second
      // spends more CPU on each (a backend woken for every statement, a WAL flush per commit
      // instead of one shared by several), so the full-speed anchor's cost per insert is lower
      // than the same insert's at the rate the service reaches. Measured beside it, the paced
      // anchor tells the service's statement from its rate.
      const paced = await measureBackends(admin, database, false, () => directInserts(pool, accounts, entries, connections, service.result.requests_per_second));
      await pool.end();
      const pacedDatabaseUs = Math.round(paced.backendMicros / Math.max(1, paced.result));
      const anchorPerSecond = Math.round(anchor.result / SECONDS);
      const posts = Math.max(1, service.result.requests);
      const inserts = Math.max(1, anchor.result);
      const serviceDatabaseUs = Math.round(serviceBackends.backendMicros / posts);
      const anchorDatabaseUs = Math.round(anchorBackends.backendMicros / inserts);
      results[`POST /transactions (${entries} entries, ${connections} connections)`] = {
        ...service.result,
        ...service.cost,
        direct_database_per_second: anchorPerSecond,
        direct: anchor.cost,
        service_to_direct: Number((service.result.requests_per_second / anchorPerSecond).toFixed(2)),
        // Issue 31: the bench database's backends' CPU per post, the service's beside the anchor's.
        database_backends_cpu_us_per_post: serviceDatabaseUs,
        direct_database_backends_cpu_us_per_post: anchorDatabaseUs,
        database_cpu_service_to_direct: Number((serviceDatabaseUs / anchorDatabaseUs).toFixed(2)),
        paced_direct_per_second: Math.round(paced.result / SECONDS),
        paced_direct_database_backends_cpu_us_per_post: pacedDatabaseUs,
        database_cpu_service_to_paced_direct: Number((serviceDatabaseUs / pacedDatabaseUs).toFixed(2)),
        wal_bytes_per_post: Math.round(serviceBackends.walBytes / posts),
        direct_wal_bytes_per_post: Math.round(anchorBackends.walBytes / inserts),
        load_average: loadavg().map((l) => Number(l.toFixed(2))),
        ...(serviceBackends.statements ? { statements: serviceBackends.statements, direct_statements: anchorBackends.statements } : {}),
      };
    }
    await admin.end();
    if (!ONLY_POST) results['POST /oauth/token (refresh rotation)'] = await refreshRotation(base, grants.map((g) => g.refresh_token));
    results.server_peak_rss_mib = peakRssMiB(server);
  } finally {
    await direct.release();
    await new Promise<void>((resolve) => {
      server.once('exit', () => resolve());
      server.kill('SIGTERM');
    });
  }
  return results;
}

async function main(): Promise<void> {
  // The embedded default's start and memory first, on a quiet machine (issue 2/7 item 7).
  const embeddedStart = ONLY_POST ? {} : await measureEmbedded(await freePort());
  await recreateDatabase(url);
  const postgresResults = await scenarios({
    connect: async () => ({ url: url.href, release: async () => {} }),
    serveDatabaseUrl: url.href,
  });
  // The same scenarios on the embedded default: a new cluster under bench-results/.
  const dir = path.resolve('bench-results', 'embedded-data');
  rmSync(dir, { recursive: true, force: true });
  const embeddedResults = ONLY_POST
    ? {}
    : await scenarios({ connect: async () => openEmbedded(dir, 'admin'), serveDatabaseUrl: `file:${dir}` });
  rmSync(dir, { recursive: true, force: true });
  const report = {
    connections: CONNECTIONS,
    seconds_per_scenario: SECONDS,
    results: { postgres: postgresResults, embedded_default: { ...embeddedStart, ...embeddedResults } },
  };
  console.log(JSON.stringify(report, null, 2));
  // Issue 31: the database's CPU per post beside the anchor's, one line per POST scenario.
  for (const [target, results] of Object.entries(report.results)) {
    for (const [name, figures] of Object.entries(results as Record<string, Record<string, number>>)) {
      if (!name.startsWith('POST /transactions')) continue;
      console.log(`${target} ${name}: database CPU per post ${figures.database_backends_cpu_us_per_post} µs at ${figures.requests_per_second}/s; ` +
        `anchor ${figures.direct_database_backends_cpu_us_per_post} µs at ${figures.direct_database_per_second}/s (${figures.database_cpu_service_to_direct}×), ` +
        `paced anchor ${figures.paced_direct_database_backends_cpu_us_per_post} µs at ${figures.paced_direct_per_second}/s (${figures.database_cpu_service_to_paced_direct}×)`);
    }
  }
  mkdirSync('bench-results', { recursive: true });
  writeFileSync('bench-results/bench.json', `${JSON.stringify(report, null, 2)}\n`);
}

await main();
