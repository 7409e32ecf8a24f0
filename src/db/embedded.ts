import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Refusal } from '../errors';

/**
 * D2: PGlite takes no lock of its own, so one process at a time opens a data directory. The lock
 * is a listening Unix socket in Linux's abstract namespace, named after the directory's real path:
 * binding it is atomic (of two processes starting together exactly one gets it) and the kernel
 * frees it when its process ends, however it ends. No file can go stale and no pid can be reused.
 * The same socket is the admin channel of a running `serve` (src/admin/channel.ts).
 *
 * Layout of the directory: `pg/` is PGlite's PostgreSQL data; `admin.key`, while `serve` runs, the
 * secret an admin command must know to use the admin channel (abstract sockets have no file
 * permissions; the key file has, mode 0600 in a 0700 directory).
 */
export interface EmbeddedPaths {
  dir: string;
  pgData: string;
  adminKey: string;
}

export function embeddedPaths(dir: string): EmbeddedPaths {
  return { dir, pgData: path.join(dir, 'pg'), adminKey: path.join(dir, 'admin.key') };
}

/** How long a command waits for a short-lived holder of the directory (an admin command) to let go. */
export const BUSY_WAIT_MS = 15_000;

/**
 * The lock's address: a fixed 72 bytes whatever the length of the directory's path (a socket
 * path has at most 107). Abstract sockets belong to a network namespace: processes in two
 * containers with their own networks do not see each other's lock (README).
 */
export function lockAddress(dir: string): string {
  return `\0ledger-${createHash('sha256').update(realpathSync(dir)).digest('hex')}`;
}

/**
 * Creates the directory if needed and tries to take its lock: the listening server (whose
 * connections go to `onConnection`) when this process got it, undefined when another holds it.
 */
export async function bindDirectoryLock(
  paths: EmbeddedPaths,
  onConnection: (connection: net.Socket) => void,
): Promise<net.Server | undefined> {
  if (process.platform !== 'linux') {
    throw new Refusal(
      'invalid',
      'the embedded database needs Linux (its lock is an abstract Unix socket); set DATABASE_URL to a PostgreSQL server',
    );
  }
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  const server = net.createServer(onConnection);
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(undefined) : reject(error)));
    server.listen(lockAddress(paths.dir), () => resolve(server));
  });
}
