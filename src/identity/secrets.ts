import { createHash, randomBytes } from 'node:crypto';

/** 256 bits from the CSPRNG, base64url (D5: tokens, device codes, session ids). */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** A bearer token: `lg_` + base64url of 32 random bytes (D5). */
export function newToken(): string {
  return `lg_${randomSecret(32)}`;
}

/** Secrets are stored only as their SHA-256 hex digest; the digest is what lookups use. */
export function sha256Hex(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

