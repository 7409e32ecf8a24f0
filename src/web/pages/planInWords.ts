import type { BookStyle, Budget, BudgetReport } from '../api';
import { locale, t } from '../i18n';
import { formatCents, utcDay } from '../money';

// D26 in words (issue 39 item 2): a budget line's plan beside what happened, as a person says it
// ("Groceries: €312.40 of €450.00 this month, €137.60 left, including €12.10 from March"), shared
// by the Plan and reality page and Home's card. Natural sign throughout (D6): spent and earned
// are positive.

export type ReportLine = BudgetReport['lines'][number];

/** A line's figures as its sentence and its bar compare them: for one month, or for the whole budget. */
export interface LineFigures {
  /** The month compared (`YYYY-MM`), or null for the whole budget. */
  month: string | null;
  planned: number;
  actual: number;
  /** What may still be spent or is still to come (negative: over): the month's available amount (rollover) or plan, less the actual. */
  left: number;
  /** Rollover: what the earlier months bring into this one (negative: they overspent), with those months; else null. */
  carried: { cents: number; first: string; last: string } | null;
}

/** `YYYY-MM` of a date. */
export const monthOf = (isoDate: string) => isoDate.slice(0, 7);

/** A month in words in the chosen language ("September 2026"; "September" without its year). */
export function monthInWords(month: string, withYear = true): string {
  return utcDay(`${month}-01`).toLocaleDateString(locale(), { timeZone: 'UTC', month: 'long', ...(withYear ? { year: 'numeric' } : {}) });
}

/** A month as a table's column names it ("Sep 2026"). */
export function monthShort(month: string): string {
  return utcDay(`${month}-01`).toLocaleDateString(locale(), { timeZone: 'UTC', month: 'short', year: 'numeric' });
}

/** The budget's months in words ("September 2026 to August 2027"). */
export function budgetPeriod(budget: { from: string; to: string }): string {
  return t('planAndReality.period', { from: monthInWords(budget.from), to: monthInWords(budget.to) });
}

/** Whether a budget covers a month (D26: `from` and `to` are months, both included). */
export function covers(budget: { from: string; to: string }, month: string): boolean {
  return budget.from <= month && month <= budget.to;
}

/**
 * D26: the budget Home shows, that covering `month` with the latest `from`, ties by the highest
 * id; none covering it: null (no card).
 */
export function budgetOfMonth(budgets: Budget[], month: string): Budget | null {
  return (
    budgets
      .filter((budget) => covers(budget, month))
      .sort((a, b) => (a.from === b.from ? (b.id ?? 0) - (a.id ?? 0) : a.from < b.from ? 1 : -1))[0] ?? null
  );
}

/**
 * A line's figures: a `month` line in a month the budget covers, that month's (its plan, its
 * actual, and with rollover what the earlier months left or overspent); a `period` line, or any
 * line when the month is outside the budget, the whole budget's.
 */
export function figuresOf(line: ReportLine, month: string): LineFigures {
  const index = line.per === 'month' ? line.months.findIndex((m) => m.month === month) : -1;
  const shown = line.months[index];
  if (!shown || shown.planned_cents === null) {
    return { month: null, planned: line.planned_cents, actual: line.actual_cents, left: line.planned_cents - line.actual_cents, carried: null };
  }
  const available = shown.available_cents ?? shown.planned_cents;
  const carried = shown.available_cents === null || index === 0 ? null : { cents: available - shown.planned_cents, first: line.months[0]!.month, last: line.months[index - 1]!.month };
  return { month, planned: shown.planned_cents, actual: shown.actual_cents, left: available - shown.actual_cents, carried };
}

/** What a line's sentence says the figures are for: this month, another month, or the whole budget (D12 word). */
function whenInWords(figures: LineFigures, thisMonth: string, style: BookStyle): string {
  if (figures.month === null) return t('planAndReality.when.whole', { context: style });
  if (figures.month === thisMonth) return t('planAndReality.when.thisMonth');
  return t('planAndReality.when.inMonth', { month: monthInWords(figures.month, false) });
}

/** What the earlier months brought in, in words (", including €12.10 from March"), or nothing. */
function carriedInWords(carried: LineFigures['carried']): string {
  if (!carried || carried.cents === 0) return '';
  const amount = formatCents(Math.abs(carried.cents));
  const one = carried.first === carried.last;
  const months = { month: monthInWords(carried.last, false), from: monthInWords(carried.first, false), to: monthInWords(carried.last, false) };
  if (carried.cents > 0) return one ? t('planAndReality.carry.inFrom', { amount, ...months }) : t('planAndReality.carry.inFromRange', { amount, ...months });
  return one ? t('planAndReality.carry.overIn', { amount, ...months }) : t('planAndReality.carry.overInRange', { amount, ...months });
}

/**
 * A line in words: "Groceries: €312.40 of €450.00 this month, €137.60 left" (spending; "… €20.00
 * over" when overspent), "Salary: €2,800.00 of €3,000.00 this month, €200.00 still to come"
 * (income), with what rollover brought in.
 */
export function lineInWords(line: ReportLine, figures: LineFigures, thisMonth: string, style: BookStyle): string {
  const words = {
    account: line.account_name,
    actual: formatCents(figures.actual),
    planned: formatCents(figures.planned),
    when: whenInWords(figures, thisMonth, style),
    left: formatCents(Math.abs(figures.left)),
  };
  const over = figures.left < 0;
  const sentence =
    line.kind === 'expense'
      ? over
        ? t('planAndReality.line.expenseOver', words)
        : t('planAndReality.line.expenseLeft', words)
      : over
        ? t('planAndReality.line.incomeOver', words)
        : t('planAndReality.line.incomeLeft', words);
  return sentence + carriedInWords(figures.carried);
}

/** Accounts in words with their figures ("Fun €30.00, Gifts €12.00"), as the language lists things. */
export function listInWords(items: { account_name: string; actual_cents: number }[]): string {
  const format = new Intl.ListFormat(locale(), { type: 'unit', style: 'short' });
  return format.format(items.map((item) => t('planAndReality.item', { account: item.account_name, amount: formatCents(item.actual_cents) })));
}
