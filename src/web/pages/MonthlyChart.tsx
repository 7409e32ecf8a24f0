import { Money, TableHead } from '../components';
import { formatCents } from '../money';

export interface Month {
  month: string;
  income_cents: number;
  expense_cents: number;
  net_cents: number;
}

const TOP = 10;
const PLOT = 140;
const SLOT = 48;

/** "2025-11" → "Nov 2025", in the person's language. */
function monthName(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1, 1)).toLocaleDateString(undefined, { timeZone: 'UTC', month: 'short', year: 'numeric' });
}

/**
 * One bar from the zero line: up for a positive figure, down for a negative one (a month whose
 * refunds exceed its spending), so a height is never negative.
 */
function Bar({ x, cents, zero, scale, className, label }: { x: number; cents: number; zero: number; scale: number; className: string; label: string }) {
  const height = Math.abs(cents) * scale;
  return (
    <rect x={x} y={cents >= 0 ? zero - height : zero} width={16} height={height} className={className}>
      <title>{label}</title>
    </rect>
  );
}

/** The chart's figures as a table: what screen readers (and anyone wanting exact numbers) read. */
function MonthlyTable({ months, caption }: { months: Month[]; caption: string }) {
  return (
    <div className="visually-hidden">
      <table>
        <caption>{caption}</caption>
        <TableHead columns={['Month', 'In', 'Out', 'Net']} />
        <tbody>
          {months.map((m) => (
            <tr key={m.month}>
              <th scope="row">{monthName(m.month)}</th>
              <td>
                <Money cents={m.income_cents} />
              </td>
              <td>
                <Money cents={m.expense_cents} />
              </td>
              <td>
                <Money cents={m.net_cents} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A bar chart of money in and out per month, in SVG, with the figures also in a table for screen readers. */
export function MonthlyChart({ months }: { months: Month[] }) {
  const figures = months.flatMap((m) => [m.income_cents, m.expense_cents]);
  const high = Math.max(0, ...figures);
  const low = Math.min(0, ...figures);
  const scale = PLOT / Math.max(1, high - low);
  const zero = TOP + high * scale;
  const width = Math.max(320, months.length * SLOT);
  const caption = 'Money in and out per month';
  return (
    <figure>
      <svg viewBox={`0 0 ${width} 180`} aria-hidden="true" className="chart">
        <line x1={0} x2={width} y1={zero} y2={zero} className="axis" />
        {months.map((m, i) => {
          const x = i * SLOT + 8;
          return (
            <g key={m.month}>
              <Bar x={x} cents={m.income_cents} zero={zero} scale={scale} className="bar-in" label={`${m.month} in ${formatCents(m.income_cents)}`} />
              <Bar x={x + 18} cents={m.expense_cents} zero={zero} scale={scale} className="bar-out" label={`${m.month} out ${formatCents(m.expense_cents)}`} />
              <text x={x} y={TOP + PLOT + 20} fontSize="10">
                {m.month.slice(2)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>
        {caption}
        <span aria-hidden="true">
          : <span className="legend-in">■</span> in <span className="legend-out">■</span> out
        </span>
      </figcaption>
      <MonthlyTable months={months} caption={caption} />
    </figure>
  );
}
