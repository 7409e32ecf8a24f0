import { invalid } from '../../errors';
import { parseCamt053 } from './camt';
import { parseCsv } from './csv';
import type { CsvOptions } from './csv-options';
import { parseOfx } from './ofx';
import { readableText, type ParsedStatement } from './statement';

// D16: bank statements in, the reading half: a file's text to statement lines, with no database
// and no HTTP. Booking them (rules, duplicates, the write) is booking.ts's.

export const STATEMENT_FORMATS = ['csv', 'ofx', 'camt053'] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];

export { CsvOptionsSchema, type CsvOptions } from './csv-options';
export { DESCRIPTION_JOINER, LINE_ERRORS_MAX, type LineError, type ParsedStatement, type StatementLine } from './statement';

/**
 * D16: the lines of a statement file in `format`. A file that cannot be read at all (not text,
 * not OFX, not XML or cut short, a DOCTYPE, no header row, an unknown column, csv options missing
 * for csv) is refused: Refusal('invalid') naming the line or element. A line that cannot be read
 * (a bad date or amount, an empty description) is in `errors` with its line number, and the other
 * lines are still read, up to LINE_ERRORS_MAX lines at fault: then one more error says reading
 * stopped there.
 */
export function parseStatement(format: StatementFormat, content: string, csv?: CsvOptions): ParsedStatement {
  const text = readableText(content);
  switch (format) {
    case 'csv':
      if (!csv) throw invalid('csv is required for format csv: the columns, date format and decimal mark');
      return parseCsv(text, csv);
    case 'ofx':
      return parseOfx(text);
    case 'camt053':
      return parseCamt053(text);
    default:
      throw invalid('format must be csv, ofx or camt053');
  }
}
