import type { Db } from '../db/database';
import { claimLoginAttempt, clearLoginFailures } from './login-throttle';
import { countPasskeysOf } from './passkeys';
import { DECOY_PASSWORD_HASH, verifyPassword } from './passwords';
import type { User } from '../db/schema';
import { findUserByEmail, normaliseEmail } from './users';

export type PasswordCheck =
  | { outcome: 'accepted'; user: User; hasPasskeys: boolean }
  | { outcome: 'refused' }
  | { outcome: 'throttled'; retryAfterSeconds: number };

/**
 * Spec: Login and second factor, rules 1 and 5; D4. The throttle is keyed by the normalised email
 * whether or not such a user exists, and an unknown email still pays one hash verification, so a
 * wrong password and an unknown email are indistinguishable in answer and in time.
 */
export async function checkPassword(db: Db, email: string, password: string, now: Date): Promise<PasswordCheck> {
  const key = normaliseEmail(email);
  const claim = await claimLoginAttempt(db, key, now);
  if (!claim.allowed) return { outcome: 'throttled', retryAfterSeconds: claim.retryAfterSeconds };
  const user = await findUserByEmail(db, key);
  const matches = await verifyPassword(user?.passwordHash ?? DECOY_PASSWORD_HASH, password);
  if (!user || !matches) return { outcome: 'refused' };
  await clearLoginFailures(db, key);
  return { outcome: 'accepted', user, hasPasskeys: (await countPasskeysOf(db, user.id)) > 0 };
}
