import { useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, ApiError, withQuery, type Budget, type BudgetReport } from '../api';
import { useApp } from '../app';
import { ErrorNote, Link, Loading, Money, PageHeading, Scroll, TableHead } from '../components';
import { formatCents, formatDate, today } from '../money';
import { budgetPeriod, figuresOf, lineInWords, listInWords, monthOf, monthShort, type LineFigures, type ReportLine } from './planInWords';

// D26 "Plan and reality" (issue 39 items 2–4): a budget's lines in words with bars (this month's
// figures for the lines planned by the month, the whole budget's for the others), the spending no
// line covers, and the whole budget's plan beside what happened with the totals and the result,
// on a page that prints on one A4 page for the general meeting (the print rules of styles.css).
// Wording by book style (D12): personal "budget", club "plan"; German "Haushaltsplan" (D29).

/**
 * How much of a line's plan is used, as a bar: the figures are in its sentence, so screen readers
 * skip it. Overspending fills it in the danger colour; earning more than planned is no danger.
 */
export function PlanBar({ figures, kind }: { figures: LineFigures; kind: ReportLine['kind'] }) {
  const available = figures.actual + figures.left;
  const share = available > 0 ? Math.min(Math.max(figures.actual / available, 0), 1) : figures.actual > 0 ? 1 : 0;
  const over = kind === 'expense' && figures.left < 0;
  return (
    <svg className="plan-bar" viewBox="0 0 100 6" preserveAspectRatio="none" aria-hidden="true" focusable="false">
      <rect className="plan-bar-track" x="0" y="0" width="100" height="6" />
      <rect className={over ? 'plan-bar-fill over' : 'plan-bar-fill'} x="0" y="0" width={share * 100} height="6" />
    </svg>
  );
}

/** The budgets to choose from when the page is opened without one (GET /budgets, by `from`). */
function Chooser() {
  const { t } = useTranslation();
  const { bookStyle } = useApp();
  const [budgets, setBudgets] = useState<Budget[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<Budget[]>('GET', '/budgets')
      .then(setBudgets)
      .catch((e: Error) => setError(e.message));
  }, []);
  if (error) return <ErrorNote error={error} />;
  if (!budgets) return <Loading />;
  if (budgets.length === 0) {
    return (
      <p>
        <Trans i18nKey="planAndReality.noBudgets" context={bookStyle} components={{ make: <Link to="/budgets">{null}</Link> }} />
      </p>
    );
  }
  return (
    <section aria-labelledby="choose-heading">
      <h2 id="choose-heading">{t('planAndReality.choose', { context: bookStyle })}</h2>
      <ul className="plain budget-choice">
        {budgets.map((budget) => (
          <li key={budget.id}>
            <Link to={`/budgets/report?id=${budget.id}`}>{budget.name}</Link> <span className="muted">{budgetPeriod(budget)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Each line in words with its bar, then what no line covers ("Not in the plan: Fun €30.00"). */
function Standing({ report, month }: { report: BudgetReport; month: string }) {
  const { t } = useTranslation();
  const { bookStyle } = useApp();
  const thisMonth = monthOf(today());
  const spending = report.unbudgeted.filter((u) => u.kind === 'expense');
  const income = report.unbudgeted.filter((u) => u.kind === 'income');
  return (
    <section aria-labelledby="standing-heading" className="screen-only">
      <h2 id="standing-heading">{t('planAndReality.standing')}</h2>
      {report.lines.length === 0 && <p>{t('planAndReality.noLines', { context: bookStyle })}</p>}
      <ul className="plain plan-lines">
        {report.lines.map((line) => {
          const figures = figuresOf(line, month);
          return (
            <li key={line.account_id}>
              <p>{lineInWords(line, figures, thisMonth, bookStyle)}</p>
              <PlanBar figures={figures} kind={line.kind} />
            </li>
          );
        })}
      </ul>
      {spending.length > 0 && <p className="unplanned">{t('planAndReality.unplannedSpending', { context: bookStyle, list: listInWords(spending) })}</p>}
      {income.length > 0 && <p className="unplanned">{t('planAndReality.unplannedIncome', { context: bookStyle, list: listInWords(income) })}</p>}
    </section>
  );
}

function FigureRow({ name, planned, actual, className }: { name: string; planned: number | null; actual: number; className?: string }) {
  const { t } = useTranslation();
  return (
    <tr className={className}>
      <th scope="row">{name}</th>
      <td className="num">{planned === null ? <span className="muted">{t('planAndReality.notPlanned')}</span> : <Money cents={planned} />}</td>
      <td className="num">
        <Money cents={actual} />
      </td>
      {/* Actual − planned, uncoloured: below the plan is good news for spending, bad for income. */}
      <td className="num">
        <span className="money">{formatCents(actual - (planned ?? 0))}</span>
      </td>
    </tr>
  );
}

/** The whole budget: per kind its lines, then what no line covers (not planned), and the kind's total; the result last. */
function WholeBudget({ report }: { report: BudgetReport }) {
  const { t } = useTranslation();
  const { bookStyle } = useApp();
  const columns = [t('planAndReality.columns.account'), t('planAndReality.columns.planned'), t('planAndReality.columns.actual'), t('planAndReality.columns.difference')];
  const groups = [
    { kind: 'income' as const, title: t('planAndReality.groups.income'), total: t('planAndReality.groups.incomeTotal'), figures: report.totals.income },
    { kind: 'expense' as const, title: t('planAndReality.groups.expense', { context: bookStyle }), total: t('planAndReality.groups.expenseTotal', { context: bookStyle }), figures: report.totals.expense },
  ];
  return (
    <section aria-labelledby="whole-heading">
      <h2 id="whole-heading">{t('planAndReality.whole', { context: bookStyle })}</h2>
      <Scroll>
        <table className="report plan-table" aria-labelledby="whole-heading">
          <TableHead columns={columns} numeric={columns.slice(1)} />
          {groups.map((group) => (
            <tbody key={group.kind}>
              <tr className="group">
                <th scope="rowgroup" colSpan={4}>
                  {group.title}
                </th>
              </tr>
              {report.lines
                .filter((line) => line.kind === group.kind)
                .map((line) => (
                  <FigureRow key={line.account_id} name={line.account_name} planned={line.planned_cents} actual={line.actual_cents} />
                ))}
              {report.unbudgeted
                .filter((line) => line.kind === group.kind)
                .map((line) => (
                  <FigureRow key={line.account_id} name={line.account_name} planned={null} actual={line.actual_cents} />
                ))}
              <FigureRow name={group.total} planned={group.figures.planned_cents} actual={group.figures.actual_cents} className="total" />
            </tbody>
          ))}
          <tbody>
            <FigureRow name={t('planAndReality.result', { context: bookStyle })} planned={report.totals.result.planned_cents} actual={report.totals.result.actual_cents} className="total result" />
          </tbody>
        </table>
      </Scroll>
    </section>
  );
}

/** Month by month: each line's actual per month beside its plan (and, with rollover, what was available). */
function MonthByMonth({ report }: { report: BudgetReport }) {
  const { t } = useTranslation();
  if (report.lines.length === 0) return null;
  const months = report.lines[0]!.months.map((m) => m.month);
  const headers = months.map(monthShort);
  return (
    <section aria-labelledby="months-heading" className="screen-only">
      <h2 id="months-heading">{t('planAndReality.months.heading')}</h2>
      <Scroll>
        <table className="plan-months" aria-labelledby="months-heading">
          <TableHead columns={[t('planAndReality.columns.account'), ...headers]} numeric={headers} />
          <tbody>
            {report.lines.map((line) => (
              <tr key={line.account_id}>
                <th scope="row">{line.account_name}</th>
                {line.months.map((m) => (
                  <td key={m.month} className="num">
                    <Money cents={m.actual_cents} />
                    {m.planned_cents !== null && <span className="plan-month-planned">{t('planAndReality.months.of', { planned: formatCents(m.planned_cents) })}</span>}
                    {m.available_cents !== null && <span className="plan-month-planned">{t('planAndReality.months.available', { amount: formatCents(m.available_cents) })}</span>}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
    </section>
  );
}

function Report({ id, asOf }: { id: string; asOf: string }) {
  const { t } = useTranslation();
  const { bookStyle } = useApp();
  const [report, setReport] = useState<BudgetReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let latest = true;
    api<BudgetReport>('GET', withQuery('/reports/budget', { id, as_of: asOf }))
      .then((answer) => latest && setReport(answer))
      .catch((e: Error) => latest && setError(e instanceof ApiError && e.status === 404 ? t('planAndReality.notFound', { context: bookStyle }) : e.message));
    return () => {
      latest = false;
    };
  }, [id, asOf, bookStyle, t]);
  if (error) {
    return (
      <>
        <ErrorNote error={error} />
        <p>
          <Link to="/budgets/report">{t('planAndReality.other', { context: bookStyle })}</Link>
        </p>
      </>
    );
  }
  if (!report) return <Loading />;
  return (
    <>
      <div className="print-only plan-print-heading">
        <p className="print-title">{t('planAndReality.printTitle', { context: bookStyle, name: report.name })}</p>
        <p>{t('planAndReality.printedOn', { date: formatDate(today()) })}</p>
      </div>
      <p className="plan-name">
        <strong>{report.name}</strong> {budgetPeriod(report)}, {t('planAndReality.asOf', { date: formatDate(report.as_of) })}
      </p>
      <div className="row screen-only">
        <button type="button" onClick={() => window.print()}>
          {t('planAndReality.print')}
        </button>
        <Link to="/budgets/report">{t('planAndReality.other', { context: bookStyle })}</Link>
      </div>
      <Standing report={report} month={monthOf(report.as_of)} />
      <WholeBudget report={report} />
      <MonthByMonth report={report} />
    </>
  );
}

/** `/budgets/report?id=N&as_of=YYYY-MM-DD`: the report of budget N at that date (default today); without an id, the budgets to choose from. */
export function PlanAndReality() {
  const { t } = useTranslation();
  const { path, bookStyle } = useApp();
  const query = new URLSearchParams(path.split('?')[1] ?? '');
  const id = query.get('id');
  const asOf = query.get('as_of') ?? today();
  return (
    <main id="main" className="plan-and-reality">
      <PageHeading>{t('planAndReality.title', { context: bookStyle })}</PageHeading>
      {id ? <Report key={`${id} ${asOf}`} id={id} asOf={asOf} /> : <Chooser />}
    </main>
  );
}
