import { runAdminRequest, type AdminRequest } from '../admin/commands';
import type { Config } from '../config';
import { openPostgres, type Database } from '../db/database';
import { openEmbedded } from '../db/embedded';

/**
 * Runs an admin command against the configured database: a PostgreSQL server directly; the
 * embedded cluster while `serve` runs it, or started for the command and stopped after it (D2).
 */
export async function executeAdminRequest(config: Config, request: AdminRequest, note: (line: string) => void = () => {}): Promise<string[]> {
  const target = config.database;
  if (target.kind === 'postgres') return runAgainst(target.url, 'postgres', config, request, note);
  const embedded = await openEmbedded(target.dir, 'admin');
  try {
    return await runAgainst(embedded.url, 'embedded', config, request, note);
  } finally {
    await embedded.release();
  }
}

async function runAgainst(
  url: string,
  backend: Database['backend'],
  config: Config,
  request: AdminRequest,
  note: (line: string) => void,
): Promise<string[]> {
  const database = await openPostgres(url, { max: 2, backend });
  try {
    return await runAdminRequest(database.db, config, request, note);
  } finally {
    await database.close();
  }
}
