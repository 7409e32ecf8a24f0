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

export function today(): string {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}
