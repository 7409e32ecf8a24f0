import { useCallback, useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, type Account, type Budget } from '../api';
import { useApp } from '../app';
import { ErrorNote, Link, Loading, PageHeading, Scroll, TableHead } from '../components';
import { Notice } from './RecordForm';
import { BudgetForm } from './BudgetForm';
import { monthsInWords } from './budget-months';

// D26: every budget of the book (its months in words, its number of lines), each with its Plan and
// reality, changed (PUT) or deleted (asked first); a new one made here, from last year's figures or
// empty. D12: "budget" in a personal book, "plan" in a club's.

function BudgetList({ list, onEdit, onDelete }: { list: Budget[]; onEdit(b: Budget): void; onDelete(b: Budget): void }) {
  const { bookStyle } = useApp();
  const { t } = useTranslation();
  if (list.length === 0) return <p>{t('budgets.list.none', { context: bookStyle })}</p>;
  return (
    <Scroll>
      <table aria-labelledby="budgets-heading" className="budgets-list">
        <TableHead columns={[t('budgets.list.name'), t('budgets.list.months')]} actions />
        <tbody>
          {list.map((b) => (
            <tr key={b.id}>
              <td>
                <strong>{b.name}</strong>
                <br />
                <span className="muted">{t('budgets.list.lineCount', { count: b.lines.length })}</span>
              </td>
              <td>{monthsInWords(b.from, b.to)}</td>
              <td>
                <div className="row">
                  <Link to={`/budgets/report?id=${b.id}`}>
                    <Trans i18nKey="budgets.list.report" values={{ name: b.name }} components={{ hidden: <span className="visually-hidden" /> }} />
                  </Link>
                  <button type="button" className="secondary" onClick={() => onEdit(b)} aria-label={t('budgets.changeLabel', { name: b.name })}>
                    {t('budgets.change')}
                  </button>
                  <button type="button" className="secondary" onClick={() => onDelete(b)} aria-label={t('budgets.deleteLabel', { name: b.name })}>
                    {t('budgets.delete')}
                  </button>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}

export function Budgets() {
  const { bookStyle } = useApp();
  const { t } = useTranslation();
  const [accounts, setAccounts] = useState<Account[] | null>(null);
  const [list, setList] = useState<Budget[] | null>(null);
  const [editing, setEditing] = useState<Budget | null>(null);
  const [adding, setAdding] = useState(false);
  const [said, setSaid] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      const [a, b] = await Promise.all([api<Account[]>('GET', '/accounts'), api<Budget[]>('GET', '/budgets')]);
      setAccounts(a);
      setList(b);
    } catch (e) {
      setError((e as Error).message);
    }
  }, []);
  useEffect(() => void load(), [load]);

  const saved = (message: string) => {
    setEditing(null);
    setAdding(false);
    setSaid(message);
    void load();
  };

  const remove = async (b: Budget) => {
    setSaid(null);
    setError(null);
    if (!window.confirm(t('budgets.confirmDelete', { name: b.name, context: bookStyle }))) return;
    try {
      await api('DELETE', `/budgets/${b.id}`);
      if (editing?.id === b.id) setEditing(null);
      setSaid(t('budgets.deleted', { name: b.name, context: bookStyle }));
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <main>
      <PageHeading>{t('budgets.title', { context: bookStyle })}</PageHeading>
      <p className="muted">{t('budgets.intro', { context: bookStyle })}</p>
      {!accounts || !list ? (
        error ? <ErrorNote error={error} /> : <Loading />
      ) : (
        <>
          <Notice said={said} focus />
          <ErrorNote error={error} />
          <section aria-labelledby="new-budget-heading">
            <h2 id="new-budget-heading">{t('budgets.newHeading', { context: bookStyle })}</h2>
            {adding ? (
              <BudgetForm accounts={accounts} existing={null} label={t('budgets.newHeading', { context: bookStyle })} onSaved={saved} onCancel={() => setAdding(false)} />
            ) : (
              <button
                type="button"
                onClick={() => {
                  setSaid(null);
                  setEditing(null);
                  setAdding(true);
                }}
              >
                {t('budgets.make', { context: bookStyle })}
              </button>
            )}
          </section>
          <section aria-labelledby="budgets-heading">
            <h2 id="budgets-heading">{t('budgets.everyHeading', { context: bookStyle })}</h2>
            {editing && (
              <section aria-labelledby="edit-budget-heading">
                <h3 id="edit-budget-heading">{t('budgets.editHeading', { name: editing.name })}</h3>
                <BudgetForm key={editing.id} accounts={accounts} existing={editing} label={t('budgets.changeLabel', { name: editing.name })} onSaved={saved} onCancel={() => setEditing(null)} />
              </section>
            )}
            <BudgetList
              list={list}
              onEdit={(b) => {
                setSaid(null);
                setAdding(false);
                setEditing(b);
              }}
              onDelete={(b) => void remove(b)}
            />
          </section>
        </>
      )}
    </main>
  );
}
