import type { schedules } from '../db/schema';
import { invalid } from '../errors';
import { countOccurrences, isOccurrence, MAX_DATES_AT_ONCE, yearsAfter, type Recurrence } from './occurrences';

// D21: the date rules of a schedule as the book stores it, apart from the repository (as Actual
// keeps its schedule rules apart from its server functions): its recurrence, the floor below
// which its occurrences count as handled, and D21's bounds on what one request may post or list.
// Pure: the callers read the rows and the handled dates.

type Row = typeof schedules.$inferSelect;

/** D21: `GET /schedules/due?through=` looks at most this many years after today. */
export const DUE_MAX_YEARS = 3;

export function recurrenceOf(row: Pick<Row, 'startOn' | 'every' | 'interval' | 'untilOn'>): Recurrence {
  return { start_on: row.startOn, every: row.every, interval: row.interval, until_on: row.untilOn };
}

/** Occurrences before the floor count as handled (D21: a PUT never posts dates before next_on). */
export function floorOf(row: Pick<Row, 'startOn' | 'handledBefore'>): string {
  return row.handledBefore !== null && row.handledBefore > row.startOn ? row.handledBefore : row.startOn;
}

/** D21's bound on the due list: `through` at most DUE_MAX_YEARS after today; 400 beyond. */
export function checkDueThrough(through: string, today: string): void {
  const latest = yearsAfter(today, DUE_MAX_YEARS);
  if (through > latest) throw invalid(`through must be at most ${DUE_MAX_YEARS} years after today (${latest})`);
}

/**
 * D21's bound on saving a `post` schedule: the occurrences from `floor` through today that are not
 * handled are posted at once by the next run, so more than MAX_DATES_AT_ONCE → 400 saying how
 * many. Counted, never listed: a weekly schedule from 0001-01-01 is some 105,000 dates.
 * `handled` holds the handled dates from `floor` through today.
 */
export function checkPostedAtOnce(r: Recurrence, floor: string, today: string, handled: Iterable<string>): void {
  let count = countOccurrences(r, floor, today);
  for (const date of handled) if (date >= floor && date <= today && isOccurrence(r, date)) count--;
  if (count > MAX_DATES_AT_ONCE) {
    throw invalid(
      `this schedule would post ${count} occurrences at once (dated through today); a post schedule may post at most ${MAX_DATES_AT_ONCE} at once: ` +
        'start it later, end it with until_on, or make it remind',
    );
  }
}
