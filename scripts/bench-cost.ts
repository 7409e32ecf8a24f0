/**
 * Where a request's time goes (issue 2/7 item 6): the CPU of the server process, of the bench's
 * own process (autocannon, or the direct anchor's postgres.js client) and of every PostgreSQL
 * process on the machine, read before and after a scenario and divided by the requests it served.
 * On a machine of two cores their sum per request bounds the rate of either side.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

function cpuMicrosOf(pid: number | string): number {
  try {
    // utime and stime are fields 14 and 15; the command name (field 2) may hold spaces, so count from its end.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1e6;
  } catch {
    return 0; // gone meanwhile
  }
}

/** Every postgres process's CPU: the backends of this scenario's connections and the server's own. */
function databaseCpuMicros(): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += cpuMicrosOf(pid);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

function ownCpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

export interface Cost {
  /** The `ledger serve` process; absent for the direct anchor, which has no server. */
  server_cpu_us_per_request?: number;
  /** The bench's own process: autocannon against the server, or the anchor's postgres.js client. */
  bench_cpu_us_per_request: number;
  database_cpu_us_per_request: number;
}

interface Reading {
  server: number;
  bench: number;
  database: number;
}

/**
 * Reads the cost of what `run` does, as served `requests` (known after it). Backends that end
 * during the run take their CPU with them: the pools measured stay open throughout.
 */
export async function measureCost<T>(
  serverPid: number | undefined,
  run: () => Promise<T>,
  requestsOf: (result: T) => number,
): Promise<{ result: T; cost: Cost }> {
  const read = (): Reading => ({
    server: serverPid === undefined ? 0 : cpuMicrosOf(serverPid),
    bench: ownCpuMicros(),
    database: databaseCpuMicros(),
  });
  const before = read();
  const result = await run();
  const after = read();
  const requests = Math.max(1, requestsOf(result));
  const per = (key: keyof Reading) => Math.round((after[key] - before[key]) / requests);
  return {
    result,
    cost: {
      ...(serverPid === undefined ? {} : { server_cpu_us_per_request: per('server') }),
      bench_cpu_us_per_request: per('bench'),
      database_cpu_us_per_request: per('database'),
    },
  };
}
