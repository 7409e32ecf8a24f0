import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isOccurrence, nthOccurrence, occurrencesBetween, type Every, type Recurrence } from '../src/book/occurrences';

// D21's occurrence arithmetic, by property against a reference written differently (day by day
// for weeks, a month counter and JavaScript's own month rollover for months and years): for any
// start, unit, interval and count, the dates strictly increase, keep start_on's day except where a
// month is too short (then its last day), get the day back after a short month, and none falls
// after until_on.

const REFERENCE_DAY_MS = 86_400_000;

/** The reference: the n-th occurrence computed without the module's code paths. */
function reference(r: Recurrence, n: number): string {
  const [y, m, d] = r.start_on.split('-').map(Number) as [number, number, number];
  if (r.every === 'week') {
    const start = new Date(0);
    start.setUTCFullYear(y, m - 1, d);
    return new Date(start.getTime() + n * 7 * r.interval * REFERENCE_DAY_MS).toISOString().slice(0, 10);
  }
  const step = r.every === 'year' ? 12 * r.interval : r.interval;
  const total = (m - 1) + n * step;
  const year = y + Math.floor(total / 12);
  const month = total % 12;
  // The last day of the target month: day 0 of the month after it.
  const last = new Date(0);
  last.setUTCFullYear(year, month + 1, 0);
  const day = Math.min(d, last.getUTCDate());
  return `${String(year).padStart(4, '0')}-${String(month + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const isoDate = fc
  .date({ min: new Date(Date.UTC(1990, 0, 1)), max: new Date(Date.UTC(2090, 11, 31)), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const recurrence = fc.record({
  start_on: isoDate,
  every: fc.constantFrom<Every>('week', 'month', 'year'),
  interval: fc.integer({ min: 1, max: 99 }),
  until_on: fc.constant(null),
});

describe('D21 occurrence arithmetic (property)', () => {
  it('the n-th occurrence equals the reference; dates strictly increase; month ends clamp and the day comes back', () => {
    fc.assert(
      fc.property(recurrence, fc.integer({ min: 1, max: 40 }), (r, count) => {
        const day = Number(r.start_on.slice(8, 10));
        let previous = '';
        for (let n = 0; n < count; n++) {
          const date = nthOccurrence(r, n);
          expect(date).toBe(reference(r, n));
          expect(date > previous).toBe(true);
          previous = date;
          if (r.every !== 'week') {
            const got = Number(date.slice(8, 10));
            const last = new Date(Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)), 0)).getUTCDate();
            // Start_on's day, or the month's last day when the month is shorter: clamping only at month ends.
            expect(got === day || (got === last && last < day)).toBe(true);
          }
          expect(isOccurrence(r, date)).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('occurrencesBetween gives exactly the reference dates inside [from, through], none after until_on', () => {
    fc.assert(
      fc.property(recurrence, isoDate, fc.integer({ min: 0, max: 800 }), fc.option(fc.integer({ min: 0, max: 900 }), { nil: null }), (r0, from, span, untilAfter) => {
        const addDays = (iso: string, days: number) => new Date(Date.parse(`${iso}T00:00:00Z`) + days * REFERENCE_DAY_MS).toISOString().slice(0, 10);
        const r: Recurrence = { ...r0, until_on: untilAfter === null ? null : addDays(r0.start_on, untilAfter) };
        const through = addDays(from, span);
        const expected: string[] = [];
        for (let n = 0; ; n++) {
          const date = reference(r, n);
          if (date > through || (r.until_on !== null && date > r.until_on)) break;
          if (date >= from) expected.push(date);
        }
        expect(occurrencesBetween(r, from, through)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('examples: 31 Jan monthly → 28/29 Feb → 31 Mar; 29 Feb yearly → 28 Feb, back to 29 Feb in leap years; every 2 weeks', () => {
    const monthly: Recurrence = { start_on: '2027-01-31', every: 'month', interval: 1, until_on: null };
    expect(occurrencesBetween(monthly, '2027-01-01', '2027-04-30')).toEqual(['2027-01-31', '2027-02-28', '2027-03-31', '2027-04-30']);
    expect(occurrencesBetween({ ...monthly, start_on: '2028-01-31' }, '2028-02-01', '2028-03-31')).toEqual(['2028-02-29', '2028-03-31']);
    const leap: Recurrence = { start_on: '2024-02-29', every: 'year', interval: 1, until_on: null };
    expect(occurrencesBetween(leap, '2024-01-01', '2028-12-31')).toEqual(['2024-02-29', '2025-02-28', '2026-02-28', '2027-02-28', '2028-02-29']);
    expect(occurrencesBetween({ start_on: '2026-12-28', every: 'week', interval: 2, until_on: '2027-02-08' }, '2027-01-01', '2027-12-31')).toEqual([
      '2027-01-11', '2027-01-25', '2027-02-08',
    ]);
    expect(isOccurrence(monthly, '2027-02-27')).toBe(false);
    expect(isOccurrence(monthly, '2026-12-31')).toBe(false);
  });
});
