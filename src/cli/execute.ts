import { sendAdminRequest, waitForDirectory } from '../admin/channel';
import { runAdminRequest, type AdminRequest } from '../admin/commands';
import type { Config } from '../config';
import { openPglite, openPostgres } from '../db/database';
import { embeddedPaths } from '../db/embedded';
import { Refusal } from '../errors';

/**
 * Runs an admin command against the configured database. On PostgreSQL: directly. On the embedded
 * database: directly when no other process holds it, otherwise through the admin channel of the
 * `serve` that holds it (D2); another admin command holding it is waited for. A request is tried
 * again only when it never ran: it never left this process, or the server stopped before running it.
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
  const held = await waitForDirectory(paths, 'admin', async () => {
    const delivery = await sendAdminRequest(paths, request);
    if (!delivery.delivered) return undefined;
    if (delivery.answer.ok) return delivery.answer.lines;
    throw new Refusal('invalid', delivery.answer.message);
  });
  if ('value' in held) return held.value;
  try {
    const database = await openPglite(paths.pgData);
    try {
      return await runAdminRequest(database.db, config, request);
    } finally {
      await database.close();
    }
  } finally {
    await held.lock.release();
  }
}
