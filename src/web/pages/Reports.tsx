import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { withQuery, type Account, type Section } from '../api';
import { useApp } from '../app';
import { BalanceTable, ErrorNote, ExportButtons, Link, Loading, Money, PageHeading } from '../components';
import { t } from '../i18n';
import { formatCents, formatDate, today } from '../money';
import { ForecastSection } from './ForecastChart';
import { MonthlyChart, type Month } from './MonthlyChart';
import { Register } from './Register';
import { useReport, type Report } from './useReport';

// The Reports page (D7 figures in natural sign, D6; D12 wording). Issue 6/7 finding 7: a period is
// chosen as this month, this year, last year or custom dates; typed dates are asked for once the
// typing pauses and only when complete; each report keeps the answer of the latest request only,
// and a refused one shows its error instead of the figures it would have replaced.

interface BalanceSheet {
  assets: Section;
  liabilities: Section;
  equity: Section;
  net_income_cents: number;
  balanced: boolean;
}
interface IncomeStatement {
  income: Section;
  expenses: Section;
  net_cents: number;
}
type Period = { from: string; to: string };
type Preset = 'month' | 'year' | 'last-year' | 'custom';

/** The presets and their labels' keys (asked for when shown: the language may change). */
const PRESETS: { value: Preset; label: string }[] = [
  { value: 'month', label: 'reports.period.month' },
  { value: 'year', label: 'reports.period.year' },
  { value: 'last-year', label: 'reports.period.lastYear' },
  { value: 'custom', label: 'reports.period.custom' },
];

/** How long typing in a date field pauses before its period is asked for. */
const TYPING_PAUSE_MS = 400;
/**
 * The first year a typed date may have: a date field's value carries the year as typed so far
 * (0002, 0020, 0202, then 2026), and those half-typed years are never asked for.
 */
const FIRST_YEAR = 1900;

/** The first and last day of `preset`'s period, today being where the person is (`today()`). */
function periodOf(preset: Exclude<Preset, 'custom'>): Period {
  const [year, month] = today().split('-').map(Number) as [number, number];
  if (preset === 'year') return { from: `${year}-01-01`, to: `${year}-12-31` };
  if (preset === 'last-year') return { from: `${year - 1}-01-01`, to: `${year - 1}-12-31` };
  const mm = String(month).padStart(2, '0');
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return { from: `${year}-${mm}-01`, to: `${year}-${mm}-${lastDay}` };
}

/** Whether a date field's value is a whole date from FIRST_YEAR on; empty counts (the book's first or last date, D7). */
function isWholeDate(value: string): boolean {
  if (value === '') return true;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return year >= FIRST_YEAR && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Why the typed period cannot be asked for yet, or null when it can. */
function problemOf(period: Period): string | null {
  if (!isWholeDate(period.from) || !isWholeDate(period.to)) return t('reports.period.wholeDates', { year: FIRST_YEAR });
  if (period.from && period.to && period.from > period.to) return t('reports.period.fromAfterTo');
  return null;
}

/** The period in words; an empty date is the book's first or last transaction (D7), each its own sentence. */
function periodInWords({ from, to }: Period): string {
  if (from && to) return t('reports.period.fromTo', { from: formatDate(from), to: formatDate(to) });
  if (to) return t('reports.period.firstTo', { to: formatDate(to) });
  if (from) return t('reports.period.fromToLast', { from: formatDate(from) });
  return t('reports.period.firstToLast');
}

/**
 * The period of the page: a preset (This year unless chosen otherwise) or custom dates. Typed
 * dates become the period TYPING_PAUSE_MS after the last keystroke, and only when whole.
 */
function usePeriod() {
  const [preset, setPreset] = useState<Preset>('year');
  const [period, setPeriod] = useState<Period>(() => periodOf('year'));
  const [typed, setTyped] = useState<Period>(period);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    setProblem(null);
    if (preset !== 'custom' || (typed.from === period.from && typed.to === period.to)) return;
    const timer = setTimeout(() => {
      const why = problemOf(typed);
      if (why) setProblem(why);
      else setPeriod(typed);
    }, TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [preset, typed, period]);

  const choose = (next: Preset) => {
    setPreset(next);
    if (next === 'custom') return;
    const dates = periodOf(next);
    setPeriod(dates);
    setTyped(dates);
  };
  // A button's click needs no pause: the files are those of the dates in the fields when they are whole.
  const forExport = preset === 'custom' && problemOf(typed) === null ? typed : period;
  return { preset, choose, period, typed, setTyped, problem, forExport };
}

function PeriodFields({ state }: { state: ReturnType<typeof usePeriod> }) {
  const { preset, choose, period, typed, setTyped, problem } = state;
  const { t } = useTranslation();
  return (
    <div className="period stack">
      <fieldset>
        <legend>{t('reports.period.legend')}</legend>
        <div className="row">
          {PRESETS.map(({ value, label }) => (
            <label key={value} className="mode">
              <input type="radio" name="period" value={value} checked={preset === value} onChange={() => choose(value)} />
              {t(label)}
            </label>
          ))}
        </div>
        {preset === 'custom' && (
          <div className="row">
            <label>
              {t('reports.period.from')}
              <input type="date" min={`${FIRST_YEAR}-01-01`} value={typed.from} onChange={(e) => setTyped({ ...typed, from: e.target.value })} />
            </label>
            <label>
              {t('reports.period.to')}
              <input type="date" min={`${FIRST_YEAR}-01-01`} value={typed.to} onChange={(e) => setTyped({ ...typed, to: e.target.value })} />
            </label>
          </div>
        )}
      </fieldset>
      <p className="muted" aria-live="polite">
        {problem && <span className="error">{problem} </span>}
        {periodInWords(period)}
      </p>
    </div>
  );
}

/**
 * What a report shows: its figures once answered (dimmed and marked busy while a newer period is
 * on its way), else its error without any figure, else that it is loading.
 */
function ReportPart<T>({ report, children }: { report: Report<T>; children(data: T): ReactNode }) {
  if (report.error) return <ErrorNote error={report.error} />;
  if (!report.data) return <Loading />;
  return (
    <div className={report.current ? undefined : 'updating'} aria-busy={!report.current}>
      {children(report.data)}
    </div>
  );
}

function SectionTable({ title, section }: { title: string; section: Section }) {
  return <BalanceTable caption={title} lines={section.lines} total={section.total_cents} />;
}

/** D7's `balanced` in words: what we have = what we owe + reserves + the result so far, and whether it holds. */
function BalanceCheck({ sheet }: { sheet: BalanceSheet }) {
  const { words } = useApp();
  const { t } = useTranslation();
  const { have, owe, reserves, result } = words.balanceCheck;
  const difference = sheet.assets.total_cents - (sheet.liabilities.total_cents + sheet.equity.total_cents + sheet.net_income_cents);
  return (
    <p className="balance-check">
      <span>
        {have} <Money cents={sheet.assets.total_cents} />
      </span>{' '}
      ={' '}
      <span>
        {owe} <Money cents={sheet.liabilities.total_cents} />
      </span>{' '}
      +{' '}
      <span>
        {reserves} <Money cents={sheet.equity.total_cents} />
      </span>{' '}
      +{' '}
      <span>
        {result} <Money cents={sheet.net_income_cents} />
      </span>
      {sheet.balanced && difference === 0 ? (
        <strong className="holds"> {t('reports.balanceHolds')}</strong>
      ) : (
        <strong className="error"> {t('reports.balanceFails', { amount: formatCents(difference) })}</strong>
      )}
    </p>
  );
}

function SheetSection({ sheet }: { sheet: Report<BalanceSheet> }) {
  const { words } = useApp();
  const { t } = useTranslation();
  return (
    <section aria-labelledby="sheet-heading">
      <h2 id="sheet-heading">{words.balanceSheet}</h2>
      <p className="muted">{t('reports.sheetAt', { date: formatDate(today()) })}</p>
      <ReportPart report={sheet}>
        {(figures) => (
          <>
            <div className="cards">
              <SectionTable title={words.kinds.asset} section={figures.assets} />
              <SectionTable title={words.kinds.liability} section={figures.liabilities} />
              <SectionTable title={words.kinds.equity} section={figures.equity} />
            </div>
            <BalanceCheck sheet={figures} />
          </>
        )}
      </ReportPart>
    </section>
  );
}

export function Reports() {
  const { words } = useApp();
  const { t } = useTranslation();
  const periodState = usePeriod();
  const { period } = periodState;
  // Balances as of today where the person is (the API's default is today in UTC).
  const sheet = useReport<BalanceSheet>(withQuery('/reports/balance-sheet', { as_of: today() }));
  const statement = useReport<IncomeStatement>(withQuery('/reports/income-statement', period));
  const months = useReport<Month[]>(withQuery('/reports/monthly', period));
  const accounts = useReport<Account[]>('/accounts');

  return (
    <main>
      <PageHeading>{t('reports.title')}</PageHeading>
      <p>
        <Link to="/reports/annual">{t('reports.annualLink')}</Link> <span className="muted">{t('reports.annualHint')}</span>
      </p>
      <SheetSection sheet={sheet} />
      <section aria-labelledby="statement-heading">
        <h2 id="statement-heading">{words.incomeStatement}</h2>
        <PeriodFields state={periodState} />
        <ReportPart report={statement}>
          {(figures) => (
            <>
              <div className="cards">
                <SectionTable title={words.kinds.income} section={figures.income} />
                <SectionTable title={words.kinds.expense} section={figures.expenses} />
              </div>
              <p>
                {t('reports.net')} <Money cents={figures.net_cents} />
              </p>
            </>
          )}
        </ReportPart>
        <ReportPart report={months}>{(figures) => <MonthlyChart months={figures} />}</ReportPart>
      </section>
      <ForecastSection />
      <section aria-labelledby="export-heading">
        <h2 id="export-heading">{t('reports.download')}</h2>
        <ExportButtons period={periodState.forExport} />
      </section>
      <ReportPart report={accounts}>{(list) => <Register accounts={list} period={period} />}</ReportPart>
    </main>
  );
}
