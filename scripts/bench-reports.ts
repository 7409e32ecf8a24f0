/**
 * npm run bench:reports — issue 31 item 5: GET /reports/balance-sheet and GET
 * /reports/income-statement over a book of 1,000,000 entries, through the real app (createApp and
 * app.request, a minted bearer token), at 1 and 8 connections, on the embedded default and on a
 * PostgreSQL server.
 *
 * The book: 500,000 transactions of 2 entries over five years (2021-01-01 to 2025-12-31, in date
 * order as a book is written), 6 accounts of each kind, each transaction moving a pseudo-random
 * amount between two different accounts. It is written by two generate_series statements with
 * the triggers off (session_replication_role = replica: the balance check and the foreign keys
 * would run a million times), and the balance trigger's rule is then checked once over the whole
 * book (every transaction at least two entries summing to zero) before anything is timed. With the
 * triggers off, account_day_totals (what the two reports read, drizzle/0014) is left empty, so it
 * is then filled from entries by rebuildDayTotals, the statement of the migration's backfill (its
 * time is printed: what that migration costs a book of this size); then VACUUM ANALYZE, as
 * autovacuum would (it is off on these machines).
 *
 * Each scenario (report × connections) runs RUNS times; each run sends REQUESTS requests spread
 * over the connections (the pool's connections: each worker waits for its answer before the next)
 * after a warm-up, and gives p50 and p99; the figures printed are the medians of the runs, with
 * the load average at each run. Then EXPLAIN (ANALYZE, BUFFERS) of each report's statement. All
 * of it goes to bench-results/reports-<target>.json.
 *
 * BENCH_TARGET: `embedded`, `postgres` or `both` (default). The embedded cluster is made afresh
 * under bench-results/ and removed; BENCH_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/ledger_bench_reports) is dropped, created and dropped again
 * (kept when BENCH_KEEP is set).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { recreateDatabase } from './bench-database';
import { rebuildDayTotals } from '../src/book/day-totals';
import { reportStatements } from '../src/book/reports';
import { budgetReportStatement } from '../src/book/budget-report';
import { PgDialect } from 'drizzle-orm/pg-core';
import { loadConfig } from '../src/config';
import { openConnection, openPostgres, type Database } from '../src/db/database';
import { openEmbedded } from '../src/db/embedded';
import { createApp } from '../src/http/app';
import { mintToken } from '../src/identity/tokens';
import { addUser } from '../src/identity/users';

const TRANSACTIONS = Number(process.env.BENCH_TRANSACTIONS ?? 500_000);
const FIRST_DAY = '2021-01-01';
const DAYS = 1826; // through 2025-12-31
const ACCOUNTS_PER_KIND = 6;
const KINDS = ['asset', 'liability', 'equity', 'income', 'expense'] as const;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100);
const WARM_UP = 5;
const CONNECTIONS = [1, 8];
const AS_OF = '2025-12-31';
const YEAR = { from: '2025-01-01', to: '2025-12-31' };
const BUDGET_AS_OF = '2025-06-30';

const REPORTS = {
  'balance-sheet': `/reports/balance-sheet?as_of=${AS_OF}`,
  'income-statement': `/reports/income-statement?from=${YEAR.from}&to=${YEAR.to}`,
  // Issue 39 (D26): the budget of the year (written by `fill`, id 1), halfway through it.
  budget: `/reports/budget?id=1&as_of=${BUDGET_AS_OF}`,
};

/** The book described above, on one connection. */
async function fill(sql: postgres.Sql): Promise<void> {
  for (const kind of KINDS) {
    for (let i = 1; i <= ACCOUNTS_PER_KIND; i++) {
      await sql`insert into accounts (name, kind) values (${`${kind} ${i}`}, ${kind}::account_kind)`;
    }
  }
  const ids = (await sql<{ id: number }[]>`select id from accounts order by id`).map((r) => r.id);
  const n = ids.length;
  await sql.begin(async (tx) => {
    await tx`set local session_replication_role = replica`;
    await tx`
      insert into transactions (id, occurred_on, description) overriding system value
      select g, ${FIRST_DAY}::date + ((g - 1)::bigint * ${DAYS} / ${TRANSACTIONS})::int, 'bench ' || g
      from generate_series(1, ${TRANSACTIONS}::int) g`;
    // Debit account g mod n, credit another (offset 1 to n − 1): never the same account twice.
    await tx`
      insert into entries (transaction_id, occurred_on, account_id, amount_cents)
      select g, ${FIRST_DAY}::date + ((g - 1)::bigint * ${DAYS} / ${TRANSACTIONS})::int, line.account_id,
             line.sign * (1 + (g::bigint * 7919) % 100000)
      from generate_series(1, ${TRANSACTIONS}::int) g
      cross join lateral (values
        ((${ids}::int[])[1 + g % ${n}], 1),
        ((${ids}::int[])[1 + (g + 1 + g % ${n - 1}) % ${n}], -1)
      ) as line(account_id, sign)`;
    await tx`select setval(pg_get_serial_sequence('transactions', 'id'), ${TRANSACTIONS})`;
  });
  // The balance trigger's rule, checked once for the whole book.
  const [check] = await sql<{ unbalanced: number; headers: number }[]>`
    select (select count(*) from (select 1 from entries group by transaction_id
              having count(*) < 2 or sum(amount_cents) <> 0) bad)::int as unbalanced,
           (select count(*) from transactions t
              where not exists (select 1 from entries e where e.transaction_id = t.id))::int as headers`;
  if (check!.unbalanced !== 0 || check!.headers !== 0) throw new Error(`unbalanced book: ${JSON.stringify(check)}`);
  // D26: a budget of 2025 naming every income and expense account but one of each kind (left
  // unbudgeted), month lines with rollover and period lines alternating.
  await sql`insert into budgets (name, from_month, to_month) values ('Bench 2025', '2025-01-01', '2025-12-01')`;
  await sql`
    insert into budget_lines (budget_id, position, account_id, amount_cents, per, rollover)
    select 1, row_number() over (order by id), id, 100000, case when id % 2 = 0 then 'month' else 'period' end::budget_per, id % 2 = 0
    from accounts where kind in ('income', 'expense') and name not in ('income 6', 'expense 6')`;
}

function at(sorted: number[], p: number): number {
  return Number(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(1));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

interface Run {
  p50_ms: number;
  p99_ms: number;
  requests_per_second: number;
  load_average: number;
}

/** REQUESTS requests over `connections` workers, each waiting for its answer. */
async function run(send: () => Promise<void>, connections: number): Promise<Run> {
  const load = os.loadavg()[0]!;
  await Promise.all(Array.from({ length: connections }, async () => {
    for (let i = 0; i < WARM_UP; i++) await send();
  }));
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, async () => {
    while (next++ < REQUESTS) {
      const t0 = performance.now();
      await send();
      latencies.push(performance.now() - t0);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { p50_ms: at(latencies, 0.5), p99_ms: at(latencies, 0.99), requests_per_second: Math.round(REQUESTS / seconds), load_average: load };
}

/** EXPLAIN (ANALYZE, BUFFERS) of a report's statement, on a connection of its own. */
async function explain(url: string, backend: Database['backend'], statement: { sql: string; params: unknown[] }): Promise<string> {
  const sql = openConnection(url, {}, backend);
  try {
    const rows = await sql.unsafe(`explain (analyze, buffers) ${statement.sql}`, statement.params as never[]);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    await sql.end();
  }
}

async function measure(target: string, url: string, backend: Database['backend']): Promise<Record<string, unknown>> {
  const database = await openPostgres(url, { backend }); // migrates the new database
  const filler = openConnection(url, {}, backend);
  const started = performance.now();
  await fill(filler);
  const fillSeconds = Number(((performance.now() - started) / 1000).toFixed(1));
  const rebuilt = performance.now();
  const days = await rebuildDayTotals(database.db);
  const totalsSeconds = Number(((performance.now() - rebuilt) / 1000).toFixed(1));
  await filler`vacuum analyze`;
  const [book] = await filler<{ version: string; entries: number; size: string; totals_size: string }[]>`
    select current_setting('server_version') as version, (select count(*)::int from entries) as entries,
           pg_size_pretty(pg_total_relation_size('entries')) as size,
           pg_size_pretty(pg_total_relation_size('account_day_totals')) as totals_size`;
  const { version, entries, size, totals_size } = book!;
  await filler.end();
  console.log(`${target}: PostgreSQL ${version}, ${entries} entries (${size} with indexes) written and checked in ${fillSeconds} s`);
  console.log(`${target}: account_day_totals filled from them in ${totalsSeconds} s: ${days} rows (${totals_size} with its index)`);

  const config = loadConfig({ DATABASE_URL: 'postgres://unused@localhost/unused' });
  const app = createApp({ db: database.db, config, log: { info() {}, error() {} } });
  const user = await addUser(database.db, 'bench@example.com', 'a bench password');
  const token = await mintToken(database.db, { userId: user.id, label: 'bench', days: 1, audience: config.apiOrigin });
  const headers = { authorization: `Bearer ${token}` };

  const scenarios: Record<string, unknown> = {};
  try {
    for (const [name, route] of Object.entries(REPORTS)) {
      const send = async () => {
        const res = await app.request(`${config.apiOrigin}${route}`, { headers });
        if (res.status !== 200) throw new Error(`${route}: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      };
      for (const connections of CONNECTIONS) {
        const runs: Run[] = [];
        for (let i = 0; i < RUNS; i++) runs.push(await run(send, connections));
        const figures = {
          p50_ms: median(runs.map((r) => r.p50_ms)),
          p99_ms: median(runs.map((r) => r.p99_ms)),
          requests_per_second: median(runs.map((r) => r.requests_per_second)),
          runs,
        };
        scenarios[`${name}, ${connections} connection${connections === 1 ? '' : 's'}`] = figures;
        const loads = runs.map((r) => r.load_average.toFixed(1)).join(' / ');
        console.log(`${target} ${name} at ${connections}: p50 ${figures.p50_ms} ms, p99 ${figures.p99_ms} ms, ${figures.requests_per_second}/s (load ${loads})`);
      }
    }
  } finally {
    await database.close();
  }
  const plans = {
    'balance-sheet': await explain(url, backend, reportStatements.balanceSheet(database.db, AS_OF)),
    'income-statement': await explain(url, backend, reportStatements.incomeStatement(database.db, YEAR.from, YEAR.to)),
    budget: await explain(url, backend, new PgDialect().sqlToQuery(budgetReportStatement(1, BUDGET_AS_OF))),
  };
  for (const [name, plan] of Object.entries(plans)) console.log(`${target} ${name}:\n${plan}\n`);
  return {
    server_version: version,
    entries,
    entries_size: size,
    fill_seconds: fillSeconds,
    day_totals_rows: days,
    day_totals_size: totals_size,
    day_totals_fill_seconds: totalsSeconds,
    cores: os.cpus().length,
    runs: RUNS,
    requests_per_run: REQUESTS,
    scenarios,
    plans,
  };
}

async function main(): Promise<void> {
  const which = process.env.BENCH_TARGET ?? 'both';
  mkdirSync('bench-results', { recursive: true });
  const write = (target: string, result: Record<string, unknown>) =>
    writeFileSync(`bench-results/reports-${target}.json`, `${JSON.stringify({ at: new Date().toISOString(), ...result }, null, 2)}\n`);
  if (which === 'embedded' || which === 'both') {
    const dir = path.resolve('bench-results', 'reports-embedded-data');
    rmSync(dir, { recursive: true, force: true });
    const cluster = await openEmbedded(dir, 'admin');
    try {
      write('embedded', await measure('embedded', cluster.url, 'embedded'));
    } finally {
      await cluster.release();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (which === 'postgres' || which === 'both') {
    const url = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ledger_bench_reports');
    await recreateDatabase(url);
    try {
      write('postgres', await measure('postgres', url.href, 'postgres'));
    } finally {
      if (process.env.BENCH_KEEP) return; // kept for EXPLAIN by hand; dropped by the next run
      const maintenance = new URL(url);
      maintenance.pathname = '/postgres';
      const admin = postgres(maintenance.href, { max: 1, onnotice: () => {} });
      await admin.unsafe(`drop database if exists "${url.pathname.slice(1)}" with (force)`);
      await admin.end();
    }
  }
}

await main();
