import { eq } from 'drizzle-orm';
import type { Db } from './db/database';
import { sessions } from './db/schema';

/** Spec: Login and second factor, rule 6. */
export async function endAllSessionsOf(db: Db, userId: number): Promise<void> {
  await db.delete(sessions).where(eq(sessions.userId, userId));
}
