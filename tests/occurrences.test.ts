import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  countOccurrences,
  firstUnhandled,
  isOccurrence,
  LAST_DATE,
  MAX_DATES_AT_ONCE,
  nthOccurrence,
  occurrencesBetween,
  unhandledBetween,
  yearsAfter,
  type Every,
  type Recurrence,
} from '../src/book/occurrences';

// D21's occurrence arithmetic and its bounds (D21, 2026-11-27; issue 36 item 1), by property over
// the whole of D6's date range, 0001-01-01 to 9999-12-31, until_on included, against a reference
// that does not use JavaScript's Date (whose Date.UTC reads years 0–99 as 1900–1999 and whose
// toISOString writes the day after 9999-12-31 as +010000-01-01) and is written differently from
// the module: day numbers by Howard Hinnant's era algorithm (days from 1970, 400-year eras), the
// first occurrence on or after a date by binary search over the occurrence index, and the
// reference itself checked day by day over the whole range first.

interface Civil {
  y: number;
  m: number;
  d: number;
}

const leap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const monthLength = (y: number, m: number) => (m === 2 ? (leap(y) ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31);

/** Hinnant's days_from_civil: days since 1970-01-01. */
function daysFromCivil({ y, m, d }: Civil): number {
  const year = m <= 2 ? y - 1 : y;
  const era = Math.floor(year / 400);
  const yoe = year - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** Hinnant's civil_from_days. */
function civilFromDays(days: number): Civil {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d };
}

const text = ({ y, m, d }: Civil) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
const civil = (iso: string): Civil => {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  return { y, m, d };
};
const FIRST_DAY = daysFromCivil({ y: 1, m: 1, d: 1 });
const LAST_DAY = daysFromCivil({ y: 9999, m: 12, d: 31 });
const dateOf = (day: number): string | null => (day < FIRST_DAY || day > LAST_DAY ? null : text(civilFromDays(day)));
const dayOf = (iso: string) => daysFromCivil(civil(iso));
const before = (a: string, b: string) => dayOf(a) < dayOf(b);

/** The reference n-th occurrence, null past 9999-12-31. */
function reference(r: Recurrence, n: number): string | null {
  const start = civil(r.start_on);
  if (r.every === 'week') return dateOf(dayOf(r.start_on) + n * 7 * r.interval);
  const months = (start.m - 1) + n * (r.every === 'year' ? 12 * r.interval : r.interval);
  const y = start.y + Math.floor(months / 12);
  const m = (months % 12) + 1;
  if (y > 9999) return null;
  return text({ y, m, d: Math.min(start.d, monthLength(y, m)) });
}

/** The smallest index whose occurrence `accept`s (null: past 9999-12-31), by binary search: occurrences increase with the index. */
function firstIndexWhere(r: Recurrence, accept: (date: string | null) => boolean): number {
  let low = 0;
  let high = 1;
  while (!accept(reference(r, high))) high *= 2;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (accept(reference(r, mid))) high = mid;
    else low = mid + 1;
  }
  return low;
}

const referenceFirstIndex = (r: Recurrence, from: string) => firstIndexWhere(r, (date) => date === null || !before(date, from));

/** The reference list: every occurrence in [from, through], none after until_on, at most `limit`. */
function referenceBetween(r: Recurrence, from: string, through: string, limit: number): string[] {
  const dates: string[] = [];
  for (let n = referenceFirstIndex(r, from); dates.length < limit; n++) {
    const date = reference(r, n);
    if (date === null || before(through, date) || (r.until_on !== null && before(r.until_on, date))) break;
    dates.push(date);
  }
  return dates;
}

function referenceCount(r: Recurrence, from: string, through: string): number {
  const last = r.until_on !== null && before(r.until_on, through) ? r.until_on : through;
  const end = dateOf(dayOf(last) + 1);
  const pastLast = firstIndexWhere(r, (date) => date === null || (end !== null && !before(date, end)));
  return Math.max(0, pastLast - referenceFirstIndex(r, from));
}

// Dates over the whole range, and more often at its two ends and at month ends (where clamping is).
const anyDay = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: FIRST_DAY, max: LAST_DAY }) },
  { weight: 2, arbitrary: fc.integer({ min: FIRST_DAY, max: FIRST_DAY + 1_500 }) },
  { weight: 3, arbitrary: fc.integer({ min: LAST_DAY - 1_500, max: LAST_DAY }) },
);
const isoDate = fc.oneof(
  { weight: 3, arbitrary: anyDay.map((day) => dateOf(day)!) },
  {
    weight: 1,
    arbitrary: fc
      .record({ y: fc.oneof(fc.integer({ min: 1, max: 120 }), fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 9_880, max: 9999 })), m: fc.integer({ min: 1, max: 12 }) })
      .map(({ y, m }) => text({ y, m, d: monthLength(y, m) })),
  },
);
const recurrence = fc
  .record({
    start_on: isoDate,
    every: fc.constantFrom<Every>('week', 'month', 'year'),
    interval: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 99 })),
    untilAfter: fc.option(fc.oneof(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: LAST_DAY })), { nil: null }),
  })
  .map(({ untilAfter, ...r }): Recurrence => ({ ...r, until_on: untilAfter === null ? null : dateOf(Math.min(dayOf(r.start_on) + untilAfter, LAST_DAY)) }));
const ISO = /^\d{4}-\d\d-\d\d$/;

describe('D21 occurrence arithmetic over 0001–9999 (issue 36 item 1, D21 bounds; property)', () => {
  it('the reference itself: Hinnant day numbers agree with counting day by day from 0001-01-01 to 9999-12-31', () => {
    let date: Civil = { y: 1, m: 1, d: 1 };
    for (let day = FIRST_DAY; day <= LAST_DAY; day++) {
      const back = civilFromDays(day);
      if (back.y !== date.y || back.m !== date.m || back.d !== date.d || daysFromCivil(date) !== day) {
        throw new Error(`the reference disagrees at ${text(date)} (day ${day})`);
      }
      date = date.d < monthLength(date.y, date.m) ? { ...date, d: date.d + 1 } : date.m < 12 ? { y: date.y, m: date.m + 1, d: 1 } : { y: date.y + 1, m: 1, d: 1 };
    }
    expect(text(date)).toBe('10000-01-01');
  });

  it('addDays equals the reference, and is null outside 0001-01-01 … 9999-12-31 (never +010000 or 19xx)', () => {
    fc.assert(
      fc.property(isoDate, fc.oneof(fc.integer({ min: -3_000, max: 3_000 }), fc.integer({ min: -LAST_DAY, max: LAST_DAY })), (date, days) => {
        expect(addDays(date, days)).toBe(dateOf(dayOf(date) + days));
      }),
      { numRuns: 3_000 },
    );
  });

  it('the n-th occurrence equals the reference (null past 9999-12-31); dates strictly increase, four-digit years', () => {
    fc.assert(
      fc.property(recurrence, fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 600_000 })), (r, first) => {
        let previous: string | null = null;
        for (let n = first; n < first + 12; n++) {
          const date = nthOccurrence(r, n);
          expect(date, `${JSON.stringify(r)} n=${n}`).toBe(reference(r, n));
          if (date === null) break;
          expect(date).toMatch(ISO);
          if (previous !== null) expect(before(previous, date)).toBe(true);
          previous = date;
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('occurrencesBetween and countOccurrences give exactly the reference inside [from, through], none after until_on, at most the limit', () => {
    fc.assert(
      fc.property(recurrence, isoDate, isoDate, fc.integer({ min: 1, max: MAX_DATES_AT_ONCE }), (r, a, b, limit) => {
        const [from, through] = before(b, a) ? [b, a] : [a, b];
        const dates = occurrencesBetween(r, from, through, limit);
        expect(dates).toEqual(referenceBetween(r, from, through, limit));
        expect(dates.length).toBeLessThanOrEqual(limit);
        expect(countOccurrences(r, from, through)).toBe(referenceCount(r, from, through));
      }),
      { numRuns: 1_500 },
    );
  });

  it('isOccurrence is true exactly on the reference dates within start_on … until_on', () => {
    fc.assert(
      fc.property(recurrence, fc.integer({ min: 0, max: 600_000 }), fc.integer({ min: -3, max: 3 }), (r, n, offset) => {
        const exact = reference(r, n);
        if (exact === null) return;
        const date = dateOf(dayOf(exact) + offset);
        if (date === null) return;
        const expected = referenceBetween(r, date, date, 1).length === 1;
        expect(isOccurrence(r, date), `${JSON.stringify(r)} ${date}`).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it('unhandledBetween and firstUnhandled step over the handled dates and end at until_on or 9999-12-31', () => {
    fc.assert(
      fc.property(recurrence, isoDate, fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 40 }), (r, from, handledCount, limit) => {
        const all = referenceBetween(r, from, LAST_DATE, handledCount + 2 * limit + 2);
        const handled = new Set(all.filter((_, i) => i < handledCount || i % 3 === 1));
        const expected = all.filter((d) => !handled.has(d));
        expect(unhandledBetween(r, from, LAST_DATE, handled, limit)).toEqual(expected.slice(0, limit));
        expect(firstUnhandled(r, from, handled)).toBe(expected[0] ?? null);
      }),
      { numRuns: 1_500 },
    );
  });

  it('examples: 31 Jan monthly → 28/29 Feb → 31 Mar; 29 Feb yearly → 28 Feb, back to 29 Feb in leap years; every 2 weeks', () => {
    const monthly: Recurrence = { start_on: '2027-01-31', every: 'month', interval: 1, until_on: null };
    expect(occurrencesBetween(monthly, '2027-01-01', '2027-04-30')).toEqual(['2027-01-31', '2027-02-28', '2027-03-31', '2027-04-30']);
    expect(occurrencesBetween({ ...monthly, start_on: '2028-01-31' }, '2028-02-01', '2028-03-31')).toEqual(['2028-02-29', '2028-03-31']);
    const leapDay: Recurrence = { start_on: '2024-02-29', every: 'year', interval: 1, until_on: null };
    expect(occurrencesBetween(leapDay, '2024-01-01', '2028-12-31')).toEqual(['2024-02-29', '2025-02-28', '2026-02-28', '2027-02-28', '2028-02-29']);
    expect(occurrencesBetween({ start_on: '2026-12-28', every: 'week', interval: 2, until_on: '2027-02-08' }, '2027-01-01', '2027-12-31')).toEqual([
      '2027-01-11', '2027-01-25', '2027-02-08',
    ]);
    expect(isOccurrence(monthly, '2027-02-27')).toBe(false);
    expect(isOccurrence(monthly, '2026-12-31')).toBe(false);
  });

  it('examples at the ends of the range: years below 1000 are those years; nothing after 9999-12-31; handled last dates end the search', () => {
    const fromYearOne: Recurrence = { start_on: '0001-01-01', every: 'week', interval: 1, until_on: null };
    expect(occurrencesBetween(fromYearOne, '0001-01-01', '0001-01-31')).toEqual(['0001-01-01', '0001-01-08', '0001-01-15', '0001-01-22', '0001-01-29']);
    expect(nthOccurrence({ start_on: '0099-12-31', every: 'month', interval: 2, until_on: null }, 1)).toBe('0100-02-28');
    expect(addDays('0004-02-28', 1)).toBe('0004-02-29');
    expect(addDays('0001-01-01', -1)).toBeNull();
    expect(addDays('9999-12-31', 1)).toBeNull();
    const last: Recurrence = { start_on: '9999-12-31', every: 'week', interval: 1, until_on: null };
    expect(nthOccurrence(last, 1)).toBeNull();
    expect(occurrencesBetween(last, '9999-12-31', '9999-12-31')).toEqual(['9999-12-31']);
    expect(firstUnhandled(last, '9999-12-31', new Set(['9999-12-31']))).toBeNull();
    expect(firstUnhandled({ ...last, every: 'month' }, '9999-12-31', new Set(['9999-12-31']))).toBeNull();
    expect(countOccurrences(fromYearOne, '0001-01-01', LAST_DATE)).toBe(521_723);
    expect(occurrencesBetween(fromYearOne, '0001-01-01', LAST_DATE)).toHaveLength(MAX_DATES_AT_ONCE);
    expect(yearsAfter('2026-11-27', 3)).toBe('2029-11-27');
    expect(yearsAfter('2028-02-29', 1)).toBe('2029-02-28');
    expect(yearsAfter('9998-06-01', 3)).toBe(LAST_DATE);
  });
});
