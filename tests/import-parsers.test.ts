import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { Refusal } from '../src/errors';
import { describeIssues } from '../src/text';
import { parseAmount, parsePlainAmount, type DecimalMark } from '../src/book/imports/amounts';
import { CsvOptionsSchema, DESCRIPTION_JOINER, LINE_ERRORS_MAX, parseStatement, STATEMENT_FORMATS, type StatementLine } from '../src/book/imports/index';
import { LineFault } from '../src/book/imports/statement';

// D16: bank statements in, the parsers alone (no database, no HTTP): every fixture of
// tests/fixtures/imports read line by line (line numbers, dates, descriptions, cents, references),
// every refusal and line error with its exact message, the amount parser by property, and the
// hostile files (entities, truncation, HTML, UTF-16, 1 MiB). The routes have tests/imports.test.ts.

const fixture = (name: string) => readFileSync(new URL(`./fixtures/imports/${name}`, import.meta.url), 'utf8');

/** csv options through the schema, so that its defaults apply as they do for a request. */
const csv = (options: Record<string, unknown>) => v.parse(CsvOptionsSchema, options);
const ISO = { date_column: 'date', description_column: 'text', amount_column: 'amount', date_format: 'YYYY-MM-DD', decimal: '.' };
const without = (options: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(options).filter(([k]) => k !== key));
const readCsv = (content: string, options: Record<string, unknown> = ISO) => parseStatement('csv', content, csv(options));

/** The message of the Refusal('invalid') that `read` throws. */
function refusal(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    if (error instanceof Refusal && error.reason === 'invalid') return error.message;
    throw error;
  }
  throw new Error('expected the file to be refused');
}

/** The message of the LineFault that `read` throws. */
function fault(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    if (error instanceof LineFault) return error.message;
    throw error;
  }
  throw new Error('expected a line fault');
}

/** `content` up to (not including) the first `marker`: a file cut short. */
const cut = (content: string, marker: string) => content.slice(0, content.indexOf(marker));

/** `party`: D27's counterparty the line names (camt's other party's IBAN and name, OFX NAME). */
const line = (n: number, occurred_on: string, description: string, amount_cents: number, reference: string | null = null, party: Pick<StatementLine, 'counterparty_iban' | 'counterparty_name'> = {}): StatementLine => ({
  line: n,
  occurred_on,
  description,
  amount_cents,
  reference,
  ...party,
});
const named = (counterparty_name: string) => ({ counterparty_name });

describe('D16 statement formats and csv options', () => {
  it('the formats are csv, ofx and camt053; descriptions join payee and memo with an em dash', () => {
    expect(STATEMENT_FORMATS).toEqual(['csv', 'ofx', 'camt053']);
    expect(DESCRIPTION_JOINER).toBe(' — ');
  });

  it('csv options: defaults applied, columns by name or 0-based index', () => {
    expect(csv({ ...ISO, date_column: 0, description_column: ' text ' })).toEqual({
      ...ISO,
      date_column: 0,
      description_column: 'text',
      header: true,
      skip_rows: 0,
    });
    expect(csv({ ...without(ISO, 'amount_column'), debit_column: 'Out', credit_column: 3, delimiter: '\t', header: false, skip_rows: 2 })).toMatchObject({
      debit_column: 'Out',
      credit_column: 3,
      delimiter: '\t',
      header: false,
      skip_rows: 2,
    });
  });

  it('csv options: refused with a sentence naming the option', () => {
    const cases: [Record<string, unknown> | null, string][] = [
      [{ ...ISO, surprise: 1 }, 'csv has no option surprise'],
      [without(ISO, 'date_column'), 'csv.date_column is required'],
      [without(ISO, 'decimal'), 'csv.decimal is required'],
      [null, 'csv must be an object: date_column, description_column, amount_column or debit_column and credit_column, decimal'],
      [{ ...ISO, date_column: -1 }, 'csv.date_column must be a column name or a 0-based index'],
      [{ ...ISO, date_column: 1.5 }, 'csv.date_column must be a column name or a 0-based index'],
      [{ ...ISO, date_column: '  ' }, 'csv.date_column must be a column name or a 0-based index'],
      [{ ...ISO, date_column: true }, 'csv.date_column must be a column name or a 0-based index'],
      [{ ...ISO, date_column: 1000 }, 'csv.date_column is at most 999'],
      [{ ...ISO, date_format: 'DD.MM.YY' }, 'csv.date_format must be one of YYYY-MM-DD, DD.MM.YYYY, DD/MM/YYYY, MM/DD/YYYY or auto'],
      [{ ...ISO, decimal: "'" }, 'csv.decimal must be "." or ","'],
      [{ ...ISO, delimiter: ';;' }, 'csv.delimiter must be one character, not a quote or a line break'],
      [{ ...ISO, delimiter: '"' }, 'csv.delimiter must be one character, not a quote or a line break'],
      [{ ...ISO, header: 'yes' }, 'csv.header must be true or false'],
      [{ ...ISO, skip_rows: -1 }, 'csv.skip_rows must be a whole number, 0 or more'],
      [{ ...ISO, skip_rows: 0.5 }, 'csv.skip_rows must be a whole number, 0 or more'],
      [{ ...ISO, debit_column: 'Out', credit_column: 'In' }, 'csv has either amount_column, or debit_column and credit_column, not both'],
      [{ ...without(ISO, 'amount_column'), debit_column: 'Out' }, 'csv.debit_column and csv.credit_column go together'],
      [{ ...without(ISO, 'amount_column'), credit_column: 'In' }, 'csv.debit_column and csv.credit_column go together'],
      [without(ISO, 'amount_column'), 'csv needs amount_column, or debit_column and credit_column'],
    ];
    for (const [input, message] of cases) {
      const result = v.safeParse(CsvOptionsSchema, input);
      expect(result.success, JSON.stringify(input)).toBe(false);
      if (!result.success) expect(describeIssues(result.issues), JSON.stringify(input)).toBe(message);
    }
  });

  it('format csv without csv options is refused', () => {
    expect(refusal(() => parseStatement('csv', 'date,text,amount\n'))).toBe('csv is required for format csv: the columns, date format and decimal mark');
  });
});

describe('D16 CSV statements', () => {
  it('German bank: BOM, CRLF, 4 preamble lines, ";" detected, DD.MM.YYYY, 1.234,56, a Verwendungszweck over three lines', () => {
    const options = { date_column: 'Buchungstag', description_column: 'Verwendungszweck', amount_column: 'Betrag (EUR)', date_format: 'DD.MM.YYYY', decimal: ',', skip_rows: 4 };
    const expected = {
      lines: [
        line(6, '2026-03-02', 'Abschlag Strom März', -123456),
        line(7, '2026-03-03', 'Mitgliedsbeitrag 2026 Erika Mustermann Mitgliedsnr. 0042', 12000),
        line(10, '2026-03-05', 'Vereinsfest; Brezeln', -4580),
        line(11, '2026-03-31', 'Kontoführungsentgelt', -790),
      ],
      errors: [],
    };
    expect(readCsv(fixture('csv-german-bank.csv'), options)).toEqual(expected);
    expect(readCsv(fixture('csv-german-bank.csv'), { ...options, delimiter: ';' })).toEqual(expected);
    // The payee column instead, by index.
    expect(readCsv(fixture('csv-german-bank.csv'), { ...options, description_column: 2 }).lines.map((l) => l.description)).toEqual([
      'Stadtwerke Musterstadt GmbH',
      'Erika Mustermann',
      'Bäckerei Beispiel',
      'Musterbank',
    ]);
  });

  it('UK bank: ",", DD/MM/YYYY, Paid out and Paid in columns, £ amounts', () => {
    const options = { date_column: 'Date', description_column: 'Description', debit_column: 'Paid out', credit_column: 'Paid in', date_format: 'DD/MM/YYYY', decimal: '.' };
    expect(readCsv(fixture('csv-uk-bank.csv'), options)).toEqual({
      lines: [
        line(2, '2026-03-03', 'THAMES WATER UTILITIES', -4210),
        line(3, '2026-03-05', 'J SMITH SUBS MARCH', 2500),
        line(4, '2026-03-10', 'VILLAGE HALL HIRE', -120000),
        line(5, '2026-03-12', 'GIFT AID REFUND', 31045),
      ],
      errors: [],
    });
  });

  it('US bank: MM/DD/YYYY, (1,234.56) and -1,050.00, quoted descriptions with commas, columns by index', () => {
    const options = { date_column: 0, description_column: 1, amount_column: 2, date_format: 'MM/DD/YYYY', decimal: '.' };
    expect(readCsv(fixture('csv-us-bank.csv'), options)).toEqual({
      lines: [
        line(2, '2026-03-02', 'COFFEE SHOP, MAIN ST #12', -475),
        line(3, '2026-03-05', 'PAYROLL DEPOSIT ACME, INC.', 123456),
        line(4, '2026-03-09', 'RENT, APT 4B', -123456),
        line(5, '2026-03-16', 'CAR INSURANCE, MONTHLY', -105000),
        line(6, '2026-03-31', 'INTEREST PAID', 42),
      ],
      errors: [],
    });
  });

  it('ISO: YYYY-MM-DD, tab detected, a blank line skipped but counted, a quoted tab', () => {
    const options = { date_column: 'booking_date', description_column: 'text', amount_column: 'amount_eur', date_format: 'YYYY-MM-DD', decimal: '.' };
    expect(readCsv(fixture('csv-iso-tab.csv'), options)).toEqual({
      lines: [
        line(2, '2026-03-01', 'City Library membership', -3000),
        line(3, '2026-03-15', 'Club dues Alex', 2500),
        line(5, '2026-03-20', 'Tea, biscuits and milk', -640),
      ],
      errors: [],
    });
  });

  it('line numbers are physical lines: quoted line breaks (CRLF, LF or CR), blank lines, preamble and header all count', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const content = ['Export of 2026', '', 'date,text,amount', '2026-01-02,"two', 'lines",1.00', '', '2026-01-03,"three', '', 'lines",2.00', '2026-01-04,one,3.00', '', '', ''].join(eol);
      const read = readCsv(content, { ...ISO, skip_rows: 2 });
      expect(read.errors, JSON.stringify(eol)).toEqual([]);
      expect(read.lines.map((l) => [l.line, l.description]), JSON.stringify(eol)).toEqual([
        [4, 'two lines'],
        [7, 'three lines'],
        [10, 'one'],
      ]);
    }
  });

  it('no header: 0-based columns, skip_rows counts the preamble, rows of empty fields skipped', () => {
    const content = 'Konto 0000\n05.01.2026;Miete Januar;-1.234,56\n;;\n06.01.2026;Beitrag;25\n';
    expect(readCsv(content, { date_column: 0, description_column: 1, amount_column: 2, date_format: 'DD.MM.YYYY', decimal: ',', header: false, skip_rows: 1 })).toEqual({
      lines: [line(2, '2026-01-05', 'Miete Januar', -123456), line(4, '2026-01-06', 'Beitrag', 2500)],
      errors: [],
    });
  });

  it('every date format, with or without leading zeros; impossible dates and two-digit years are line errors', () => {
    const cases: [string, string, string | null][] = [
      ['YYYY-MM-DD', '2026-02-28', '2026-02-28'],
      ['YYYY-MM-DD', '2024-2-29', '2024-02-29'],
      ['DD.MM.YYYY', '5.1.2026', '2026-01-05'],
      ['DD/MM/YYYY', '31/12/2026', '2026-12-31'],
      ['MM/DD/YYYY', '12/31/2026', '2026-12-31'],
      ['YYYY-MM-DD', '2026-02-30', null],
      ['DD.MM.YYYY', '31.02.2026', null],
      ['DD.MM.YYYY', '29.02.2025', null],
      ['DD.MM.YYYY', '05.01.26', null],
      ['DD/MM/YYYY', '12/31/2026', null],
      ['MM/DD/YYYY', '31/12/2026', null],
      ['MM/DD/YYYY', '2026-12-31', null],
      ['YYYY-MM-DD', '0000-01-01', null],
      ['YYYY-MM-DD', '2026-01-05 10:00', null],
    ];
    for (const [date_format, written, expected] of cases) {
      const read = readCsv(`date,text,amount\n${written},Coffee,-1.00\n`, { ...ISO, date_format });
      if (expected) expect(read.lines.map((l) => l.occurred_on), written).toEqual([expected]);
      else expect(read.errors, written).toEqual([{ line: 2, error: `line 2: "${written}" is not a date in the format ${date_format}` }]);
    }
  });

  it('line errors name the line; the other lines still parse', () => {
    const content = [
      'date,text,amount',
      '2026-01-01,Fine,-1.00',
      '2026-02-30,Bad date,-1.00',
      ',No date,-1.00',
      '2026-01-02, \t ,-1.00',
      '2026-01-03,Bad grouping,"1.23,4"',
      '2026-01-04,Two points,12.34.5',
      '2026-01-05,Three decimals,1.234',
      '2026-01-06,Too large,"90,071,992,547,409.92"',
      '2026-01-07,No amount,',
      '2026-01-08,Short row',
      '2026-01-09,Bell \u0007 in it,1.00',
      '2026-01-10,Backwards \u202Etext,1.00',
      '2026-01-11,Last,"90,071,992,547,409.91"',
    ].join('\n');
    expect(readCsv(content)).toEqual({
      lines: [line(2, '2026-01-01', 'Fine', -100), line(14, '2026-01-11', 'Last', Number.MAX_SAFE_INTEGER)],
      errors: [
        { line: 3, error: 'line 3: "2026-02-30" is not a date in the format YYYY-MM-DD' },
        { line: 4, error: 'line 4: the date is empty' },
        { line: 5, error: 'line 5: the description is empty' },
        { line: 6, error: 'line 6: "1.23,4" is not an amount with the decimal mark "."' },
        { line: 7, error: 'line 7: "12.34.5" is not an amount with the decimal mark "."' },
        { line: 8, error: 'line 8: "1.234" has more than 2 decimal places (is the decimal mark ","?)' },
        { line: 9, error: 'line 9: "90,071,992,547,409.92" is too large an amount' },
        { line: 10, error: 'line 10: the amount is empty' },
        { line: 11, error: 'line 11: the row has 2 columns, too few to hold "amount" (column 2)' },
        { line: 12, error: 'line 12: the description must not contain control characters' },
        { line: 13, error: 'line 13: the description must not contain text-direction control characters or line separators' },
      ],
    });
  });

  it('a row with too few columns names the column it lacks; without a header, by index', () => {
    const read = readCsv('2026-01-01;x\n', { date_column: 0, description_column: 1, amount_column: 4, date_format: 'YYYY-MM-DD', decimal: '.', header: false });
    expect(read.errors).toEqual([{ line: 1, error: 'line 1: the row has 2 columns, too few to hold column 4' }]);
  });

  it('debit and credit columns: debit is money out with or without a minus, one of them empty (a zero counts as empty)', () => {
    const options = { date_column: 'Date', description_column: 'Text', debit_column: 'Debit', credit_column: 'Credit', date_format: 'YYYY-MM-DD', decimal: '.' };
    const content = [
      'Date,Text,Debit,Credit',
      '2026-01-01,Out,12.30,',
      '2026-01-02,Out signed,-12.30,',
      '2026-01-03,In,,45.00',
      '2026-01-04,Zero beside,0.00,45.00',
      '2026-01-05,Both,1.00,2.00',
      '2026-01-06,Neither,,',
      '2026-01-07,Bad debit,1.2.3,',
    ].join('\n');
    expect(readCsv(content, options)).toEqual({
      lines: [line(2, '2026-01-01', 'Out', -1230), line(3, '2026-01-02', 'Out signed', -1230), line(4, '2026-01-03', 'In', 4500), line(5, '2026-01-04', 'Zero beside', 4500)],
      errors: [
        { line: 6, error: 'line 6: both the debit "1.00" and the credit "2.00" are filled in' },
        { line: 7, error: 'line 7: the debit and the credit are both empty' },
        { line: 8, error: 'line 8: "1.2.3" is not an amount with the decimal mark "."' },
      ],
    });
  });

  it('descriptions: whitespace collapsed, cut to the 500 characters of a transaction (never half a surrogate pair)', () => {
    const long = `${'ab '.repeat(100)}${'😀'.repeat(600)}`;
    const read = readCsv(`date,text,amount\n2026-01-01,"  lots\t of \u00A0 space  ",1\n2026-01-02,${long},1\n`);
    expect(read.lines[0]!.description).toBe('lots of space');
    const cut = read.lines[1]!.description;
    expect([...cut]).toHaveLength(500);
    expect(cut.isWellFormed()).toBe(true);
    expect(cut.endsWith('😀')).toBe(true);
  });

  it('the file that cannot be read is refused, naming the line', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['', ISO, 'the file has no header row'],
      ['\n\n', ISO, 'the file has no header row'],
      ['Export\nAccount 0000\n', { ...ISO, skip_rows: 2 }, 'the file has no header row after the 2 lines csv.skip_rows skips'],
      ['Datum;Text\n1;2\n', { ...ISO, date_column: 'Date' }, 'line 1: the header has no column "Date"; its columns are "Datum", "Text"'],
      ['Datum;Text;Betrag\n1;2;3\n', { ...ISO, date_column: 'Datum', delimiter: ',' }, 'line 1: the header has no column "Datum"; its columns are "Datum;Text;Betrag" (with the delimiter "," the header is one column: is that the file\'s delimiter?)'],
      ['date,text,amount\n', { ...ISO, amount_column: 3 }, 'line 1: the header has 3 columns (0 to 2); csv.amount_column is 3'],
      ['date,text,amount,amount\n', ISO, 'line 1: the header has 2 columns named "amount"; give csv.amount_column as a 0-based index'],
      ['2026-01-01,x,1\n', { ...ISO, header: false }, 'csv.date_column names a column ("date") but csv.header is false: give its 0-based index'],
      ['date,text,amount\n2026-01-01,ok,1\n\n2026-01-02,"never closed,1\n2026-01-03,x,1\n', ISO, 'line 4: a quoted field opens here and is never closed'],
      ['date,text,amount\n2026-01-01,"two\nlines",1\n2026-01-02,12" screen,1\n2026-01-03,"open ""quote"",1\n', ISO, 'line 5: a quoted field opens here and is never closed'],
      ['date text amount\n', ISO, 'line 1: cannot tell the delimiter: the row has no , ; tab or |; give csv.delimiter'],
      ['Skip me\n\ndate;text,amount\n2026-01-01;x,1\n', { ...ISO, skip_rows: 1 }, 'line 3: cannot tell the delimiter: "," and ";" are as frequent as each other; give csv.delimiter'],
    ];
    for (const [content, options, message] of cases) expect(refusal(() => readCsv(content, options)), content).toBe(message);
  });

  it('the delimiter is detected outside quotes, ties broken by the next rows', () => {
    const quoted = readCsv('date;"text";amount,eur\n2026-01-01;"a, b";"1,00"\n', { ...ISO, amount_column: 'amount,eur', decimal: ',' });
    expect(quoted.lines).toEqual([line(2, '2026-01-01', 'a, b', 100)]);
    // The first row has two "," and two ";"; the next has two ";" again but one ",".
    const options = { date_column: 0, description_column: 1, amount_column: 2, date_format: 'YYYY-MM-DD', decimal: ',', header: false };
    expect(readCsv('2026-01-01;Rent, March;12,50\n2026-01-02;Fee;1,00\n', options).lines).toEqual([line(1, '2026-01-01', 'Rent, March', 1250), line(2, '2026-01-02', 'Fee', 100)]);
    expect(refusal(() => readCsv('date;text,amount\n2026-01-01;x,1\n'))).toBe('line 1: cannot tell the delimiter: "," and ";" are as frequent as each other; give csv.delimiter');
    expect(readCsv('date|text|amount\n2026-01-01|"a|b, c; d"|1\n').lines).toEqual([line(2, '2026-01-01', 'a|b, c; d', 100)]);
    // A quote inside a field is an ordinary character, for the detection as for the reading.
    expect(readCsv('date;text 12" wide;amount\n2026-01-01;Screen 24", matt;-99,00\n', { ...ISO, description_column: 'text 12" wide', decimal: ',' }).lines).toEqual([
      line(2, '2026-01-01', 'Screen 24", matt', -9900),
    ]);
  });

  it('a UTF-16 file read as UTF-8 is refused as not text, not read into garbage lines', () => {
    expect(refusal(() => readCsv(fixture('csv-utf16le.csv'), { date_column: 'Date', description_column: 'Description', amount_column: 'Amount', date_format: 'YYYY-MM-DD', decimal: '.' }))).toBe(
      'line 1: the file is not text: it holds NUL characters (is it UTF-16, or not a statement at all?); save it as UTF-8',
    );
    // Latin-1 bytes read as UTF-8 come as U+FFFD.
    expect(refusal(() => readCsv('date,text,amount\n2026-01-01,K\uFFFDse,1\n'))).toBe(
      'line 2: the file is not UTF-8 text: it holds characters that could not be read (U+FFFD); save it as UTF-8',
    );
    expect(refusal(() => readCsv('date,text,amount\n2026-01-01,\uD800,1\n'))).toBe('line 2: the file is not valid Unicode text (it holds a lone surrogate)');
    for (const format of ['ofx', 'camt053'] as const) {
      expect(refusal(() => parseStatement(format, '\u0000<\u0000O\u0000F\u0000X\u0000>'))).toMatch(/^line 1: the file is not text/);
    }
  });

  it('1 MiB of CSV lines parses (no quadratic behaviour)', () => {
    const rows = ['date,text,amount'];
    let size = 0;
    for (let i = 0; size < 1024 * 1024; i++) {
      const row = `2026-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')},"Line ${i}, paid",${i % 2 ? '' : '-'}${i % 5000}.${String(i % 100).padStart(2, '0')}`;
      rows.push(row);
      size += row.length + 1;
    }
    const read = readCsv(rows.join('\n'));
    expect(read.errors).toEqual([]);
    expect(read.lines).toHaveLength(rows.length - 1);
    expect(read.lines.at(-1)!.line).toBe(rows.length);
    // One field of 1 MiB, and an amount field of 1 MiB: read, refused, never a slow pattern.
    expect(readCsv(`date,text,amount\n2026-01-01,"${'x '.repeat(512 * 1024)}",1\n`).lines[0]!.description).toHaveLength(499);
    expect(readCsv(`date,text,amount\n2026-01-01,x,${'1 '.repeat(512 * 1024)}x\n`).errors).toEqual([{ line: 2, error: `line 2: "${'1 '.repeat(20)}…" is not an amount with the decimal mark "."` }]);
  });
});

describe('D16 amounts (property)', () => {
  const MAX = BigInt(Number.MAX_SAFE_INTEGER);
  const GROUPING: Record<DecimalMark, string[]> = { '.': [',', ' ', '\u00A0', '\u202F', "'", '\u2019'], ',': ['.', ' ', '\u00A0', '\u202F', "'", '\u2019'] };

  const style = fc.record({
    decimal: fc.constantFrom<DecimalMark>('.', ','),
    grouping: fc.nat({ max: 6 }),
    sign: fc.constantFrom('leading', 'trailing', 'parentheses', 'minus sign', 'after currency'),
    plus: fc.boolean(),
    currency: fc.constantFrom('', 'EUR', '€', '$', '£', 'CHF', 'eur'),
    currencyBefore: fc.boolean(),
    space: fc.boolean(),
    decimals: fc.constantFrom('two', 'short'),
  });

  type Style = typeof style extends fc.Arbitrary<infer T> ? T : never;

  /** Cents written as a bank might: decimal mark, grouping (index 0: none), a sign style, a currency before or after. */
  function write(cents: bigint, s: Style): string {
    const magnitude = cents < 0n ? -cents : cents;
    const whole = (magnitude / 100n).toString();
    let fraction = (magnitude % 100n).toString().padStart(2, '0');
    if (s.decimals === 'short') fraction = fraction.endsWith('0') ? fraction.slice(0, 1) : fraction;
    const separator = s.grouping === 0 ? '' : GROUPING[s.decimal][s.grouping - 1]!;
    const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, separator);
    const number = `${grouped}${s.decimal}${fraction}`;
    const gap = s.space ? ' ' : '';
    const withCurrency = (n: string) => (s.currency === '' ? n : s.currencyBefore ? `${s.currency}${gap}${n}` : `${n}${gap}${s.currency}`);
    if (cents >= 0n) return withCurrency(s.plus ? `+${number}` : number);
    switch (s.sign) {
      case 'leading':
        return `-${withCurrency(number)}`;
      case 'minus sign':
        return `\u2212${withCurrency(number)}`;
      case 'trailing':
        return withCurrency(`${number}-`);
      case 'after currency':
        return withCurrency(`-${number}`);
      default:
        return `(${withCurrency(number)})`;
    }
  }

  it('any safe integer of cents, written in any style, reads back as the same cents', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -MAX, max: MAX }), style, (cents, s) => {
        const written = write(cents, s);
        expect(parseAmount(written, s.decimal), written).toBe(Number(cents));
      }),
      { numRuns: 2000 },
    );
  });

  it('grouping not by threes is refused, whichever decimal mark', () => {
    const groups = fc.array(fc.stringMatching(/^[1-9]\d{0,4}$/), { minLength: 2, maxLength: 5 }).filter((g) => g.slice(1).some((x) => x.length !== 3));
    fc.assert(
      fc.property(groups, fc.constantFrom<DecimalMark>('.', ','), fc.nat({ max: 5 }), fc.boolean(), (parts, decimal, k, decimals) => {
        const written = parts.join(GROUPING[decimal][k]!) + (decimals ? `${decimal}00` : '');
        expect(fault(() => parseAmount(written, decimal)), written).toBe(`"${written}" is not an amount with the decimal mark "${decimal}"`);
      }),
    );
  });

  it('more than two decimal places, or two decimal marks, are refused', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{1,6}$/), fc.stringMatching(/^\d{3,6}$/), fc.constantFrom<DecimalMark>('.', ','), (whole, fraction, decimal) => {
        expect(() => parseAmount(`${whole}${decimal}${fraction}`, decimal)).toThrow(LineFault);
        expect(() => parseAmount(`${whole}${decimal}${fraction.slice(0, 2)}${decimal}5`, decimal)).toThrow(LineFault);
      }),
    );
  });

  it('ambiguous and malformed amounts are refused with the reason', () => {
    const cases: [string, DecimalMark, string][] = [
      ['1.234,56', '.', '"1.234,56" is not an amount with the decimal mark "."'],
      ['1,234.56', ',', '"1,234.56" is not an amount with the decimal mark ","'],
      ['1,23', '.', '"1,23" is not an amount with the decimal mark "."'],
      ['12 34', '.', '"12 34" is not an amount with the decimal mark "."'],
      ['1,234 567.00', '.', '"1,234 567.00" is not an amount with the decimal mark "."'],
      ['--12', '.', '"--12" is not an amount with the decimal mark "."'],
      ['-12-', '.', '"-12-" is not an amount with the decimal mark "."'],
      ['(-12)', '.', '"(-12)" is not an amount with the decimal mark "."'],
      ['€12 EUR', '.', '"€12 EUR" is not an amount with the decimal mark "."'],
      ['USD', '.', '"USD" is not an amount with the decimal mark "."'],
      ['12.', '.', '"12." is not an amount with the decimal mark "."'],
      ['1e5', '.', '"1e5" is not an amount with the decimal mark "."'],
      ['0x10', '.', '"0x10" is not an amount with the decimal mark "."'],
      ['12,345', ',', '"12,345" has more than 2 decimal places (is the decimal mark "."?)'],
      ['12.3456', '.', '"12.3456" has more than 2 decimal places'],
      ['90071992547409.92', '.', '"90071992547409.92" is too large an amount'],
      [' ', '.', 'the amount is empty'],
    ];
    for (const [written, decimal, message] of cases) expect(fault(() => parseAmount(written, decimal)), written).toBe(message);
    expect(parseAmount('.5', '.')).toBe(50);
    expect(parseAmount('-0,00', ',')).toBe(0);
    expect(Object.is(parseAmount('-0.00', '.'), 0)).toBe(true);
    expect(parseAmount("CHF 1'234.50", '.')).toBe(123450);
    expect(parseAmount('1 234,56 €', ',')).toBe(123456);
  });

  it('OFX and camt amounts: a point, decimals past the cents only as zeros, a comma only with one or two decimals', () => {
    expect(parsePlainAmount('TRNAMT', '-12.3000', true)).toBe(-1230);
    expect(parsePlainAmount('TRNAMT', '+.5', true)).toBe(50);
    expect(parsePlainAmount('TRNAMT', '-12,30', true)).toBe(-1230);
    expect(parsePlainAmount('Amt', '1234.56', false)).toBe(123456);
    expect(fault(() => parsePlainAmount('TRNAMT', '1,000', true))).toBe('TRNAMT "1,000" is not an amount');
    expect(fault(() => parsePlainAmount('TRNAMT', '1,234.56', true))).toBe('TRNAMT "1,234.56" is not an amount');
    expect(fault(() => parsePlainAmount('TRNAMT', '12.345', true))).toBe('TRNAMT "12.345" has more than 2 decimal places');
    expect(fault(() => parsePlainAmount('Amt', '-5.00', false))).toBe('Amt "-5.00" must be written without a sign');
    expect(fault(() => parsePlainAmount('Amt', '', false))).toBe('Amt is missing');
    expect(fault(() => parsePlainAmount('Amt', '99999999999999999', false))).toBe('Amt "99999999999999999" is too large an amount');
  });
});

const OFX_HEADER = 'OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n';
/** An OFX 1.x bank statement around `transactions` (SGML, leaf tags unclosed). */
const sgml = (transactions: string, account = '<BANKACCTFROM><ACCTID>0000123456</BANKACCTFROM>') =>
  `${OFX_HEADER}<OFX>\n<BANKMSGSRSV1><STMTTRNRS><STMTRS>${account}\n<BANKTRANLIST>\n${transactions}</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1>\n</OFX>\n`;

describe('D16 OFX statements', () => {
  it('OFX 1.x SGML: unclosed leaf tags, date-times with zones, an empty MEMO, &amp;, NAME and MEMO joined (once when equal)', () => {
    expect(parseStatement('ofx', fixture('ofx-1-sgml.ofx'))).toEqual({
      lines: [
        line(1, '2026-03-02', 'CORNER BAKERY — POS PURCHASE CARD 0000', -1230, '2026030200001', named('CORNER BAKERY')),
        line(2, '2026-03-05', 'SMITH & SONS HARDWARE — REFUND INV 5521', 25000, '2026030500002', named('SMITH & SONS HARDWARE')),
        line(3, '2026-03-09', 'RIVERSIDE SPORTS HALL', -123456, '2026030900003', named('RIVERSIDE SPORTS HALL')),
        line(4, '2026-03-31', 'MONTHLY SERVICE FEE', -500, '2026033100004', named('MONTHLY SERVICE FEE')),
      ],
      errors: [],
      balances: { opening: null, closing: { on: '2026-03-31', amount_cents: 100314 } },
    });
  });

  it('OFX 2.x XML credit card statement: PAYEE/NAME, character references, a comment', () => {
    expect(parseStatement('ofx', fixture('ofx-2-xml.ofx'))).toEqual({
      lines: [
        line(1, '2026-02-03', 'Sportshop Beispiel — Trikots Jugend & Bälle', -8990, 'CC-2026-02-0001', named('Sportshop Beispiel')),
        line(2, '2026-02-10', 'Example Air — Erstattung Gepäck', 1500, 'CC-2026-02-0002', named('Example Air')),
        line(3, '2026-02-27', 'Café Zentral ☕', -450, 'CC-2026-02-0003', named('Café Zentral ☕')),
      ],
      errors: [],
      balances: { opening: null, closing: { on: '2026-02-28', amount_cents: -7940 } },
    });
  });

  it('QFX: Intuit sign-on fields, CRLF, many tags on one line', () => {
    expect(parseStatement('ofx', fixture('qfx-quicken.qfx'))).toEqual({
      lines: [
        line(1, '2026-03-31', 'DIVIDEND EARNED — DIVIDEND EARNED FOR PERIOD', 107, 'QFX-0001', named('DIVIDEND EARNED')),
        line(2, '2026-03-15', 'TRANSFER TO CHECKING — ONLINE TRANSFER REF 0000', -20000, 'QFX-0002', named('TRANSFER TO CHECKING')),
        line(3, '2026-03-02', 'DEPOSIT — BRANCH DEPOSIT', 50000, 'QFX-0003', named('DEPOSIT')),
      ],
      errors: [],
      balances: { opening: null, closing: { on: '2026-03-31', amount_cents: 230107 } },
    });
  });

  it('SGML leniency: lower-case tags, a bare &, an empty leaf before its siblings, closed and unclosed leaves mixed', () => {
    const read = parseStatement(
      'ofx',
      sgml(
        '<stmttrn><trntype>DEBIT<dtposted>20260102<trnamt>-1.00<fitid>A1<name>AT&T WIRELESS<memo>Bill &#35;7</stmttrn>\n' +
          '<STMTTRN><TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>20260103<NAME><TRNAMT>-2.00<FITID>A2<MEMO>No name</STMTTRN>\n',
      ),
    );
    expect(read).toEqual({
      lines: [line(1, '2026-01-02', 'AT&T WIRELESS — Bill #7', -100, 'A1', named('AT&T WIRELESS')), line(2, '2026-01-03', 'No name', -200, 'A2')],
      errors: [],
    });
  });

  it('line errors name the STMTTRN; the others still parse', () => {
    const read = parseStatement(
      'ofx',
      sgml(
        [
          '<STMTTRN><DTPOSTED>20260230<TRNAMT>-1.00<FITID>B1<NAME>Bad date</STMTTRN>',
          '<STMTTRN><TRNAMT>-1.00<FITID>B2<NAME>No date</STMTTRN>',
          '<STMTTRN><DTPOSTED>20260101<FITID>B3<NAME>No amount</STMTTRN>',
          '<STMTTRN><DTPOSTED>20260101<TRNAMT>1.2.3<FITID>B4<NAME>Bad amount</STMTTRN>',
          '<STMTTRN><DTPOSTED>20260101<TRNAMT>1.00<FITID>B5</STMTTRN>',
          '<STMTTRN><DTPOSTED>2026-01-01<TRNAMT>1.00<FITID>B6<NAME>Dashes</STMTTRN>',
          '<STMTTRN><DTPOSTED>20260101<TRNAMT>1.00<NAME>No FITID</STMTTRN>',
          '',
        ].join('\n'),
      ),
    );
    expect(read).toEqual({
      lines: [line(7, '2026-01-01', 'No FITID', 100, null, named('No FITID'))],
      errors: [
        { line: 1, error: 'STMTTRN 1: DTPOSTED "20260230" is not a date YYYYMMDD' },
        { line: 2, error: 'STMTTRN 2: DTPOSTED is missing' },
        { line: 3, error: 'STMTTRN 3: TRNAMT is missing' },
        { line: 4, error: 'STMTTRN 4: TRNAMT "1.2.3" is not an amount' },
        { line: 5, error: 'STMTTRN 5: the description is empty: there is no NAME or MEMO' },
        { line: 6, error: 'STMTTRN 6: DTPOSTED "2026-01-01" is not a date YYYYMMDD' },
      ],
    });
  });

  it('a file that is not a readable OFX statement is refused, naming the line or element', () => {
    const cases: [string, string][] = [
      [fixture('ofx-actually-html.ofx'), 'the file is a web page (HTML), not an OFX statement'],
      ['Date,Description,Amount\n2026-01-01,x,1\n', 'the file is not an OFX statement: it has no <OFX> element'],
      [cut(sgml('<STMTTRN><DTPOSTED>20260101<TRNAMT>1.00<NAME>x</STMTTRN>'), '</BANKTRANLIST>'), 'line 8: the file ends before <BANKTRANLIST> is closed (is it cut short?)'],
      [`${OFX_HEADER}<OFX>\n<BANKMSGSRSV1>\n<STMTTRNRS>\n</BANKMSGSRSV1>\n</OFX>\n`, 'the OFX file holds no bank or credit card statement (STMTRS or CCSTMTRS)'],
      [`${OFX_HEADER}<OFX>\n<BANKMSGSRSV1>\n</STMTRS>\n</OFX>\n`, 'line 7: </STMTRS> closes no open element'],
      [`${OFX_HEADER}<OFX>\n<BANKMSGSRSV1>\n<STMTTRNRS>\n<TRNUID>1\n`, 'line 8: the file ends before <STMTTRNRS> is closed (is it cut short?)'],
      [`${OFX_HEADER}<OFX>\n<SIGNONMSGSRSV1><SONRS><STATUS><CODE>0</STATUS></SONRS></SIGNONMSGSRSV1>\n</OFX>\n`, 'the OFX file holds no bank or credit card statement (STMTRS or CCSTMTRS)'],
      [`${OFX_HEADER}<OFX>\n<BAD!>x\n</OFX>\n`, 'line 6: "<BAD!>" is not an OFX tag'],
      [`${OFX_HEADER}<OFX>\n<NAME>x\n<MEMO\n`, 'line 7: the file ends inside a tag (is it cut short?)'],
      [`<?xml version="1.0"?>\n<!DOCTYPE OFX [<!ENTITY x "y">]>\n<OFX></OFX>\n`, 'line 2: DOCTYPE is not allowed in a statement file (entities are never expanded)'],
      [
        `${OFX_HEADER}<OFX><BANKMSGSRSV1>` +
          '<STMTTRNRS><STMTRS><BANKACCTFROM><ACCTID>0000000001</BANKACCTFROM></STMTRS></STMTTRNRS>' +
          '<STMTTRNRS><STMTRS><BANKACCTFROM><ACCTID>0000000002</BANKACCTFROM></STMTRS></STMTTRNRS>' +
          '</BANKMSGSRSV1></OFX>',
        'the OFX file holds statements of 2 accounts (0000000001, 0000000002); import one account at a time',
      ],
      [sgml('<STMTTRN><NAME>&eacute;</STMTTRN>').replace('&eacute;', '&#0;'), 'the character reference "&#0;" is not a character XML allows'],
    ];
    for (const [content, message] of cases) expect(refusal(() => parseStatement('ofx', content)), content).toBe(message);
  });

  it('two statements of one account are read as one, in document order', () => {
    const statement = (fitid: string) =>
      `<STMTTRNRS><STMTRS><BANKACCTFROM><ACCTID>0000000001</BANKACCTFROM><BANKTRANLIST><STMTTRN><DTPOSTED>20260101<TRNAMT>1<FITID>${fitid}<NAME>x</STMTTRN></BANKTRANLIST></STMTRS></STMTTRNRS>`;
    const read = parseStatement('ofx', `${OFX_HEADER}<OFX><BANKMSGSRSV1>${statement('F1')}${statement('F2')}</BANKMSGSRSV1></OFX>`);
    expect(read.lines.map((l) => [l.line, l.reference])).toEqual([
      [1, 'F1'],
      [2, 'F2'],
    ]);
  });

  it('1 MiB of OFX parses', () => {
    const transactions: string[] = [];
    for (let size = 0, i = 0; size < 1024 * 1024; i++) {
      const t = `<STMTTRN>\n<TRNTYPE>DEBIT\n<DTPOSTED>20260101\n<TRNAMT>-${i % 1000}.50\n<FITID>${i}\n<NAME>Payee ${i}\n<MEMO>Memo & more ${i}\n</STMTTRN>\n`;
      transactions.push(t);
      size += t.length;
    }
    const read = parseStatement('ofx', sgml(transactions.join('')));
    expect(read.errors).toEqual([]);
    expect(read.lines).toHaveLength(transactions.length);
  });
});

/** A camt.053 document around `entries` (Ntry elements), in namespace version `version`. */
const camt = (entries: string, version = '02', statement = '<Acct><Id><IBAN>DE00000000000000000000</IBAN></Id></Acct>') =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.${version}">\n<BkToCstmrStmt><Stmt>${statement}\n${entries}</Stmt></BkToCstmrStmt>\n</Document>\n`;
const entry = (inner: string) => `<Ntry>${inner}</Ntry>\n`;
const BOOKED = '<Amt Ccy="EUR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-01-01</Dt></BookgDt>';

describe('D16 camt.053 statements', () => {
  it('camt.053.001.02: DBIT and CRDT, two Ustrd lines, AddtlNtryInf alone, NtryRef without AcctSvcrRef, a repeated entry', () => {
    expect(parseStatement('camt053', fixture('camt053-001-02.xml'))).toEqual({
      lines: [
        line(1, '2026-03-02', 'Stadtwerke Musterstadt GmbH — Abschlag Strom März 2026 Vertragskonto 0000 1234', -123456, '2026030200001', named('Stadtwerke Musterstadt GmbH')),
        line(2, '2026-03-03', 'Müller & Söhne GbR — Mitgliedsbeitrag 2026 – Familie Müller', 12000, '2026030300002', named('Müller & Söhne GbR')),
        line(3, '2026-03-31', 'Kontoführungsentgelt März 2026', -790, 'N-0003'),
        line(4, '2026-03-03', 'Müller & Söhne GbR — Mitgliedsbeitrag 2026 – Familie Müller', 12000, '2026030300002', named('Müller & Söhne GbR')),
      ],
      errors: [],
      balances: { opening: { on: '2026-02-28', amount_cents: 250000 }, closing: null },
    });
  });

  it('camt.053.001.08: Pty/Nm parties, a DtTm booking date, ValDt when no BookgDt, a batch of two transactions', () => {
    expect(parseStatement('camt053', fixture('camt053-001-08.xml'))).toEqual({
      lines: [
        line(1, '2026-04-01', 'Alex Beispiel — Mitgliedsbeitrag April', 2500, 'A-0001', { counterparty_iban: 'DE00000000000000000011', counterparty_name: 'Alex Beispiel' }),
        line(2, '2026-04-02', 'Sporthalle Musterstadt GmbH — Hallenmiete April 2026 Rechnung 2026-0417', -150000, 'A-0002', named('Sporthalle Musterstadt GmbH')),
        line(3, '2026-04-30', 'Entgelt Kontoführung', -350, 'N-0003'),
        // A batch of two payers names no counterparty (D27): it is no one person's payment.
        line(4, '2026-04-15', 'Sam Example — Beitrag Q2; Kim Example — Beitrag Q2', 6000, 'A-0004'),
      ],
      errors: [],
    });
  });

  it('any 001.NN version and a prefixed Document are read; entries of several Stmt of one account numbered in order', () => {
    for (const version of ['04', '06', '13']) {
      expect(parseStatement('camt053', camt(entry(`${BOOKED}<AddtlNtryInf>x</AddtlNtryInf>`), version)).lines).toEqual([line(1, '2026-01-01', 'x', 100)]);
    }
    const prefixed =
      '<ns2:Document xmlns:ns2="urn:iso:std:iso:20022:tech:xsd:camt.053.001.04"><ns2:BkToCstmrStmt><ns2:Stmt><ns2:Ntry>' +
      '<ns2:Amt Ccy="EUR">1.00</ns2:Amt><ns2:CdtDbtInd>DBIT</ns2:CdtDbtInd><ns2:BookgDt><ns2:Dt>2026-01-01</ns2:Dt></ns2:BookgDt>' +
      '<ns2:AddtlNtryInf>prefixed</ns2:AddtlNtryInf></ns2:Ntry></ns2:Stmt></ns2:BkToCstmrStmt></ns2:Document>';
    expect(parseStatement('camt053', prefixed).lines).toEqual([line(1, '2026-01-01', 'prefixed', -100)]);
    const account = '<Acct><Id><IBAN>DE00 0000 0000 0000 0000 00</IBAN></Id></Acct>';
    const two = camt(`${entry(`${BOOKED}<NtryRef>R1</NtryRef><AddtlNtryInf>one</AddtlNtryInf>`)}</Stmt><Stmt>${account}${entry(`${BOOKED}<NtryRef>R2</NtryRef><AddtlNtryInf>two</AddtlNtryInf>`)}`);
    expect(parseStatement('camt053', two).lines.map((l) => [l.line, l.reference, l.description])).toEqual([
      [1, 'R1', 'one'],
      [2, 'R2', 'two'],
    ]);
  });

  it('the five XML entities and numeric character references decode in names; nothing else is an entity', () => {
    const names = entry(`${BOOKED}<NtryDtls><TxDtls><RltdPties><Dbtr><Nm>A &amp; B &lt;C&gt; &quot;D&quot; &apos;E&apos; &#233;&#xE9; &#x1F600;</Nm></Dbtr></RltdPties></TxDtls></NtryDtls>`);
    expect(parseStatement('camt053', camt(names)).lines[0]!.description).toBe('A & B <C> "D" \'E\' éé 😀');
    const cdata = entry(`${BOOKED}<AddtlNtryInf><![CDATA[Fish &amp; <chips>]]></AddtlNtryInf>`);
    expect(parseStatement('camt053', camt(cdata)).lines[0]!.description).toBe('Fish &amp; <chips>');
    expect(refusal(() => parseStatement('camt053', camt(entry(`${BOOKED}<AddtlNtryInf>Caf&eacute;</AddtlNtryInf>`)))))
      .toBe('the entity "&eacute;" is not defined: XML has only &amp; &lt; &gt; &quot; and &apos;');
    expect(refusal(() => parseStatement('camt053', camt(entry(`${BOOKED}<AddtlNtryInf>&#xD800;</AddtlNtryInf>`)))))
      .toBe('the character reference "&#xD800;" is not a character XML allows');
  });

  it('line errors name the Ntry; the others still parse', () => {
    const entries = [
      entry('<Amt Ccy="EUR">1.00</Amt><CdtDbtInd>CREDIT</CdtDbtInd><BookgDt><Dt>2026-01-01</Dt></BookgDt><AddtlNtryInf>x</AddtlNtryInf>'),
      entry('<Amt Ccy="EUR">1.00</Amt><BookgDt><Dt>2026-01-01</Dt></BookgDt><AddtlNtryInf>x</AddtlNtryInf>'),
      entry('<Amt Ccy="EUR">-1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2026-01-01</Dt></BookgDt><AddtlNtryInf>x</AddtlNtryInf>'),
      entry('<Amt Ccy="EUR">1.005</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2026-01-01</Dt></BookgDt><AddtlNtryInf>x</AddtlNtryInf>'),
      entry('<CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2026-01-01</Dt></BookgDt><AddtlNtryInf>x</AddtlNtryInf>'),
      entry('<Amt Ccy="EUR">1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><AddtlNtryInf>x</AddtlNtryInf>'),
      entry('<Amt Ccy="EUR">1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2026-02-29</Dt></BookgDt><AddtlNtryInf>x</AddtlNtryInf>'),
      entry('<Amt Ccy="EUR">1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2026-01-01</Dt></BookgDt>'),
      entry('<Amt Ccy="EUR">0.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><DtTm>2026-01-31T23:59:59.123Z</DtTm></BookgDt><AddtlNtryInf>zero</AddtlNtryInf>'),
    ].join('');
    const read = parseStatement('camt053', camt(entries));
    expect(read.lines).toEqual([line(9, '2026-01-31', 'zero', 0, null)]);
    expect(Object.is(read.lines[0]!.amount_cents, 0)).toBe(true);
    expect(read.errors).toEqual([
      { line: 1, error: 'Ntry 1: CdtDbtInd "CREDIT" is neither CRDT nor DBIT' },
      { line: 2, error: 'Ntry 2: CdtDbtInd is missing' },
      { line: 3, error: 'Ntry 3: Amt "-1.00" must be written without a sign' },
      { line: 4, error: 'Ntry 4: Amt "1.005" has more than 2 decimal places' },
      { line: 5, error: 'Ntry 5: Amt is missing' },
      { line: 6, error: 'Ntry 6: there is no booking date (BookgDt) or value date (ValDt)' },
      { line: 7, error: 'Ntry 7: BookgDt/Dt "2026-02-29" is not a date YYYY-MM-DD' },
      { line: 8, error: 'Ntry 8: the description is empty: there is no party name, Ustrd or AddtlNtryInf' },
    ]);
  });

  it('hostile and broken files are refused before anything is expanded, naming the line or element', () => {
    const cases: [string, string][] = [
      [fixture('camt053-truncated.xml'), 'line 56: the file ends before <Nm> is closed (is it cut short?)'],
      [fixture('xml-billion-laughs.xml'), 'line 2: DOCTYPE is not allowed in a statement file (entities are never expanded)'],
      [fixture('xml-external-entity.xml'), 'line 2: DOCTYPE is not allowed in a statement file (entities are never expanded)'],
      [camt(entry(BOOKED)).replace('<BkToCstmrStmt>', '<!ENTITY x "y"><BkToCstmrStmt>'), 'line 3: ENTITY declarations are not allowed in a statement file (entities are never expanded)'],
      [cut(camt(entry(BOOKED)), '</Stmt>'), 'line 4: the file ends before <Stmt> is closed (is it cut short?)'],
      [camt(entry(BOOKED)).replace('</Ntry>', '</Nty>'), "line 4: the file is not well-formed XML: expected closing tag 'Ntry' (opened in line 4, col 1) instead of closing tag 'Nty'"],
      [camt(entry(BOOKED)).replace('</Document>\n', ''), 'line 5: the file ends before <Document> is closed (is it cut short?)'],
      [camt(entry(`${BOOKED}<AddtlNtryInf>A & B</AddtlNtryInf>`)), "line 4: the file is not well-formed XML: char '&' is not expected"],
      ['', 'the file is empty'],
      ['Date,Description,Amount\n', 'line 1: the file is not XML (it does not start with "<")'],
      [fixture('ofx-2-xml.ofx'), 'the file is not a camt.053 statement: its root element is <OFX>, not <Document>'],
      [camt(entry(BOOKED)).replace('camt.053.001.02', 'camt.052.001.08'), 'the file is not a camt.053 statement: <Document> is in the namespace "urn:iso:std:iso:20022:tech:xsd:camt.052.001.08"'],
      [camt(entry(BOOKED)).replace(/ xmlns="[^"]*"/, ''), 'the file is not a camt.053 statement: <Document> has no namespace (xmlns)'],
      [camt('').replace(/<BkToCstmrStmt>.*<\/BkToCstmrStmt>/s, '<BkToCstmrStmt></BkToCstmrStmt>'), 'the camt.053 file holds no statement (BkToCstmrStmt/Stmt)'],
      [
        camt(`${entry(BOOKED)}</Stmt><Stmt><Acct><Id><Othr><Id>0000000002</Id></Othr></Id></Acct>`),
        'the camt.053 file holds statements of 2 accounts (DE00000000000000000000, 0000000002); import one account at a time',
      ],
      [`${'<a>'.repeat(200)}${'</a>'.repeat(200)}`, 'the XML cannot be read: Maximum nested tags exceeded'],
    ];
    for (const [content, message] of cases) expect(refusal(() => parseStatement('camt053', content)), content.slice(0, 300)).toBe(message);
  });

  it('1 MiB of camt.053 entries parses', () => {
    const entries: string[] = [];
    for (let size = 0, i = 0; size < 1024 * 1024; i++) {
      const e = entry(
        `<Amt Ccy="EUR">${i % 997}.${String(i % 100).padStart(2, '0')}</Amt><CdtDbtInd>${i % 2 ? 'CRDT' : 'DBIT'}</CdtDbtInd><BookgDt><Dt>2026-01-01</Dt></BookgDt><AcctSvcrRef>R${i}</AcctSvcrRef><NtryDtls><TxDtls><RmtInf><Ustrd>Payment ${i} &amp; more</Ustrd></RmtInf></TxDtls></NtryDtls>`,
      );
      entries.push(e);
      size += e.length;
    }
    const read = parseStatement('camt053', camt(entries.join('')));
    expect(read.errors).toEqual([]);
    expect(read.lines).toHaveLength(entries.length);
  });
});

describe('D16 lines at fault, bounded', () => {
  it(`past ${LINE_ERRORS_MAX} lines at fault, reading stops with an error saying so (1 MiB of bad lines is no 30 MB answer)`, () => {
    const read = readCsv(`date,text,amount\n2026-01-01,fine,1\n${'x\n'.repeat(512 * 1024)}`);
    expect(read.lines).toEqual([line(2, '2026-01-01', 'fine', 100)]);
    expect(read.errors).toHaveLength(LINE_ERRORS_MAX + 1);
    expect(read.errors[0]).toEqual({ line: 3, error: 'line 3: the row has 1 column, too few to hold "text" (column 1)' });
    expect(read.errors.at(-1)).toEqual({ line: 103, error: `line 103: reading stopped here: more than ${LINE_ERRORS_MAX} lines are at fault` });
    const ofx = parseStatement('ofx', sgml('<STMTTRN><TRNAMT>1</STMTTRN>\n'.repeat(1000)));
    expect(ofx.errors.at(-1)).toEqual({ line: 101, error: `STMTTRN 101: reading stopped here: more than ${LINE_ERRORS_MAX} lines are at fault` });
    const entries = parseStatement('camt053', camt('<Ntry></Ntry>'.repeat(1000)));
    expect(entries.errors.at(-1)).toEqual({ line: 101, error: `Ntry 101: reading stopped here: more than ${LINE_ERRORS_MAX} lines are at fault` });
  });
});

/** The Refusal that `read` throws, whole: message, errors, candidates. */
function refusalOf(read: () => unknown): Refusal {
  try {
    read();
  } catch (error) {
    if (error instanceof Refusal) return error;
    throw error;
  }
  throw new Error('expected the file to be refused');
}

describe('D16 dates a person cannot be sure of (csv.date_format auto)', () => {
  const AUTO = without(ISO, 'date_format');
  const dated = (...dates: string[]) => `date,text,amount\n${dates.map((d, i) => `${d},Line ${i + 1},-1.00`).join('\n')}\n`;

  it('omitted and "auto" are the same; the one format that reads every date is used and said', () => {
    expect(csv(AUTO).date_format).toBe('auto');
    for (const [dates, format] of [
      [['2026-03-02', '2026-03-31'], 'YYYY-MM-DD'],
      [['02.03.2026', '31.03.2026'], 'DD.MM.YYYY'],
      [['02/03/2026', '31/03/2026'], 'DD/MM/YYYY'],
      [['03/02/2026', '03/31/2026'], 'MM/DD/YYYY'],
    ] as const) {
      for (const options of [AUTO, { ...ISO, date_format: 'auto' }]) {
        const read = readCsv(dated(...dates), options);
        expect(read.date_format, dates.join()).toBe(format);
        expect(read.errors).toEqual([]);
        expect(read.lines.at(-1)!.occurred_on).toBe('2026-03-31');
      }
    }
  });

  it('several formats that read some date differently: refused with the candidates in the listed order, never a guess', () => {
    const refused = refusalOf(() => readCsv(fixture('csv-us-ambiguous.csv'), { date_column: 'Posting Date', description_column: 'Description', amount_column: 'Amount', decimal: '.' }));
    expect(refused.message).toBe('the dates fit several formats: choose one');
    expect(refused.candidates).toEqual(['DD/MM/YYYY', 'MM/DD/YYYY']);
    const chosen = readCsv(fixture('csv-us-ambiguous.csv'), { date_column: 'Posting Date', description_column: 'Description', amount_column: 'Amount', decimal: '.', date_format: 'MM/DD/YYYY' });
    expect(chosen.lines.map((l) => l.occurred_on)).toEqual(['2026-11-05', '2026-03-04', '2026-12-01']);
    expect(chosen.date_format).toBeUndefined();
  });

  it('several that agree on every date (05/05, 12/12): the first listed', () => {
    const read = readCsv(dated('05/05/2026', '12/12/2026'), AUTO);
    expect(read.date_format).toBe('DD/MM/YYYY');
    expect(read.lines.map((l) => l.occurred_on)).toEqual(['2026-05-05', '2026-12-12']);
  });

  it('none reads every date: the line errors of the format that reads the most (ties: the listed order)', () => {
    const most = readCsv(dated('31/03/2026', '2026-03-02', '30/03/2026'), AUTO);
    expect(most.date_format).toBe('DD/MM/YYYY');
    expect(most.errors).toEqual([{ line: 3, error: 'line 3: "2026-03-02" is not a date in the format DD/MM/YYYY' }]);
    const tie = readCsv(dated('2026-03-02', '02.03.2026', 'soon'), AUTO);
    expect(tie.date_format).toBe('YYYY-MM-DD');
    expect(tie.errors.map((e) => e.line)).toEqual([3, 4]);
  });
});

describe('D16 statement balances, in the bank sign', () => {
  const BALANCED = { date_column: 'Date', description_column: 'Description', amount_column: 'Amount', balance_column: 'Balance', decimal: '.' };

  it('camt.053.001.08: OPBD opens, CLBD closes; CLAV and ITBD are ignored, whatever their order', () => {
    const read = parseStatement('camt053', fixture('camt053-001-08-balances.xml'));
    expect(read.balances).toEqual({ opening: { on: '2026-02-28', amount_cents: 250000 }, closing: { on: '2026-03-31', amount_cents: 254815 } });
    expect(read.lines.map((l) => [l.occurred_on, l.description, l.amount_cents])).toEqual([
      ['2026-03-02', 'Baeckerei Korn — Kartenzahlung Vereinsfeier', -685],
      ['2026-03-05', 'Anna Schmidt — Mitgliedsbeitrag 2026', 6000],
      ['2026-03-31', 'Kontofuehrungsentgelt Maerz 2026', -500],
    ]);
  });

  it('camt.053 with several Stmt: the opening (PRCD) of the first, the closing of the last; DBIT is negative', () => {
    const read = parseStatement('camt053', fixture('camt053-001-08-overdrawn.xml'));
    expect(read.balances).toEqual({ opening: { on: '2026-03-31', amount_cents: 10000 }, closing: { on: '2026-04-30', amount_cents: -7000 } });
  });

  it('camt.053: a Bal that cannot be read refuses the file, naming it', () => {
    const broken = fixture('camt053-001-08-balances.xml').replace('<CdtDbtInd>CRDT</CdtDbtInd>\n        <Dt><Dt>2026-03-31</Dt></Dt>\n      </Bal>\n      <TxsSummry>', '<CdtDbtInd>CR</CdtDbtInd>\n        <Dt><Dt>2026-03-31</Dt></Dt>\n      </Bal>\n      <TxsSummry>');
    expect(refusal(() => parseStatement('camt053', broken))).toBe('Stmt 1 Bal 4 (CLBD): CdtDbtInd "CR" is neither CRDT nor DBIT');
  });

  it('OFX LEDGERBAL closes, in OFX 1.02 SGML and OFX 2 XML (a card\'s debt negative); without it, no balances', () => {
    expect(parseStatement('ofx', fixture('ofx-1-sgml.ofx')).balances).toEqual({ opening: null, closing: { on: '2026-03-31', amount_cents: 100314 } });
    expect(parseStatement('ofx', fixture('ofx-2-xml.ofx')).balances).toEqual({ opening: null, closing: { on: '2026-02-28', amount_cents: -7940 } });
    expect(parseStatement('ofx', sgml('<STMTTRN><DTPOSTED>20260102<TRNAMT>1.00<NAME>X</STMTTRN>\n')).balances).toBeUndefined();
    expect(refusal(() => parseStatement('ofx', fixture('ofx-1-sgml.ofx').replace('<BALAMT>1003.14', '<BALAMT>1,003.14')))).toBe('LEDGERBAL: BALAMT "1,003.14" is not an amount');
  });

  it('a CSV balance column, oldest first or newest first: the opening before the oldest line, the closing on the newest', () => {
    const expected = { opening: { on: '2026-03-02', amount_cents: 200000 }, closing: { on: '2026-03-31', amount_cents: 205815 } };
    const oldest = readCsv(fixture('csv-balance-oldest-first.csv'), BALANCED);
    const newest = readCsv(fixture('csv-balance-newest-first.csv'), BALANCED);
    expect(oldest.balances).toEqual(expected);
    expect(newest.balances).toEqual(expected);
    expect(oldest.lines[0]).toEqual({ ...line(2, '2026-03-02', 'Bakery Korn', -685), balance_cents: 199315 });
  });

  it('a CSV whose lines are all of one day: the order the balances add up in tells which line is the newest', () => {
    const rows = (...r: string[]) => `Date,Description,Amount,Balance\n${r.join('\n')}\n`;
    const forward = readCsv(rows('2026-03-05,A,10.00,110.00', '2026-03-05,B,-30.00,80.00'), BALANCED);
    expect(forward.balances).toEqual({ opening: { on: '2026-03-05', amount_cents: 10000 }, closing: { on: '2026-03-05', amount_cents: 8000 } });
    const backward = readCsv(rows('2026-03-05,B,-30.00,80.00', '2026-03-05,A,10.00,110.00'), BALANCED);
    expect(backward.balances).toEqual({ opening: { on: '2026-03-05', amount_cents: 10000 }, closing: { on: '2026-03-05', amount_cents: 8000 } });
  });

  it('a CSV balance that is no amount is the line\'s error; an empty one states none', () => {
    const read = readCsv('Date,Description,Amount,Balance\n2026-03-02,A,1.00,\n2026-03-03,B,1.00,lots\n2026-03-04,C,1.00,3.00\n', BALANCED);
    expect(read.errors).toEqual([{ line: 3, error: 'line 3: the balance: "lots" is not an amount with the decimal mark "."' }]);
    expect(read.balances).toEqual({ opening: { on: '2026-03-04', amount_cents: 200 }, closing: { on: '2026-03-04', amount_cents: 300 } });
  });
});

describe('D16 German CSV: payee and purpose joined, a preamble, ";" and 1.234,56, a Kontostand', () => {
  it('the description joins its columns with " " (an empty payee left out); dates found by themselves; balances newest first', () => {
    const options = {
      date_column: 'Buchungstag',
      description_column: ['Auftraggeber/Empfänger', 'Verwendungszweck'],
      amount_column: 'Betrag (EUR)',
      balance_column: 'Kontostand (EUR)',
      decimal: ',',
      skip_rows: 4,
    };
    const read = readCsv(fixture('csv-german-payee-purpose.csv'), options);
    expect(read.errors).toEqual([]);
    expect(read.date_format).toBe('DD.MM.YYYY');
    expect(read.lines).toEqual([
      { ...line(6, '2026-03-31', 'Kontoführung März', -500), balance_cents: 254815 },
      { ...line(7, '2026-03-05', 'Anna Schmidt Mitgliedsbeitrag 2026', 6000), balance_cents: 255315 },
      { ...line(8, '2026-03-02', 'Bäckerei Korn Kartenzahlung Vereinsfeier', -100685), balance_cents: 249315 },
    ]);
    expect(read.balances).toEqual({ opening: { on: '2026-03-02', amount_cents: 350000 }, closing: { on: '2026-03-31', amount_cents: 254815 } });
  });

  it('description_column as a list: each column checked; an empty list refused', () => {
    expect(refusal(() => readCsv(fixture('csv-german-payee-purpose.csv'), { date_column: 'Buchungstag', description_column: ['Verwendungszweck', 'Name'], amount_column: 'Betrag (EUR)', decimal: ',', skip_rows: 4 }))).toMatch(
      /^line 5: the header has no column "Name"/,
    );
    const result = v.safeParse(CsvOptionsSchema, { ...ISO, description_column: [] });
    expect(result.success).toBe(false);
    if (!result.success) expect(describeIssues(result.issues)).toBe('csv.description_column must be a column name or a 0-based index, or a list of them');
  });
});

describe('issue 37 item 10 (D16 malformed files: naming the element): an OFX aggregate never closed', () => {
  it('a LEDGERBAL whose end tag is missing is refused naming LEDGERBAL and its line, not "DTASOF is missing" (SGML and XML)', () => {
    expect(refusal(() => parseStatement('ofx', fixture('ofx-1-sgml.ofx').replace('</LEDGERBAL>\n', '')))).toBe(
      'line 73: <LEDGERBAL> is never closed: </STMTRS> on line 76 comes before its </LEDGERBAL>',
    );
    expect(refusal(() => parseStatement('ofx', fixture('ofx-2-xml.ofx').replace('</DTASOF></LEDGERBAL>', '</DTASOF>')))).toBe(
      'line 53: <LEDGERBAL> is never closed: </CCSTMTRS> on line 54 comes before its </LEDGERBAL>',
    );
  });

  it('a STMTTRN never closed is named too; an empty leaf before its siblings is still read', () => {
    const unclosed = sgml('<STMTTRN><DTPOSTED>20260102<TRNAMT>1.00<FITID>A1<NAME>One\n<STMTTRN><DTPOSTED>20260103<TRNAMT>2.00<FITID>A2<NAME>Two</STMTTRN>\n');
    expect(refusal(() => parseStatement('ofx', unclosed))).toBe('line 8: <STMTTRN> is never closed: </BANKTRANLIST> on line 10 comes before its </STMTTRN>');
    expect(parseStatement('ofx', sgml('<STMTTRN><DTPOSTED>20260103<NAME><TRNAMT>-2.00<FITID>A2<MEMO>No name</STMTTRN>\n')).lines).toEqual([
      line(1, '2026-01-03', 'No name', -200, 'A2'),
    ]);
  });
});
