import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
});
