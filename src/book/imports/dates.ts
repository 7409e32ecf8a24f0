import { invalidChoice } from '../../errors';
import { isCalendarDate } from '../../text';
import { DATE_FORMAT_AUTO, DATE_FORMATS, type DateFormat } from './date-formats';
import { lineFault, shown } from './statement';

// D16: the dates of a statement, as YYYY-MM-DD of a day that exists.

export { DATE_FORMAT_AUTO, DATE_FORMATS, type DateFormat };
export const AMBIGUOUS_DATES = 'the dates fit several formats: choose one';

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
  const date = readAs(value, format);
  if (date === undefined) throw lineFault(`${shown(value)} is not a date in the format ${format}`);
  return date;
}

/** The date `text` is in `format`, or undefined when it is none. */
function readAs(text: string | undefined, format: DateFormat): string | undefined {
  const parts = text === undefined ? undefined : PATTERNS[format].exec(text.trim())?.groups;
  const date = parts && isoDate(parts['year']!, parts['month']!, parts['day']!);
  return date && isCalendarDate(date) ? date : undefined;
}

/**
 * D16, dates a person cannot be sure of: the one format (DATE_FORMATS) that reads every date of
 * the file (`undefined` for a row without a date cell: read by none). Several that read every
 * date: the first listed when they agree on each, else a refusal with `candidates` (in the order
 * listed), never a guess: `11/05/2026` is 5 Nov or 11 May and only the person knows which. None:
 * the one that reads the most (ties: the order listed), so the line errors are that format's.
 */
export function chooseDateFormat(dates: readonly (string | undefined)[]): DateFormat {
  const readings = DATE_FORMATS.map((format) => ({ format, dates: dates.map((d) => readAs(d, format)) }));
  const everyLine = readings.filter((r) => r.dates.every((d) => d !== undefined));
  if (everyLine.length === 1) return everyLine[0]!.format;
  if (everyLine.length > 1) {
    const [first, ...others] = everyLine;
    if (others.every((r) => r.dates.every((d, i) => d === first!.dates[i]))) return first!.format;
    throw invalidChoice(AMBIGUOUS_DATES, everyLine.map((r) => r.format));
  }
  const read = readings.map((r) => r.dates.filter((d) => d !== undefined).length);
  return DATE_FORMATS[read.indexOf(Math.max(...read))]!;
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
