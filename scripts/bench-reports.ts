/**
 * npm run bench:reports — issue 4/6: the balance sheet and the income statement over 1,000,000
 * entries on PostgreSQL, through the real HTTP app with a bearer token. Prints the median and p90
 * of repeated runs and writes them to bench-results/reports.json.
 *
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/ledger_bench) is dropped and
 * created afresh.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import postgres from 'postgres';
import { recreateDatabase } from './bench-database';
import { loadConfig } from '../src/config';
import { openPostgres } from '../src/db/database';
import { createApp } from '../src/http/app';
import { mintToken } from '../src/identity/tokens';
import { addUser } from '../src/identity/users';

const url = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ledger_bench');
const TRANSACTIONS = Number(process.env.BENCH_TRANSACTIONS ?? 500_000); // two entries each
const BATCH = 50_000;
const RUNS = 15;

async function fill(sql: postgres.Sql): Promise<void> {
  const kinds = [
    ['Bank', 'asset'], ['Savings', 'asset'], ['Cash', 'asset'], ['Card', 'liability'], ['Opening', 'equity'],
    ['Salary', 'income'], ['Dues', 'income'], ['Groceries', 'expense'], ['Rent', 'expense'], ['Travel', 'expense'],
  ];
  for (const [name, kind] of kinds) await sql`insert into accounts (name, kind) values (${name!}, ${kind!}::account_kind)`;
  const ids = (await sql<{ id: number }[]>`select id from accounts order by id`).map((r) => r.id);
  for (let start = 0; start < TRANSACTIONS; start += BATCH) {
    // Each transaction moves a pseudo-random amount between two different accounts, dated over three years.
    await sql.begin(async (tx) => {
      await tx`
        with headers as (
          insert into transactions (occurred_on, description)
          select date '2024-01-01' + (g % 1095), 'bench ' || g
          from generate_series(${start}::int, ${start + BATCH - 1}::int) g
          returning id, occurred_on
        )
        insert into entries (transaction_id, occurred_on, account_id, amount_cents)
        select h.id, h.occurred_on, a.account_id, a.sign * (1 + (h.id::bigint * 7919) % 100000)
        from headers h
        cross join lateral (values
          ((${ids} :: int[])[1 + h.id % 10], 1),
          ((${ids} :: int[])[1 + (h.id + 1 + h.id % 9) % 10], -1)
        ) as a(account_id, sign)`;
    });
    process.stdout.write(`\r${Math.min(start + BATCH, TRANSACTIONS)} transactions`);
  }
  process.stdout.write('\n');
  await sql`analyze`;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

async function main(): Promise<void> {
  await recreateDatabase(url);
  const database = await openPostgres(url.href);
  const filler = postgres(url.href, { max: 1, onnotice: () => {} });
  const started = performance.now();
  await fill(filler);
  await filler.end();
  console.log(`filled in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const config = loadConfig({ DATABASE_URL: url.href });
  const app = createApp({ db: database.db, config, log: { info() {}, error() {} } });
  const user = await addUser(database.db, 'bench@example.com', 'a bench password');
  const token = await mintToken(database.db, { userId: user.id, label: 'bench', days: 1, audience: config.apiOrigin });
  const [{ entries }] = (await database.db.execute('select count(*)::int as entries from entries')) as unknown as [{ entries: number }];

  const results: Record<string, { median_ms: number; p90_ms: number; runs: number }> = {};
  for (const path of ['/reports/balance-sheet?as_of=2026-12-31', '/reports/income-statement?from=2024-01-01&to=2026-12-31']) {
    const times: number[] = [];
    for (let run = 0; run < RUNS + 3; run++) {
      const t0 = performance.now();
      const res = await app.request(`${config.apiOrigin}${path}`, { headers: { authorization: `Bearer ${token}` } });
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      await res.json();
      if (run >= 3) times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    results[path.split('?')[0]!] = {
      median_ms: Number(percentile(times, 0.5).toFixed(1)),
      p90_ms: Number(percentile(times, 0.9).toFixed(1)),
      runs: RUNS,
    };
  }
  await database.close();
  const report = { entries, transactions: TRANSACTIONS, results };
  console.log(JSON.stringify(report, null, 2));
  mkdirSync('bench-results', { recursive: true });
  writeFileSync('bench-results/reports.json', `${JSON.stringify(report, null, 2)}\n`);
}

await main();
