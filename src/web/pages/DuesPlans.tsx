import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, ApiError, type Account, type DuesPlan, type DuesPlanRequest } from '../api';
import { useApp } from '../app';
import { ErrorNote, Link, Loading, PageHeading, Scroll, TableHead, useSubmit } from '../components';
import { t } from '../i18n';
import { formatAmount, formatCents, formatDate } from '../money';
import { AmountField, amountOrThrow } from './AmountField';
import { Notice } from './RecordForm';

// D27 (issue 40 item 2): the dues plans ("Membership, €5.00 a month"): each with its amount as
// money, how often in words, its dates, its income account and how many follow it; one made,
// changed (PUT replaces) or deleted (asked first; refused while people follow it). The amount is
// typed as money (D19). What is due posts itself when a plan or a person is saved (D27).

const EVERY = ['month', 'quarter', 'year'] as const;

/** "€5.00 a month" (D29: the catalogue's words). */
export function duesInWords(plan: Pick<DuesPlan, 'amount_cents' | 'every'>): string {
  return t(`dues.amountEvery.${plan.every}`, { amount: formatCents(plan.amount_cents) });
}

/** D27's refusals of a plan the app knows, in words; any other as the API sent it. */
function planRefusalInWords(message: string): string {
  let m: RegExpExecArray | null;
  if (/^name: a dues plan with that name already exists/.test(message)) return t('dues.refusals.nameTaken');
  if ((m = /^start_on: this plan has (\d+) occurrences through today; a dues plan may have at most (\d+)/.exec(message))) return t('dues.refusals.tooMany', { occurrences: m[1], most: m[2] });
  if (/^until_on must not be before start_on/.test(message)) return t('dues.refusals.untilBeforeStart');
  return message;
}

function PlanForm({ plan, incomes, onSaved, onCancel }: { plan: DuesPlan | null; incomes: Account[]; onSaved(plan: DuesPlan): void; onCancel(): void }) {
  const { t } = useTranslation();
  const [name, setName] = useState(plan?.name ?? '');
  const [amount, setAmount] = useState(plan ? formatAmount(plan.amount_cents) : '');
  const [every, setEvery] = useState<DuesPlan['every']>(plan?.every ?? 'month');
  const [start, setStart] = useState(plan?.start_on ?? '');
  const [until, setUntil] = useState(plan?.until_on ?? '');
  const [income, setIncome] = useState(plan ? String(plan.income_account_id) : incomes.length === 1 ? String(incomes[0]!.id) : '');
  const { busy, error, onSubmit } = useSubmit(async () => {
    const request: DuesPlanRequest = { name, amount_cents: amountOrThrow(amount), every, start_on: start, income_account_id: Number(income), ...(until ? { until_on: until } : {}) };
    try {
      onSaved(await (plan ? api<DuesPlan>('PUT', `/dues-plans/${plan.id}`, request) : api<DuesPlan>('POST', '/dues-plans', request)));
    } catch (e) {
      throw new Error(planRefusalInWords((e as Error).message));
    }
  });
  return (
    <form aria-label={plan ? t('dues.form.editLabel', { name: plan.name }) : t('dues.form.newLabel')} onSubmit={(e) => void onSubmit(e)}>
      <label>
        {t('dues.form.name')}
        <input required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} placeholder={t('dues.form.namePlaceholder')} />
      </label>
      <div className="row">
        <AmountField label={t('dues.form.amount')} value={amount} onChange={setAmount} />
        <label>
          {t('dues.form.every')}
          <select value={every} onChange={(e) => setEvery(e.target.value as DuesPlan['every'])}>
            {EVERY.map((e) => (
              <option key={e} value={e}>
                {t(`dues.every.${e}`)}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="row">
        <label>
          {t('dues.form.start')}
          <input type="date" required value={start} onChange={(e) => setStart(e.target.value)} />
        </label>
        <label>
          {t('dues.form.until')}
          <input type="date" value={until} onChange={(e) => setUntil(e.target.value)} />
        </label>
      </div>
      <label>
        {t('dues.form.income')}
        <select required value={income} onChange={(e) => setIncome(e.target.value)}>
          <option value="">{t('dues.form.chooseIncome')}</option>
          {incomes.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
        </select>
      </label>
      {incomes.length === 0 && (
        <p className="muted small">
          {t('dues.form.noIncome')} <Link to="/accounts">{t('dues.form.accountsLink')}</Link>
        </p>
      )}
      <p className="muted small">{t('dues.form.postsItself')}</p>
      <ErrorNote error={error} />
      <div className="row">
        <button type="submit" disabled={busy}>
          {plan ? t('dues.form.save') : t('dues.form.make')}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          {t('dues.form.cancel')}
        </button>
      </div>
    </form>
  );
}

export function DuesPlans() {
  const { t } = useTranslation();
  const { bookStyle } = useApp();
  const [plans, setPlans] = useState<DuesPlan[] | null>(null);
  const [accounts, setAccounts] = useState<Account[]>([]);
  const [editing, setEditing] = useState<DuesPlan | null>(null);
  const [adding, setAdding] = useState(false);
  const [said, setSaid] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      const [p, a] = await Promise.all([api<DuesPlan[]>('GET', '/dues-plans'), api<Account[]>('GET', '/accounts')]);
      setPlans(p);
      setAccounts(a);
    } catch (e) {
      setError((e as Error).message);
    }
  }, []);
  useEffect(() => void load(), [load]);
  const incomes = accounts.filter((a) => a.kind === 'income');
  const nameOf = (id: number) => accounts.find((a) => a.id === id)?.name ?? '';

  const saved = (message: string) => {
    setEditing(null);
    setAdding(false);
    setError(null);
    setSaid(message);
    void load();
  };
  const remove = async (plan: DuesPlan) => {
    setSaid(null);
    setError(null);
    if (!window.confirm(t('dues.confirmDelete', { name: plan.name }))) return;
    try {
      await api('DELETE', `/dues-plans/${plan.id}`);
      saved(t('dues.deleted', { name: plan.name }));
    } catch (e) {
      // D27: a plan people follow stays until they have another plan or none.
      setError(e instanceof ApiError && e.status === 409 ? t('dues.followed', { name: plan.name, count: plan.members, context: bookStyle }) : (e as Error).message);
    }
  };

  return (
    <main>
      <PageHeading>{t('dues.title')}</PageHeading>
      <p className="muted">
        {t('dues.intro', { context: bookStyle })} <Link to="/people">{t('dues.peopleLink', { context: bookStyle })}</Link>
      </p>
      {!plans ? (
        error ? <ErrorNote error={error} /> : <Loading />
      ) : (
        <>
          <Notice said={said} focus />
          <ErrorNote error={error} />
          <section aria-labelledby="plans-heading">
            <h2 id="plans-heading">{t('dues.listHeading')}</h2>
            {editing && (
              <section aria-labelledby="edit-plan-heading">
                <h3 id="edit-plan-heading">{t('dues.editHeading', { name: editing.name })}</h3>
                <PlanForm key={editing.id} plan={editing} incomes={incomes} onSaved={(p) => saved(t('dues.saved', { name: p.name, dues: duesInWords(p) }))} onCancel={() => setEditing(null)} />
              </section>
            )}
            {plans.length === 0 ? (
              <p>{t('dues.none')}</p>
            ) : (
              <Scroll>
                <table aria-label={t('dues.listHeading')} className="dues-list">
                  <TableHead columns={[t('dues.list.name'), t('dues.list.amount'), t('dues.list.dates'), t('dues.list.income'), t('dues.list.members', { context: bookStyle })]} actions />
                  <tbody>
                    {plans.map((plan) => (
                      <tr key={plan.id}>
                        <th scope="row">{plan.name}</th>
                        <td>{duesInWords(plan)}</td>
                        <td>{plan.until_on ? t('dues.list.fromUntil', { from: formatDate(plan.start_on), until: formatDate(plan.until_on) }) : t('dues.list.from', { from: formatDate(plan.start_on) })}</td>
                        <td>{nameOf(plan.income_account_id)}</td>
                        <td className="num">{plan.members}</td>
                        <td>
                          <div className="row">
                            <button
                              type="button"
                              className="secondary"
                              aria-label={t('dues.editLabel', { name: plan.name })}
                              onClick={() => {
                                setSaid(null);
                                setAdding(false);
                                setEditing(plan);
                              }}
                            >
                              {t('dues.edit')}
                            </button>
                            <button type="button" className="secondary" aria-label={t('dues.deleteLabel', { name: plan.name })} onClick={() => void remove(plan)}>
                              {t('dues.delete')}
                            </button>
                          </div>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </Scroll>
            )}
          </section>
          <section aria-labelledby="new-plan-heading">
            <h2 id="new-plan-heading">{t('dues.newHeading')}</h2>
            {adding ? (
              <PlanForm plan={null} incomes={incomes} onSaved={(p) => saved(t('dues.made', { name: p.name, dues: duesInWords(p) }))} onCancel={() => setAdding(false)} />
            ) : (
              <button
                type="button"
                onClick={() => {
                  setSaid(null);
                  setEditing(null);
                  setAdding(true);
                }}
              >
                {t('dues.make')}
              </button>
            )}
          </section>
        </>
      )}
    </main>
  );
}
