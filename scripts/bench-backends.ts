/**
 * The database's share of a request, read from the backends that serve one database only (issue
 * 31 item 2): on a machine where other test suites run their own PostgreSQL processes, the sum of
 * every `postgres` process on the machine (bench-cost.ts) counts their work too. Here the CPU of
 * each client backend connected to the bench's database (pg_stat_activity), read from /proc before
 * and after a run, is summed; a backend that appears during the run counts from zero, and the
 * reading connection excludes itself. The auxiliary processes (WAL writer, checkpointer) are left
 * out: they are shared with every database of the server.
 *
 * With pg_stat_statements loaded (`shared_preload_libraries`), `statementsOf` returns what each
 * statement cost in the same run: calls, execution time, buffers and WAL bytes, per call. The WAL
 * written meanwhile is the whole server's (exact on a server of the bench's own).
 */
import { readFileSync } from 'node:fs';
import type postgres from 'postgres';

const TICKS_PER_SECOND = 100;

function cpuMicrosOf(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1e6;
  } catch {
    return undefined; // another machine's server, or gone
  }
}

async function backendsOf(admin: postgres.Sql, database: string): Promise<Map<number, number>> {
  const rows = await admin<{ pid: number }[]>`
    select pid from pg_stat_activity
    where datname = ${database} and backend_type = 'client backend' and pid <> pg_backend_pid()`;
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    const micros = cpuMicrosOf(pid);
    if (micros !== undefined) cpu.set(pid, micros);
  }
  return cpu;
}

export interface StatementCost {
  query: string;
  calls: number;
  mean_exec_us: number;
  shared_blks_hit_per_call: number;
  shared_blks_dirtied_per_call: number;
  wal_bytes_per_call: number;
  wal_records_per_call: number;
}

/** Whether the server has pg_stat_statements loaded; if so the extension is created in `admin`'s database. */
export async function statementsAvailable(admin: postgres.Sql): Promise<boolean> {
  const [row] = await admin<{ libs: string }[]>`select current_setting('shared_preload_libraries') as libs`;
  if (!row!.libs.split(',').map((s) => s.trim()).includes('pg_stat_statements')) return false;
  await admin`create extension if not exists pg_stat_statements`;
  return true;
}

/**
 * CPU of `database`'s backends (µs) spent while `run` ran, and, with pg_stat_statements, the
 * statements it ran (those called at least `minCalls` times).
 */
export async function measureBackends<T>(
  admin: postgres.Sql,
  database: string,
  withStatements: boolean,
  run: () => Promise<T>,
): Promise<{ result: T; backendMicros: number; walBytes: number; statements?: StatementCost[] }> {
  if (withStatements) await admin`select pg_stat_statements_reset()`;
  const before = await backendsOf(admin, database);
  const [walBefore] = await admin<{ lsn: string }[]>`select pg_current_wal_insert_lsn()::text as lsn`;
  const result = await run();
  const [wal] = await admin<{ bytes: number }[]>`select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), ${walBefore!.lsn}::pg_lsn)::float8 as bytes`;
  const after = await backendsOf(admin, database);
  let backendMicros = 0;
  for (const [pid, micros] of after) backendMicros += micros - (before.get(pid) ?? 0);
  const walBytes = wal!.bytes;
  if (!withStatements) return { result, backendMicros, walBytes };
  const statements = await admin<StatementCost[]>`
    select regexp_replace(left(query, 160), '\\s+', ' ', 'g') as query, calls::int as calls,
      round((total_exec_time * 1000 / calls)::numeric, 1)::float8 as mean_exec_us,
      round(shared_blks_hit::numeric / calls, 1)::float8 as shared_blks_hit_per_call,
      round(shared_blks_dirtied::numeric / calls, 2)::float8 as shared_blks_dirtied_per_call,
      round(wal_bytes / calls, 0)::float8 as wal_bytes_per_call,
      round(wal_records::numeric / calls, 2)::float8 as wal_records_per_call
    from pg_stat_statements s join pg_database d on d.oid = s.dbid
    where d.datname = ${database} and calls >= 50
    order by total_exec_time desc limit 12`;
  return { result, backendMicros, walBytes, statements };
}
