import { rmSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../src/book/accounts';
import { createDuesPlan } from '../src/book/dues-plans';
import { postDuesFor } from '../src/book/dues-posting';
import { openPostgres, rowsOf, type Database, type Db } from '../src/db/database';
import { openEmbedded } from '../src/db/embedded';
import { people } from '../src/db/schema';
import { addUser } from '../src/identity/users';
import { BACKENDS, openTestDatabase, postgresAvailable, type Backend } from './support/databases';
import { newDataRoot } from './support/embedded';
import { freePort, startServe, type LogRecord, type ServeProcess } from './support/processes';

// Issue 40 item 2 (D27 "exactly once per (plan, person, date) whatever the instances, restarts or
// retries", D21's machinery): the (plan, person, date) key of dues_occurrences, inserted in the
// same database transaction as the charge, decides. Checked three ways on both databases: posting
// runs racing in one process over two connection pools; a real `ledger serve` left off for months
// that catches up at start, then restarts and posts nothing more; and (PostgreSQL, as D10's two
// instances) two `ledger serve` processes started together on one database, each charge once.
// The built server is the test suite's (its global setup builds it from the sources).

const API = 'http://localhost:38082';
const EMAIL = 'treasurer@dues-exactly-once.example';
const LOG_WAIT_MS = 60_000;

/** The first of the month `n` months before this one (UTC), computed apart from src/book/occurrences.ts. */
const firstOfMonthsAgo = (n: number) => {
  const d = new Date(`${new Date().toISOString().slice(0, 7)}-01T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() - n);
  return d.toISOString().slice(0, 10);
};

interface Book {
  db: Db;
  /** What `serve` gets as DATABASE_URL. */
  serveUrl: string;
  /** Another pool on the same database, as a second instance would hold. */
  second(): Promise<Database>;
  close(): Promise<void>;
}

/** Embedded: a data directory of its own (`file:`), held open by the test as an admin command would; PostgreSQL: a fresh clone. */
async function openBook(backend: Backend): Promise<Book> {
  if (backend === 'postgres') {
    const database = await openTestDatabase('postgres');
    return { db: database.db, serveUrl: database.url, second: () => openPostgres(database.url), close: () => database.close() };
  }
  const root = newDataRoot('ledger-dues-once-');
  const dir = path.join(root, 'data');
  const cluster = await openEmbedded(dir, 'admin');
  const database = await openPostgres(cluster.url, { backend: 'embedded' });
  return {
    db: database.db,
    serveUrl: `file:${dir}`,
    second: () => openPostgres(cluster.url, { backend: 'embedded' }),
    async close() {
      await database.close();
      await cluster.release();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The first log line of `server` that `match` accepts, waited for (bounded). */
async function logged(server: ServeProcess, match: (record: LogRecord) => boolean, ms = LOG_WAIT_MS): Promise<LogRecord> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = server.logs.find(match);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no such log line within ${ms} ms: ${JSON.stringify(server.logs)}\n${server.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
/** The start-up run's summary (src/background.ts): it says how many dues it posted. */
const firstRun = (server: ServeProcess) => logged(server, (r) => r.event === 'background_run');

/** Charges of a plan's name: how many, and (person, date) pairs charged more than once. */
async function charged(db: Db, planName: string): Promise<{ count: number; twice: unknown[]; keys: number }> {
  const like = `${planName} %`;
  const [count] = rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from transactions where description like ${like}`));
  const twice = rowsOf(await db.execute(sql`
    select e.account_id, t.occurred_on::text, count(*)::int as n
    from transactions t join entries e on e.transaction_id = t.id and e.amount_cents > 0
    where t.description like ${like} group by e.account_id, t.occurred_on having count(*) > 1`));
  const [keys] = rowsOf<{ n: number }>(await db.execute(sql`
    select count(*)::int as n from dues_occurrences o join dues_plans p on p.id = o.plan_id where p.name = ${planName}`));
  return { count: count!.n, twice, keys: keys!.n };
}

for (const backend of BACKENDS) {
  describe.skipIf(backend === 'postgres' && !postgresAvailable())(`D27: dues posted exactly once [${backend}]`, () => {
    let book: Book;
    let userId: number;
    let dues: number;
    const running: ServeProcess[] = [];
    const start = async () => {
      const server = await startServe({ env: { DATABASE_URL: book.serveUrl, BIND_ADDR: `127.0.0.1:${await freePort()}`, WEB_BIND_ADDR: 'off', API_ORIGIN: API } });
      running.push(server);
      return server;
    };
    const cli = { email: null, via: 'cli' as const, clientId: null };
    /** A monthly plan from `months` months ago (written while nothing posts) and `members` people following it. */
    const planWithMembers = async (name: string, months: number, members: number) => {
      const plan = await createDuesPlan(
        book.db,
        { name, amount_cents: 500, every: 'month', start_on: firstOfMonthsAgo(months), income_account_id: dues },
        { userId, email: EMAIL, via: 'session', clientId: null },
      );
      for (let i = 0; i < members; i++) {
        const account = await createAccount(book.db, { name: `${name} member ${i}`, kind: 'asset' }, cli);
        await book.db.insert(people).values({ name: `${name} member ${i}`, accountId: account.id, duesPlanId: plan.id });
      }
      return plan;
    };

    beforeAll(async () => {
      book = await openBook(backend);
      userId = (await addUser(book.db, EMAIL, 'a password for the dues')).id;
      dues = (await createAccount(book.db, { name: 'Membership dues', kind: 'income' }, cli)).id;
    }, 90_000);

    afterAll(async () => {
      await Promise.all(running.map((s) => s.kill()));
      await book?.close();
    });

    it('posting runs racing over two pools (two instances\' worth of connections, every scope at once) charge each (plan, person, date) once', async () => {
      const plan = await planWithMembers('Raced', 11, 25); // 12 dates × 25 people
      const other = await book.second();
      try {
        const personIds = rowsOf<{ id: number }>(await book.db.execute(sql`select id::int from people where dues_plan_id = ${plan.id} order by id`)).map((r) => r.id);
        const runs = await Promise.all([
          postDuesFor(book.db, { planId: plan.id }),
          postDuesFor(other.db, { planId: plan.id }),
          postDuesFor(book.db),
          postDuesFor(other.db),
          ...personIds.slice(0, 5).map((personId, i) => postDuesFor(i % 2 === 0 ? other.db : book.db, { personId })),
        ]);
        expect(runs.reduce((sum, r) => sum + r.posted, 0)).toBe(300);
        expect(await charged(book.db, 'Raced')).toEqual({ count: 300, twice: [], keys: 300 });
        // A retry after the fact finds every occurrence handled.
        expect(await postDuesFor(other.db)).toEqual({ posted: 0, refused: 0 });
      } finally {
        await other.close();
      }
    }, 120_000);

    it('a server off for months catches up at start (oldest first, via "dues", the plan\'s creator as author); a restart posts nothing more', async () => {
      await planWithMembers('Off season', 5, 20); // 6 dates × 20 people
      let server = await start();
      const run = await firstRun(server);
      expect(run).toMatchObject({ dues_posted: 120, dues_refused: 0 });
      expect(await charged(book.db, 'Off season')).toEqual({ count: 120, twice: [], keys: 120 });
      const order = rowsOf<{ on: string }>(await book.db.execute(sql`select occurred_on::text as on from transactions where description like 'Off season %' order by id`));
      expect(order.map((r) => r.on)).toEqual([...order.map((r) => r.on)].sort());
      expect(order[0]!.on).toBe(firstOfMonthsAgo(5));
      const records = rowsOf<{ via: string; actor_email: string; created_by: number }>(await book.db.execute(sql`
        select c.via, c.actor_email, t.created_by::int as created_by from changes c join transactions t on t.id = c.subject_id
        where c.subject = 'transaction' and t.description like 'Off season %'`));
      expect(records).toHaveLength(120);
      expect(new Set(records.map((r) => `${r.via} ${r.actor_email} ${r.created_by}`))).toEqual(new Set([`dues ${EMAIL} ${userId}`]));
      expect((await server.stop()).code).toBe(0);

      server = await start();
      expect(await firstRun(server)).toMatchObject({ dues_posted: 0, dues_refused: 0 });
      expect(await charged(book.db, 'Off season')).toEqual({ count: 120, twice: [], keys: 120 });
      expect((await server.stop()).code).toBe(0);
    }, 180_000);

    it.skipIf(backend === 'embedded')('two `ledger serve` instances started together on one database post each charge once (D10, D21)', async () => {
      await planWithMembers('Two instances', 7, 30); // 8 dates × 30 people
      const servers = await Promise.all([start(), start()]);
      const runs = await Promise.all(servers.map(firstRun));
      expect(runs.reduce((sum, r) => sum + Number(r.dues_posted), 0)).toBe(240);
      expect(await charged(book.db, 'Two instances')).toEqual({ count: 240, twice: [], keys: 240 });
      for (const server of servers) expect((await server.stop()).code).toBe(0);
    }, 180_000);
  });
}
