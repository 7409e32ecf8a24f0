import * as v from 'valibot';

/** Control characters (Cc): NUL and friends, which PostgreSQL text refuses or screens mangle. */
const CONTROL = /\p{Cc}/u;

export function hasControlCharacters(s: string): boolean {
  return CONTROL.test(s);
}

/**
 * A required piece of human text (an account name, a description): trimmed, non-empty, free of
 * control characters and unpaired surrogates, at most `max` characters (code points; D6 limits).
 */
export function requiredText(field: string, max: number) {
  const required = `${field} is required`;
  return v.pipe(
    v.string(required),
    v.trim(),
    v.minLength(1, required),
    v.check((s) => s.isWellFormed(), `${field} is not valid Unicode text`),
    v.check((s) => !hasControlCharacters(s), `${field} must not contain control characters`),
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
