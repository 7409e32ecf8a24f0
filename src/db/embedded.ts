import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * D2: PGlite takes no lock of its own, so one process at a time opens a data directory. The lock
 * is a file created with O_EXCL holding the owner's pid; a lock whose pid is gone (after a crash)
 * is stale and taken over. `serve` also names its admin socket in the lock, so admin commands run
 * while it serves (src/admin/channel.ts).
 *
 * Layout of the directory: `pg/` is PGlite's PostgreSQL data, `ledger.lock` the lock, `admin.sock`
 * the admin socket of a running `serve`.
 */
export interface EmbeddedPaths {
  dir: string;
  pgData: string;
  lockFile: string;
  adminSocket: string;
}

export function embeddedPaths(dir: string): EmbeddedPaths {
  return {
    dir,
    pgData: path.join(dir, 'pg'),
    lockFile: path.join(dir, 'ledger.lock'),
    adminSocket: path.join(dir, 'admin.sock'),
  };
}

export interface LockOwner {
  pid: number;
  role: 'serve' | 'admin';
  /** Set by `serve` once its admin socket listens. */
  socket?: string;
}

export type LockAttempt = { acquired: true; lock: DirectoryLock } | { acquired: false; holder: LockOwner };

export interface DirectoryLock {
  /** Announces the admin socket of this process to admin commands. */
  announceSocket(socket: string): void;
  release(): void;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(lockFile: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(lockFile, 'utf8')) as LockOwner;
    return Number.isInteger(owner.pid) ? owner : undefined;
  } catch {
    return undefined;
  }
}

export function tryLockDirectory(paths: EmbeddedPaths, role: LockOwner['role']): LockAttempt {
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  const mine: LockOwner = { pid: process.pid, role };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(paths.lockFile, JSON.stringify(mine), { flag: 'wx', mode: 0o600 });
      return { acquired: true, lock: directoryLock(paths, mine) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readOwner(paths.lockFile);
    // An unreadable lock is being written right now; a lock of a dead process is stale.
    if (holder === undefined) continue;
    if (processAlive(holder.pid) && holder.pid !== process.pid) return { acquired: false, holder };
    try {
      unlinkSync(paths.lockFile);
    } catch {
      // Another process removed the stale lock first; try again.
    }
  }
  const holder = readOwner(paths.lockFile);
  return { acquired: false, holder: holder ?? { pid: 0, role: 'admin' } };
}

function directoryLock(paths: EmbeddedPaths, mine: LockOwner): DirectoryLock {
  return {
    announceSocket(socket) {
      const temporary = `${paths.lockFile}.${process.pid}`;
      writeFileSync(temporary, JSON.stringify({ ...mine, socket }), { mode: 0o600 });
      renameSync(temporary, paths.lockFile);
    },
    release() {
      if (readOwner(paths.lockFile)?.pid !== process.pid) return;
      try {
        unlinkSync(paths.lockFile);
      } catch {
        // Already gone.
      }
    },
  };
}
