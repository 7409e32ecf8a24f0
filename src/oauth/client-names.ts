import { storedText } from '../text';

/** Spec: Limits — client_name length; D13: the name of a client that gave none. */
export const CLIENT_NAME_MAX_LENGTH = 60;
export const UNNAMED_CLIENT = 'an unnamed client';

/**
 * Spec: OAuth client `name` — control characters and the listed Unicode format characters
 * removed, then the first 60 characters (code points) kept and trimmed (D13); nothing left gives
 * the default. D25: every default-ignorable and format character goes too (U+061C, zero-width
 * spaces, tag characters …), then NFC. The same for a registration's `client_name` and a metadata
 * document's (D18).
 */
export function sanitiseClientName(raw: unknown): string {
  if (typeof raw !== 'string') return UNNAMED_CLIENT;
  const cleaned = storedText(raw.replace(/[\p{Cc}\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u2028\u2029]/gu, ''));
  const kept = [...cleaned].slice(0, CLIENT_NAME_MAX_LENGTH).join('').trim();
  return kept || UNNAMED_CLIENT;
}
