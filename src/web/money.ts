/** Money as people read and type it; cents only inside (D9: cents are never typed by people). */

import { addDays, FIRST_DATE, LAST_DATE } from '../book/occurrences';
import { currentLanguage, locale, onLanguageChanged, t } from './i18n';

/** D20: the book's currency until the settings say otherwise (the API's default). */
export const DEFAULT_CURRENCY = 'EUR';

let bookCurrency = DEFAULT_CURRENCY;
let currencyFormatter = currencyFormatOf(DEFAULT_CURRENCY);
// D29: figures follow the chosen language's conventions, from the moment it is chosen.
onLanguageChanged(() => {
  currencyFormatter = currencyFormatOf(bookCurrency);
});

function currencyFormatOf(currency: string): Intl.NumberFormat {
  return new Intl.NumberFormat(locale(), { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

/**
 * D20: the book's currency (Settings `currency`), set by the app state once the settings are
 * loaded or changed, so that every figure of every page, print included, shows in it without a
 * parameter threaded through the pages.
 */
export function setBookCurrency(currency: string): void {
  bookCurrency = currency;
  currencyFormatter = currencyFormatOf(currency);
}

/** Money in the book's currency (D20), in the person's locale ("€1,234.56" in en, "1.234,56 €" in de). */
export function formatCents(cents: number): string {
  return currencyFormatter.format(cents / 100);
}

/**
 * An amount as it is typed into an amount field (D19): the locale's digits and marks, no
 * currency ("1,234.56" in en), so that the field reads it back as it is.
 */
export function formatAmount(cents: number): string {
  return formatCentsIn(cents, locale());
}

/**
 * D20: the ISO 4217 currencies a book can keep, those whose minor unit is two decimals (cents),
 * as the browser knows them, each with its name in the person's language.
 */
export function bookCurrencies(): { code: string; name: string }[] {
  const names = new Intl.DisplayNames(locale(), { type: 'currency' });
  return Intl.supportedValuesOf('currency')
    .filter((code) => new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits === 2)
    .map((code) => ({ code, name: names.of(code) ?? code }));
}

/** What a typed amount was understood as (D19): cents, or a sentence saying why it was refused (in the person's language, D29). */
export type AmountReading = { cents: number } | { error: string };

/** D6: the largest amount an entry holds, in cents. */
const AMOUNT_MAX_CENTS = 10 ** 15;

/** The locale's grouping and decimal marks (en: "," and "."; de: "." and ","; fr: a narrow space and ","). */
function marks(locale: string | undefined): { group: string; decimal: string } {
  const parts = new Intl.NumberFormat(locale).formatToParts(1234567.8);
  return { group: parts.find((p) => p.type === 'group')?.value ?? ',', decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.' };
}

/**
 * D19: an amount as a person types it, read exactly. Accepted: digits ("30"); digits with one
 * decimal mark, "." or ",", and one or two decimals ("12,5", "0.10"); and the locale's own
 * grouping, checked by formatting the number back ("1,234.56" in en, "1.234,56" in de,
 * "1 234,56" in fr). Refused with a sentence: more than two decimals ("30.005" in en), a lone
 * group of three without decimals where the mark could be a decimal one ("1,234" in en,
 * "30.005" in de: ambiguous), another locale's grouping, and a sign unless `signed`.
 */
export function readAmount(input: string, options: { signed?: boolean; locale?: string } = {}): AmountReading {
  const typed = input.trim();
  if (typed === '') return { error: t('common.amount.empty') };
  const negative = /^[-\u2212]/.test(typed);
  if (negative && !options.signed) return { error: t('common.amount.noMinus', { typed }) };
  const body = negative ? typed.slice(1).trim() : typed;
  const cents = readUnsigned(body, options.locale ?? locale());
  if ('error' in cents) return cents;
  if (cents.cents > AMOUNT_MAX_CENTS) return { error: t('common.amount.tooLarge', { typed }) };
  return { cents: negative ? -cents.cents : cents.cents };
}

function readUnsigned(body: string, locale: string | undefined): AmountReading {
  const { group, decimal } = marks(locale);
  const example = formatCentsIn(123456, locale);
  if (/^\d+$/.test(body)) return fromDigits(body, '');
  const plain = /^(\d+)[.,](\d{1,2})$/.exec(body);
  if (plain) return fromDigits(plain[1]!, plain[2]!);
  if (/^\d+[.,]\d{3,}$/.test(body) && !isGrouped(body, group, locale)) {
    return { error: t('common.amount.tooManyDecimals', { typed: body, example }) };
  }
  // The locale's grouping: space-like group marks (fr) may be typed as any space.
  const spaced = /\s/.test(group) ? body.replace(/[\s\u00a0\u202f]/g, group) : body;
  const [whole, fraction = '', ...more] = spaced.split(decimal);
  if (more.length === 0 && /^\d{0,2}$/.test(fraction) && (fraction !== '' || !spaced.endsWith(decimal)) && isGrouped(whole!, group, locale)) {
    const lone = whole!.split(group).length === 2 && fraction === '' && (group === '.' || group === ',');
    if (lone) {
      const words = { typed: body, whole: whole!.split(group).join(''), example };
      return { error: decimal === '.' ? t('common.amount.ambiguousPoint', words) : t('common.amount.ambiguousComma', words) };
    }
    return fromDigits(whole!.split(group).join(''), fraction);
  }
  return { error: t('common.amount.notAmount', { typed: body, example, plain: formatCentsIn(123456, locale, false) }) };
}

/** Whether `whole` is a number grouped exactly as the locale groups it. */
function isGrouped(whole: string, group: string, locale: string | undefined): boolean {
  if (!whole.includes(group)) return false;
  const digits = whole.split(group).join('');
  if (!/^\d+$/.test(digits) || digits.length > 16) return false;
  return new Intl.NumberFormat(locale, { useGrouping: true, maximumFractionDigits: 0 }).format(BigInt(digits)) === whole;
}

function fromDigits(whole: string, fraction: string): AmountReading {
  if (whole.length > 16) return { error: t('common.amount.tooLargeThat') };
  return { cents: Number(whole) * 100 + Number(fraction.padEnd(2, '0')) };
}

/** Cents as money in `locale`, grouped or not. */
export function formatCentsIn(cents: number, locale: string | undefined, grouping = true): string {
  return new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2, useGrouping: grouping }).format(cents / 100);
}

/**
 * A calendar date as the instant 00:00 UTC of that day, its year as written (D21's bounds: dates
 * run from 0001-01-01 to 9999-12-31, and years below 1000 are those years). Not Date.UTC, which
 * reads years 0–99 as 1900–1999: setUTCFullYear takes the year as it is.
 */
export function utcDay(isoDate: string): Date {
  const [y, m, d] = isoDate.split('-').map(Number) as [number, number, number];
  const day = new Date(0);
  day.setUTCFullYear(y, m - 1, d);
  return day;
}

export function formatDate(isoDate: string): string {
  // D29: "Mar 3, 2026" in English, "3. März 2026" in German (as German readers write a date in words).
  return utcDay(isoDate).toLocaleDateString(locale(), { timeZone: 'UTC', dateStyle: currentLanguage() === 'de' ? 'long' : 'medium' });
}

/**
 * Today in the person's own time zone: the default date of the forms, and the `as_of` the app
 * sends for balances (the API's default is today in UTC, a day behind east of UTC in the evening).
 */
export function today(): string {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}

/**
 * The date `days` days before a `YYYY-MM-DD` date (calendar arithmetic on day numbers, as the
 * server's occurrences: no time zone, no Date), kept within 0001-01-01 … 9999-12-31, so that it
 * never reads `0000-12-31` or `+010000-01-01`.
 */
export function daysBefore(isoDate: string, days: number): string {
  return addDays(isoDate, -days) ?? (days > 0 ? FIRST_DATE : LAST_DATE);
}

/** The typed amount with an optional leading minus ("-12.50", "−12.50"): cents or null (split lines). */
export function parseSignedMoney(input: string): number | null {
  const reading = readAmount(input, { signed: true });
  return 'cents' in reading ? reading.cents : null;
}
