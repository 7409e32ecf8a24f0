import { sql } from 'drizzle-orm';
import type { Db } from '../db/database';
import { serveOrigin } from '../db/schema';

// Issue 25 item 14 (D5): a minted token is audienced to API_ORIGIN, and the server refuses any
// other audience. `ledger serve` records its own at each start; `ledger mint-token`, which may run
// in another environment (a shell without the service's API_ORIGIN), reads it.

/** Called by `serve` at start, once it listens: the origin its bearer tokens must name. */
export async function recordServeOrigin(db: Db, apiOrigin: string): Promise<void> {
  await db
    .insert(serveOrigin)
    .values({ id: 1, apiOrigin })
    .onConflictDoUpdate({ target: serveOrigin.id, set: { apiOrigin, recordedAt: sql`now()` } });
}

/** The API_ORIGIN of the last `serve` started on this database, if one ever was. */
export async function recordedServeOrigin(db: Db): Promise<string | undefined> {
  const [row] = await db.select({ apiOrigin: serveOrigin.apiOrigin }).from(serveOrigin).where(sql`${serveOrigin.id} = 1`);
  return row?.apiOrigin;
}
