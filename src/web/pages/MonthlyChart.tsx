import { useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Money, TableHead } from '../components';
import { locale, t } from '../i18n';
import { formatCents } from '../money';

export interface Month {
  month: string;
  income_cents: number;
  expense_cents: number;
  net_cents: number;
}

// Issue 6/7 finding 7: the chart is drawn in CSS pixels at the width it is shown (so its text is
// never scaled below 12 px on a phone), with money on a y-axis (round steps, the zero line marked)
// and months as people read them ("Jan" with the year shown once, in the browser's language).

/** The widest the chart is drawn (the `.chart-frame` rule of styles.css). */
const MAX_WIDTH = 640;
const FONT = 12;
const TOP = 12;
const PLOT = 170;
/** Below the plot: the month's name and, under it, its year where one is shown. */
const BOTTOM = 2 * FONT + 20;
const RIGHT = 16;
/** The least room between the centres of two month labels ("Sep" and "2026" are about 30 px wide at 12 px). */
const LABEL_SPACING = 44;
/** Months between two labels: every month, every other one, quarterly, …, yearly and beyond. */
const LABEL_STEPS = [1, 2, 3, 4, 6, 12, 24, 60, 120, 240, 600, 1200];

/** "2025-11" → its year, its month (0–11) and its place in a count of months since year 0. */
function partsOf(month: string): { year: number; index: number; absolute: number } {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return { year, index: m - 1, absolute: year * 12 + m - 1 };
}

function dateOf(month: string): Date {
  const { year, index } = partsOf(month);
  return new Date(Date.UTC(year, index, 1));
}

/** "2025-11" → "Nov 2025", in the person's language. */
function monthName(month: string): string {
  return dateOf(month).toLocaleDateString(locale(), { timeZone: 'UTC', month: 'short', year: 'numeric' });
}

/** The round step (1, 2 or 5 times a power of ten, at least a cent) that cuts `range` cents into about four. */
function niceStep(range: number): number {
  const raw = Math.max(1, range / 4);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * magnitude).find((step) => step >= raw)!;
}

/** The y-axis: round money values from below the lowest figure to above the highest, zero among them. */
export function axisOf(figures: number[]): { ticks: number[]; low: number; high: number; label(cents: number): string } {
  const lowest = Math.min(0, ...figures);
  const highest = Math.max(0, ...figures);
  // An empty period still gets an axis: 0 to 100.
  const step = niceStep(highest === lowest ? 10_000 : highest - lowest);
  const low = Math.floor(lowest / step) * step;
  const high = Math.max(Math.ceil(highest / step) * step, low + step);
  const ticks: number[] = [];
  for (let tick = low; tick <= high; tick += step) ticks.push(tick);
  // Whole amounts without cents when every step is a whole amount ("1,000", not "1,000.00").
  const digits = step % 100 === 0 ? 0 : 2;
  const format = new Intl.NumberFormat(locale(), { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return { ticks, low, high, label: (cents) => format.format(cents / 100) };
}

/** Which months carry a label, so that labels keep LABEL_SPACING apart at `slot` pixels a month. */
function labelStep(slot: number): number {
  return LABEL_STEPS.find((step) => step * slot >= LABEL_SPACING) ?? LABEL_STEPS[LABEL_STEPS.length - 1]!;
}

/** The width the chart has where it is shown, in CSS pixels (0 until measured); the forecast's too. */
export function useWidth() {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const frame = ref.current;
    if (!frame) return;
    const measure = () => setWidth(Math.min(MAX_WIDTH, Math.floor(frame.clientWidth)));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(frame);
    return () => observer.disconnect();
  }, []);
  return { ref, width };
}

/**
 * One bar from the zero line: up for a positive figure, down for a negative one (a month whose
 * refunds exceed its spending), so a height is never negative.
 */
function Bar({ x, width, cents, y, className, label }: { x: number; width: number; cents: number; y(cents: number): number; className: string; label: string }) {
  const top = Math.min(y(cents), y(0));
  return (
    <rect x={x} y={top} width={width} height={Math.abs(y(cents) - y(0))} className={className}>
      <title>{label}</title>
    </rect>
  );
}

function Chart({ months, width }: { months: Month[]; width: number }) {
  const axis = axisOf(months.flatMap((m) => [m.income_cents, m.expense_cents]));
  const left = Math.ceil(Math.max(...axis.ticks.map((tick) => axis.label(tick).length)) * FONT * 0.62) + 10;
  const slot = Math.max(0, width - left - RIGHT) / months.length;
  const bar = Math.max(1, Math.min(18, slot * 0.36));
  const y = (cents: number) => TOP + ((axis.high - cents) * PLOT) / (axis.high - axis.low);
  const every = labelStep(slot);
  let yearShown: number | null = null;
  return (
    <svg width={width} height={TOP + PLOT + BOTTOM} viewBox={`0 0 ${width} ${TOP + PLOT + BOTTOM}`} aria-hidden="true" className="chart">
      {axis.ticks.map((tick) => (
        <g key={tick}>
          <line x1={left} x2={width - RIGHT} y1={y(tick)} y2={y(tick)} className={tick === 0 ? 'axis' : 'grid'} />
          <text x={left - 6} y={y(tick)} dy="0.35em" textAnchor="end" fontSize={FONT} className="tick-label">
            {axis.label(tick)}
          </text>
        </g>
      ))}
      {months.map((m, i) => {
        const centre = left + (i + 0.5) * slot;
        const { year, absolute } = partsOf(m.month);
        const labelled = absolute % every === 0;
        const withYear = labelled && year !== yearShown;
        if (withYear) yearShown = year;
        const yearText = dateOf(m.month).toLocaleDateString(locale(), { timeZone: 'UTC', year: 'numeric' });
        return (
          <g key={m.month}>
            <Bar x={centre - bar - 1} width={bar} cents={m.income_cents} y={y} className="bar-in" label={t('reports.monthly.barIn', { month: monthName(m.month), amount: formatCents(m.income_cents) })} />
            <Bar x={centre + 1} width={bar} cents={m.expense_cents} y={y} className="bar-out" label={t('reports.monthly.barOut', { month: monthName(m.month), amount: formatCents(m.expense_cents) })} />
            {labelled && (
              <text x={centre} y={TOP + PLOT + FONT + 6} textAnchor="middle" fontSize={FONT} className="month-label">
                {every >= 12 ? (
                  yearText
                ) : (
                  <>
                    {dateOf(m.month).toLocaleDateString(locale(), { timeZone: 'UTC', month: 'short' })}
                    {withYear && (
                      <tspan x={centre} dy={FONT + 3}>
                        {yearText}
                      </tspan>
                    )}
                  </>
                )}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}

/** The chart's figures as a table: what screen readers (and anyone wanting exact numbers) read. */
function MonthlyTable({ months, caption }: { months: Month[]; caption: string }) {
  const { t } = useTranslation();
  return (
    <div className="visually-hidden">
      <table>
        <caption>{caption}</caption>
        <TableHead columns={[t('reports.monthly.columnMonth'), t('reports.monthly.columnIn'), t('reports.monthly.columnOut'), t('reports.monthly.columnNet')]} />
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
  const { ref, width } = useWidth();
  const { t } = useTranslation();
  const caption = t('reports.monthly.caption');
  return (
    <figure>
      <div ref={ref} className="chart-frame">
        {months.length === 0 ? <p className="muted">{t('reports.monthly.noMonths')}</p> : width > 0 && <Chart months={months} width={width} />}
      </div>
      <figcaption>
        {caption}
        <span aria-hidden="true">
          : <span className="legend-in">■</span> {t('reports.monthly.legendIn')} <span className="legend-out">■</span> {t('reports.monthly.legendOut')}
        </span>
      </figcaption>
      <MonthlyTable months={months} caption={caption} />
    </figure>
  );
}
