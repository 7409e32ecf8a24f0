import { isCalendarDate } from '../../text';
import { lineFault, shown } from './statement';

// D16: the dates of a statement, as YYYY-MM-DD of a day that exists.

export const DATE_FORMATS = ['YYYY-MM-DD', 'DD.MM.YYYY', 'DD/MM/YYYY', 'MM/DD/YYYY'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

/** Day and month of one or two digits; always four digits of year (`05.01.26` is refused: which century?). */
const PATTERNS: Record<DateFormat, RegExp> = {
  'YYYY-MM-DD': /^(?<year>\d{4})-(?<month>\d{1,2})-(?<day>\d{1,2})$/,
  'DD.MM.YYYY': /^(?<day>\d{1,2})\.(?<month>\d{1,2})\.(?<year>\d{4})$/,
  'DD/MM/YYYY': /^(?<day>\d{1,2})\/(?<month>\d{1,2})\/(?<year>\d{4})$/,
  'MM/DD/YYYY': /^(?<month>\d{1,2})\/(?<day>\d{1,2})\/(?<year>\d{4})$/,
};

const isoDate = (year: string, month: string, day: string) => `${year}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`;

/** A CSV date in the format the import names; `31.02.2026` and `05.01.26` are the line's fault. */
export function parseDate(text: string, format: DateFormat): string {
  const value = text.trim();
  if (value === '') throw lineFault('the date is empty');
  const parts = PATTERNS[format].exec(value)?.groups;
  const date = parts && isoDate(parts['year']!, parts['month']!, parts['day']!);
  if (!date || !isCalendarDate(date)) throw lineFault(`${shown(value)} is not a date in the format ${format}`);
  return date;
}

/**
 * An OFX date-time, `YYYYMMDD[HHMMSS[.XXX]][[offset[:zone]]]` (OFX 2.1.1 §3.2.8.2): its date part,
 * as the bank wrote it (the day on the bank's clock, not moved to UTC).
 */
export function parseOfxDate(field: string, text: string): string {
  const value = text.trim();
  const match = /^(\d{4})(\d{2})(\d{2})(?:\d{4}(?:\d{2}(?:\.\d{1,3})?)?)?(?:\[[+-]?\d{1,2}(?:\.\d{1,2})?(?::[A-Za-z]{1,6})?\])?$/.exec(value);
  const date = match && isoDate(match[1]!, match[2]!, match[3]!);
  if (!date || !isCalendarDate(date)) throw lineFault(`${field} ${shown(value)} is not a date YYYYMMDD`);
  return date;
}

/** An ISO 20022 date or date-time (`2026-01-05`, `2026-01-05+01:00`, `2026-01-05T10:30:00+01:00`): its date part. */
export function parseIsoDate(field: string, text: string): string {
  const value = text.trim();
  const date = /^(\d{4}-\d{2}-\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?(?:Z|[+-]\d{2}:\d{2})?$/.exec(value)?.[1];
  if (!date || !isCalendarDate(date)) throw lineFault(`${field} ${shown(value)} is not a date YYYY-MM-DD`);
  return date;
}
