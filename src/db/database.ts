import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import * as schema from './schema';

export type Schema = typeof schema;

/** What every repository function takes: the database or a transaction inside it (both backends). */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  db: Db;
  backend: 'pglite' | 'postgres';
  close(): Promise<void>;
}

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** A key for pg_advisory_lock, so two instances starting together migrate one after the other. */
const MIGRATION_LOCK_KEY = 0x1ed6e5;

/** Opens PGlite (a directory, or in memory when `dataDir` is undefined) and migrates it. */
export async function openPglite(
  dataDir: string | undefined,
  options: { loadDataDir?: Blob } = {},
): Promise<Database & { client: PGlite }> {
  const client = await PGlite.create({ dataDir, loadDataDir: options.loadDataDir });
  const db = drizzlePglite(client, { schema });
  await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
  return {
    db: db as unknown as Db,
    backend: 'pglite',
    client,
    close: () => client.close(),
  };
}

/**
 * At most one query waits behind the running one on a connection; the rest wait in the pool's own
 * queue for the first connection to come free. postgres.js otherwise pipelines up to 100 queries
 * onto each busy connection in turn, where they wait behind whatever that connection was given: at
 * saturation that spread GET /transactions' p99 to four times its median (issue 6/6). One waiting
 * query still hides the round trip between two queries (with none, POST /transactions lost a
 * fifth of its rate). postgres.js reads `max_pipeline` but its typings omit it;
 * tests/postgres-pool.test.ts checks that it is honoured.
 */
const ONE_WAITING_QUERY_PER_CONNECTION: Record<string, number> = { max_pipeline: 1 };

/** Connects to a PostgreSQL server and migrates it (serialised across instances by an advisory lock). */
export async function openPostgres(url: string, options: { max?: number } = {}): Promise<Database> {
  const client = postgres(url, {
    max: options.max ?? 10,
    ...ONE_WAITING_QUERY_PER_CONNECTION,
    onnotice: () => {},
    // Error details stay in the server log; postgres.js must not attach query text to messages.
    debug: false,
  });
  await migratePostgresOnce(url);
  const db = drizzlePostgres(preparingStatements(client), { schema });
  return {
    db: db as unknown as Db,
    backend: 'postgres',
    close: () => client.end({ timeout: 5 }),
  };
}

/**
 * drizzle's postgres-js driver sends every query with `prepare: false` (unless built with
 * `.prepare(name)`), and postgres.js then spends a second round trip describing each statement
 * with parameters before it runs it. Here every statement is prepared instead, once per
 * connection and cached by its text: one round trip per query. Transactions and savepoints hand
 * drizzle a client of their own, so those are wrapped the same way.
 */
function preparingStatements(client: postgres.Sql): postgres.Sql {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        return (query: string, params?: unknown[], options?: postgres.UnsafeQueryOptions) =>
          target.unsafe(query, params as never, { ...options, prepare: true });
      }
      if (property === 'begin' || property === 'savepoint') {
        return (...args: unknown[]) => {
          const run = args.pop() as (sql: postgres.Sql) => unknown;
          const method = Reflect.get(target, property, receiver) as (...a: unknown[]) => unknown;
          return method.call(target, ...args, (sql: postgres.Sql) => run(preparingStatements(sql)));
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
}

/**
 * Migrates over one dedicated connection: the advisory lock is held by a session, so the lock
 * and the migration must share it (a pool could hand the migration another connection, or,
 * with max 1, none at all).
 */
async function migratePostgresOnce(url: string): Promise<void> {
  const connection = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await connection`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    await migratePostgres(drizzlePostgres(connection), { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await connection.end({ timeout: 5 });
  }
}

/** The rows of `db.execute(sql…)`: postgres.js answers an array, PGlite an object holding `rows`. */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/**
 * The SQLSTATE of a database error, wherever the driver put it: a deferred trigger failing at
 * COMMIT throws the raw driver error, a statement inside a transaction a DrizzleQueryError whose
 * cause holds it (stack notes).
 */
export function sqlState(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/** The constraint a PostgreSQL error names, if any (postgres.js: constraint_name; PGlite: constraint). */
export function sqlConstraint(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const x = e as { constraint_name?: unknown; constraint?: unknown };
    if (typeof x.constraint_name === 'string') return x.constraint_name;
    if (typeof x.constraint === 'string') return x.constraint;
  }
  return undefined;
}

/** The message of our own trigger's RAISE (P0001), which is ours and safe to show. */
export function sqlMessage(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const x = e as { code?: unknown; message?: unknown };
    if (typeof x.code === 'string' && typeof x.message === 'string') return x.message;
  }
  return undefined;
}
