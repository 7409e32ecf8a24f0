import { hash, verify } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';
import { invalid } from '../errors';

/** argon2id, the library's default algorithm, with its defaults (19 MiB, t=2, p=1: the OWASP baseline). */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/**
 * A hash of nothing anyone knows (32 random bytes, discarded), verified for unknown emails so that
 * a wrong password and an unknown email cost the same time (D4): one verification each, never a
 * hash. It is a constant with the parameters `hashPassword` uses (tests/login-cost.test.ts checks
 * they agree), so that not even the first unknown email after start-up pays for making it.
 */
export const DECOY_PASSWORD_HASH = '$argon2id$v=19$m=19456,t=2,p=1$RyhuKr+eTsaSbOLJ4W9gng$Xr2FhI9lgVOwJy+jy/VswsQUMHURdbp3+Ltup2l42lE';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;

/** D4: a new password has 12 to 1024 characters (code points). */
export function checkNewPassword(password: string): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    throw invalid(`a password must have ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`);
  }
}

/** A password printed once by `ledger user add`: 20 characters from a 57-symbol alphabet (~116 bits). */
export function generatePassword(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  const out: string[] = [];
  while (out.length < 20) {
    for (const byte of randomBytes(32)) {
      // Rejection sampling keeps every symbol equally likely.
      if (byte < 228 && out.length < 20) out.push(alphabet[byte % 57]!);
    }
  }
  return out.join('');
}
