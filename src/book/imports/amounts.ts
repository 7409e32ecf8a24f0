import { lineFault, shown } from './statement';

// D16: amounts of a statement as exact integer cents. Digits are read as strings and counted in
// BigInt, never through floating point (0.29 * 100 is 28.999999999999996).

export const DECIMAL_MARKS = ['.', ','] as const;
export type DecimalMark = (typeof DECIMAL_MARKS)[number];

const MAX_CENTS = BigInt(Number.MAX_SAFE_INTEGER);

/** Longer than any amount a bank writes: a longer field is refused before any pattern runs on it. */
const AMOUNT_TEXT_MAX = 64;

/** A sign: hyphen-minus, plus, or the minus sign U+2212 of typeset figures. */
const SIGN = '[-+\u2212]';
/** The currency marks tolerated before or after a CSV amount (and ignored: the account has one currency). */
const CURRENCY = '(?:EUR|USD|GBP|CHF|€|\\$|£)';
/** Digits with their decimal mark and grouping (`,` `.` spaces, no-break spaces, apostrophes). */
const NUMBER = "[\\d.,'\u2019\u00A0\u202F ]+";

/**
 * A CSV amount: a sign and a currency on either side of the number, in either order, each at most
 * once (`-12,30`, `12,30-`, `EUR -12,30`, `-€12.30`, `12.30 CHF`); or the number in parentheses
 * for money out (`(1,234.56)`, `(£12.00)`).
 */
const AMOUNT = new RegExp(`^(${SIGN}?)\\s*(${CURRENCY}?)\\s*(${SIGN}?)\\s*(${NUMBER})\\s*(${SIGN}?)\\s*(${CURRENCY}?)$`, 'iu');

/** Whole digits grouped by threes with one separator throughout: `1.234.567`, `1 234`, `1'234`. */
const GROUPED = /^\d{1,3}([,.'\u2019\u00A0\u202F ])\d{3}(?:\1\d{3})*$/u;

/**
 * An amount as people and banks write it in a CSV file, with the file's decimal mark: cents,
 * negative for money out. Grouping is taken when it is regular (`1.234,56` with `,`; `1,234.56`,
 * `1 234.56`, `1'234.56` with `.`); anything else is the line's fault: grouping that is not by
 * threes (`1.23,4`), two decimal marks (`12.34.5`), more than two decimal places, two signs, more
 * than Number.MAX_SAFE_INTEGER cents.
 */
export function parseAmount(text: string, decimal: DecimalMark): number {
  const written = text.trim();
  if (written === '') throw lineFault('the amount is empty');
  const notAmount = () => lineFault(`${shown(written)} is not an amount with the decimal mark "${decimal}"`);
  if (written.length > AMOUNT_TEXT_MAX) throw notAmount();

  let rest = written;
  let signs: string[] = [];
  if (rest.startsWith('(') && rest.endsWith(')')) {
    signs.push('-');
    rest = rest.slice(1, -1).trim();
  }
  const match = AMOUNT.exec(rest);
  if (!match) throw notAmount();
  const [, before, currencyBefore, afterCurrency, number, after, currencyAfter] = match;
  signs = [...signs, before!, afterCurrency!, after!].filter((s) => s !== '');
  if (signs.length > 1 || (currencyBefore && currencyAfter)) throw notAmount();

  const digits = number!.trim();
  if (!/\d/.test(digits)) throw notAmount();
  const at = digits.indexOf(decimal);
  if (at !== digits.lastIndexOf(decimal)) throw notAmount();
  const whole = at === -1 ? digits : digits.slice(0, at);
  const fraction = at === -1 ? '' : digits.slice(at + 1);
  if (at !== -1 && !/^\d+$/.test(fraction)) throw notAmount();
  if (fraction.length > 2) {
    const hint = fraction.length === 3 ? ` (is the decimal mark "${decimal === '.' ? ',' : '.'}"?)` : '';
    throw lineFault(`${shown(written)} has more than 2 decimal places${hint}`);
  }
  let plainWhole = whole;
  if (!/^\d*$/.test(whole)) {
    const grouped = GROUPED.exec(whole);
    if (!grouped || grouped[1] === decimal) throw notAmount();
    plainWhole = whole.replace(/\D/g, '');
  }
  return toCents(plainWhole, fraction, signs[0] === '-' || signs[0] === '\u2212', shown(written));
}

/**
 * An amount as a program writes it (OFX TRNAMT, camt Amt): an optional sign (when `signed`),
 * digits, a decimal point and decimals; decimals past the cents only as zeros (`12.3000`). A comma
 * with one or two decimals (`-12,30`) is read as the decimal mark too, as some OFX writers use it;
 * `1,000` is refused, never read as one.
 */
export function parsePlainAmount(field: string, text: string, signed: boolean): number {
  const value = text.trim();
  if (value === '') throw lineFault(`${field} is missing`);
  const notAmount = () => lineFault(`${field} ${shown(value)} is not an amount`);
  if (value.length > AMOUNT_TEXT_MAX) throw notAmount();
  const match = /^([-+]?)(\d*)(?:\.(\d+)|,(\d{1,2}))?$/.exec(value);
  if (!match || (match[2] === '' && match[3] === undefined && match[4] === undefined)) throw notAmount();
  const [, sign, whole, pointDecimals, commaDecimals] = match;
  if (sign !== '' && !signed) throw lineFault(`${field} ${shown(value)} must be written without a sign`);
  let fraction = pointDecimals ?? commaDecimals ?? '';
  if (fraction.length > 2) {
    if (!/^0+$/.test(fraction.slice(2))) throw lineFault(`${field} ${shown(value)} has more than 2 decimal places`);
    fraction = fraction.slice(0, 2);
  }
  return toCents(whole!, fraction, sign === '-', `${field} ${shown(value)}`);
}

/** Whole digits and up to two decimals as signed cents, refused beyond Number.MAX_SAFE_INTEGER; `what` names the amount in a message. */
function toCents(whole: string, fraction: string, negative: boolean, what: string): number {
  const cents = BigInt(whole === '' ? '0' : whole) * 100n + BigInt(fraction.padEnd(2, '0'));
  if (cents > MAX_CENTS) throw lineFault(`${what} is too large an amount`);
  // -0n is 0n: money neither in nor out is 0, never -0.
  return Number(negative ? -cents : cents);
}
