import { invalid, type LineError } from '../../errors';
import { displayControlRefusal, hasControlCharacters, hasDisplayControlCharacters, storedText } from '../../text';
import { DESCRIPTION_MAX } from '../transactions';
import type { DateFormat } from './date-formats';

// D16: what every statement reader gives back, and the checks they share: the file as text, a
// line's fault, its description.

export type { LineError };

/** One line of a bank statement, read (D16). */
export interface StatementLine {
  /** CSV: the 1-based physical line where the row starts; OFX and camt: the 1-based position of the entry. */
  line: number;
  /** YYYY-MM-DD, a real calendar date. */
  occurred_on: string;
  description: string;
  /** Money into the account positive, out of it negative: a safe integer. */
  amount_cents: number;
  /** The bank's own reference of the entry (OFX FITID; camt AcctSvcrRef, else NtryRef); CSV: null. */
  reference: string | null;
  /** CSV with `balance_column`: the account's balance after this line, as the bank states it. */
  balance_cents?: number;
  /**
   * D27 payments in: the other party's account (camt RltdPties DbtrAcct for money in, CdtrAcct
   * for money out; CSV `iban_column`), without spaces in capitals; absent when the file names none.
   */
  counterparty_iban?: string;
  /** D27: the other party's name (camt Dbtr/Nm or Cdtr/Nm, OFX NAME, CSV `name_column`); absent when the file names none. */
  counterparty_name?: string;
}

/** An account number as IBANs are compared (D27): without whitespace, in capitals; undefined when nothing is left. */
export function compactIban(text: string | undefined): string | undefined {
  const compact = text?.replace(/\s+/gu, '').toUpperCase();
  return compact ? compact : undefined;
}

/** A line's counterparty fields (D27), each only when the file gives it: IBAN compacted, name's whitespace collapsed. */
export function counterparty(iban: string | undefined, name: string | undefined): Pick<StatementLine, 'counterparty_iban' | 'counterparty_name'> {
  const compact = compactIban(iban);
  const collapsed = collapseWhitespace(name ?? '');
  return { ...(compact && { counterparty_iban: compact }), ...(collapsed && { counterparty_name: collapsed }) };
}

/** A balance the bank states (D16): money in the account positive, a card's debt negative. */
export interface StatedBalance {
  /** YYYY-MM-DD */
  on: string;
  amount_cents: number;
}

/** D16 statement balances: the balance before the statement's first line and after its last, each when the file states it. */
export interface StatementBalances {
  opening: StatedBalance | null;
  closing: StatedBalance | null;
}

/** A statement read: its good lines, and the lines at fault with the reason. */
export interface ParsedStatement {
  lines: StatementLine[];
  errors: LineError[];
  /** CSV with `date_format` auto: the format the file's dates were read in (D16). */
  date_format?: DateFormat;
  /** The balances the file states, when it states any. */
  balances?: StatementBalances;
}

/**
 * A problem of one line (a bad date, a bad amount, an empty description): recorded against that
 * line while the others are still read. A file that cannot be read at all is a Refusal instead.
 */
export class LineFault extends Error {
  override name = 'LineFault';
}

export const lineFault = (message: string) => new LineFault(message);

/**
 * How many lines at fault a statement lists before reading stops: past that the file is surely
 * read with the wrong options (or is no statement), and a list of 500,000 errors would cost seconds
 * to build and megabytes to send.
 */
export const LINE_ERRORS_MAX = 100;

/**
 * Reads one line with `read`; its LineFault becomes the line's error, prefixed with `label`
 * ("line 7", "STMTTRN 3", "Ntry 2") so the message names where to look. False, with a last error
 * saying so, when the line is at fault and LINE_ERRORS_MAX are already listed: read no further.
 */
export function collectLine(into: ParsedStatement, line: number, label: string, read: () => Omit<StatementLine, 'line'>): boolean {
  try {
    into.lines.push({ line, ...read() });
    return true;
  } catch (error) {
    if (!(error instanceof LineFault)) throw error;
    if (into.errors.length < LINE_ERRORS_MAX) {
      into.errors.push({ line, error: `${label}: ${error.message}` });
      return true;
    }
    into.errors.push({ line, error: `${label}: reading stopped here: more than ${LINE_ERRORS_MAX} lines are at fault` });
    return false;
  }
}

/** A value from the file as a message shows it: in quotes, cut to `max` characters (enough to find it, never a whole hostile field). */
export function shown(value: string, max = 40): string {
  // At most twice as many UTF-16 units as characters shown: bounded work whatever the field's size.
  const chars = Array.from(value.slice(0, max * 2));
  return chars.length > max || value.length > max * 2 ? `"${chars.slice(0, max).join('')}…"` : `"${value}"`;
}

/** The 1-based line of position `index` in text whose line breaks are `\n`. */
export function lineAt(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) line++;
  return line;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The file's content as the readers take it: its byte order mark gone and every line break `\n`
 * (so lines are counted one way everywhere). A file that is not text is refused whole, never read
 * into garbage lines: NUL characters are what a binary file or UTF-16 read as UTF-8 holds, U+FFFD
 * what bytes that are not UTF-8 were decoded to, lone surrogates what no text holds.
 */
export function readableText(content: string): string {
  const text = content.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const nul = text.indexOf('\u0000');
  if (nul !== -1) {
    throw invalid(`line ${lineAt(text, nul)}: the file is not text: it holds NUL characters (is it UTF-16, or not a statement at all?); save it as UTF-8`);
  }
  const replaced = text.indexOf('\uFFFD');
  if (replaced !== -1) {
    throw invalid(`line ${lineAt(text, replaced)}: the file is not UTF-8 text: it holds characters that could not be read (U+FFFD); save it as UTF-8`);
  }
  if (!text.isWellFormed()) {
    throw invalid(`line ${lineAt(text, LONE_SURROGATE.exec(text)!.index)}: the file is not valid Unicode text (it holds a lone surrogate)`);
  }
  return text;
}

/**
 * D16: a description joins the line's texts (payee and memo) with " — " (an em dash between
 * spaces): it reads as one phrase, and neither OFX names nor remittance texts use it themselves, so
 * a rule's pattern can still match either part. Parts that are empty, or repeat an earlier part
 * (case folded), are left out.
 */
export const DESCRIPTION_JOINER = ' — ';

/** Whitespace of any kind (line breaks in a quoted field, tabs, no-break spaces) as one space. */
export const collapseWhitespace = (text: string): string => text.replace(/\s+/gu, ' ').trim();

export function joinTexts(parts: readonly (string | undefined)[], joiner = DESCRIPTION_JOINER): string {
  const kept: string[] = [];
  const seen = new Set<string>();
  for (const part of parts) {
    const text = collapseWhitespace(part ?? '');
    const key = text.toLowerCase();
    if (text === '' || seen.has(key)) continue;
    seen.add(key);
    kept.push(text);
  }
  return kept.join(joiner);
}

/**
 * A line's description as a transaction takes it (D6 limits, NewTransactionSchema): whitespace
 * collapsed, cut to DESCRIPTION_MAX characters (code points, never half a pair). Text the
 * transaction would refuse is the line's fault, not cleaned away: empty (`empty` says what was
 * missing), control characters, text-direction controls.
 */
export function cleanDescription(text: string, empty = 'the description is empty'): string {
  // D25: invisible characters removed, then NFC, before whitespace is collapsed (linear in the text).
  let collapsed = collapseWhitespace(storedText(text));
  if (collapsed === '') throw lineFault(empty);
  // Cut before the checks: only what is kept is checked, and a huge field costs no more than a short one.
  if (collapsed.length > DESCRIPTION_MAX) collapsed = Array.from(collapsed.slice(0, DESCRIPTION_MAX * 2)).slice(0, DESCRIPTION_MAX).join('').trimEnd();
  if (hasControlCharacters(collapsed)) throw lineFault('the description must not contain control characters');
  if (hasDisplayControlCharacters(collapsed)) throw lineFault(displayControlRefusal('the description'));
  return collapsed;
}
