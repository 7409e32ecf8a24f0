/**
 * D27 (issue 40 item 1): a member list pasted from a spreadsheet, read into the people of
 * `POST /people/batch`. What a spreadsheet puts on the clipboard is tab-separated; a CSV file's
 * text is `;`- or `,`-separated (German spreadsheets write `;`). The first row names the columns,
 * in English or German; each row keeps its line in the pasted text (the header is line 1), so a
 * refusal names the row the person sees. Pure: the page words the problems (D29).
 */

import { parse } from 'csv-parse/browser/esm/sync';
import { electronicFormatIBAN, validateIBAN, ValidationErrorsIBAN } from 'ibantools';
import type { PersonRequest } from './api';

/** The columns a member list may have (a person's fields, D27). */
export type Column = 'name' | 'firstName' | 'lastName' | 'email' | 'iban' | 'member_no' | 'mandate' | 'mandate_date' | 'joined_on' | 'left_on' | 'note';

/**
 * Header words of each column, written as `headerKey` reduces them (lower case, no accents, only
 * letters and digits): English and German, as members' lists name them.
 */
const HEADERS: Record<Column, string[]> = {
  name: ['name', 'fullname', 'member', 'mitglied', 'vollstandigername', 'vorundnachname'],
  firstName: ['firstname', 'givenname', 'forename', 'vorname'],
  lastName: ['lastname', 'surname', 'familyname', 'nachname', 'familienname'],
  email: ['email', 'emailaddress', 'mail', 'emailadresse', 'mailadresse'],
  iban: ['iban', 'bankaccount', 'konto', 'bankverbindung'],
  member_no: ['memberno', 'membernumber', 'membershipno', 'membershipnumber', 'mitgliedsnummer', 'mitgliedsnr', 'mitgliednr', 'mitgliedernummer', 'mitglnr', 'nr', 'no', 'number', 'nummer'],
  mandate: ['mandate', 'mandateid', 'mandatereference', 'mandateref', 'mandat', 'mandatsreferenz', 'mandatsid', 'mandatsnummer', 'mandatid'],
  mandate_date: ['mandatedate', 'mandatesignedon', 'mandatesigned', 'dateofmandate', 'mandatsdatum', 'mandatdatum', 'datumdesmandats', 'mandatunterschrieben', 'mandatvom'],
  joined_on: ['joined', 'joinedon', 'membersince', 'entry', 'entrydate', 'eintritt', 'eintrittsdatum', 'mitgliedseit', 'beitritt', 'beitrittsdatum'],
  left_on: ['left', 'lefton', 'leaving', 'exit', 'austritt', 'austrittsdatum'],
  note: ['note', 'notes', 'comment', 'notiz', 'bemerkung', 'bemerkungen', 'kommentar'],
};

/** A header cell reduced to what tells columns apart ("Mitglieds-Nr." → "mitgliedsnr", "E-Mail" → "email"). */
export function headerKey(cell: string): string {
  return cell
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^a-z0-9]/g, '');
}

/** What is wrong with a row, for the page to say in words (D29). */
export type Problem =
  | { code: 'noName' }
  | { code: 'badDate'; column: 'mandate_date' | 'joined_on' | 'left_on'; value: string }
  | { code: 'leftBeforeJoined' }
  | { code: 'mandateWithoutDate' }
  | { code: 'dateWithoutMandate' }
  | { code: 'iban'; reason: 'country' | 'length' | 'characters' | 'checkDigits' | 'invalid'; value: string }
  | { code: 'sameName'; line: number }
  | { code: 'sameMemberNo'; line: number };

/** A row of the list: its line in the pasted text, the person it says, and what is wrong with it. */
export interface MemberRow {
  line: number;
  person: PersonRequest;
  problems: Problem[];
}

export type MemberList =
  | { ok: true; columns: Column[]; ignored: string[]; rows: MemberRow[] }
  | { ok: false; reason: 'empty' | 'noNameColumn' | 'unreadable'; detail?: string };

/** The separator of the pasted text, read from its first line: a tab (a spreadsheet's copy), else `;`, else `,`. */
export function separatorOf(firstLine: string): '\t' | ';' | ',' {
  if (firstLine.includes('\t')) return '\t';
  if (firstLine.includes(';')) return ';';
  return ',';
}

/**
 * A date as spreadsheets write it: ISO (`2024-03-01`), German (`1.3.2024`, `01.03.24`), or with
 * slashes in the order of the person's locale (`3/1/2024` month first in en-US, day first
 * elsewhere). Null when it is none of these or no such day.
 */
export function readDate(cell: string, monthFirst: boolean): string | null {
  const typed = cell.trim();
  let parts: [number, number, number] | null = null;
  let m: RegExpExecArray | null;
  if ((m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(typed))) parts = [Number(m[1]), Number(m[2]), Number(m[3])];
  else if ((m = /^(\d{1,2})\.(\d{1,2})\.(\d{2}|\d{4})$/.exec(typed))) parts = [fullYear(m[3]!), Number(m[2]), Number(m[1])];
  else if ((m = /^(\d{1,2})\/(\d{1,2})\/(\d{2}|\d{4})$/.exec(typed))) {
    const [a, b] = [Number(m[1]), Number(m[2])];
    parts = monthFirst ? [fullYear(m[3]!), a, b] : [fullYear(m[3]!), b, a];
  }
  if (!parts) return null;
  const [y, mo, d] = parts;
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > new Date(Date.UTC(2000, mo, 0)).getUTCDate()) return null;
  if (mo === 2 && d === 29 && !(y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0))) return null;
  return `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** A two-digit year as spreadsheets mean it: the century that puts it no more than 20 years ahead. */
function fullYear(digits: string): number {
  if (digits.length === 4) return Number(digits);
  const now = new Date().getFullYear();
  const year = Math.floor(now / 100) * 100 + Number(digits);
  return year > now + 20 ? year - 100 : year;
}

const IBAN_REASONS: Partial<Record<ValidationErrorsIBAN, Extract<Problem, { code: 'iban' }>['reason']>> = {
  [ValidationErrorsIBAN.NoIBANCountry]: 'country',
  [ValidationErrorsIBAN.WrongBBANLength]: 'length',
  [ValidationErrorsIBAN.WrongBBANFormat]: 'characters',
  [ValidationErrorsIBAN.ChecksumNotNumber]: 'checkDigits',
  [ValidationErrorsIBAN.WrongIBANChecksum]: 'checkDigits',
};

/** D27's IBAN check (ibantools: the country's length and ISO 13616 mod-97), said before anything is sent. */
function ibanProblem(value: string): Problem | null {
  const result = validateIBAN(electronicFormatIBAN(value) ?? '');
  if (result.valid) return null;
  const reason = result.errorCodes.map((code) => IBAN_REASONS[code]).find(Boolean) ?? 'invalid';
  return { code: 'iban', reason, value };
}

/** Reads the pasted text into the people of a batch; `monthFirst` reads `3/1/2024` as March 1 (en-US). */
export function readMemberList(text: string, monthFirst: boolean): MemberList {
  const trimmed = text.replace(/^\uFEFF/, '');
  const firstLine = trimmed.split(/\r?\n/).find((line) => line.trim() !== '');
  if (!firstLine) return { ok: false, reason: 'empty' };
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(trimmed, {
      delimiter: separatorOf(firstLine),
      info: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
      trim: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (error) {
    return { ok: false, reason: 'unreadable', detail: error instanceof Error ? error.message : String(error) };
  }
  const [header, ...body] = records;
  if (!header) return { ok: false, reason: 'empty' };
  const columns: (Column | null)[] = header.record.map((cell) => {
    const key = headerKey(cell);
    return (Object.keys(HEADERS) as Column[]).find((column) => HEADERS[column].includes(key)) ?? null;
  });
  const has = (column: Column) => columns.includes(column);
  if (!has('name') && !(has('firstName') || has('lastName'))) return { ok: false, reason: 'noNameColumn' };
  // csv-parse counts the line a record ends on: a quoted cell over several lines starts it earlier.
  const rows = body.map(({ record, info }) => rowOf(record, info.lines - record.join('').split('\n').length + 1, columns, monthFirst));
  markRepeats(rows);
  return {
    ok: true,
    columns: columns.filter((c): c is Column => c !== null),
    ignored: header.record.filter((cell, i) => columns[i] === null && cell !== ''),
    rows,
  };
}

function rowOf(record: string[], line: number, columns: (Column | null)[], monthFirst: boolean): MemberRow {
  const cells: Partial<Record<Column, string>> = {};
  columns.forEach((column, i) => {
    if (column && !cells[column]) cells[column] = record[i] ?? '';
  });
  return { line, ...readMemberListRow(cells, monthFirst) };
}

/**
 * A person as a row's cells (or a form's fields, dates as `YYYY-MM-DD`) say it, and what is wrong
 * with them: the checks the app can make before anything is sent (D27's IBAN check, dates,
 * a mandate with its date, left on or after joined).
 */
export function readMemberListRow(cells: Partial<Record<Column, string>>, monthFirst = false): Omit<MemberRow, 'line'> {
  const cell = (column: Column) => (cells[column] ?? '').trim();
  const problems: Problem[] = [];
  const name = cell('name') || [cell('firstName'), cell('lastName')].filter(Boolean).join(' ');
  if (!name) problems.push({ code: 'noName' });
  const person: PersonRequest = { name };
  const dates: Partial<Record<'mandate_date' | 'joined_on' | 'left_on', string>> = {};
  for (const column of ['mandate_date', 'joined_on', 'left_on'] as const) {
    const typed = cell(column);
    if (!typed) continue;
    const read = readDate(typed, monthFirst);
    if (read) dates[column] = read;
    else problems.push({ code: 'badDate', column, value: typed });
  }
  if (cell('email')) person.email = cell('email');
  if (cell('iban')) {
    const problem = ibanProblem(cell('iban'));
    if (problem) problems.push(problem);
    person.iban = electronicFormatIBAN(cell('iban')) ?? cell('iban');
  }
  if (cell('member_no')) person.member_no = cell('member_no');
  if (dates.joined_on) person.joined_on = dates.joined_on;
  if (dates.left_on) person.left_on = dates.left_on;
  if (dates.joined_on && dates.left_on && dates.left_on < dates.joined_on) problems.push({ code: 'leftBeforeJoined' });
  if (cell('mandate') && dates.mandate_date) person.mandate = { id: cell('mandate'), signed_on: dates.mandate_date };
  else if (cell('mandate') && !cell('mandate_date')) problems.push({ code: 'mandateWithoutDate' });
  else if (!cell('mandate') && cell('mandate_date')) problems.push({ code: 'dateWithoutMandate' });
  if (cell('note')) person.note = cell('note');
  return { person, problems };
}

/** D27: a name (an account's) and a member number are the book's once: a list that repeats one is named at the later row. */
function markRepeats(rows: MemberRow[]): void {
  const names = new Map<string, number>();
  const numbers = new Map<string, number>();
  for (const row of rows) {
    const name = row.person.name.toLocaleLowerCase();
    if (name && names.has(name)) row.problems.push({ code: 'sameName', line: names.get(name)! });
    else if (name) names.set(name, row.line);
    const number = row.person.member_no;
    if (number && numbers.has(number)) row.problems.push({ code: 'sameMemberNo', line: numbers.get(number)! });
    else if (number) numbers.set(number, row.line);
  }
}
