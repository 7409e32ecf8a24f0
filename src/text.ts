import * as v from 'valibot';

/** Control characters (Cc): NUL and friends, which PostgreSQL text refuses or screens mangle. */
const CONTROL = /\p{Cc}/u;

export function hasControlCharacters(s: string): boolean {
  return CONTROL.test(s);
}

/**
 * Invisible characters that change how the text around them is shown: the bidirectional
 * embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) and marks (U+200E, U+200F,
 * U+061C) make a name display reversed or out of order, and the line and paragraph separators
 * (U+2028, U+2029) break it across lines: the spec's client_name list, plus the Arabic letter mark.
 */
const DISPLAY_CONTROL = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u2028\u2029]/u;

export function hasDisplayControlCharacters(s: string): boolean {
  return DISPLAY_CONTROL.test(s);
}

/** The message for text refused by hasDisplayControlCharacters. */
export function displayControlRefusal(field: string): string {
  return `${field} must not contain text-direction control characters or line separators`;
}

/**
 * Invisible characters (D25): Unicode default-ignorable code points (zero-width spaces and
 * joiners, the soft hyphen, fillers, tag characters, variation selectors …) and format
 * characters (Cf: the byte-order mark, U+2060, U+180E, U+1D173 …).
 */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}]/gu;

/**
 * Text we store (D25): invisible characters removed, then NFC. Uniqueness and duplicates are
 * decided on the result, so `Ba\u200Bnk` is `Bank` and `Cafe\u0301` is `Café`. The display
 * controls above are left in place: where they are refused (hasDisplayControlCharacters), the
 * refusal names them rather than hiding them; client names remove them first.
 */
export function storedText(s: string): string {
  return s.replace(INVISIBLE, (c) => (DISPLAY_CONTROL.test(c) ? c : '')).normalize('NFC');
}

/**
 * A required piece of human text (an account name, a description): trimmed, non-empty, free of
 * control characters, display controls and unpaired surrogates, at most `max` characters (code
 * points; D6 limits). Those are refused rather than cleaned: the author sees what was wrong. What
 * passes is stored as storedText gives it (D25): other invisible characters removed, then NFC.
 */
export function requiredText(field: string, max: number) {
  const required = `${field} is required`;
  return v.pipe(
    v.string(required),
    v.trim(),
    v.minLength(1, required),
    v.check((s) => s.isWellFormed(), `${field} is not valid Unicode text`),
    v.check((s) => !hasControlCharacters(s), `${field} must not contain control characters`),
    v.check((s) => !hasDisplayControlCharacters(s), displayControlRefusal(field)),
    v.transform(storedText),
    v.trim(),
    v.minLength(1, required),
    v.check((s) => [...s].length <= max, `${field} has at most ${max} characters`),
  );
}

/** A calendar date `YYYY-MM-DD` between years 0001 and 9999 that exists (no 2023-02-29). */
export function isCalendarDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/** A query parameter that is a whole number from 1 to `max` (ids, limits), as a number. */
export function positiveIntegerParam(field: string, max: number) {
  return v.pipe(
    v.string(`${field} must be a positive integer`),
    v.regex(/^\d{1,16}$/, `${field} must be a positive integer`),
    v.transform(Number),
    v.minValue(1, `${field} must be a positive integer`),
    v.maxValue(max, `${field} must be at most ${max}`),
  );
}

/** Today's date in UTC, `YYYY-MM-DD`: the server's default date (D7 reports, D8 tools). */
export function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

export function dateString(field: string) {
  return v.pipe(
    v.string(`${field} must be a date YYYY-MM-DD`),
    v.check(isCalendarDate, `${field} must be a date YYYY-MM-DD`),
  );
}

/** The first problem of a failed parse as one sentence; array items are named "entry N". */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  const issue = issues[0];
  if (!issue) return 'the request is not valid';
  const item = issue.path?.find((p) => p.type === 'array');
  const field = issue.path?.at(-1)?.key;
  // Valibot reports a missing key with the message of the object around it; name the field instead.
  const missing = issue.type === 'object' && issue.received === 'undefined' && typeof field === 'string';
  const message = missing ? `${field} is required` : issue.message;
  return item && typeof item.key === 'number' ? `entry ${item.key + 1}: ${message}` : message;
}
