import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { api, withQuery, type Section } from '../api';
import { useApp } from '../app';
import { Downloads, ErrorNote, Loading, Money, PageHeading, Scroll, TableHead, useSubmit } from '../components';
import { formatDate, today } from '../money';

// The annual report (issue 5/7 item 4): one year's income statement and the balance sheet at its
// end (D7, natural sign per D6), in the book style's words (D12), beside the year before when the
// book has one, on a page that prints as it reads (the print rules of styles.css).

interface IncomeStatement {
  from: string;
  to: string;
  income: Section;
  expenses: Section;
  net_cents: number;
}
interface BalanceSheet {
  assets: Section;
  liabilities: Section;
  equity: Section;
  net_income_cents: number;
}
interface YearFigures {
  year: number;
  statement: IncomeStatement;
  sheet: BalanceSheet;
}

/**
 * The last day a year's figures reach: its 31 December, or today for the running year (issue 25
 * item 11: the running year is reported so far, at today, not at a 31 December still to come).
 */
function lastDayOf(year: number): string {
  const now = today();
  return Number(now.slice(0, 4)) === year ? now : `${year}-12-31`;
}

async function figuresOf(year: number): Promise<YearFigures> {
  const [statement, sheet] = await Promise.all([
    api<IncomeStatement>('GET', withQuery('/reports/income-statement', { from: `${year}-01-01`, to: lastDayOf(year) })),
    api<BalanceSheet>('GET', withQuery('/reports/balance-sheet', { as_of: lastDayOf(year) })),
  ]);
  return { year, statement, sheet };
}

/**
 * The years a report can be asked for, newest first: those of the book (from the year of its
 * first transaction to the year of its last: the bounds of the whole-book income statement, D7)
 * and the current year.
 */
function yearsOf(first: string, last: string, current: number): number[] {
  const years = new Set([current]);
  for (let year = Number(first.slice(0, 4)); year <= Number(last.slice(0, 4)); year++) years.add(year);
  return [...years].sort((a, b) => b - a);
}

interface Row {
  id: number;
  name: string;
  /** One figure per year shown, the year reported first. */
  figures: number[];
}

/** The accounts of one section across the years shown; an account with nothing in any of them is left out. */
function rowsOf(sections: Section[]): Row[] {
  return sections[0]!.lines
    .map((line) => ({
      id: line.id,
      name: line.name,
      figures: sections.map((section) => section.lines.find((other) => other.id === line.id)?.balance_cents ?? 0),
    }))
    .filter((row) => row.figures.some((cents) => cents !== 0));
}

function FigureRow({ name, figures, className }: { name: string; figures: number[]; className?: string }) {
  return (
    <tr className={className}>
      <th scope="row">{name}</th>
      {figures.map((cents, i) => (
        <td key={i} className="num">
          <Money cents={cents} />
        </td>
      ))}
    </tr>
  );
}

/** One section of a statement as a group of rows: its name, its accounts and its total. */
function SectionRows({ title, sections }: { title: string; sections: Section[] }) {
  const { t } = useTranslation();
  return (
    <tbody>
      <tr className="group">
        <th scope="rowgroup" colSpan={sections.length + 1}>
          {title}
        </th>
      </tr>
      {rowsOf(sections).map((row) => (
        <FigureRow key={row.id} name={row.name} figures={row.figures} />
      ))}
      <FigureRow name={t('reports.annual.total')} figures={sections.map((section) => section.total_cents)} className="total" />
    </tbody>
  );
}

/**
 * One statement: its heading, the period it covers, and one table whose columns are the years
 * shown (the year reported first), so that the figures of every section line up on paper.
 */
function Statement({ id, title, period, years, children }: { id: string; title: string; period: string; years: string[]; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <p className="muted">{period}</p>
      <Scroll>
        <table className="report" aria-labelledby={id}>
          <TableHead columns={[t('reports.annual.columnAccount'), ...years]} numeric={years} />
          {children}
        </table>
      </Scroll>
    </section>
  );
}

function Statements({ shown }: { shown: YearFigures[] }) {
  const { words } = useApp();
  const { t } = useTranslation();
  const [reported] = shown as [YearFigures];
  const years = shown.map((figures) => String(figures.year));
  const statements = shown.map((figures) => figures.statement);
  const sheets = shown.map((figures) => figures.sheet);
  const running = lastDayOf(reported.year) !== `${reported.year}-12-31`;
  return (
    <>
      <Statement
        id="annual-statement-heading"
        title={words.incomeStatement}
        period={t(running ? 'reports.annual.statementPeriodSoFar' : 'reports.annual.statementPeriod', {
          from: formatDate(reported.statement.from),
          to: formatDate(reported.statement.to),
        })}
        years={years}
      >
        <SectionRows title={words.kinds.income} sections={statements.map((s) => s.income)} />
        <SectionRows title={words.kinds.expense} sections={statements.map((s) => s.expenses)} />
        <tbody>
          <FigureRow name={t('reports.annual.resultForYear')} figures={statements.map((s) => s.net_cents)} className="total result" />
        </tbody>
      </Statement>
      <Statement
        id="annual-sheet-heading"
        title={words.balanceSheet}
        period={
          running
            ? t('reports.annual.sheetSoFar', { date: formatDate(lastDayOf(reported.year)) })
            : t('reports.annual.sheetAt', { date: formatDate(`${reported.year}-12-31`) })
        }
        years={years}
      >
        <SectionRows title={words.kinds.asset} sections={sheets.map((s) => s.assets)} />
        <SectionRows title={words.kinds.liability} sections={sheets.map((s) => s.liabilities)} />
        <SectionRows title={words.kinds.equity} sections={sheets.map((s) => s.equity)} />
        <tbody>
          <FigureRow name={t('reports.annual.resultToDate')} figures={sheets.map((s) => s.net_income_cents)} className="total result" />
        </tbody>
      </Statement>
    </>
  );
}

/**
 * D20: the year closed from its report ("Close 2025": closed_through becomes its last day), after
 * asking; once closed, what is closed and where to reopen.
 */
function CloseYear({ year }: { year: number }) {
  const { closedThrough, saveSettings } = useApp();
  const { t } = useTranslation();
  const lastDay = `${year}-12-31`;
  const [done, setDone] = useState<string | null>(null);
  const close = useSubmit(async () => {
    if (!window.confirm(t('reports.annual.closeQuestion', { year, date: formatDate(lastDay) }))) return;
    await saveSettings({ closed_through: lastDay });
    setDone(t('reports.annual.closedNow', { year, date: formatDate(lastDay) }));
  });
  const closed = closedThrough !== null && closedThrough >= lastDay;
  return (
    <>
      {closed ? (
        !done && <span className="muted">{t('reports.annual.closedThrough', { date: formatDate(closedThrough) })}</span>
      ) : (
        <button type="button" className="secondary" disabled={close.busy} onClick={() => void close.onSubmit()}>
          {t('reports.annual.close', { year })}
        </button>
      )}
      {done && (
        <span role="status" className="notice">
          {done}
        </span>
      )}
      <ErrorNote error={close.error} />
    </>
  );
}

/**
 * D22: what a club's auditors ask for, for the year: every receipt of its transactions as one ZIP
 * (named by date, transaction and name, with index.csv), and the change log of its days as CSV
 * (who changed what, in History's words).
 */
function ForTheAuditors({ year }: { year: number }) {
  const { t } = useTranslation();
  const period = { from: `${year}-01-01`, to: `${year}-12-31` };
  return (
    <section aria-labelledby="auditors-heading" className="screen-only">
      <h2 id="auditors-heading">{t('reports.annual.auditorsHeading')}</h2>
      <Downloads
        label={t('reports.annual.auditorsLabel', { year })}
        hint={t('reports.annual.auditorsHint', { year, from: formatDate(period.from), to: formatDate(period.to) })}
        files={[
          { label: t('reports.annual.auditorsReceipts'), path: withQuery('/export/receipts.zip', period), fallbackName: `receipts-${year}.zip` },
          { label: t('reports.annual.auditorsChanges'), path: withQuery('/export/changes.csv', period), fallbackName: `changes-${year}.csv` },
        ]}
      />
    </section>
  );
}

export function AnnualReport() {
  const { t } = useTranslation();
  const [years, setYears] = useState<number[] | null>(null);
  const [year, setYear] = useState<number | null>(null);
  const [shown, setShown] = useState<YearFigures[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  // The book's years; the default is last year when the book has it, else this year.
  useEffect(() => {
    api<IncomeStatement>('GET', '/reports/income-statement')
      .then((whole) => {
        const current = Number(today().slice(0, 4));
        const offered = yearsOf(whole.from, whole.to, current);
        setYears(offered);
        setYear(offered.includes(current - 1) ? current - 1 : current);
      })
      .catch((e: Error) => setError(e.message));
  }, []);

  // The chosen year, and the year before beside it when the book has that one too.
  useEffect(() => {
    if (year === null || years === null) return;
    // A year chosen since this one was asked for wins, whichever answer comes first.
    let latest = true;
    const compare = years.includes(year - 1);
    Promise.all(compare ? [figuresOf(year), figuresOf(year - 1)] : [figuresOf(year)])
      .then((figures) => {
        if (!latest) return;
        setShown(figures);
        setError(null);
      })
      .catch((e: Error) => latest && setError(e.message));
    return () => {
      latest = false;
    };
  }, [year, years]);

  return (
    <main className="annual-report">
      <PageHeading>{year === null ? t('reports.annual.title') : t('reports.annual.titleYear', { year })}</PageHeading>
      {years && year !== null && (
        <div className="row screen-only">
          <label>
            {t('reports.annual.year')}
            <select value={year} onChange={(e) => setYear(Number(e.target.value))}>
              {years.map((y) => (
                <option key={y} value={y}>
                  {y}
                </option>
              ))}
            </select>
          </label>
          <button type="button" onClick={() => window.print()}>
            {t('reports.annual.print')}
          </button>
          <CloseYear key={year} year={year} />
        </div>
      )}
      <ErrorNote error={error} />
      {shown && shown[0]!.year === year ? <Statements shown={shown} /> : !error && <Loading />}
      {year !== null && <ForTheAuditors year={year} />}
    </main>
  );
}
