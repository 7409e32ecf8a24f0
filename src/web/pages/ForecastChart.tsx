import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { withQuery, type Forecast } from '../api';
import { ErrorNote, Loading } from '../components';
import { t } from '../i18n';
import { formatCents, formatDate, today } from '../money';
import { daysAfter } from '../recurrence';
import { axisOf, useWidth } from './MonthlyChart';
import { useReport } from './useReport';

// D21 on the Reports page: where each bank, cash and card account (asset and liability, natural
// sign: a card's debt is positive) is heading as the schedules post, from today's balance, as a
// dashed line (it has not happened yet), and in words for screen readers.

/** How far ahead, in days (its label's key): within D21's three years even where today is a day ahead of the server's (UTC). */
const HORIZONS = [
  { days: 91, label: 'reports.forecast.months3' },
  { days: 365, label: 'reports.forecast.year1' },
  { days: 1094, label: 'reports.forecast.years3' },
] as const;

const FONT = 12;
const TOP = 12;
const PLOT = 170;
const BOTTOM = FONT + 14;
const RIGHT = 16;
/** One colour per account, in turn (distinguishable, at least 3:1 against white). */
const COLOURS = ['#1d5fb8', '#b8461d', '#2a7d4f', '#7a3fb0', '#8a6d00', '#c2185b'];

type Line = Forecast['accounts'][number];

const dayNumber = (isoDate: string) => Date.parse(`${isoDate}T00:00:00Z`) / 86_400_000;


/** A balance as steps: today's, then after each date the schedules touch it, to the end. */
function Chart({ forecast, width }: { forecast: Forecast; width: number }) {
  const axis = axisOf(forecast.accounts.flatMap((a) => [a.balance_cents, ...a.points.map((p) => p.balance_cents)]));
  const left = Math.ceil(Math.max(...axis.ticks.map((tick) => axis.label(tick).length)) * FONT * 0.62) + 10;
  const [start, end] = [dayNumber(forecast.from), dayNumber(forecast.to)];
  const x = (isoDate: string) => left + ((dayNumber(isoDate) - start) * (width - left - RIGHT)) / Math.max(1, end - start);
  const y = (cents: number) => TOP + ((axis.high - cents) * PLOT) / (axis.high - axis.low);
  const pathOf = (line: Line) => {
    let d = `M ${x(forecast.from)} ${y(line.balance_cents)}`;
    for (const point of line.points) d += ` H ${x(point.on)} V ${y(point.balance_cents)}`;
    return `${d} H ${x(forecast.to)}`;
  };
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
      {forecast.accounts.map((line, i) => (
        <g key={line.id}>
          <path d={pathOf(line)} fill="none" stroke={COLOURS[i % COLOURS.length]} strokeWidth={2} strokeDasharray="6 4" className="forecast-line" />
          <circle cx={x(forecast.from)} cy={y(line.balance_cents)} r={3.5} fill={COLOURS[i % COLOURS.length]} />
        </g>
      ))}
      <text x={left} y={TOP + PLOT + FONT + 6} fontSize={FONT} className="month-label">
        {t('reports.forecast.today')}
      </text>
      <text x={width - RIGHT} y={TOP + PLOT + FONT + 6} textAnchor="end" fontSize={FONT} className="month-label">
        {formatDate(forecast.to)}
      </text>
    </svg>
  );
}

/** "Bank: €1,234.00 today, €834.00 on Jan 1, 2027, …". */
export function forecastInWords(line: Line): string {
  const today = { name: line.name, balance: formatCents(line.balance_cents) };
  if (line.points.length === 0) return t('reports.forecast.unchanged', today);
  const points = line.points.map((p) => t('reports.forecast.point', { balance: formatCents(p.balance_cents), date: formatDate(p.on) }));
  return t('reports.forecast.changes', { ...today, points: points.join(', ') });
}

/** The chart (measured once shown) and the same figures in words. */
function ForecastFigure({ forecast, current }: { forecast: Forecast; current: boolean }) {
  const { ref, width } = useWidth();
  const { t } = useTranslation();
  return (
    <figure className={current ? undefined : 'updating'} aria-busy={!current}>
      <div ref={ref} className="chart-frame">
        {width > 0 && <Chart forecast={forecast} width={width} />}
      </div>
      <figcaption>
        {t('reports.forecast.caption', { date: formatDate(forecast.to) })}
        <span aria-hidden="true" className="forecast-legend">
          {forecast.accounts.map((line, i) => (
            <span key={line.id}>
              <svg width="24" height="8" viewBox="0 0 24 8">
                <line x1="0" x2="24" y1="4" y2="4" stroke={COLOURS[i % COLOURS.length]} strokeWidth={2} strokeDasharray="6 4" />
              </svg>{' '}
              {line.name}
            </span>
          ))}
        </span>
      </figcaption>
      <ul className="visually-hidden" aria-label={t('reports.forecast.inWords')}>
        {forecast.accounts.map((line) => (
          <li key={line.id}>{forecastInWords(line)}</li>
        ))}
      </ul>
    </figure>
  );
}

/** The Reports page's forecast (D21): a choice of how far ahead, the dashed lines, the same in words. */
export function ForecastSection() {
  const { t } = useTranslation();
  const [days, setDays] = useState<number>(365);
  const forecast = useReport<Forecast>(withQuery('/reports/forecast', { to: daysAfter(today(), days) }));
  const data = forecast.data;
  return (
    <section aria-labelledby="forecast-heading">
      <h2 id="forecast-heading">{t('reports.forecast.heading')}</h2>
      <p className="muted">{t('reports.forecast.intro')}</p>
      <fieldset className="period">
        <legend>{t('reports.forecast.howFar')}</legend>
        <div className="row">
          {HORIZONS.map((h) => (
            <label key={h.days} className="mode">
              <input type="radio" name="forecast-horizon" checked={days === h.days} onChange={() => setDays(h.days)} />
              {t(h.label)}
            </label>
          ))}
        </div>
      </fieldset>
      {forecast.error ? (
        <ErrorNote error={forecast.error} />
      ) : !data ? (
        <Loading />
      ) : data.accounts.length === 0 ? (
        <p>{t('reports.forecast.none')}</p>
      ) : (
        <ForecastFigure forecast={data} current={forecast.current} />
      )}
    </section>
  );
}
