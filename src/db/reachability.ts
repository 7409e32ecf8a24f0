import { sql } from 'drizzle-orm';
import { causeChain } from '../errors';
import type { Logger } from '../log';
import type { Db } from './database';

// Issue 36 item 2: when PostgreSQL is down, restarting, or ends a session under a request, the
// request fails through no fault of its own and may be sent again a moment later. Such a failure
// is told apart from every other (answered 500 with Retry-After, src/http/errors.ts), and the log
// says once that the database is unreachable and once that it is back, rather than a fault line
// per request.

/** postgres.js's own codes for a session that ended or could not start. */
const DRIVER_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT']);

/** A socket's failures, as Node reports them for the connection's own system calls. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOENT', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const SOCKET_CALLS = new Set(['connect', 'read', 'write', 'getaddrinfo']);

/**
 * The server's own: class 08 (connection exception), 53300 (too many connections), and 57P01–57P03
 * (a session ended by an administrator, by the crash of another backend, or refused while the
 * server starts, stops or recovers).
 */
const SERVER_STATES = /^(08...|53300|57P0[123])$/;

/** True when the error says the database could not be reached or ended the session, not that a statement failed. */
export function isDatabaseUnreachable(error: unknown): boolean {
  return causeChain(error).some((e) => {
    const { code, syscall } = e as { code?: unknown; syscall?: unknown };
    if (typeof code !== 'string') return false;
    if (DRIVER_CODES.has(code) || SERVER_STATES.test(code)) return true;
    return SOCKET_CODES.has(code) && typeof syscall === 'string' && SOCKET_CALLS.has(syscall);
  });
}

/** The code that names the failure for the log: a SQLSTATE, postgres.js's or the socket's; never text. */
function failureCode(error: unknown): string | undefined {
  for (const e of causeChain(error)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code)) return code;
  }
  return undefined;
}

/** How often an unreachable database is tried again, and how long one try may take. */
const PROBE_INTERVAL_MS = 1000;
const PROBE_DEADLINE_MS = 5000;

type State = 'up' | 'checking' | 'down';

/**
 * Watches one database for a process: `failed` is told of each request the database failed.
 * The first failure starts a check (`select 1`): if the database answers, the sessions were
 * dropped but the server is there (one `database.connections_lost` line); if not, it is
 * unreachable (one `database.unreachable` line) and tried every second until it answers (one
 * `database.reachable` line). Each line counts the requests that failed meanwhile.
 */
class Reachability {
  private state: State = 'up';
  private failedRequests = 0;
  private since = 0;
  private code: string | undefined;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {}

  failed(error: unknown): void {
    this.failedRequests++;
    if (this.state !== 'up') return;
    this.state = 'checking';
    this.since = Date.now();
    this.code = failureCode(error);
    void this.check();
  }

  private async check(): Promise<void> {
    const failure = await this.probe();
    if (failure === 'ended') return;
    if (failure === undefined) {
      if (this.state === 'checking') this.log.error('database.connections_lost', { code: this.code, failed_requests: this.failedRequests });
      else this.log.info('database.reachable', { down_ms: Date.now() - this.since, failed_requests: this.failedRequests });
      this.state = 'up';
      this.failedRequests = 0;
      return;
    }
    if (this.state === 'checking') {
      this.state = 'down';
      this.log.error('database.unreachable', { code: failure.code ?? this.code, failed_requests: this.failedRequests, retry_every_ms: PROBE_INTERVAL_MS });
    }
    setTimeout(() => void this.check(), PROBE_INTERVAL_MS).unref();
  }

  /** Undefined when the database answered; 'ended' when the pool was closed (the process is stopping). */
  private async probe(): Promise<{ code?: string } | 'ended' | undefined> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.db.execute(sql`select 1`),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(Object.assign(new Error('no answer'), { code: 'PROBE_TIMEOUT' })), PROBE_DEADLINE_MS);
        }),
      ]);
      return undefined;
    } catch (error) {
      const code = failureCode(error);
      return code === 'CONNECTION_ENDED' ? 'ended' : { code };
    } finally {
      clearTimeout(timer);
    }
  }
}

const watches = new WeakMap<object, Reachability>();

/** Tells the watch of `db` (made on first use) that a request failed because the database was unreachable. */
export function reportUnreachable(db: Db, log: Logger, error: unknown): void {
  let watch = watches.get(db);
  if (!watch) watches.set(db, (watch = new Reachability(db, log)));
  watch.failed(error);
}
