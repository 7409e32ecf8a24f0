import { addDays, LAST_DATE, MAX_DATES_AT_ONCE, nthOccurrence, occurrencesBetween, type Every, type Recurrence } from '../book/occurrences';
import { t } from './i18n';

// D21 in the browser: the dates a schedule falls on, for the previews of the web app (the next
// dates in words, what a start in the past posts at once, Home's "Coming up"), by the server's own
// rule (src/book/occurrences.ts, pure: bundled as it is).

export type { Every, Recurrence };
/** D21's bounds: no request computes, and no post schedule posts, more dates of one schedule at once. */
export { MAX_DATES_AT_ONCE };

/** The date `days` (≥ 0) days after a `YYYY-MM-DD` date; the pages look ahead of today, so at most 9999-12-31. */
export const daysAfter = (isoDate: string, days: number): string => addDays(isoDate, days) ?? LAST_DATE;

/** The occurrences of `r` from `from` through `through` (both inclusive, either open), oldest first, at most `limit`. */
export function occurrencesOf(r: Recurrence, options: { from?: string; through?: string; limit?: number }): string[] {
  // Without an end, a limit ends the list (and a hundred years at most).
  const through = options.through ?? daysAfter(options.from ?? r.start_on, 36_525);
  return occurrencesBetween(r, options.from ?? r.start_on, through, options.limit ?? 1000);
}

/**
 * The first occurrence of a series that starts on `after` (the one before it was `after` itself);
 * past 9999-12-31 there is none, and the last day stands in (D21's bounds).
 */
export function nextAfter(after: string, every: Every, interval: number): string {
  return nthOccurrence({ start_on: after, every, interval, until_on: null }, 1) ?? LAST_DATE;
}

/** Whether the series keeps a day some months lack (the 29th to the 31st): those months take their last day. */
export function clampsMonthEnd(r: Pick<Recurrence, 'start_on' | 'every'>): boolean {
  const [month, day] = [Number(r.start_on.slice(5, 7)), Number(r.start_on.slice(8, 10))];
  if (r.every === 'month') return day > 28;
  return r.every === 'year' && month === 2 && day === 29;
}

/** The units a schedule counts in, in the order the form offers them. */
export const EVERY_UNITS: readonly Every[] = ['week', 'month', 'year'];

/**
 * How often, in the chosen language (D29): "Every month", "Every 2 weeks" at the start of a line;
 * "every month" inside a sentence. The CSV export keeps its own English (src/book/change-words.ts).
 */
export function howOftenInWords(every: Every, interval: number, within: 'line' | 'sentence' = 'line'): string {
  return within === 'line' ? t(`schedules.howOften.${every}`, { count: interval }) : t(`schedules.howOftenInSentence.${every}`, { count: interval });
}

/** A unit as the form's choice names it, singular after an interval of 1 ("month"), else plural ("months"). */
export const unitInWords = (every: Every, interval: number | null): string => t(`schedules.units.${every}`, { count: interval === 1 ? 1 : 2 });
