import { chmodSync, existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPostgres, type Db } from '../../src/db/database';
import { openEmbedded } from '../../src/db/embedded';

/**
 * A new directory for tests that give a process `DATABASE_URL=file:<root>/data`. It is open for
 * others to enter (not to list or write): run as root, the embedded cluster runs as the user
 * postgres (D2), which must reach its data directory.
 */
export function newDataRoot(prefix: string): string {
  const root = mkdtempSync(path.join(os.tmpdir(), prefix));
  chmodSync(root, 0o711);
  return root;
}

/**
 * Reads or writes the embedded database in `dir` as an admin command would (D2): through the
 * running cluster, or one started for `work` and stopped after it.
 */
export async function withEmbeddedDb<T>(dir: string, work: (db: Db) => Promise<T>): Promise<T> {
  const cluster = await openEmbedded(dir, 'admin');
  try {
    const database = await openPostgres(cluster.url, { max: 1, backend: 'embedded' });
    try {
      return await work(database.db);
    } finally {
      await database.close();
    }
  } finally {
    await cluster.release();
  }
}

/** Stops the cluster in `dir` if one runs (a test that SIGKILLed `serve` leaves it running). */
export async function stopEmbedded(dir: string): Promise<void> {
  if (!existsSync(path.join(dir, 'PG_VERSION'))) return;
  await (await openEmbedded(dir, 'serve')).release();
}
