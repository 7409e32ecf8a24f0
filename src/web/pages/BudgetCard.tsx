import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, withQuery, type Budget, type BudgetReport } from '../api';
import { useApp } from '../app';
import { ErrorNote, Link } from '../components';
import { formatCents, today } from '../money';
import { PlanBar } from './PlanAndReality';
import { budgetOfMonth, figuresOf, lineInWords, monthOf, type LineFigures } from './planInWords';

// D26 on Home (issue 39 item 5): this month's plan and what is spent so far, at a glance, of the
// budget covering this month with the latest `from` (ties: the highest id); no such budget, no
// card. What it adds up is the spending planned by the month (a `period` line has no month's
// plan), with its first lines in words, and it leads to the whole report.

const SHOWN_LINES = 3;

export function BudgetCard() {
  const { t } = useTranslation();
  const { bookStyle } = useApp();
  const [report, setReport] = useState<BudgetReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const day = today();
  const month = monthOf(day);
  useEffect(() => {
    let latest = true;
    api<Budget[]>('GET', '/budgets')
      .then(async (budgets) => {
        const budget = budgetOfMonth(budgets, month);
        const answer = budget ? await api<BudgetReport>('GET', withQuery('/reports/budget', { id: String(budget.id), as_of: day })) : null;
        if (latest) setReport(answer);
      })
      .catch((e: Error) => latest && setError(e.message));
    return () => {
      latest = false;
    };
  }, [day, month]);
  if (error) return <ErrorNote error={error} />;
  if (!report) return null;
  const monthly = report.lines.filter((line) => line.kind === 'expense' && line.per === 'month').map((line) => ({ line, figures: figuresOf(line, month) }));
  const planned = monthly.reduce((sum, { figures }) => sum + figures.planned, 0);
  const spent = monthly.reduce((sum, { figures }) => sum + figures.actual, 0);
  const total: LineFigures = { month, planned, actual: spent, left: planned - spent, carried: null };
  return (
    <section className="card budget-card" aria-labelledby="budget-card-heading">
      <h2 id="budget-card-heading">{t('planAndReality.card.title', { context: bookStyle, name: report.name })}</h2>
      <p className="budget-card-total">
        {t('planAndReality.card.spending', { context: bookStyle, spent: formatCents(spent), planned: formatCents(planned) })}
      </p>
      <PlanBar figures={total} kind="expense" />
      {monthly.length > 0 && (
        <ul className="plain plan-lines">
          {monthly.slice(0, SHOWN_LINES).map(({ line, figures }) => (
            <li key={line.account_id}>{lineInWords(line, figures, month, bookStyle)}</li>
          ))}
        </ul>
      )}
      <p>
        <Link to={`/budgets/report?id=${report.budget_id}`}>{t('planAndReality.card.open', { context: bookStyle })}</Link>
      </p>
    </section>
  );
}
