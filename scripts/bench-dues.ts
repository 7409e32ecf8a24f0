/**
 * npm run bench:dues — D27 (issue 40): a catch-up of 12 months of monthly dues for 500 members
 * (6,000 charges), as `serve`'s background run posts them (postDuesFor: the exactly-once key per
 * plan, person and date, batches of 100), against the anchor in the same run: the same 6,000
 * two-entry transactions posted by insertTransaction in batches of 100, without keys. Prints and
 * writes bench-results/dues-<backend>.json: each side's seconds, and the ratio dues / anchor.
 *
 * The embedded default by default (a new cluster under bench-results/); BENCH_DATABASE_URL (a
 * database of the bench's own, dropped and created afresh) measures on that PostgreSQL instead.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { recreateDatabase } from './bench-database';
import { postDuesFor } from '../src/book/dues-posting';
import { insertTransaction } from '../src/book/transactions';
import { openConnection, openPostgres } from '../src/db/database';
import { openEmbedded } from '../src/db/embedded';
import { addUser } from '../src/identity/users';

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 500);
const MONTHS = 12;
const BATCH = 100;

const postgresUrl = process.env.BENCH_DATABASE_URL ? new URL(process.env.BENCH_DATABASE_URL) : undefined;
const backend = postgresUrl ? 'postgres' : 'embedded';

/** The first day of the month `back` months before this one (UTC), YYYY-MM-DD. */
function monthStart(back: number): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)).toISOString().slice(0, 10);
}

async function main(): Promise<void> {
  mkdirSync('bench-results', { recursive: true });
  const dir = path.resolve('bench-results', 'dues-embedded-data');
  let url: string;
  let release = async () => {};
  if (postgresUrl) {
    await recreateDatabase(postgresUrl);
    url = postgresUrl.href;
  } else {
    rmSync(dir, { recursive: true, force: true });
    const cluster = await openEmbedded(dir, 'admin');
    url = cluster.url;
    release = () => cluster.release();
  }
  const database = await openPostgres(url, { max: 1 });
  const sql = openConnection(url, { max: 1 });
  try {
    const user = await addUser(database.db, 'bench@dues.example', 'a bench password');
    const [dues] = await sql<{ id: number }[]>`insert into accounts (name, kind) values ('Dues', 'income') returning id`;
    const [anchorDues] = await sql<{ id: number }[]>`insert into accounts (name, kind) values ('Anchor dues', 'income') returning id`;
    const startOn = monthStart(MONTHS - 1);
    const [plan] = await sql<{ id: number }[]>`
      insert into dues_plans (name, amount_cents, every, start_on, income_account_id, created_by)
      values ('Membership', 500, 'month', ${startOn}, ${dues!.id}, ${user.id}) returning id`;
    // The members and their accounts, and as many accounts for the anchor's transactions.
    const members = await sql<{ id: number }[]>`
      insert into accounts (name, kind) select 'Member ' || n, 'asset' from generate_series(1, ${MEMBERS}) n returning id`;
    await sql`
      insert into people (name, account_id, dues_plan_id)
      select a.name, a.id, ${plan!.id} from accounts a where a.name like 'Member %'`;
    const anchorAccounts = await sql<{ id: number }[]>`
      insert into accounts (name, kind) select 'Anchor ' || n, 'asset' from generate_series(1, ${MEMBERS}) n returning id`;
    await sql`vacuum analyze`;

    const author = { userId: user.id, email: user.email, via: 'dues' as const, clientId: null };
    const dates = Array.from({ length: MONTHS }, (_, i) => monthStart(MONTHS - 1 - i));
    /** The anchor: the same charges as plain two-entry transactions in batches of 100, no keys; `tag` keeps each run's descriptions apart. */
    const postAnchor = async (tag: string) => {
      await sql`analyze`;
      const anchorDatabase = await openPostgres(url, { max: 1 });
      const started = performance.now();
      const all = dates.flatMap((on) => anchorAccounts.map((a) => ({ on, account: a.id })));
      for (let i = 0; i < all.length; i += BATCH) {
        await anchorDatabase.db.transaction(async (tx) => {
          for (const { on, account } of all.slice(i, i + BATCH)) {
            await insertTransaction(tx, {
              occurred_on: on,
              description: `Anchor ${tag} ${on.slice(0, 7)}`,
              entries: [{ account_id: account, amount_cents: 500 }, { account_id: anchorDues!.id, amount_cents: -500 }],
            }, author);
          }
        });
      }
      const seconds = (performance.now() - started) / 1000;
      await anchorDatabase.close();
      return seconds;
    };
    // A warm-up anchor run first: a book's first thousands of entries are posted with plans made for
    // an empty table (the balance check's, cached per session until ANALYZE), which scan every entry
    // per check; the measured runs start from a book of 6,000 transactions, after ANALYZE.
    await postAnchor('warm-up');
    // Each side on a connection of its own, after ANALYZE: the balance check's statements (plpgsql,
    // cached per session) are planned for the table as it is, not as it was when the first side
    // began with no entries at all (a plan kept from then scanned the whole table for each check).
    await sql`analyze`;
    const duesDatabase = await openPostgres(url, { max: 1 });
    const duesStarted = performance.now();
    const run = await postDuesFor(duesDatabase.db);
    const duesSeconds = (performance.now() - duesStarted) / 1000;
    await duesDatabase.close();
    const [count] = await sql<{ n: string; keys: string; twice: string }[]>`
      select (select count(*) from transactions where description like 'Membership %') as n,
        (select count(*) from dues_occurrences) as keys,
        (select count(*) from (select 1 from entries e join people p on p.account_id = e.account_id group by e.account_id, e.occurred_on having count(*) > 1) x) as twice`;
    const expected = MEMBERS * MONTHS;
    if (run.posted !== expected || Number(count!.n) !== expected || Number(count!.keys) !== expected || Number(count!.twice) !== 0) {
      throw new Error(`expected ${expected} charges, each once: posted ${run.posted}, ${count!.n} transactions, ${count!.keys} keys, ${count!.twice} twice`);
    }
    const again = await postDuesFor(database.db);
    if (again.posted !== 0) throw new Error(`a second run posted ${again.posted}`);
    const anchorSeconds = await postAnchor('measured');

    const result = {
      backend,
      members: MEMBERS,
      months: MONTHS,
      charges: expected,
      dues_seconds: Number(duesSeconds.toFixed(2)),
      anchor_seconds: Number(anchorSeconds.toFixed(2)),
      dues_to_anchor: Number((duesSeconds / anchorSeconds).toFixed(2)),
      charges_per_second: Math.round(expected / duesSeconds),
      load_average: os.loadavg().map((l) => Number(l.toFixed(1))),
      cpus: os.cpus().length,
    };
    console.log(JSON.stringify(result, null, 2));
    writeFileSync(path.join('bench-results', `dues-${backend}.json`), `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await sql.end();
    await database.close();
    await release();
    if (!postgresUrl) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
