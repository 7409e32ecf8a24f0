import type { StatementRequest } from '../api';
import { DATE_FORMAT_AUTO, DATE_FORMATS as FORMATS_LISTED } from '../../book/imports/date-formats';
import { Scroll } from '../components';
import { t } from '../i18n';

// D16: how a bank's CSV file maps to statement lines: which column holds what, how dates and
// amounts are written. Remembered per statement account in this browser (localStorage), since
// one bank writes every statement alike, and applied only to a file with the same header row
// (D16's last bullet): a file laid out otherwise is mapped afresh.

export type CsvOptions = NonNullable<StatementRequest['csv']>;
type DateFormat = CsvOptions['date_format'];
type Delimiter = 'auto' | ';' | ',' | '\t';

export interface CsvMapping {
  delimiter: Delimiter;
  header: boolean;
  skipRows: number;
  /** A column: its header name with a header row, else its 0-based index as text. */
  date: string;
  description: string;
  /** A second column joined to the description with " " (payee and purpose); '' for none. */
  descriptionMore: string;
  amounts: 'one' | 'two';
  amount: string;
  debit: string;
  credit: string;
  /** D16 `csv.balance_column`: the column of the balance after each line; '' for none. */
  balance: string;
  dateFormat: DateFormat;
  decimal: '.' | ',';
  /** The header row (or first row) of the file the mapping was made for: it applies only to files that start alike. */
  headerRow?: string[];
}

const BLANK: CsvMapping = {
  delimiter: 'auto',
  header: true,
  skipRows: 0,
  date: '',
  description: '',
  descriptionMore: '',
  amounts: 'one',
  amount: '',
  debit: '',
  credit: '',
  balance: '',
  dateFormat: DATE_FORMAT_AUTO,
  decimal: '.',
};

/** D16: the file's own dates decide ("auto"), or one of the formats. */
const DATE_FORMATS: DateFormat[] = [DATE_FORMAT_AUTO, ...FORMATS_LISTED];
const dateFormatLabel = (f: DateFormat) => (f === DATE_FORMAT_AUTO ? t('import.csv.detectDateFormat') : f);
/** The separators offered, each with the key of its name (worded when shown). */
const DELIMITERS: { value: Delimiter; label: string }[] = [
  { value: ';', label: 'import.csv.semicolon' },
  { value: ',', label: 'import.csv.comma' },
  { value: '\t', label: 'import.csv.tab' },
];

const mappingKey = (accountId: string) => `ledger.import.csv.${accountId}`;

/** The header row of `text` as `m` reads it: what a remembered mapping is checked against. */
function headerRowOf(text: string, m: CsvMapping): string[] {
  const rest = afterSkipped(text, m.skipRows);
  return records(rest, m.delimiter === 'auto' ? detectDelimiter(rest) : m.delimiter, 1)[0]?.cells ?? [];
}

/**
 * The mapping last used for this statement account in this browser, if any (and still readable)
 * and, when the file is known, only if the file's header row is the one it was made for (D16).
 */
export function rememberedMapping(accountId: string, text: string | null = null): CsvMapping | null {
  const mapping = storedMapping(accountId);
  if (!mapping || text === null || !mapping.headerRow) return mapping;
  const row = headerRowOf(text, mapping);
  if (row.length !== mapping.headerRow.length || !row.every((cell, i) => cell === mapping.headerRow![i])) return null;
  // A mapping remembered before the balance column was offered has none: the file's own is found.
  return 'balance' in (storedRaw(accountId) ?? {}) ? mapping : { ...mapping, balance: balanceColumnOf(sampleOf(text, mapping).columns, mapping) };
}

/** Whether this browser remembers a mapping for the account at all (to say why it is not used). */
export const hasRememberedMapping = (accountId: string) => storedMapping(accountId) !== null;

function storedRaw(accountId: string): Partial<CsvMapping> | null {
  try {
    const stored = JSON.parse(localStorage.getItem(mappingKey(accountId)) ?? 'null') as Partial<CsvMapping> | null;
    return stored && typeof stored === 'object' ? stored : null;
  } catch {
    return null;
  }
}

function storedMapping(accountId: string): CsvMapping | null {
  try {
    const stored = storedRaw(accountId);
    if (!stored) return null;
    const mapping = { ...BLANK, ...stored };
    const fits =
      ['auto', ...DELIMITERS.map((d) => d.value)].includes(mapping.delimiter) &&
      DATE_FORMATS.includes(mapping.dateFormat) &&
      ['.', ','].includes(mapping.decimal) &&
      ['one', 'two'].includes(mapping.amounts) &&
      typeof mapping.balance === 'string' &&
      Number.isInteger(mapping.skipRows);
    return fits ? mapping : null;
  } catch {
    return null;
  }
}

export function rememberMapping(accountId: string, mapping: CsvMapping, text: string): void {
  localStorage.setItem(mappingKey(accountId), JSON.stringify({ ...mapping, headerRow: headerRowOf(text, mapping) }));
}

/** The `csv` options of the request: columns by header name, or by index without a header row. */
export function csvOptions(m: CsvMapping): CsvOptions {
  const column = (c: string) => (m.header ? c : Number(c));
  const amounts = m.amounts === 'one' ? { amount_column: column(m.amount) } : { debit_column: column(m.debit), credit_column: column(m.credit) };
  return {
    date_column: column(m.date),
    description_column: m.descriptionMore ? [column(m.description), column(m.descriptionMore)] : column(m.description),
    ...amounts,
    date_format: m.dateFormat,
    decimal: m.decimal,
    header: m.header,
    skip_rows: m.skipRows,
    ...(m.balance === '' ? {} : { balance_column: column(m.balance) }),
    ...(m.delimiter === 'auto' ? {} : { delimiter: m.delimiter }),
  };
}

/** The cells of one column of every row of the file, as the mapping reads it (the header left out): the dates to show a choice on. */
export function columnCells(text: string, m: CsvMapping, column: string): string[] {
  const rest = afterSkipped(text, m.skipRows);
  const rows = records(rest, m.delimiter === 'auto' ? detectDelimiter(rest) : m.delimiter, Number.POSITIVE_INFINITY).map((r) => r.cells);
  const index = m.header ? (rows[0] ?? []).indexOf(column) : Number(column);
  if (index < 0) return [];
  return (m.header ? rows.slice(1) : rows).map((r) => r[index] ?? '');
}

/** A record of the file: its cells and the 0-based physical line it starts on. */
interface CsvRecord {
  cells: string[];
  line: number;
}

/**
 * The first `count` non-blank records of `text`, double quotes respected (a quoted field may hold
 * the separator and line breaks): for showing the columns and guessing, not for reading amounts.
 */
function records(text: string, delimiter: string, count: number): CsvRecord[] {
  const out: CsvRecord[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 0;
  let start = 0;
  const endRecord = () => {
    cells.push(cell.trim());
    if (cells.some((c) => c !== '')) out.push({ cells, line: start });
    [cells, cell, start] = [[], '', line];
  };
  for (let i = 0; i < text.length && out.length < count; i++) {
    const ch = text[i]!;
    if (ch === '\n') line++;
    if (quoted && ch === '"' && text[i + 1] === '"') (cell += '"'), i++;
    else if (ch === '"' && (quoted || cell.trim() === '')) quoted = !quoted;
    else if (quoted) cell += ch === '\n' ? ' ' : ch;
    else if (ch === delimiter) cells.push(cell.trim()), (cell = '');
    else if (ch === '\n') endRecord();
    else cell += ch;
  }
  if (out.length < count) endRecord();
  return out;
}

const CANDIDATES = [',', ';', '\t', '|'];

/** The separator of the first record: the candidate that splits it into the most cells (as the API guesses). */
function detectDelimiter(text: string): string {
  const widths = CANDIDATES.map((d) => records(text, d, 1)[0]?.cells.length ?? 0);
  return CANDIDATES[widths.indexOf(Math.max(...widths))]!;
}

/** The file's text with one kind of line break and no byte order mark. */
const normalised = (text: string) => text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');

/** The text after the first `skipRows` physical lines, as csv.skip_rows skips them. */
const afterSkipped = (text: string, skipRows: number) => normalised(text).split('\n').slice(skipRows).join('\n');

interface Sample {
  delimiter: string;
  columns: { value: string; label: string }[];
  rows: string[][];
}

/** The columns and the first rows of the file as the mapping reads it. */
function sampleOf(text: string, m: CsvMapping): Sample {
  const rest = afterSkipped(text, m.skipRows);
  const delimiter = m.delimiter === 'auto' ? detectDelimiter(rest) : m.delimiter;
  const rows = records(rest, delimiter, 6).map((r) => r.cells);
  const names = m.header ? (rows[0] ?? []) : [];
  const width = Math.max(0, ...rows.map((r) => r.length));
  const columns = Array.from({ length: width }, (_, i) =>
    m.header ? { value: names[i] ?? '', label: names[i] ?? '' } : { value: String(i), label: t('import.csv.column', { number: i + 1 }) },
  ).filter((c) => c.value !== '');
  return { delimiter, columns, rows: (m.header ? rows.slice(1) : rows).slice(0, 5) };
}

/**
 * A first mapping for a file this account has none for, guessed from the file: the header is the
 * first of the first rows that is as wide as the widest (a bank's preamble lines are narrower);
 * columns by their usual names; the date format from the first date; a decimal comma with `;`.
 */
export function guessMapping(text: string): CsvMapping {
  const all = normalised(text);
  const first = records(all, detectDelimiter(all), 10);
  const widest = Math.max(0, ...first.map((r) => r.cells.length));
  const m: CsvMapping = { ...BLANK, skipRows: first.find((r) => r.cells.length === widest)?.line ?? 0 };
  const { delimiter, columns, rows } = sampleOf(text, m);
  const find = (pattern: RegExp) => columns.find((c) => pattern.test(c.label))?.value ?? '';
  const date = find(/date|datum|buchungstag/i);
  const firstDate = rows[0]?.[columns.findIndex((c) => c.value === date)] ?? '';
  // The date format is left to the file's dates (D16 auto): the API asks when they fit several.
  const amount = find(/amount|betrag|umsatz/i);
  const [debit, credit] = [find(/debit|paid out|withdrawal|soll|ausgang/i), find(/credit|paid in|deposit|haben|eingang/i)];
  const description = find(/desc|text|payee|memo|verwendungszweck|details|name/i);
  return {
    ...m,
    date,
    description,
    ...(amount === '' && debit !== '' && credit !== '' ? { amounts: 'two' as const, debit, credit } : { amount }),
    balance: balanceColumnOf(columns, { date, description, amount, debit, credit }),
    dateFormat: DATE_FORMAT_AUTO,
    decimal: delimiter === ';' || /^\d{1,2}\.\d{1,2}\.\d{4}$/.test(firstDate.trim()) ? ',' : '.',
  };
}

/** A header as it is compared: lower case, accents gone ("Kontostand (EUR)", "SALDO" and "saldo" alike). */
const folded = (label: string) => label.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** The names banks give the balance after each line (D16 statement balances). */
const BALANCE_HEADER = /\b(saldo|kontostand|running balance|balance)\b/;

/**
 * D16 `csv.balance_column`, found by its header (Saldo, Kontostand, Balance, Running balance), never
 * a column already chosen for something else; '' when there is none (or no header row to tell by).
 */
function balanceColumnOf(columns: Sample['columns'], taken: Pick<CsvMapping, 'date' | 'description' | 'amount' | 'debit' | 'credit'> & { header?: boolean }): string {
  if (taken.header === false) return '';
  const used = new Set([taken.date, taken.description, taken.amount, taken.debit, taken.credit]);
  return columns.find((c) => !used.has(c.value) && BALANCE_HEADER.test(folded(c.label)))?.value ?? '';
}

/** A column of the file; an `optional` one (a second description column, the balance) may be none. */
function ColumnSelect({ label, value, columns, onChange, optional = false }: { label: string; value: string; columns: Sample['columns']; onChange(v: string): void; optional?: boolean }) {
  return (
    <label>
      {label}
      <select required={!optional} value={columns.some((c) => c.value === value) ? value : ''} onChange={(e) => onChange(e.target.value)}>
        <option value="">{optional ? t('import.csv.none') : t('import.csv.choose')}</option>
        {columns.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </label>
  );
}

function SampleTable({ sample, header }: { sample: Sample; header: boolean }) {
  const width = Math.max(sample.columns.length, ...sample.rows.map((r) => r.length));
  return (
    <Scroll label={t('import.csv.sample')}>
      <table aria-label={t('import.csv.sample')} className="sample">
        <thead>
          <tr>
            {Array.from({ length: width }, (_, i) => (
              <th key={i} scope="col">
                {header ? (sample.columns[i]?.label ?? '') : t('import.csv.column', { number: i + 1 })}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {sample.rows.map((row, r) => (
            <tr key={r}>
              {Array.from({ length: width }, (_, i) => (
                <td key={i}>{row[i] ?? ''}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}

/** The column-mapping form of a CSV statement, with the file's first rows to see the columns by. */
export function CsvMappingFields({ text, mapping, accountName, onChange }: { text: string; mapping: CsvMapping; accountName: string; onChange(m: CsvMapping): void }) {
  const sample = sampleOf(text, mapping);
  const set = (patch: Partial<CsvMapping>) => onChange({ ...mapping, ...patch });
  // With or without a header row, the chosen columns stay the same columns (name ⇄ index).
  const toggleHeader = (header: boolean) => {
    const names = sampleOf(text, { ...mapping, header: true }).columns.map((c) => c.value);
    const convert = (c: string) => {
      if (c === '') return '';
      if (header) return names[Number(c)] ?? '';
      return names.includes(c) ? String(names.indexOf(c)) : '';
    };
    const { date, description, descriptionMore, amount, debit, credit, balance } = mapping;
    onChange({
      ...mapping,
      header,
      date: convert(date),
      description: convert(description),
      descriptionMore: convert(descriptionMore),
      amount: convert(amount),
      debit: convert(debit),
      credit: convert(credit),
      balance: convert(balance),
    });
  };
  // D16: a bank that splits who paid (payee) from what for (purpose) reads best with both.
  const payee = sample.columns.find((c) => /auftraggeber|empf(ä|ae)nger|beg(ü|ue)nstigter|payee|counterparty|^name$/i.test(c.label));
  const purpose = sample.columns.find((c) => /verwendungszweck|purpose|memo|reference|details/i.test(c.label));
  const offerJoin = payee && purpose && !(mapping.description === payee.value && mapping.descriptionMore === purpose.value);
  const known = DELIMITERS.find((d) => d.value === sample.delimiter);
  const delimiterName = known ? t(known.label) : t('import.csv.otherSeparator', { separator: sample.delimiter });
  return (
    <fieldset className="stack csv-mapping">
      <legend>{t('import.csv.legend')}</legend>
      <p className="muted small">{accountName ? t('import.csv.remembered', { account: accountName }) : t('import.csv.rememberedForStatementAccount')}</p>
      <div className="row">
        <label>
          {t('import.csv.skipRows')}
          <input type="number" min={0} max={100} value={mapping.skipRows} onChange={(e) => set({ skipRows: Math.max(0, Math.trunc(Number(e.target.value) || 0)) })} />
        </label>
        <label>
          {t('import.csv.separator')}
          <select value={mapping.delimiter} onChange={(e) => set({ delimiter: e.target.value as Delimiter })}>
            <option value="auto">{t('import.csv.detectSeparator', { separator: delimiterName })}</option>
            {DELIMITERS.map((d) => (
              <option key={d.value} value={d.value}>
                {t(d.label)}
              </option>
            ))}
          </select>
        </label>
        <label className="check">
          <input type="checkbox" checked={mapping.header} onChange={(e) => toggleHeader(e.target.checked)} />
          {t('import.csv.header')}
        </label>
      </div>
      <SampleTable sample={sample} header={mapping.header} />
      <div className="row">
        <ColumnSelect label={t('import.csv.dateColumn')} value={mapping.date} columns={sample.columns} onChange={(date) => set({ date })} />
        <ColumnSelect label={t('import.csv.descriptionColumn')} value={mapping.description} columns={sample.columns} onChange={(description) => set({ description })} />
        <ColumnSelect optional label={t('import.csv.joinedWith')} value={mapping.descriptionMore} columns={sample.columns} onChange={(descriptionMore) => set({ descriptionMore })} />
      </div>
      {offerJoin && (
        <p className="small">
          <button type="button" onClick={() => set({ description: payee.value, descriptionMore: purpose.value })}>
            {t('import.csv.describeBy', { payee: payee.label, purpose: purpose.label })}
          </button>
        </p>
      )}
      <fieldset>
        <legend>{t('import.csv.amounts')}</legend>
        <label className="mode">
          <input type="radio" name="amounts" checked={mapping.amounts === 'one'} onChange={() => set({ amounts: 'one' })} />
          {t('import.csv.oneColumn')}
        </label>
        <label className="mode">
          <input type="radio" name="amounts" checked={mapping.amounts === 'two'} onChange={() => set({ amounts: 'two' })} />
          {t('import.csv.twoColumns')}
        </label>
        <div className="row">
          {mapping.amounts === 'one' ? (
            <ColumnSelect label={t('import.csv.amountColumn')} value={mapping.amount} columns={sample.columns} onChange={(amount) => set({ amount })} />
          ) : (
            <>
              <ColumnSelect label={t('import.csv.debitColumn')} value={mapping.debit} columns={sample.columns} onChange={(debit) => set({ debit })} />
              <ColumnSelect label={t('import.csv.creditColumn')} value={mapping.credit} columns={sample.columns} onChange={(credit) => set({ credit })} />
            </>
          )}
        </div>
      </fieldset>
      <div>
        <ColumnSelect optional label={t('import.csv.balanceColumn')} value={mapping.balance} columns={sample.columns} onChange={(balance) => set({ balance })} />
        <p className="muted small">{t('import.csv.balanceHint')}</p>
      </div>
      <div className="row">
        <label>
          {t('import.csv.dateFormat')}
          <select value={mapping.dateFormat} onChange={(e) => set({ dateFormat: e.target.value as DateFormat })}>
            {DATE_FORMATS.map((f) => (
              <option key={f} value={f}>
                {dateFormatLabel(f)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('import.csv.decimal')}
          <select value={mapping.decimal} onChange={(e) => set({ decimal: e.target.value as '.' | ',' })}>
            <option value=".">{t('import.csv.point')}</option>
            <option value=",">{t('import.csv.decimalComma')}</option>
          </select>
        </label>
      </div>
    </fieldset>
  );
}
