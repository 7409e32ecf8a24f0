/**
 * npm run bench:catchup — D21 (issue "4/8 Things that come back"): a year of weekly occurrences
 * for 300 `post` schedules (52 each: 15,600 posts) is caught up by `ledger serve` in the
 * background, in batches, without starving requests.
 *
 * A fresh book gets a user, a minted token and 300 weekly schedules whose first occurrence is 51
 * weeks before today (UTC), so 52 occurrences each are due, today's included. Then the built
 * `ledger serve` starts and, while its start-up run catches up, 4 loops send GET /accounts with
 * the bearer token at a steady pace (one request per PACE_MS each), timing every answer. Prints
 * and writes to bench-results/catchup-<backend>.json: how long the catch-up took (from `serve`
 * answering GET /health until the last post, and the server's own `schedules_posted` ms), the
 * p50/p99/max of GET /accounts during the catch-up and the same for BASELINE_SECONDS after it
 * (idle), and the number posted, which must be exactly 15,600 with no occurrence twice (checked
 * again after SIGTERM, which waits for the run).
 *
 * The embedded default by default (a new cluster under bench-results/); BENCH_DATABASE_URL (a
 * database of the bench's own, dropped and created afresh) measures on that PostgreSQL instead.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startServe } from './bench-serve';
import { recreateDatabase } from './bench-database';
import { createSchedule } from '../src/book/schedules';
import { addDays, occurrencesBetween } from '../src/book/occurrences';
import { openConnection, openPostgres } from '../src/db/database';
import { freePort, openEmbedded } from '../src/db/embedded';
import { mintToken } from '../src/identity/tokens';
import { addUser } from '../src/identity/users';

const SCHEDULES = Number(process.env.BENCH_SCHEDULES ?? 300);
const WEEKS = 52;
const LOOPS = 4;
/** Each loop's pace: a request every PACE_MS (sooner answers wait, slower ones are followed at once). */
const PACE_MS = Number(process.env.BENCH_PACE_MS ?? 20);
const BASELINE_SECONDS = 5;
const DESCRIPTION = 'Catch-up bench';

const postgresUrl = process.env.BENCH_DATABASE_URL ? new URL(process.env.BENCH_DATABASE_URL) : undefined;
const backend = postgresUrl ? 'postgres' : 'embedded';

interface Latencies {
  requests: number;
  non_200: number;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

function summarise(samples: { ms: number; status: number }[], seconds: number): Latencies {
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  const at = (p: number) => Number((sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN).toFixed(1));
  return {
    requests: samples.length,
    non_200: samples.filter((s) => s.status !== 200).length,
    requests_per_second: Math.round(samples.length / seconds),
    p50_ms: at(0.5),
    p99_ms: at(0.99),
    max_ms: Number((sorted.at(-1) ?? NaN).toFixed(1)),
  };
}


function stop(child: ChildProcess): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => {
    child.once('exit', () => resolve(performance.now() - started));
    child.kill('SIGTERM');
  });
}

async function main(): Promise<void> {
  mkdirSync('bench-results', { recursive: true });
  const dir = path.resolve('bench-results', 'catchup-embedded-data');
  let seeding: { url: string; release(): Promise<void> };
  let serveDatabaseUrl: string;
  if (postgresUrl) {
    await recreateDatabase(postgresUrl);
    seeding = { url: postgresUrl.href, release: async () => {} };
    serveDatabaseUrl = postgresUrl.href;
  } else {
    rmSync(dir, { recursive: true, force: true });
    // Held (as an admin command would) for the whole bench: the count is read through it.
    seeding = await openEmbedded(dir, 'admin');
    serveDatabaseUrl = `file:${dir}`;
  }

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const today = new Date().toISOString().slice(0, 10);
  const startOn = addDays(today, -7 * (WEEKS - 1))!;
  const perSchedule = occurrencesBetween({ start_on: startOn, every: 'week', interval: 1, until_on: null }, startOn, today).length;
  if (perSchedule !== WEEKS) throw new Error(`expected ${WEEKS} occurrences per schedule, the arithmetic says ${perSchedule}`);
  const expected = SCHEDULES * WEEKS;

  const database = await openPostgres(seeding.url);
  const user = await addUser(database.db, 'bench@catchup.example', 'a bench password');
  const token = await mintToken(database.db, { userId: user.id, label: 'bench', days: 1, audience: `http://localhost:${port}` });
  const sql = openConnection(seeding.url, { max: 1 });
  const accounts: number[] = [];
  for (const [name, kind] of [['Bank', 'asset'], ['Dues', 'income'], ['Rent', 'expense'], ['Phone', 'expense'], ['Card', 'liability']] as const) {
    const [row] = await sql<{ id: number }[]>`insert into accounts (name, kind) values (${name}, ${kind}::account_kind) returning id`;
    accounts.push(row!.id);
  }
  const author = { userId: user.id, email: user.email, via: 'cli' as const, clientId: null };
  for (let i = 0; i < SCHEDULES; i++) {
    const amount = 1_000 + i;
    await createSchedule(
      database.db,
      {
        description: `${DESCRIPTION} ${i}`,
        entries: [
          { account_id: accounts[2 + (i % 3)]!, amount_cents: amount },
          { account_id: accounts[0]!, amount_cents: -amount },
        ],
        start_on: startOn,
        every: 'week',
        mode: 'post',
      },
      author,
    );
  }
  await database.close();
  const posted = async () => Number((await sql<{ n: string }[]>`select count(*) as n from transactions where description like ${`${DESCRIPTION} %`}`)[0]!.n);

  const logFile = path.resolve('bench-results', `catchup-serve-${backend}.log`);
  const { child, healthyAt } = await startServe(port, serveDatabaseUrl, logFile);

  // The load: LOOPS loops of GET /accounts at a steady pace, each sample stamped with its start.
  const samples: { at: number; ms: number; status: number }[] = [];
  let loading = true;
  const loops = Array.from({ length: LOOPS }, async (_, k) => {
    await new Promise((r) => setTimeout(r, (k * PACE_MS) / LOOPS));
    while (loading) {
      const at = performance.now();
      let status = 0;
      try {
        const res = await fetch(`${base}/accounts`, { headers: { authorization: `Bearer ${token}` } });
        status = res.status;
        await res.arrayBuffer();
      } catch {
        status = -1;
      }
      const ms = performance.now() - at;
      samples.push({ at, ms, status });
      if (ms < PACE_MS) await new Promise((r) => setTimeout(r, PACE_MS - ms));
    }
  });

  // The catch-up ends when the last occurrence is posted.
  let count = 0;
  let progress = 0;
  const limit = healthyAt + 15 * 60_000;
  while ((count = await posted()) < expected) {
    if (performance.now() > limit) throw new Error(`the catch-up did not finish in 15 minutes: ${count} of ${expected}`);
    if (count - progress >= 1_000) {
      process.stderr.write(`\r${count} of ${expected} posted`);
      progress = count;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const doneAt = performance.now();
  process.stderr.write(`\r${count} of ${expected} posted\n`);
  await new Promise((r) => setTimeout(r, BASELINE_SECONDS * 1000));
  loading = false;
  await Promise.all(loops);
  const stopMs = await stop(child);

  const total = await posted();
  const [twice] = await sql<{ n: string }[]>`
    select count(*) as n from (select 1 from transactions where description like ${`${DESCRIPTION} %`}
    group by description, occurred_on having count(*) > 1) d`;
  const [handled] = await sql<{ n: string }[]>`select count(*) as n from schedule_occurrences where outcome = 'posted'`;
  await sql.end();
  await seeding.release();
  if (!postgresUrl) rmSync(dir, { recursive: true, force: true });
  if (total !== expected) throw new Error(`posted ${total}, expected exactly ${expected}`);
  if (Number(twice!.n) !== 0) throw new Error(`${twice!.n} occurrences were posted more than once`);
  if (Number(handled!.n) !== expected) throw new Error(`${handled!.n} occurrences marked posted, expected ${expected}`);

  const logged = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { event: string; posted?: number; ms?: number });
  const runs = logged.filter((l) => l.event === 'schedules_posted');
  const during = samples.filter((s) => s.at >= healthyAt && s.at + s.ms <= doneAt);
  const after = samples.filter((s) => s.at >= doneAt + 500);
  const report = {
    backend,
    schedules: SCHEDULES,
    occurrences_per_schedule: WEEKS,
    posted: total,
    expected,
    catchup_seconds: Number(((doneAt - healthyAt) / 1000).toFixed(2)),
    server_run: runs.map((r) => ({ posted: r.posted, ms: r.ms })),
    posts_per_second: Math.round(total / ((doneAt - healthyAt) / 1000)),
    load: `${LOOPS} loops of GET /accounts, one request per ${PACE_MS} ms each`,
    get_accounts_during_catchup: summarise(during, (doneAt - healthyAt) / 1000),
    get_accounts_after_catchup: summarise(after, BASELINE_SECONDS - 0.5),
    sigterm_stop_ms_idle: Math.round(stopMs),
  };
  console.log(JSON.stringify(report, null, 2));
  writeFileSync(`bench-results/catchup-${backend}.json`, `${JSON.stringify(report, null, 2)}\n`);
}

await main();
