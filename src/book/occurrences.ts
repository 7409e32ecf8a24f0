// D21: the dates on which a schedule comes back. Pure calendar arithmetic on ISO dates
// (YYYY-MM-DD, proleptic Gregorian), never timestamps: no time zone or clock change can move an
// occurrence. Shared by the server (posting, due list, forecast) and the web app (the preview in
// words before saving).
//
// D21's bounds (2026-11-27): dates are D6's, 0001-01-01 to 9999-12-31. JavaScript's Date is not
// used: Date.UTC reads years 0–99 as 1900–1999, and toISOString writes the day after 9999-12-31
// as `+010000-01-01`, which sorts before `9999-12-31` as text, so loops that waited for a date to
// pass the end never ended (issue 36 item 1). Here a date is a day number, and every date this
// module returns lies in D6's range with a four-digit year, so ISO dates compare as text exactly
// as they compare as dates. An occurrence that would fall after 9999-12-31 does not exist (null).
// No function here loops over more than `limit` occurrences or the handled dates it is given.

export type Every = 'week' | 'month' | 'year';

export interface Recurrence {
  start_on: string;
  every: Every;
  interval: number;
  until_on: string | null;
}

export const FIRST_DATE = '0001-01-01';
export const LAST_DATE = '9999-12-31';

/** D21: no request computes more dates of one schedule than this at once. */
export const MAX_DATES_AT_ONCE = 1000;

interface Civil {
  y: number;
  /** 1–12 */
  m: number;
  d: number;
}

const DAYS_BEFORE_MONTH = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334] as const;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

function isLeapYear(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

function daysInMonth(y: number, m: number): number {
  return m === 2 && isLeapYear(y) ? 29 : MONTH_DAYS[m - 1]!;
}

function parse(isoDate: string): Civil {
  return { y: Number(isoDate.slice(0, 4)), m: Number(isoDate.slice(5, 7)), d: Number(isoDate.slice(8, 10)) };
}

function format({ y, m, d }: Civil): string {
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** Days from 0001-01-01 to 1 January of year `y`. */
function daysBeforeYear(y: number): number {
  const p = y - 1;
  return 365 * p + Math.floor(p / 4) - Math.floor(p / 100) + Math.floor(p / 400);
}

/** The day number of a date: 0 is 0001-01-01. */
function dayNumber({ y, m, d }: Civil): number {
  return daysBeforeYear(y) + DAYS_BEFORE_MONTH[m - 1]! + (m > 2 && isLeapYear(y) ? 1 : 0) + d - 1;
}

const LAST_DAY = dayNumber(parse(LAST_DATE));

function civilOf(day: number): Civil {
  // 365.2425 days a Gregorian year on average: the estimate is off by one year at most.
  let y = Math.floor(day / 365.2425) + 1;
  if (daysBeforeYear(y) > day) y--;
  else if (daysBeforeYear(y + 1) <= day) y++;
  let rest = day - daysBeforeYear(y);
  let m = 1;
  while (rest >= daysInMonth(y, m)) rest -= daysInMonth(y, m++);
  return { y, m, d: rest + 1 };
}

function dateOfDay(day: number): string | null {
  return day < 0 || day > LAST_DAY ? null : format(civilOf(day));
}

/** The date `days` days after `isoDate` (before it when negative); null outside 0001-01-01 … 9999-12-31. */
export function addDays(isoDate: string, days: number): string | null {
  return dateOfDay(dayNumber(parse(isoDate)) + days);
}

/** The same day `years` years later (29 Feb → 28 Feb), at most 9999-12-31: for "at most N years ahead" bounds. */
export function yearsAfter(isoDate: string, years: number): string {
  return nthOccurrence({ start_on: isoDate, every: 'year', interval: years, until_on: null }, 1) ?? LAST_DATE;
}

/** Months between occurrences. */
function monthsPerStep(r: Recurrence): number {
  return r.every === 'year' ? 12 * r.interval : r.interval;
}

/** Months from January of year 0: a month and a year as one number. */
const monthNumber = ({ y, m }: Civil) => y * 12 + (m - 1);

/**
 * The n-th occurrence (n = 0 is `start_on`), ignoring `until_on`; null when it would fall after
 * 9999-12-31. Month and year keep start_on's day, clamped to the month's last day, and always
 * counted from start_on (never from the clamped date before), so 31 Jan → 28 Feb → 31 Mar.
 */
export function nthOccurrence(r: Recurrence, n: number): string | null {
  const start = parse(r.start_on);
  if (r.every === 'week') return dateOfDay(dayNumber(start) + n * 7 * r.interval);
  const month = monthNumber(start) + n * monthsPerStep(r);
  const y = Math.floor(month / 12);
  const m = (month % 12) + 1;
  if (y > 9999) return null;
  return format({ y, m, d: Math.min(start.d, daysInMonth(y, m)) });
}

/**
 * The index of the first occurrence on or after `from` (0 when `from` is on or before start_on);
 * that occurrence may not exist (after 9999-12-31). Computed, not searched: for weeks the day
 * count says it; for months the occurrence in from's month (or the last before it) is at most
 * one short.
 */
function firstIndexFrom(r: Recurrence, from: string): number {
  if (from <= r.start_on) return 0;
  const start = parse(r.start_on);
  const target = parse(from);
  if (r.every === 'week') return Math.ceil((dayNumber(target) - dayNumber(start)) / (7 * r.interval));
  const n = Math.floor((monthNumber(target) - monthNumber(start)) / monthsPerStep(r));
  const date = nthOccurrence(r, n);
  return date !== null && date < from ? n + 1 : n;
}

/** The index of the last occurrence on or before `through` (and until_on); -1 when none is. */
function lastIndexThrough(r: Recurrence, through: string): number {
  const last = r.until_on !== null && r.until_on < through ? r.until_on : through;
  if (last < r.start_on) return -1;
  const n = firstIndexFrom(r, last);
  return nthOccurrence(r, n) === last ? n : n - 1;
}

/** How many occurrences fall from `from` through `through` (inclusive), none after until_on; counted, not listed. */
export function countOccurrences(r: Recurrence, from: string, through: string): number {
  return Math.max(0, lastIndexThrough(r, through) - firstIndexFrom(r, from) + 1);
}

/** The occurrences from `from` through `through` (inclusive), oldest first, none after until_on, at most `limit`. */
export function occurrencesBetween(r: Recurrence, from: string, through: string, limit = MAX_DATES_AT_ONCE): string[] {
  const first = firstIndexFrom(r, from);
  const last = Math.min(lastIndexThrough(r, through), first + limit - 1);
  const dates: string[] = [];
  for (let n = first; n <= last; n++) dates.push(nthOccurrence(r, n)!);
  return dates;
}

/**
 * The occurrences from `from` through `through` that are not in `handled`, oldest first, at most
 * `limit`: it looks at no more than `limit` occurrences plus the handled ones it steps over.
 */
export function unhandledBetween(r: Recurrence, from: string, through: string, handled: ReadonlySet<string>, limit = MAX_DATES_AT_ONCE): string[] {
  const last = lastIndexThrough(r, through);
  const dates: string[] = [];
  for (let n = firstIndexFrom(r, from); n <= last && dates.length < limit; n++) {
    const date = nthOccurrence(r, n)!;
    if (!handled.has(date)) dates.push(date);
  }
  return dates;
}

/** The first occurrence on or after `from` not in `handled`; null when none is left (until_on, or 9999-12-31). */
export function firstUnhandled(r: Recurrence, from: string, handled: ReadonlySet<string>): string | null {
  return unhandledBetween(r, from, LAST_DATE, handled, 1)[0] ?? null;
}

/** Whether `date` is an occurrence of `r` (within start_on … until_on). */
export function isOccurrence(r: Recurrence, date: string): boolean {
  if (date < r.start_on || (r.until_on !== null && date > r.until_on)) return false;
  return nthOccurrence(r, firstIndexFrom(r, date)) === date;
}
