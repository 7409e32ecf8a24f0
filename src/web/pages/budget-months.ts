import { locale, t } from '../i18n';
import { utcDay } from '../money';

// D26: a budget is a run of whole months `YYYY-MM`. The same arithmetic as src/book/budgets.ts,
// which the web app cannot import (it reads the database).

const indexOf = (m: string) => Number(m.slice(0, 4)) * 12 + Number(m.slice(5, 7)) - 1;

/** The number of months from `from` through `to`: 1 when equal. */
export const monthCount = (from: string, to: string) => indexOf(to) - indexOf(from) + 1;

/** The month `k` months after `m` (k may be negative). */
export function addMonths(m: string, k: number): string {
  const i = indexOf(m) + k;
  return `${String(Math.floor(i / 12)).padStart(4, '0')}-${String((i % 12) + 1).padStart(2, '0')}`;
}

/** The last day of month `m`, `YYYY-MM-DD`. */
export const lastDayOf = (m: string) => {
  const firstOfNext = utcDay(`${addMonths(m, 1)}-01`);
  firstOfNext.setUTCDate(0);
  return `${m}-${String(firstOfNext.getUTCDate()).padStart(2, '0')}`;
};

/**
 * The months a new budget offers: the calendar year. From October on, the next one — a family or
 * a club's general meeting plans the coming year in its last quarter, and this year's budget is
 * by then mostly history; before October, this year's is the one still missing.
 */
export function defaultMonths(now = new Date()): { from: string; to: string } {
  const year = now.getMonth() >= 9 ? now.getFullYear() + 1 : now.getFullYear();
  return { from: `${year}-01`, to: `${year}-12` };
}

/** "January 2027" in English, "Januar 2027" in German (D29). */
export function monthInWords(m: string): string {
  return utcDay(`${m}-01`).toLocaleDateString(locale(), { timeZone: 'UTC', month: 'long', year: 'numeric' });
}

/** "January 2027 – December 2027"; one month alone when the budget has one. */
export function monthsInWords(from: string, to: string): string {
  return from === to ? monthInWords(from) : t('budgets.list.monthsRange', { from: monthInWords(from), to: monthInWords(to) });
}
