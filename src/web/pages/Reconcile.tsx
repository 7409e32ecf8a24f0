import { useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, withQuery, type Account, type Reconciliation, type ReconciliationState } from '../api';
import { useApp } from '../app';
import { ErrorNote, Link, Loading, Money, PageHeading, Scroll, TableHead, useSubmit } from '../components';
import { currentLanguage, t } from '../i18n';
import { formatAmount, formatCents, formatDate, readAmount, today } from '../money';
import { STATEMENT_BALANCE } from '../words';
import { AmountField } from './AmountField';

// D20 in the web app: an account proven against a bank or card statement, as GnuCash does it.
// The starting balance is what was reconciled last; the person types the statement's date and
// balance (money, D19), ticks the transactions the statement shows (every unreconciled one up to
// the date, by default), and the difference = statement − (reconciled + ticked) runs beside the
// ticks. Finish is offered only at a difference of zero and sends the ticked ones.

/** The kinds of account a bank or card statement is about (D20). */
const RECONCILABLE = new Set<Account['kind']>(['asset', 'liability']);

export const reconcilePath = (accountId: number) => `/reconcile?account=${accountId}`;
export const registerPath = (accountId: number) => `/reports?account=${accountId}`;
const isWholeDate = (value: string) => /^\d{4}-\d{2}-\d{2}$/.test(value) && value >= '1900-01-01';

/** "Reconciled through 31 Mar 2026: €2,548.15", or that it never was. */
export function reconciledThrough(last: Reconciliation | null): string {
  return last
    ? t('reconcile.reconciledThrough', { date: formatDate(last.statement_date), balance: formatCents(last.statement_balance_cents) })
    : t('reconcile.notReconciledYet');
}

/** Where the account stands as of `date` (its unreconciled transactions up to it), the latest answer only. */
function useStanding(accountId: number, date: string, version: number) {
  const [standing, setStanding] = useState<{ date: string; state: ReconciliationState } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!isWholeDate(date)) return;
    let latest = true;
    api<ReconciliationState>('GET', withQuery(`/accounts/${accountId}/reconciliation`, { as_of: date })).then(
      (state) => {
        if (!latest) return;
        setStanding({ date, state });
        setError(null);
      },
      (e: Error) => latest && setError(e.message),
    );
    return () => {
      latest = false;
    };
  }, [accountId, date, version]);
  return { standing, error };
}

/** The statement's balance against the book's: the running difference, in money. */
function Difference({ reconciled, ticked, statement }: { reconciled: number; ticked: number; statement: number | null }) {
  const { t } = useTranslation();
  const difference = statement === null ? null : statement - reconciled - ticked;
  return (
    <div className="reconcile-sums">
      <dl>
        <div>
          <dt>{t('reconcile.startingBalance')}</dt>
          <dd>
            <Money cents={reconciled} />
          </dd>
        </div>
        <div>
          <dt>{t('reconcile.ticked')}</dt>
          <dd>
            <Money cents={ticked} />
          </dd>
        </div>
        <div>
          <dt>{t('reconcile.statement')}</dt>
          <dd>{statement === null ? '—' : <Money cents={statement} />}</dd>
        </div>
      </dl>
      <p className="difference" aria-live="polite">
        {difference === null ? (
          t('reconcile.enterBalanceForDifference')
        ) : (
          <output className={difference === 0 ? 'agrees' : undefined}>
            {t('reconcile.difference', { amount: formatCents(difference) })}
            {difference === 0 ? ' ✓' : ''}
          </output>
        )}
      </p>
    </div>
  );
}

function ReconcileForm({ account }: { account: Account }) {
  const { bookStyle } = useApp();
  const { t } = useTranslation();
  const words = STATEMENT_BALANCE[bookStyle][account.kind === 'liability' ? 'liability' : 'asset'];
  const [date, setDate] = useState(today());
  const [balance, setBalance] = useState('');
  const [unticked, setUnticked] = useState<Set<number>>(new Set());
  const [version, setVersion] = useState(0);
  const [done, setDone] = useState<Reconciliation | null>(null);
  const { standing, error } = useStanding(account.id, date, version);

  const state = standing?.state ?? null;
  const reading = balance.trim() === '' ? null : readAmount(balance, { signed: true });
  const statement = reading && 'cents' in reading ? reading.cents : null;
  const lines = state?.unreconciled ?? [];
  const ticked = lines.filter((line) => !unticked.has(line.transaction_id));
  const tickedCents = ticked.reduce((sum, line) => sum + line.amount_cents, 0);
  const reconciled = state?.reconciled_balance_cents ?? 0;
  const last = state?.last ?? null;
  // D20's 400 said before sending: a statement older than the last one proven.
  const tooEarly = last !== null && isWholeDate(date) && date < last.statement_date;
  const current = standing?.date === date;
  const agrees = statement !== null && statement - reconciled - tickedCents === 0;

  const finish = useSubmit(async () => {
    if (statement === null) throw new Error(t('reconcile.enterBalance'));
    const made = await api<Reconciliation>('POST', `/accounts/${account.id}/reconciliations`, {
      statement_date: date,
      statement_balance_cents: statement,
      transaction_ids: ticked.map((line) => line.transaction_id),
    });
    setDone(made);
    setBalance('');
    setUnticked(new Set());
    setVersion((v) => v + 1);
  });

  const tick = (id: number, on: boolean) =>
    setUnticked((before) => {
      const after = new Set(before);
      if (on) after.delete(id);
      else after.add(id);
      return after;
    });
  const changed = () => {
    if (finish.error) finish.setError(null);
    if (done) setDone(null);
  };

  return (
    <form className="reconcile" aria-label={t('reconcile.reconcileAccount', { name: account.name })} onSubmit={finish.onSubmit} onChange={changed}>
      <p>
        {last ? `${reconciledThrough(last)}.` : t('reconcile.neverReconciled', { name: account.name, zero: formatCents(0) })}{' '}
        <Link to={registerPath(account.id)}>
          <Trans i18nKey="reconcile.registerLink" values={{ name: account.name }} components={{ hidden: <span className="visually-hidden" /> }} />
        </Link>
      </p>
      <div className="row">
        <label>
          {t('reconcile.statementDate')}
          <input type="date" required value={date} onChange={(e) => setDate(e.target.value)} />
        </label>
        <AmountField label={words.label} signed placeholder={formatAmount(254815)} value={balance} onChange={setBalance} />
      </div>
      <p className="muted">{words.hint}</p>
      {tooEarly && <p className="error">{t('reconcile.tooEarly', { date: formatDate(last.statement_date) })}</p>}
      <ErrorNote error={error} />
      <section aria-labelledby="unreconciled-heading">
        <h2 id="unreconciled-heading">{isWholeDate(date) ? t('reconcile.unreconciledUpTo', { date: formatDate(date) }) : t('reconcile.unreconciled')}</h2>
        {!state || !current ? (
          !error && <Loading />
        ) : lines.length === 0 ? (
          <p>{t('reconcile.nothingToTick')}</p>
        ) : (
          <>
            <p className="muted">{t('reconcile.tickHint')}</p>
            <div className="row">
              <button type="button" className="secondary" onClick={() => setUnticked(new Set())}>
                {t('reconcile.tickAll')}
              </button>
              <button type="button" className="secondary" onClick={() => setUnticked(new Set(lines.map((line) => line.transaction_id)))}>
                {t('reconcile.untickAll')}
              </button>
            </div>
            <Scroll>
              <table aria-labelledby="unreconciled-heading">
                <TableHead columns={[t('reconcile.columnDate'), t('reconcile.columnOnStatement'), t('reconcile.columnAmount')]} numeric={[t('reconcile.columnAmount')]} />
                <tbody>
                  {lines.map((line) => (
                    <tr key={line.transaction_id}>
                      <td>{formatDate(line.occurred_on)}</td>
                      <td>
                        <label className="mode">
                          <input
                            type="checkbox"
                            checked={!unticked.has(line.transaction_id)}
                            onChange={(e) => tick(line.transaction_id, e.target.checked)}
                          />
                          {line.description}
                        </label>
                      </td>
                      <td className="num">
                        <Money cents={line.amount_cents} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scroll>
          </>
        )}
      </section>
      <div className="reconcile-summary">
        <Difference reconciled={reconciled} ticked={tickedCents} statement={statement} />
        <ErrorNote error={finish.error} />
        {done && (
          <p role="status" className="notice">
            {t('reconcile.done', { name: account.name, date: formatDate(done.statement_date), balance: formatCents(done.statement_balance_cents) })}{' '}
            <Link to={registerPath(account.id)}>{t('reconcile.seeInRegister')}</Link>
          </p>
        )}
        <button type="submit" disabled={finish.busy || !agrees || !current || tooEarly}>
          {t('reconcile.finish')}
        </button>
      </div>
    </form>
  );
}

/** The accounts a statement can be reconciled against, each a link to its Reconcile page. */
function Choose({ accounts }: { accounts: Account[] }) {
  const { words } = useApp();
  const { t } = useTranslation();
  const reconcilable = accounts.filter((a) => RECONCILABLE.has(a.kind));
  // English runs the kinds into its sentence in lower case; German quotes them as written (its nouns are capitalised).
  const kind = (word: string) => (currentLanguage() === 'en' ? word.toLowerCase() : word);
  if (reconcilable.length === 0) return <p>{t('reconcile.noAccounts', { asset: kind(words.kinds.asset), liability: kind(words.kinds.liability) })}</p>;
  return (
    <ul className="plain stack">
      {reconcilable.map((a) => (
        <li key={a.id}>
          <Link to={reconcilePath(a.id)}>{t('reconcile.reconcileAccount', { name: a.name })}</Link> <span className="muted">({words.kinds[a.kind]})</span>
        </li>
      ))}
    </ul>
  );
}

/** D20: /reconcile?account=<id>, the Reconcile page of an asset or liability account; without one, a choice. */
export function Reconcile() {
  const { path } = useApp();
  const { t } = useTranslation();
  const accountId = new URLSearchParams(path.split('?')[1] ?? '').get('account');
  const [accounts, setAccounts] = useState<Account[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<Account[]>('GET', '/accounts').then(setAccounts, (e: Error) => setError(e.message));
  }, []);

  const account = accounts?.find((a) => String(a.id) === accountId);
  const heading = account ? t('reconcile.reconcileAccount', { name: account.name }) : t('reconcile.title');
  return (
    <main>
      <PageHeading>{heading}</PageHeading>
      {error ? (
        <ErrorNote error={error} />
      ) : !accounts ? (
        <Loading />
      ) : account && RECONCILABLE.has(account.kind) ? (
        <ReconcileForm key={account.id} account={account} />
      ) : (
        <>
          {accountId && <p>{account ? t('reconcile.notReconcilable', { name: account.name }) : t('reconcile.noSuchAccount')}</p>}
          <p>{t('reconcile.choose')}</p>
          <Choose accounts={accounts} />
        </>
      )}
    </main>
  );
}
