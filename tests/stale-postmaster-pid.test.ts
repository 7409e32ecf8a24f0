import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { binaries, clusterUser, embeddedLocation, startCluster } from '../src/db/cluster';
import { openEmbedded } from '../src/db/embedded';
import { newDataRoot, stopEmbedded } from './support/embedded';

// D23, issue 36 item 6: startCluster removes a postmaster.pid whose pid is no `postgres` process
// of ours (a crash, then a new container whose pids start afresh). But a postmaster running in
// another container on the same volume is no process of ours either: its file must stay, and it
// stays when the server answers on the socket postmaster.pid names. The pid of a `sleep` of ours
// plays the other container's postmaster: alive, and not postgres. (Not our own pid: PostgreSQL
// takes its parent's pid in the file for a stale one of its own.)

describe.skipIf(!existsSync('/proc/self/comm'))('a postmaster.pid naming no postgres of ours (issue 36 item 6, D23)', () => {
  const root = newDataRoot('ledger-stale-pid-');
  const dir = path.join(root, 'data');
  const pidFile = path.join(dir, 'postmaster.pid');
  /** postmaster.pid with its first line (the pid) replaced. */
  const withPid = (text: string, pid: number) => [String(pid), ...text.split('\n').slice(1)].join('\n');
  // Run as the cluster's user when we are root, as the other container's postmaster would be: a pid
  // it may not signal (EPERM) is one PostgreSQL itself takes for no postmaster.
  const user = clusterUser();
  const other = spawn('sleep', ['300'], { stdio: 'ignore', uid: user?.uid, gid: user?.gid });
  const otherPid = other.pid!;

  afterAll(async () => {
    other.kill();
    await stopEmbedded(dir).catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  });

  it('is kept while a server answers on the socket it names: the start joins that server (false) and never runs a second postmaster', { timeout: 60_000 }, async () => {
    const cluster = await openEmbedded(dir, 'serve');
    const original = readFileSync(pidFile, 'utf8');
    try {
      const foreign = withPid(original, otherPid);
      // writeFileSync on the existing file keeps its owner (the cluster's user when we are root).
      writeFileSync(pidFile, foreign);
      expect(readFileSync(`/proc/${otherPid}/comm`, 'utf8').trim()).not.toBe('postgres');
      const started = await startCluster(embeddedLocation(dir), await binaries(), clusterUser());
      expect(started, 'a server runs there: nothing is started').toBe(false);
      expect(existsSync(pidFile), 'the live server\'s pid file is kept').toBe(true);
      expect(readFileSync(pidFile, 'utf8')).toBe(foreign);
    } finally {
      writeFileSync(pidFile, original);
      await cluster.release();
    }
    expect(existsSync(pidFile), 'the cluster stopped when its last user left').toBe(false);
  });

  it('is removed when nothing answers there (a crash left it): the cluster starts', { timeout: 60_000 }, async () => {
    // The file a postmaster killed with its container left behind, its pid now one of ours.
    const cluster = await openEmbedded(dir, 'admin');
    const left = withPid(readFileSync(pidFile, 'utf8'), otherPid);
    await cluster.release();
    expect(existsSync(pidFile)).toBe(false);
    writeFileSync(pidFile, left);
    const started = await startCluster(embeddedLocation(dir), await binaries(), clusterUser());
    expect(started).toBe(true);
    expect(Number(readFileSync(pidFile, 'utf8').split('\n')[0])).not.toBe(otherPid);
    await stopEmbedded(dir);
  });

  it('goes with the socket lock file the killed postmaster left, which names the same pid: the cluster starts (the container flake)', { timeout: 60_000 }, async () => {
    // A kill -9 of the container leaves both files; in the new container the old pid can be one of
    // the new Node's threads, alive and signalable, and PostgreSQL then refused the start with
    // "lock file .s.PGSQL.5432.lock already exists" until the lock went too.
    const location = embeddedLocation(dir);
    const cluster = await openEmbedded(dir, 'admin');
    const pidText = readFileSync(pidFile, 'utf8');
    const socketLock = location.socketDir ? path.join(location.socketDir, '.s.PGSQL.5432.lock') : undefined;
    const lockText = socketLock ? readFileSync(socketLock, 'utf8') : undefined;
    await cluster.release();
    expect(existsSync(pidFile)).toBe(false);
    writeFileSync(pidFile, withPid(pidText, otherPid));
    if (socketLock && lockText) writeFileSync(socketLock, withPid(lockText, otherPid));
    const started = await startCluster(location, await binaries(), clusterUser());
    expect(started).toBe(true);
    expect(Number(readFileSync(pidFile, 'utf8').split('\n')[0])).not.toBe(otherPid);
    if (socketLock) expect(Number(readFileSync(socketLock, 'utf8').split('\n')[0])).not.toBe(otherPid);
    await stopEmbedded(dir);
  });

  it('a socket lock file alone (no postmaster.pid) naming a live process that is no postgres goes too', { timeout: 60_000 }, async () => {
    const location = embeddedLocation(dir);
    if (!location.socketDir) return;
    const socketLock = path.join(location.socketDir, '.s.PGSQL.5432.lock');
    const cluster = await openEmbedded(dir, 'admin');
    const lockText = readFileSync(socketLock, 'utf8');
    await cluster.release();
    writeFileSync(socketLock, withPid(lockText, otherPid));
    expect(existsSync(pidFile)).toBe(false);
    expect(await startCluster(location, await binaries(), clusterUser())).toBe(true);
    expect(Number(readFileSync(socketLock, 'utf8').split('\n')[0])).not.toBe(otherPid);
    await stopEmbedded(dir);
  });

  it('a start PostgreSQL refuses says PostgreSQL\'s FATAL line, not the log\'s last ("database system is shut down")', { timeout: 60_000 }, async () => {
    // A socket lock naming a live process called postgres is kept by our rule (it may be a
    // postmaster of ours starting), and PostgreSQL refuses the start: FATAL, then its last
    // line "database system is shut down", which named no cause.
    const location = embeddedLocation(dir);
    if (!location.socketDir) return;
    const socketLock = path.join(location.socketDir, '.s.PGSQL.5432.lock');
    const cluster = await openEmbedded(dir, 'admin');
    const lockText = readFileSync(socketLock, 'utf8');
    await cluster.release();
    const fakeDir = mkdtempSync(path.join(tmpdir(), 'ledger-fake-postgres-'));
    const fake = path.join(fakeDir, 'postgres');
    copyFileSync(execFileSync('which', ['sleep'], { encoding: 'utf8' }).trim(), fake);
    chmodSync(fakeDir, 0o755);
    const impostor = spawn(fake, ['300'], { stdio: 'ignore', uid: user?.uid, gid: user?.gid });
    try {
      await new Promise((resolve) => impostor.once('spawn', resolve));
      writeFileSync(socketLock, withPid(lockText, impostor.pid!));
      const start = startCluster(location, await binaries(), clusterUser());
      await expect(start).rejects.toThrow(/did not start: .*FATAL: .*lock file/);
    } finally {
      impostor.kill();
      rmSync(socketLock, { force: true });
      rmSync(fakeDir, { recursive: true, force: true });
    }
  });
});
