import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect, type PgDatabase, type PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { causeChain } from '../errors';
import { MIGRATION_LOCK as MIGRATION_LOCK_KEY } from './locks';
import * as schema from './schema';

export type Schema = typeof schema;

/** What every repository function takes: the database or a transaction inside it. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  db: Db;
  backend: 'embedded' | 'postgres';
  close(): Promise<void>;
}

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));

/**
 * At most one query waits behind the running one on a connection; the rest wait in the pool's own
 * queue for the first connection to come free. postgres.js otherwise pipelines up to 100 queries
 * onto each busy connection in turn, where they wait behind whatever that connection was given: at
 * saturation that spread GET /transactions' p99 to four times its median (issue 6/6). One waiting
 * query still hides the round trip between two queries (with none, POST /transactions lost a
 * fifth of its rate). postgres.js reads `max_pipeline` but its typings omit it;
 * tests/postgres-pool.test.ts checks that it is honoured.
 *
 * This is only safe because no transaction runs on a shared connection (`onReservedConnection`
 * below): with a lowered `max_pipeline`, postgres.js's own `begin` can queue BEGIN behind a running
 * query without reserving the connection, and single statements that follow it run inside that
 * transaction and vanish at its rollback (stack notes; issue 1/7).
 */
const ONE_WAITING_QUERY_PER_CONNECTION: Record<string, number> = { max_pipeline: 1 };

/**
 * A backstop (issue 1/7): should a connection ever be left inside a transaction, the server ends
 * it after this long instead of letting later statements on it join a transaction that never
 * commits. Our transactions take milliseconds.
 */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 30_000;

/**
 * Seconds a connection waits before it opens again after the last try failed (issue 36 item 2):
 * doubling from 50 ms to at most a second, with jitter. postgres.js's own grows to 20 s, so after
 * an outage of a minute each request waited up to 20 s for its 500, and the service answered
 * again up to 20 s after PostgreSQL did (14 s in tests/database-outage.test.ts). Ten connections
 * trying once a second are no load for a server coming back.
 */
const reconnectBackoff = (retries: number) => Math.min(0.05 * 2 ** retries, 1) * (0.5 + Math.random() / 2);

/** Connects to a PostgreSQL server and migrates it (serialised across instances by an advisory lock). */
export async function openPostgres(
  url: string,
  options: { max?: number; backend?: Database['backend'] } = {},
): Promise<Database> {
  const backend = options.backend ?? 'postgres';
  const [target, explicit] = clientOptions(url, backend);
  const client = postgres(target, {
    ...explicit,
    max: options.max ?? 10,
    backoff: reconnectBackoff,
    ...ONE_WAITING_QUERY_PER_CONNECTION,
    connection: { ...explicit.connection, idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS },
    onnotice: () => {},
    // Error details stay in the server log; postgres.js must not attach query text to messages.
    debug: false,
  });
  await migratePostgresOnce(url, backend);
  const db = drizzlePostgres(ourStatements(client), { schema });
  return {
    db: db as unknown as Db,
    backend,
    close: () => client.end({ timeout: 5 }),
  };
}

/**
 * The client drizzle sees: postgres.js with two changes.
 *
 * Prepared statements: drizzle's postgres-js driver sends every query with `prepare: false`
 * (unless built with `.prepare(name)`), and postgres.js then spends a second round trip
 * describing each statement with parameters before it runs it. Here every statement is prepared
 * instead, once per connection and cached by its text: one round trip per query.
 *
 * Transactions (`begin`, which drizzle's `db.transaction` calls) run on a connection reserved for
 * them alone, taken only when it is idle, so nothing else is ever pipelined into a transaction
 * and no transaction is left open on a connection the pool hands out again.
 */
function ourStatements(client: postgres.Sql): postgres.Sql {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'unsafe') return preparedUnsafe(target);
      if (property === 'begin') {
        return (...args: unknown[]) => {
          const run = args.pop() as (sql: postgres.Sql) => unknown;
          return onReservedConnection(target, typeof args[0] === 'string' ? args[0] : '', run);
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
}

function preparedUnsafe(target: postgres.Sql) {
  return (query: string, params?: unknown[], options?: postgres.UnsafeQueryOptions) =>
    target.unsafe(query, params as never, { ...options, prepare: true });
}

/**
 * BEGIN, the work, then COMMIT (or ROLLBACK on any failure) on a reserved connection, released
 * only after the transaction ended. A connection that broke mid-way is closed by postgres.js and
 * its transaction ended by the server; from then on every statement on it, the ROLLBACK
 * included, is rejected (CONNECTION_CLOSED), and releasing it leaves it to the pool to open
 * again: postgres.js 3.4.9 needs patches/postgres+3.4.9.patch for that (issue 36 item 2; it threw
 * an uncaught TypeError instead, which ended the process). The mode (`isolation level …`) keeps postgres.js's rule of
 * letters and spaces only.
 */
async function onReservedConnection<T>(pool: postgres.Sql, mode: string, run: (sql: postgres.Sql) => T | Promise<T>): Promise<T> {
  const connection = await pool.reserve();
  try {
    await connection.unsafe(`begin ${mode.replace(/[^a-z ]/gi, '')}`);
    let result: T;
    try {
      result = await run(inTransaction(connection));
    } catch (error) {
      await connection.unsafe('rollback').catch(() => {});
      throw error;
    }
    await connection.unsafe('commit');
    return result;
  } finally {
    connection.release();
  }
}

/** The reserved connection as drizzle uses it inside a transaction: prepared statements and savepoints. */
function inTransaction(connection: postgres.ReservedSql): postgres.Sql {
  let savepoints = 0;
  const sql: postgres.Sql = new Proxy(connection, {
    get(target, property, receiver) {
      if (property === 'unsafe') return preparedUnsafe(target);
      if (property === 'savepoint') {
        return async <T>(run: (sql: postgres.Sql) => T | Promise<T>): Promise<T> => {
          const name = `s${savepoints++}`;
          await target.unsafe(`savepoint ${name}`);
          try {
            const result = await run(sql);
            await target.unsafe(`release savepoint ${name}`);
            return result;
          } catch (error) {
            await target.unsafe(`rollback to savepoint ${name}`);
            throw error;
          }
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
  return sql;
}

/**
 * A URL as postgres.js takes it. libpq's convention for a Unix socket, which DATABASE_URL follows
 * too, is a `host` query parameter naming the socket's directory; postgres.js wants the socket's
 * `path` instead, and would send the parameter to the server as a setting.
 */
export function clientTarget(url: string): [string, { path?: string }] {
  const parsed = new URL(url);
  const host = parsed.searchParams.get('host');
  if (!host?.startsWith('/')) return [url, {}];
  parsed.searchParams.delete('host');
  return [parsed.href, { path: path.join(host, `.s.PGSQL.${parsed.port || '5432'}`) }];
}

/**
 * The URL and the options postgres.js is given. A PostgreSQL server's URL (DATABASE_URL) keeps
 * postgres.js's reading of libpq's variables for what it leaves out (D2: PGHOST, PGPORT, PGUSER,
 * PGPASSWORD, PGDATABASE); the embedded cluster's connections name everything themselves.
 */
function clientOptions(url: string, backend: Database['backend']): [string, postgres.Options<Record<string, never>>] {
  const [target, socket] = clientTarget(url);
  return backend === 'embedded' ? [target, { ...socket, ...withoutEnvironment(target) }] : [target, socket];
}

/**
 * D2 (issue 25 item 15): libpq's environment variables never reach the embedded cluster. postgres.js
 * fills what a URL leaves out from PGHOST, PGPORT, PGUSER/PGUSERNAME, PGDATABASE and PGPASSWORD,
 * and each option not given from PG<OPTION> (PGSSL, PGCONNECT_TIMEOUT, PGMAX_LIFETIME, PGDEBUG,
 * PGTARGET_SESSION_ATTRS…), PGAPPNAME and PGTARGETSESSIONATTRS: every one of them is given here,
 * with postgres.js's own defaults. Callers' options still win (the spread comes first).
 */
function withoutEnvironment(target: string): postgres.Options<Record<string, never>> {
  const url = new URL(target);
  const password = decodeURIComponent(url.password);
  const options: postgres.Options<Record<string, never>> = {
    host: url.hostname,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username),
    database: decodeURIComponent(url.pathname.slice(1)),
    max: 10,
    ssl: false,
    idle_timeout: undefined,
    connect_timeout: 30,
    backoff: (retries) => (0.5 + Math.random() / 2) * Math.min(3 ** retries / 100, 20),
    keep_alive: 60,
    prepare: true,
    debug: false,
    fetch_types: true,
    publications: 'alltables',
    // Our own cluster is a primary: postgres.js checks it from the start-up message, at no cost.
    target_session_attrs: 'primary',
    connection: { application_name: 'postgres.js' },
  };
  // Read by postgres.js, missing or narrower in its typings: a function for the password (an
  // empty one counts as none given, and PGPASSWORD would fill it) and for the lifetime (its
  // default, a random 30 to 60 minutes per connection).
  const untyped = {
    pass: () => password,
    max_lifetime: () => 60 * (30 + Math.random() * 30),
    max_pipeline: 100,
    sslnegotiation: null,
  };
  return { ...options, ...(untyped as object) };
}

/**
 * One plain connection (no pool, no prepared statements): start-up checks, migrations, tests.
 * `backend: 'embedded'` for the embedded cluster, whose connections read no PG* variable (D2).
 */
export function openConnection(
  url: string,
  options: postgres.Options<Record<string, never>> = {},
  backend: Database['backend'] = 'postgres',
): postgres.Sql {
  const [target, explicit] = clientOptions(url, backend);
  return postgres(target, { ...explicit, max: 1, onnotice: () => {}, ...options, connection: { ...explicit.connection, ...options.connection } });
}

/**
 * Migrates over one dedicated connection: the advisory lock is held by a session, so the lock
 * and the migration must share it (a pool could hand the migration another connection, or,
 * with max 1, none at all).
 */
async function migratePostgresOnce(url: string, backend: Database['backend']): Promise<void> {
  // A migration that changes stored data says so in notices of its own (D6: an account renamed),
  // each printed as one line; PostgreSQL's own notices stay silent.
  const connection = openConnection(url, {
    onnotice: (notice) => {
      if (typeof notice.message === 'string' && notice.message.startsWith('ledger: ')) process.stderr.write(`${notice.message}\n`);
    },
  }, backend);
  try {
    await connection`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    await migratePostgres(drizzlePostgres(connection), { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await connection.end({ timeout: 5 });
  }
}

/** The rows of `db.execute(sql…)`: drizzle's postgres-js driver answers the rows array itself. */
export function rowsOf<T>(result: unknown): T[] {
  return result as T[];
}

const dialect = new PgDialect();

/**
 * A statement rendered once, with `sql.placeholder(name)` for what varies, and run with the values
 * of its placeholders: a hot path (POST /transactions, issue 2/7 item 6) then skips building and
 * rendering its SQL on every request, which cost an eighth of the server's CPU there. Prepared
 * once per database (or transaction) object.
 */
export function preparedStatement<Row>(statement: SQL): (db: Db, values: Record<string, unknown>) => Promise<Row[]> {
  const query = dialect.sqlToQuery(statement);
  const prepared = new WeakMap<Db, { execute(values: Record<string, unknown>): Promise<unknown> }>();
  return async (db, values) => {
    let statementOfDb = prepared.get(db);
    if (!statementOfDb) prepared.set(db, (statementOfDb = db._.session.prepareQuery(query, undefined, 'prepared', false)));
    return rowsOf<Row>(await statementOfDb.execute(values));
  };
}

/**
 * The rows of one statement in batches (`Infinity`: all in one batch), each row as its columns'
 * bytes as PostgreSQL sent them (UTF-8 for text; null for NULL), in the statement's column order:
 * text that only passes through, such as JSON written by PostgreSQL, is neither decoded into a
 * string nor encoded back for a response. On the database itself through a cursor planned
 * without JIT (`cursorRowsWithoutJit`); inside a transaction (`tx`), where a cursor of the pool
 * cannot run and a setting would leak into the caller's transaction, all at once, read as strings
 * and encoded (the rare path). Either way one statement, one snapshot.
 */
export async function* rawRowBatches(db: Db, statement: SQL, batch: number): AsyncGenerator<(Buffer | null)[][]> {
  if ((db as unknown as { $client?: unknown }).$client) {
    yield* cursorRowsWithoutJit<(Buffer | null)[]>(db, statement, batch, true);
    return;
  }
  const rows = rowsOf<Record<string, unknown>>(await db.execute(statement));
  if (rows.length > 0) yield rows.map((row) => Object.values(row).map((value) => (value === null ? null : Buffer.from(String(value)))));
}

/**
 * The rows of one statement, `batch` at a time, through a cursor (postgres.js) on the database
 * itself, not inside a transaction: one statement is one snapshot, and only a batch is ever in
 * memory (D17's exports and the list of a whole book). Planned without JIT (issue 31 item 4): a plan
 * whose estimated cost passes `jit_above_cost` (100,000 by default: the list of a whole book, or of
 * a busy quarter) is compiled by LLVM before its first row where the server has JIT (Debian's
 * PostgreSQL has; our embedded binaries have not): 200 to 330 ms for the list of a
 * 100,000-transaction book, inlining alone 200 ms, which was most of the wait for its first byte,
 * while the compiled expressions saved less than that over the whole read. The statement runs
 * alone in a read-only transaction on a connection reserved for it, where `set local jit = off`
 * holds for it and ends with it; the connection goes back to the pool once the last batch is read
 * or the reader stops (`return()`), or the statement failed. `Infinity` reads every row at once;
 * `raw`, each row as an array of its columns' bytes (postgres.js's raw mode).
 */
export async function* cursorRowsWithoutJit<Row>(db: Db, statement: SQL, batch: number, raw = false): AsyncGenerator<Row[]> {
  const client = (db as unknown as { $client?: postgres.Sql }).$client;
  if (!client) throw new Error('cursorRowsWithoutJit needs the database itself, not a transaction');
  const query = dialect.sqlToQuery(statement);
  const connection = await client.reserve();
  let ended = false;
  try {
    // One message, one round trip: the simple protocol takes both statements at once.
    await connection.unsafe('begin read only; set local jit = off').simple();
    const prepared = connection.unsafe(query.sql, query.params as never[], { prepare: true });
    const rows = raw ? prepared.raw() : prepared;
    if (Number.isFinite(batch)) {
      yield* rows.cursor(batch) as AsyncIterable<Row[]>;
    } else {
      const all = (await rows) as unknown as Row[];
      if (all.length > 0) yield all;
    }
    await connection.unsafe('commit');
    ended = true;
  } finally {
    // A reader that stopped early, or a statement that failed: nothing was written, so roll back.
    if (!ended) await connection.unsafe('rollback').catch(() => {});
    connection.release();
  }
}

/** A name for each cursor `transactionCursorRows` declares, unique in this process. */
let declaredCursors = 0;

/**
 * The rows of one statement, `batch` at a time, inside a transaction (`tx`): a cursor declared in
 * it (`DECLARE … NO SCROLL CURSOR`) and fetched batch by batch, so it reads the transaction's own
 * snapshot, only a batch is ever in memory, and the transaction may run other statements between
 * two batches (D22: a backup reads every table in one snapshot). Stopping early closes the cursor;
 * the transaction's end closes it anyway. `cursorRowsWithoutJit` is its counterpart for the database itself.
 */
export async function* transactionCursorRows<Row>(tx: Db, statement: SQL, batch: number): AsyncGenerator<Row[]> {
  const name = sql.identifier(`ledger_cursor_${++declaredCursors}`);
  await tx.execute(sql`declare ${name} no scroll cursor for ${statement}`);
  try {
    for (;;) {
      const rows = rowsOf<Row>(await tx.execute(sql`fetch forward ${sql.raw(String(Math.trunc(batch)))} from ${name}`));
      if (rows.length > 0) yield rows;
      if (rows.length < batch) return;
    }
  } finally {
    // After a failed statement the transaction is aborted and refuses this too: it closes the cursor itself.
    await tx.execute(sql`close ${name}`).catch(() => {});
  }
}

/**
 * The SQLSTATE of a database error, wherever the driver put it: a deferred trigger failing at
 * COMMIT throws the raw driver error, a statement inside a transaction a DrizzleQueryError whose
 * cause holds it (stack notes).
 */
export function sqlState(error: unknown): string | undefined {
  for (const e of causeChain(error)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/** The constraint a PostgreSQL error names, if any (postgres.js: constraint_name). */
export function sqlConstraint(error: unknown): string | undefined {
  for (const e of causeChain(error)) {
    const x = e as { constraint_name?: unknown };
    if (typeof x.constraint_name === 'string') return x.constraint_name;
  }
  return undefined;
}

/** The message of our own trigger's RAISE (P0001), which is ours and safe to show. */
export function sqlMessage(error: unknown): string | undefined {
  for (const e of causeChain(error)) {
    const x = e as { code?: unknown; message?: unknown };
    if (typeof x.code === 'string' && typeof x.message === 'string') return x.message;
  }
  return undefined;
}
