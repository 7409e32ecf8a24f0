import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/database';
import { loginThrottle } from '../db/schema';

/** Spec: Login and second factor, rule 5; Limits. */
export const FREE_FAILURES = 3;
export const FIRST_DELAY_MS = 2_000;
export const MAX_DELAY_MS = 15 * 60_000;

/**
 * The delay after `failures` consecutive failures: none for the first three, then 2 s doubling
 * with each further failure, capped at 15 minutes.
 */
export function throttleDelayMs(failures: number): number {
  if (failures <= FREE_FAILURES) return 0;
  return Math.min(FIRST_DELAY_MS * 2 ** Math.min(failures - FREE_FAILURES - 1, 20), MAX_DELAY_MS);
}

export type AttemptClaim = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Claims one password attempt for `email` (normalised; known or not, D4). The attempt is counted
 * as a failure before the password is checked, and the delay it would cause is set at once, in
 * one conditional upsert: parallel guesses cannot slip past the delay, and a success afterwards
 * clears the count (`clearLoginFailures`). While the delay runs nothing is counted (D13: a 429 is
 * not a failure and does not lengthen the delay).
 */
export async function claimLoginAttempt(db: Db, email: string, now: Date): Promise<AttemptClaim> {
  const at = now.toISOString();
  // The exponent is clamped so that the SQL never computes a huge power; the cap is reached long before.
  const nextFailures = sql`${loginThrottle.failures} + 1`;
  const delaySeconds = sql`least(${FIRST_DELAY_MS / 1000} * power(2, least(${nextFailures} - ${FREE_FAILURES} - 1, 20)), ${MAX_DELAY_MS / 1000})`;
  const claimed = await db
    .insert(loginThrottle)
    .values({ email, failures: 1, blockedUntil: null, updatedAt: now })
    .onConflictDoUpdate({
      target: loginThrottle.email,
      set: {
        failures: nextFailures,
        blockedUntil: sql`case when ${nextFailures} > ${FREE_FAILURES}
          then ${at}::timestamptz + make_interval(secs => ${delaySeconds}) else null end`,
        updatedAt: now,
      },
      setWhere: sql`${loginThrottle.blockedUntil} is null or ${loginThrottle.blockedUntil} <= ${at}::timestamptz`,
    })
    .returning({ failures: loginThrottle.failures });
  if (claimed.length > 0) return { allowed: true };

  const [row] = await db
    .select({ blockedUntil: loginThrottle.blockedUntil })
    .from(loginThrottle)
    .where(eq(loginThrottle.email, email));
  const remainingMs = (row?.blockedUntil?.getTime() ?? now.getTime()) - now.getTime();
  // D13: Retry-After in whole seconds, rounded up, never 0 while refused.
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(remainingMs / 1000)) };
}

/** D4: a successful login resets the count. */
export async function clearLoginFailures(db: Db, email: string): Promise<void> {
  await db.delete(loginThrottle).where(eq(loginThrottle.email, email));
}
