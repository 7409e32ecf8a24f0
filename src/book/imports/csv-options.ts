import * as v from 'valibot';
import { DECIMAL_MARKS } from './amounts';
import { DATE_FORMAT_AUTO, DATE_FORMATS } from './dates';

// D16: how a CSV statement is laid out, the `csv` object of an import request. Banks' CSV files
// differ in everything, so the person importing says which column holds what.

/** Far more columns than any statement has; an index past it is surely a mistake. */
const COLUMN_INDEX_MAX = 999;

/** A column by its header name, or by its 0-based index (the only way when there is no header). */
const column = (field: string) => {
  const message = `csv.${field} must be a column name or a 0-based index`;
  return v.pipe(
    v.union(
      [
        v.pipe(v.string(message), v.trim(), v.minLength(1, message)),
        v.pipe(v.number(message), v.integer(message), v.minValue(0, message), v.maxValue(COLUMN_INDEX_MAX, `csv.${field} is at most ${COLUMN_INDEX_MAX}`)),
      ],
      message,
    ),
    v.description('a header name, or a 0-based index'),
  );
};

/** More than any bank splits its text into (payee, purpose, reference, …). */
const DESCRIPTION_COLUMNS_MAX = 10;
const DESCRIPTION_COLUMNS_MESSAGE = 'csv.description_column must be a column name or a 0-based index, or a list of them';

const DELIMITER_MESSAGE = 'csv.delimiter must be one character, not a quote or a line break';
const SKIP_ROWS_MESSAGE = 'csv.skip_rows must be a whole number, 0 or more';

/** The strict object's own messages: a key missing, a key unknown, or no object at all. */
const objectMessage = (issue: v.StrictObjectIssue) => {
  const key = issue.path?.at(-1)?.key;
  if (issue.expected === 'never' && typeof key === 'string') return `csv has no option ${key}`;
  if (issue.received === 'undefined' && typeof key === 'string') return `csv.${key} is required`;
  return 'csv must be an object: date_column, description_column, amount_column or debit_column and credit_column, decimal';
};

/**
 * D16 `csv`: date_column, description_column (one column, or several joined with " "),
 * amount_column | (debit_column and credit_column), date_format? (default auto), decimal,
 * balance_column?, iban_column? and name_column? (D27: the other party, to match a
 * person), delimiter? (detected when absent), header? (default true), skip_rows? (default
 * 0: the lines before the header, or before the first row without one).
 */
export const CsvOptionsSchema = v.pipe(
  v.strictObject(
    {
      date_column: column('date_column'),
      description_column: v.union(
        [
          column('description_column'),
          v.pipe(
            v.array(column('description_column'), DESCRIPTION_COLUMNS_MESSAGE),
            v.minLength(1, DESCRIPTION_COLUMNS_MESSAGE),
            v.maxLength(DESCRIPTION_COLUMNS_MAX, `csv.description_column joins at most ${DESCRIPTION_COLUMNS_MAX} columns`),
            v.description('several columns (payee and purpose), joined with " "'),
          ),
        ],
        DESCRIPTION_COLUMNS_MESSAGE,
      ),
      amount_column: v.optional(column('amount_column')),
      debit_column: v.optional(v.pipe(column('debit_column'), v.description('money out; with credit_column instead of amount_column'))),
      credit_column: v.optional(v.pipe(column('credit_column'), v.description('money in; with debit_column instead of amount_column'))),
      date_format: v.optional(
        v.pipe(
          v.picklist([...DATE_FORMATS, DATE_FORMAT_AUTO], `csv.date_format must be one of ${DATE_FORMATS.join(', ')} or auto`),
          v.description('absent or "auto": the one format that reads every date of the file (D16); a 400 with `candidates` when several read them differently'),
        ),
        DATE_FORMAT_AUTO,
      ),
      decimal: v.picklist(DECIMAL_MARKS, 'csv.decimal must be "." or ","'),
      delimiter: v.optional(
        v.pipe(
          v.string(DELIMITER_MESSAGE),
          v.check((s) => s.length === 1 && !['"', '\r', '\n'].includes(s), DELIMITER_MESSAGE),
          v.description('detected among , ; tab and | when absent'),
        ),
      ),
      balance_column: v.optional(v.pipe(column('balance_column'), v.description("the balance after each line, in the bank's sign (D16 statement balances)"))),
      iban_column: v.optional(v.pipe(column('iban_column'), v.description("the other party's IBAN, by which a payment is matched to a person (D27)"))),
      name_column: v.optional(v.pipe(column('name_column'), v.description("the other party's name (\"Auftraggeber/Empfänger\"), by which a payment is matched to a person (D27)"))),
      header: v.optional(v.boolean('csv.header must be true or false'), true),
      skip_rows: v.optional(
        v.pipe(
          v.number(SKIP_ROWS_MESSAGE),
          v.integer(SKIP_ROWS_MESSAGE),
          v.minValue(0, SKIP_ROWS_MESSAGE),
          v.description('lines before the header (or before the first row when there is no header)'),
        ),
        0,
      ),
    },
    objectMessage,
  ),
  v.check(
    (o) => o.amount_column === undefined || (o.debit_column === undefined && o.credit_column === undefined),
    'csv has either amount_column, or debit_column and credit_column, not both',
  ),
  v.check((o) => (o.debit_column === undefined) === (o.credit_column === undefined), 'csv.debit_column and csv.credit_column go together'),
  v.check((o) => o.amount_column !== undefined || o.debit_column !== undefined, 'csv needs amount_column, or debit_column and credit_column'),
);

export type CsvOptions = v.InferOutput<typeof CsvOptionsSchema>;
export type CsvColumn = CsvOptions['date_column'];
export type CsvDateFormat = CsvOptions['date_format'];
