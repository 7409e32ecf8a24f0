import { serve, type ServerType } from '@hono/node-server';
import type { Config, ListenAddress } from './config';
import { openPostgres, type Database } from './db/database';
import { openEmbedded, type EmbeddedDatabase, type ServeLockEvents } from './db/embedded';
import { StartupError } from './errors';
import { createApp } from './http/app';
import { createWebApp } from './http/web-app';
import { describeFault, type Logger } from './log';
import { recordServeOrigin } from './identity/serve-origin';
import { hasAnyUser } from './identity/users';
import { startBackgroundJobs } from './background';

export interface RunningServer {
  url: string;
  /** The web app's address, when WEB_BIND_ADDR is not `off`. */
  webUrl?: string;
  /** True while the database holds no user (D14: the start-up line says how to add one). */
  needsFirstUser: boolean;
  /** D10: stop accepting, finish in-flight requests, close the database. */
  stop(): Promise<void>;
}

interface OpenedStore {
  database: Database;
  /** The embedded cluster, which `serve` holds until it stops (D2). */
  embedded?: EmbeddedDatabase;
}

async function openStore(config: Config, lockEvents: ServeLockEvents): Promise<OpenedStore> {
  const target = config.database;
  if (target.kind === 'postgres') return { database: await openPostgres(target.url) };
  const embedded = await openEmbedded(target.dir, 'serve', lockEvents);
  try {
    return { database: await openPostgres(embedded.url, { backend: 'embedded' }), embedded };
  } catch (error) {
    await embedded.release();
    throw error;
  }
}

/** Closes the pool, then lets go of (and stops) the embedded cluster. */
async function closeStore(store: OpenedStore): Promise<void> {
  await store.database.close();
  await store.embedded?.release();
}

export interface ServeOptions {
  /**
   * @hono/node-server's lightweight Request and Response in place of the global ones: a response
   * is then written without going through a web stream (about a third of the CPU of a small
   * request). Only for a process that does not itself call fetch, as `ledger serve`; tests that
   * start the server beside their own HTTP clients keep the globals.
   */
  overrideGlobalObjects?: boolean;
}

function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  address: ListenAddress,
  variable: string,
  options: ServeOptions,
): Promise<{ server: ServerType; url: string }> {
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch, hostname: address.host, port: address.port, overrideGlobalObjects: options.overrideGlobalObjects ?? false },
      (info) => {
        const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
        resolve({ server, url: `http://${host}:${info.port}` });
      },
    );
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new StartupError(`cannot listen on ${variable} ${address.host}:${address.port}: ${error.code ?? error.message}`)),
    );
  });
}

/** How long SIGTERM waits for requests in flight before cutting the remaining connections. */
const DRAIN_DEADLINE_MS = 10_000;

function closeServer(server: ServerType): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  if (!('closeIdleConnections' in server)) return closed;
  // A keep-alive client could go on sending requests forever on an open connection: every answer
  // from now on says `Connection: close`, so each connection ends after its request in flight.
  server.prependListener('request', (_request, response) => response.setHeader('connection', 'close'));
  server.closeIdleConnections();
  const deadline = setTimeout(() => server.closeAllConnections(), DRAIN_DEADLINE_MS);
  deadline.unref();
  return closed.finally(() => clearTimeout(deadline));
}

/** `ledger serve`: migrate, then serve the API on BIND_ADDR and the web app on WEB_BIND_ADDR. */
export async function startServer(config: Config, log: Logger, options: ServeOptions = {}): Promise<RunningServer> {
  let lockTaken: (holder: string | undefined) => void = () => {};
  const taken = new Promise<string | undefined>((resolve) => (lockTaken = resolve));
  const store = await openStore(config, {
    onRegained: (lostMs) => log.info('database.serve_lock_regained', { lost_ms: lostMs }),
    onTaken: (holder) => lockTaken(holder),
  });
  let listening: { server: ServerType; url: string } | undefined;
  let web: { server: ServerType; url: string } | undefined;
  let needsFirstUser: boolean;
  try {
    const app = createApp({ db: store.database.db, config, log });
    listening = await listen(app.fetch, config.bind, 'BIND_ADDR', options);
    if (config.webBind) web = await listen(createWebApp(config).fetch, config.webBind, 'WEB_BIND_ADDR', options);
    await recordServeOrigin(store.database.db, config.apiOrigin);
    needsFirstUser = !(await hasAnyUser(store.database.db));
  } catch (error) {
    // Issue 25 item 15: a start that fails stops what it started, the embedded cluster included.
    await Promise.all([listening && closeServer(listening.server), web && closeServer(web.server)]);
    await closeStore(store);
    throw error;
  }
  const api = listening;
  log.info('listening', { url: api.url, web: web?.url ?? null, database: store.database.backend });
  const jobs = startBackgroundJobs(store.database.db, log);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await Promise.all([closeServer(api.server), web ? closeServer(web.server) : undefined, jobs.stop()]);
      await closeStore(store);
      log.info('stopped');
    })());
  // Issue 36 item 2 (D2): the embedded cluster belongs to one `serve`. Ours lost its lock's session
  // (a postmaster reset) and another `serve` took the lock before we had it again: two would now
  // run one cluster, and the last to leave would stop it under the other. Stop, and exit non-zero
  // so that the supervisor (systemd, podman) sees it and a person reads why.
  void taken.then(async (holder) => {
    const dir = config.database.kind === 'embedded' ? config.database.dir : null;
    log.error('database.serve_lock_taken', { data_dir: dir, holder_pid: holder === undefined ? null : Number(holder), exit_code: 1 });
    await stop().catch((error: unknown) => log.error('shutdown.fault', describeFault(error)));
    process.exit(1);
  });
  return { url: api.url, webUrl: web?.url, needsFirstUser, stop };
}
