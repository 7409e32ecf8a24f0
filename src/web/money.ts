/** Money as people read and type it; cents only inside (D9: cents are never typed by people). */

const formatter = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export function formatCents(cents: number): string {
  return formatter.format(cents / 100);
}

/**
 * "12.5", "12,50", "1 234.56" → cents, or null. The last "." or "," followed by one or two digits
 * is the decimal separator; other separators group thousands.
 */
export function parseMoney(input: string): number | null {
  const compact = input.replace(/[\s\u00a0']/g, '');
  const match = /^(\d{1,3}(?:[.,]\d{3})*|\d+)(?:[.,](\d{1,2}))?$/.exec(compact);
  if (!match) return null;
  const whole = Number(match[1]!.replace(/[.,]/g, ''));
  const fraction = Number((match[2] ?? '0').padEnd(2, '0'));
  const cents = whole * 100 + fraction;
  return Number.isSafeInteger(cents) ? cents : null;
}

export function formatDate(isoDate: string): string {
  const [y, m, d] = isoDate.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d)).toLocaleDateString(undefined, { timeZone: 'UTC', dateStyle: 'medium' });
}

/**
 * Today in the person's own time zone: the default date of the forms, and the `as_of` the app
 * sends for balances (the API's default is today in UTC, a day behind east of UTC in the evening).
 */
export function today(): string {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}

/** The date `days` days before a `YYYY-MM-DD` date (calendar arithmetic, no time zone involved). */
export function daysBefore(isoDate: string, days: number): string {
  const [y, m, d] = isoDate.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d - days)).toISOString().slice(0, 10);
}

/** Like parseMoney, with an optional leading minus ("-12.50" or "−12.50") for split entries. */
export function parseSignedMoney(input: string): number | null {
  const trimmed = input.trim();
  const negative = /^[-\u2212]/.test(trimmed);
  const cents = parseMoney(negative ? trimmed.slice(1) : trimmed);
  return cents === null ? null : negative ? -cents : cents;
}
