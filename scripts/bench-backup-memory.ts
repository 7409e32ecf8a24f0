/**
 * npm run bench:backup — D22 ("a backup with 1 GiB of receipts never holds more than 64 MiB above
 * idle in memory"): the memory of `ledger backup` and `ledger restore` over a book of 1 GiB of
 * receipts. A measurement, not a timed test.
 *
 * A fresh book gets one user and RECEIPTS attachment rows of RECEIPT_MIB MiB of random bytes each
 * (110 × 9.5 MiB ≈ 1 GiB by default), inserted directly. Then the built CLI runs as child
 * processes, each under `/usr/bin/time -f %M` (the kernel's peak resident set size of the process;
 * without it, /proc/<pid>/status VmHWM sampled every 50 ms):
 *
 *   idle       `ledger user list` on the same book: the CLI's own peak (modules, pool, a query)
 *   backup     `ledger backup`, plain, then `--encrypt` (LEDGER_BACKUP_PASSPHRASE)
 *   restore    `ledger restore` of each into an empty database, checked afterwards (every receipt's
 *              bytes hash to its sha256, same count and digests as the source)
 *
 * and prints, and writes to bench-results/backup-memory-<backend>.json, each one's peak, the peak
 * above idle, the time taken and the file's size. Only the ledger process is measured, not the
 * PostgreSQL server's (a process of its own, the embedded cluster's too).
 *
 * The embedded default by default (new clusters under bench-results/); BENCH_DATABASE_URL (a
 * database of the bench's own, dropped and created afresh, with `_plain` and `_age` beside it for
 * the restores) measures on that PostgreSQL instead.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { recreateDatabase } from './bench-database';
import { openConnection } from '../src/db/database';
import { openEmbedded, type EmbeddedDatabase } from '../src/db/embedded';
import { SCRYPT_LOG_N } from '../src/admin/backup-crypto';

const RECEIPTS = Number(process.env.BENCH_RECEIPTS ?? 110);
const RECEIPT_MIB = Number(process.env.BENCH_RECEIPT_MIB ?? 9.5);
const BUDGET_MIB = 64;
/**
 * scrypt's own memory (128 × r × N bytes, r = 8) at the work factor of new backups: spent once to
 * derive the key before the first line, whatever the book's size. Issue 36 item 3 raised N to
 * 2^17 (128 MiB) after D22 set 64 MiB for the stream; an encrypted run's budget is both.
 */
const SCRYPT_MIB = (128 * 8 * 2 ** SCRYPT_LOG_N) / 2 ** 20;
const budgetOf = (run: string) => BUDGET_MIB + (run.endsWith('_age') ? SCRYPT_MIB : 0);
const PASSPHRASE = 'correct horse battery staple, bench';
const TIME = '/usr/bin/time';

const postgresUrl = process.env.BENCH_DATABASE_URL ? new URL(process.env.BENCH_DATABASE_URL) : undefined;
const backend = postgresUrl ? 'postgres' : 'embedded';
const results = path.resolve('bench-results');

interface Run {
  peak_mib: number;
  above_idle_mib?: number;
  seconds: number;
}

/** One `ledger` process: its exit status, output and peak resident set size. */
async function ledger(args: string[], databaseUrl: string, extraEnv: Record<string, string> = {}): Promise<Run> {
  const env = { ...process.env, DATABASE_URL: databaseUrl, ...extraEnv };
  const timed = existsSync(TIME);
  const command = timed ? [TIME, '-f', 'ledger-peak-kib %M', process.execPath, 'bin/ledger.js', ...args] : [process.execPath, 'bin/ledger.js', ...args];
  const started = performance.now();
  const child = spawn(command[0]!, command.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  let sampledKib = 0;
  const sampler = timed
    ? undefined
    : setInterval(() => {
        try {
          const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
          if (hwm) sampledKib = Math.max(sampledKib, Number(hwm[1]));
        } catch {
          // gone
        }
      }, 50);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`ledger ${args.join(' ')} failed (${code}): ${stderr}`);
  const measured = timed ? Number(/ledger-peak-kib (\d+)/.exec(stderr)?.[1]) : sampledKib;
  return { peak_mib: round(measured / 1024), seconds: round(seconds) };
}

const round = (n: number) => Math.round(n * 10) / 10;

/** A database for one role: a cluster of its own (embedded) or a database of the server. */
async function database(name: string): Promise<{ url: string; cliUrl: string; release(): Promise<void> }> {
  if (postgresUrl) {
    const url = new URL(postgresUrl);
    if (name !== 'source') url.pathname = `${url.pathname}_${name}`;
    await recreateDatabase(url);
    return { url: url.href, cliUrl: url.href, release: async () => {} };
  }
  const dir = path.join(results, `backup-memory-${name}-data`);
  rmSync(dir, { recursive: true, force: true });
  // Held for the whole bench, as an admin command holds it: each `ledger` process joins it.
  const embedded: EmbeddedDatabase = await openEmbedded(dir, 'admin');
  return { url: embedded.url, cliUrl: `file:${dir}`, release: () => embedded.release() };
}

/** What a restored book must show as the source does: every receipt whole. */
async function receiptsDigest(url: string): Promise<string> {
  const sql = openConnection(url, { max: 1 });
  try {
    const [row] = await sql<{ n: string; sizes: string; digests: string; whole: boolean }[]>`
      select count(*)::text as n, coalesce(sum(size), 0)::text as sizes, md5(coalesce(string_agg(sha256, ',' order by id), '')) as digests,
             coalesce(bool_and(encode(sha256(bytes), 'hex') = sha256), true) as whole
      from attachments`;
    if (!row!.whole) throw new Error(`a receipt in ${url} does not hash to its sha256`);
    return `${row!.n} receipts, ${row!.sizes} bytes, digests ${row!.digests}`;
  } finally {
    await sql.end();
  }
}

async function fill(url: string): Promise<void> {
  const sql = openConnection(url, { max: 1 });
  try {
    // The migrations ran when `ledger user add` opened the book.
    const size = Math.round(RECEIPT_MIB * 1024 * 1024);
    for (let i = 0; i < RECEIPTS; i++) {
      const bytes = randomBytes(size);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      await sql`insert into attachments (transaction_id, name, content_type, size, sha256, bytes)
                values (${1 + (i % 20)}, ${`receipt-${i}.pdf`}, 'application/pdf', ${size}, ${sha256}, ${bytes})`;
    }
    if (postgresUrl) await sql`vacuum analyze attachments`;
  } finally {
    await sql.end();
  }
}

async function main(): Promise<void> {
  mkdirSync(results, { recursive: true });
  const source = await database('source');
  const targets: Awaited<ReturnType<typeof database>>[] = [];
  try {
    await ledger(['user', 'add', 'bench@backup.example'], source.cliUrl);
    process.stderr.write(`filling ${RECEIPTS} receipts of ${RECEIPT_MIB} MiB on ${backend}…\n`);
    await fill(source.url);
    const expected = await receiptsDigest(source.url);

    const idle = await ledger(['user', 'list'], source.cliUrl);
    const runs: Record<string, Run & { file_mib?: number }> = { idle: { peak_mib: idle.peak_mib, seconds: idle.seconds } };
    const measure = (name: string, run: Run, file?: string) => {
      runs[name] = { ...run, above_idle_mib: round(run.peak_mib - idle.peak_mib), ...(file ? { file_mib: round(statSync(file).size / 2 ** 20) } : {}) };
      process.stderr.write(`${name}: ${JSON.stringify(runs[name])}\n`);
    };
    for (const [kind, args, env] of [
      ['plain', [], {}],
      ['age', ['--encrypt'], { LEDGER_BACKUP_PASSPHRASE: PASSPHRASE }],
    ] as const) {
      const file = path.join(results, `backup-memory-${backend}.${kind}.ledger-backup`);
      measure(`backup_${kind}`, await ledger(['backup', file, ...args], source.cliUrl, env), file);
      const target = await database(kind);
      targets.push(target);
      measure(`restore_${kind}`, await ledger(['restore', file], target.cliUrl, env));
      const restored = await receiptsDigest(target.url);
      if (restored !== expected) throw new Error(`the ${kind} restore differs: ${restored}, expected ${expected}`);
      rmSync(file, { force: true });
    }
    const report = {
      backend,
      receipts: RECEIPTS,
      receipt_mib: RECEIPT_MIB,
      total_mib: round(RECEIPTS * RECEIPT_MIB),
      budget_above_idle_mib: BUDGET_MIB,
      scrypt_mib_for_encrypted_runs: SCRYPT_MIB,
      peak_measured_by: existsSync(TIME) ? `${TIME} (maximum resident set size)` : '/proc VmHWM every 50 ms',
      restored: expected,
      runs,
      within_budget: Object.entries(runs).every(([name, run]) => name === 'idle' || (run.above_idle_mib ?? 0) < budgetOf(name)),
    };
    writeFileSync(path.join(results, `backup-memory-${backend}.json`), `${JSON.stringify(report, null, 2)}\n`);
    console.log(JSON.stringify(report, null, 2));
  } finally {
    for (const target of targets) await target.release();
    await source.release();
  }
}

await main();
