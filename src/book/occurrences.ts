// D21: the dates on which a schedule comes back. Pure calendar arithmetic on ISO dates
// (YYYY-MM-DD, proleptic Gregorian, UTC), never timestamps: no time zone or clock change can move
// an occurrence. Shared by the server (posting, due list, forecast) and the web app (the preview
// in words before saving).

export type Every = 'week' | 'month' | 'year';

export interface Recurrence {
  start_on: string;
  every: Every;
  interval: number;
  until_on: string | null;
}

const DAY_MS = 86_400_000;

function parts(isoDate: string): { y: number; m: number; d: number } {
  return { y: Number(isoDate.slice(0, 4)), m: Number(isoDate.slice(5, 7)) - 1, d: Number(isoDate.slice(8, 10)) };
}

function iso(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function utc(isoDate: string): number {
  const { y, m, d } = parts(isoDate);
  return Date.UTC(y, m, d);
}

export function addDays(isoDate: string, days: number): string {
  return iso(utc(isoDate) + days * DAY_MS);
}

function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
}

/** Months between occurrences. */
function monthsPerStep(r: Recurrence): number {
  return r.every === 'year' ? 12 * r.interval : r.interval;
}

/**
 * The n-th occurrence (n = 0 is `start_on`), ignoring `until_on`. Month and year keep start_on's
 * day, clamped to the month's last day, and always counted from start_on (never from the clamped
 * date before), so 31 Jan → 28 Feb → 31 Mar.
 */
export function nthOccurrence(r: Recurrence, n: number): string {
  if (r.every === 'week') return addDays(r.start_on, n * 7 * r.interval);
  const { y, m, d } = parts(r.start_on);
  const months = m + n * monthsPerStep(r);
  const year = y + Math.floor(months / 12);
  const month = ((months % 12) + 12) % 12;
  const date = new Date(0);
  date.setUTCFullYear(year, month, Math.min(d, daysInMonth(year, month)));
  return date.toISOString().slice(0, 10);
}

/** The index of the first occurrence on or after `from` (0 when `from` is on or before start_on). */
function firstIndexFrom(r: Recurrence, from: string): number {
  if (from <= r.start_on) return 0;
  let n: number;
  if (r.every === 'week') {
    n = Math.ceil((utc(from) - utc(r.start_on)) / DAY_MS / (7 * r.interval));
  } else {
    const a = parts(r.start_on);
    const b = parts(from);
    n = Math.max(0, Math.floor(((b.y - a.y) * 12 + (b.m - a.m)) / monthsPerStep(r)));
  }
  // The estimate is exact for weeks and at most one short for months: step to the first on or after `from`.
  while (n > 0 && nthOccurrence(r, n - 1) >= from) n--;
  while (nthOccurrence(r, n) < from) n++;
  return n;
}

/** Every occurrence from `from` through `through` (inclusive), oldest first, none after until_on. */
export function occurrencesBetween(r: Recurrence, from: string, through: string, limit = Number.POSITIVE_INFINITY): string[] {
  const last = r.until_on !== null && r.until_on < through ? r.until_on : through;
  const dates: string[] = [];
  for (let n = firstIndexFrom(r, from); dates.length < limit; n++) {
    const date = nthOccurrence(r, n);
    if (date > last) break;
    dates.push(date);
  }
  return dates;
}

/** Whether `date` is an occurrence of `r` (within start_on … until_on). */
export function isOccurrence(r: Recurrence, date: string): boolean {
  if (date < r.start_on || (r.until_on !== null && date > r.until_on)) return false;
  return nthOccurrence(r, firstIndexFrom(r, date)) === date;
}
