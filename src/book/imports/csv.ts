import { invalid } from '../../errors';
import { parseAmount, type DecimalMark } from './amounts';
import type { CsvColumn, CsvOptions } from './csv-options';
import { csvRows, type CsvRow } from './csv-rows';
import { chooseDateFormat, DATE_FORMAT_AUTO, parseDate, type DateFormat } from './dates';
import { cleanDescription, collectLine, counterparty, LineFault, lineFault, shown, type ParsedStatement, type StatementBalances, type StatementLine } from './statement';

// D16: a CSV statement, laid out as its `csv` options say. `line` is the physical line of the file
// where a row starts (a quoted field may run over several lines), the skipped preamble and the
// header counted.

/** A column found: its index, and how a message names it. */
interface Column {
  index: number;
  label: string;
}

interface Columns {
  date: Column;
  /** One, or several joined with " " (payee and purpose). */
  description: Column[];
  amount: { amount: Column } | { debit: Column; credit: Column };
  balance?: Column;
  /** D27: the other party's IBAN and name. */
  iban?: Column;
  name?: Column;
}

export function parseCsv(text: string, options: CsvOptions): ParsedStatement {
  const { rest, skipped } = skipLines(text, options.skip_rows);
  const delimiter = options.delimiter ?? detectDelimiter(rest, skipped);
  const rows = csvRows(rest, delimiter, skipped + 1);
  let columns: Columns;
  let body = rows;
  if (options.header) {
    const header = rows[0];
    if (!header) throw invalid(options.skip_rows > 0 ? `the file has no header row after the ${options.skip_rows} lines csv.skip_rows skips` : 'the file has no header row');
    columns = findColumns(options, (column, field) => headerColumn(header, column, field, delimiter));
    body = rows.slice(1);
  } else {
    columns = findColumns(options, indexColumn);
  }

  const statement: ParsedStatement = { lines: [], errors: [] };
  let format: DateFormat;
  if (options.date_format === DATE_FORMAT_AUTO) {
    format = chooseDateFormat(body.map((row) => row.cells[columns.date.index]));
    statement.date_format = format;
  } else {
    format = options.date_format;
  }
  const needed = columnsOf(columns);
  for (const row of body) {
    if (!collectLine(statement, row.line, `line ${row.line}`, () => readRow(row, columns, needed, format, options.decimal))) break;
  }
  if (columns.balance) statement.balances = statedBalances(statement.lines);
  return statement;
}

function readRow(row: CsvRow, columns: Columns, needed: readonly Column[], format: DateFormat, decimal: DecimalMark) {
  const missing = needed.find((c) => c.index >= row.cells.length);
  if (missing) throw lineFault(`the row has ${row.cells.length} ${row.cells.length === 1 ? 'column' : 'columns'}, too few to hold ${missing.label}`);
  const cell = (c: Column) => row.cells[c.index]!;
  const line = {
    occurred_on: parseDate(cell(columns.date), format),
    description: cleanDescription(columns.description.map(cell).join(' ')),
    amount_cents: 'amount' in columns.amount
      ? parseAmount(cell(columns.amount.amount), decimal)
      : splitAmount(cell(columns.amount.debit), cell(columns.amount.credit), decimal),
    reference: null,
  };
  const party = counterparty(columns.iban && cell(columns.iban), columns.name && cell(columns.name));
  // A line without a balance (some banks leave it empty on pending lines) states none.
  const balance = columns.balance && cell(columns.balance).trim();
  if (!balance) return { ...line, ...party };
  try {
    return { ...line, ...party, balance_cents: parseAmount(balance, decimal) };
  } catch (error) {
    throw error instanceof LineFault ? lineFault(`the balance: ${error.message}`) : error;
  }
}

/**
 * D16 statement balances of a CSV file with a balance column, from the lines that state one:
 * the opening is the balance before the oldest line (its balance minus its amount, on its date),
 * the closing the balance on the newest. Files run newest first or oldest first; which one is told
 * by the dates of the first and last lines, and, when those are the same day, by which order the
 * balances add up in (each balance the one before plus the line's amount).
 */
function statedBalances(lines: readonly StatementLine[]): StatementBalances {
  const stated = lines.filter((l): l is StatementLine & { balance_cents: number } => l.balance_cents !== undefined);
  const first = stated[0];
  const last = stated.at(-1);
  if (!first || !last) return { opening: null, closing: null };
  const addsUp = (order: typeof stated) => order.every((l, i) => i === 0 || order[i - 1]!.balance_cents + l.amount_cents === l.balance_cents);
  const newestFirst = first.occurred_on > last.occurred_on || (first.occurred_on === last.occurred_on && !addsUp(stated) && addsUp([...stated].reverse()));
  const [oldest, newest] = newestFirst ? [last, first] : [first, last];
  return {
    opening: { on: oldest.occurred_on, amount_cents: oldest.balance_cents - oldest.amount_cents },
    closing: { on: newest.occurred_on, amount_cents: newest.balance_cents },
  };
}

/** The text after `count` lines of preamble, and how many lines were skipped (fewer when the file is shorter). */
function skipLines(text: string, count: number): { rest: string; skipped: number } {
  let at = 0;
  for (let skipped = 0; skipped < count; skipped++) {
    const end = text.indexOf('\n', at);
    if (end === -1) return { rest: '', skipped: at < text.length ? skipped + 1 : skipped };
    at = end + 1;
  }
  return { rest: text.slice(at), skipped: count };
}

const CANDIDATES = [',', ';', '\t', '|'] as const;
const SAMPLE_ROWS = 5;
const delimiterName = (d: string) => (d === '\t' ? 'tab' : `"${d}"`);

/**
 * The delimiter, when the options name none: of `,` `;` tab and `|`, the one found most often
 * outside quotes in the first row (the header, or the first row without one); a tie goes to the
 * one found as often in each of the next rows; anything else is refused, not guessed.
 */
function detectDelimiter(text: string, skipped: number): string {
  const rows = sampleRows(text);
  const first = rows[0];
  if (!first) return ',';
  const line = skipped + first.line;
  const most = Math.max(...first.counts);
  if (most === 0) throw invalid(`line ${line}: cannot tell the delimiter: the row has no , ; tab or |; give csv.delimiter`);
  let tied = CANDIDATES.filter((_, k) => first.counts[k] === most);
  if (tied.length > 1) tied = tied.filter((d) => rows.every((row) => row.counts[CANDIDATES.indexOf(d)] === most));
  if (tied.length !== 1) {
    const names = CANDIDATES.filter((_, k) => first.counts[k] === most).map(delimiterName).join(' and ');
    throw invalid(`line ${line}: cannot tell the delimiter: ${names} are as frequent as each other; give csv.delimiter`);
  }
  return tied[0]!;
}

/**
 * The first few non-blank rows: the line each starts on and how often each candidate occurs
 * outside quotes. Quotes are read as csv-rows.ts reads them, any candidate taken for a delimiter:
 * a quote opens a field only at its start.
 */
function sampleRows(text: string): { line: number; counts: number[] }[] {
  const rows: { line: number; counts: number[] }[] = [];
  let counts = CANDIDATES.map(() => 0);
  let quoted = false;
  let fieldStart = true;
  let blank = true;
  let line = 1;
  let rowLine = 1;
  for (let i = 0; i < text.length && rows.length < SAMPLE_ROWS; i++) {
    const ch = text[i]!;
    if (ch === '\n') line++;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') i++;
      else if (ch === '"') quoted = false;
    } else if (ch === '\n') {
      if (!blank) rows.push({ line: rowLine, counts });
      counts = CANDIDATES.map(() => 0);
      blank = true;
      fieldStart = true;
      rowLine = line;
    } else if (ch === '"' && fieldStart) {
      quoted = true;
      blank = false;
    } else {
      const k = (CANDIDATES as readonly string[]).indexOf(ch);
      if (k !== -1) counts[k]!++;
      fieldStart = k !== -1;
      if (ch !== ' ' && ch !== '\t') blank = false;
    }
  }
  if (!blank && rows.length < SAMPLE_ROWS) rows.push({ line: rowLine, counts });
  return rows;
}

type Resolve = (column: CsvColumn, field: string) => Column;

function findColumns(options: CsvOptions, resolve: Resolve): Columns {
  const description = Array.isArray(options.description_column) ? options.description_column : [options.description_column];
  return {
    date: resolve(options.date_column, 'date_column'),
    description: description.map((column) => resolve(column, 'description_column')),
    amount: options.amount_column !== undefined
      ? { amount: resolve(options.amount_column, 'amount_column') }
      : { debit: resolve(options.debit_column!, 'debit_column'), credit: resolve(options.credit_column!, 'credit_column') },
    ...(options.balance_column !== undefined && { balance: resolve(options.balance_column, 'balance_column') }),
    ...(options.iban_column !== undefined && { iban: resolve(options.iban_column, 'iban_column') }),
    ...(options.name_column !== undefined && { name: resolve(options.name_column, 'name_column') }),
  };
}

const columnsOf = (columns: Columns): Column[] => [
  columns.date,
  ...columns.description,
  ...Object.values(columns.amount),
  ...(columns.balance ? [columns.balance] : []),
  ...(columns.iban ? [columns.iban] : []),
  ...(columns.name ? [columns.name] : []),
];

/** Without a header, columns are 0-based indexes only. */
function indexColumn(column: CsvColumn, field: string): Column {
  if (typeof column === 'string') {
    throw invalid(`csv.${field} names a column (${shown(column)}) but csv.header is false: give its 0-based index`);
  }
  return { index: column, label: `column ${column}` };
}

/** A column by its name in the header row (exactly, spaces around it aside), or by its index within the header. */
function headerColumn(header: CsvRow, column: CsvColumn, field: string, delimiter: string): Column {
  const names = header.cells.map((cell) => cell.trim());
  if (typeof column === 'number') {
    if (column >= names.length) {
      throw invalid(`line ${header.line}: the header has ${names.length} columns (0 to ${names.length - 1}); csv.${field} is ${column}`);
    }
    return { index: column, label: names[column] ? `${shown(names[column])} (column ${column})` : `column ${column}` };
  }
  const found = names.flatMap((name, index) => (name === column ? [index] : []));
  if (found.length === 1) return { index: found[0]!, label: `${shown(column)} (column ${found[0]})` };
  if (found.length > 1) {
    throw invalid(`line ${header.line}: the header has ${found.length} columns named ${shown(column)}; give csv.${field} as a 0-based index`);
  }
  const listed = names.slice(0, 12).map((name) => shown(name)).join(', ') + (names.length > 12 ? ', …' : '');
  const hint = names.length === 1 ? ` (with the delimiter ${delimiterName(delimiter)} the header is one column: is that the file's delimiter?)` : '';
  throw invalid(`line ${header.line}: the header has no column ${shown(column)}; its columns are ${listed}${hint}`);
}

/**
 * D16: a debit column (money out, negative whatever its sign) and a credit column (money in); one
 * of them empty. A zero counts as empty when the other is filled in: some banks write 0,00 in the
 * column not used.
 */
function splitAmount(debit: string, credit: string, decimal: DecimalMark): number {
  if (debit.trim() === '' && credit.trim() === '') throw lineFault('the debit and the credit are both empty');
  const out = debit.trim() === '' ? 0 : Math.abs(parseAmount(debit, decimal));
  const into = credit.trim() === '' ? 0 : Math.abs(parseAmount(credit, decimal));
  if (out !== 0 && into !== 0) throw lineFault(`both the debit ${shown(debit.trim())} and the credit ${shown(credit.trim())} are filled in`);
  return into - out;
}
