import { setTimeout as sleep } from 'node:timers/promises';
import { sendAdminRequest } from '../admin/channel';
import { runAdminRequest, type AdminRequest } from '../admin/commands';
import type { Config } from '../config';
import { openPglite, openPostgres } from '../db/database';
import { embeddedPaths, tryLockDirectory, type LockOwner } from '../db/embedded';
import { Refusal } from '../errors';

/** How long an admin command waits for another process to let go of the embedded database. */
const BUSY_WAIT_MS = 15_000;

/**
 * Runs an admin command against the configured database. On PostgreSQL: directly. On the embedded
 * database: directly when no other process holds it, otherwise through the admin socket of the
 * `serve` that holds it (D2); another admin command holding it is waited for.
 */
export async function executeAdminRequest(config: Config, request: AdminRequest): Promise<string[]> {
  const target = config.database;
  if (target.kind === 'postgres') {
    const database = await openPostgres(target.url, { max: 2 });
    try {
      return await runAdminRequest(database.db, config, request);
    } finally {
      await database.close();
    }
  }

  const paths = embeddedPaths(target.dir);
  const deadline = Date.now() + BUSY_WAIT_MS;
  let holder: LockOwner;
  for (;;) {
    const attempt = tryLockDirectory(paths, 'admin');
    if (attempt.acquired) {
      try {
        const database = await openPglite(paths.pgData);
        try {
          return await runAdminRequest(database.db, config, request);
        } finally {
          await database.close();
        }
      } finally {
        attempt.lock.release();
      }
    }
    holder = attempt.holder;
    if (holder.socket) {
      const answer = await sendAdminRequest(holder.socket, request).catch(() => undefined);
      if (answer?.ok) return answer.lines;
      if (answer) throw new Refusal('invalid', answer.message);
    }
    if (Date.now() > deadline) break;
    await sleep(200);
  }
  throw new Refusal('conflict', `the database in ${target.dir} is in use by process ${holder.pid}`);
}
