import { serve, type ServerType } from '@hono/node-server';
import { waitForDirectory, type AdminAnswer, type HeldDirectory } from './admin/channel';
import { runAdminRequest } from './admin/commands';
import type { Config, ListenAddress } from './config';
import { openPglite, openPostgres, type Database } from './db/database';
import { embeddedPaths, type EmbeddedPaths } from './db/embedded';
import { Refusal, StartupError } from './errors';
import { createApp } from './http/app';
import { createWebApp } from './http/web-app';
import { GENERIC_FAULT } from './http/errors';
import { describeFault, type Logger } from './log';
import { hasAnyUser } from './users';

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
  lock?: HeldDirectory;
}

/**
 * D2: takes the data directory's lock. Another `serve` holding it is refused at once; a
 * short-lived holder (an admin command, or a server on its way out) is waited for, like an admin
 * command waits (src/cli/execute.ts).
 */
async function holdForServe(paths: EmbeddedPaths): Promise<HeldDirectory> {
  try {
    const held = await waitForDirectory(paths, 'serve', (holder): Promise<never> => {
      throw new StartupError(`the database in ${paths.dir} is already in use by process ${holder.pid}`);
    });
    // A running server ends the wait with a throw, so the only value here is the lock.
    return 'lock' in held ? held.lock : held.value;
  } catch (error) {
    if (error instanceof Refusal) throw new StartupError(error.message);
    throw error;
  }
}

async function openStore(config: Config, log: Logger): Promise<OpenedStore> {
  const target = config.database;
  if (target.kind === 'postgres') return { database: await openPostgres(target.url) };

  const paths = embeddedPaths(target.dir);
  const lock = await holdForServe(paths);
  try {
    const database = await openPglite(paths.pgData);
    lock.answerAdminRequests(async (request): Promise<AdminAnswer> => {
      try {
        return { ok: true, lines: await runAdminRequest(database.db, config, request) };
      } catch (error) {
        if (error instanceof Refusal) return { ok: false, message: error.message };
        log.error('admin.fault', describeFault(error));
        return { ok: false, message: GENERIC_FAULT };
      }
    });
    return { database, lock };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** Closes the database, then lets go of the directory (never the other way round: D2). */
async function closeStore(store: OpenedStore): Promise<void> {
  await store.lock?.stopServing();
  await store.database.close();
  await store.lock?.release();
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
  const store = await openStore(config, log);
  const app = createApp({ db: store.database.db, config, log });
  let listening: { server: ServerType; url: string };
  let web: { server: ServerType; url: string } | undefined;
  try {
    listening = await listen(app.fetch, config.bind, 'BIND_ADDR', options);
    if (config.webBind) {
      web = await listen(createWebApp(config).fetch, config.webBind, 'WEB_BIND_ADDR', options).catch(async (error) => {
        await closeServer(listening.server);
        throw error;
      });
    }
  } catch (error) {
    await closeStore(store);
    throw error;
  }
  const needsFirstUser = !(await hasAnyUser(store.database.db));
  log.info('listening', { url: listening.url, web: web?.url ?? null, database: store.database.backend });

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await Promise.all([closeServer(listening.server), web ? closeServer(web.server) : undefined]);
      await closeStore(store);
      log.info('stopped');
    })());
  return { url: listening.url, webUrl: web?.url, needsFirstUser, stop };
}
