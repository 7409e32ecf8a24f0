import { useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, withQuery, type Account, type AccountRegister, type ReconciliationState, type RegisterLine } from '../api';
import { useApp } from '../app';
import { ErrorNote, Link, Loading, Money, Scroll, TableHead } from '../components';
import { formatCents, formatDate } from '../money';
import { reconciledThrough, reconcilePath } from './Reconcile';
import { useReport } from './useReport';

/** D20: a ✓ on a reconciled line, said in words to a screen reader. */
export function ReconciledMark() {
  const { t } = useTranslation();
  return (
    <span className="reconciled" title={t('reconcile.reconciledMark')}>
      {' '}
      ✓<span className="visually-hidden">{t('reconcile.reconciledMarkHidden')}</span>
    </span>
  );
}

function RegisterTable({ register }: { register: AccountRegister }) {
  const { t } = useTranslation();
  const [amount, balance] = [t('reports.register.columnAmount'), t('reports.register.columnBalance')];
  return (
    <Scroll>
      <table aria-labelledby="register-heading">
        <TableHead columns={[t('reports.register.columnDate'), t('reports.register.columnDescription'), amount, balance]} numeric={[amount, balance]} />
        <tbody>
          <tr>
            <td colSpan={3}>{t('reports.register.openingBalance')}</td>
            <td className="num">
              <Money cents={register.opening_balance_cents} />
            </td>
          </tr>
          {register.entries.map((e: RegisterLine, i) => (
            <tr key={i}>
              <td>{formatDate(e.occurred_on)}</td>
              <td>
                <Link to={`/transactions?edit=${e.transaction_id}`}>{e.description}</Link>
                {e.reconciled && <ReconciledMark />}
              </td>
              <td className="num">
                <Money cents={e.amount_cents} />
              </td>
              <td className="num">
                <Money cents={e.balance_cents} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}

/**
 * D20: how far a bank, cash or card account is reconciled ("Reconciled through 31 Mar 2026:
 * €2,548.15"), its Reconcile page, and the last reconciliation undone after asking.
 */
function Reconciliation({ account, onUndone }: { account: Account; onUndone(): void }) {
  const { t } = useTranslation();
  const [state, setState] = useState<ReconciliationState | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [undone, setUndone] = useState<string | null>(null);
  useEffect(() => {
    api<ReconciliationState>('GET', `/accounts/${account.id}/reconciliation`).then(setState, (e: Error) => setError(e.message));
  }, [account.id]);

  const undo = async () => {
    const last = state?.last;
    if (!last) return;
    const what = { name: account.name, date: formatDate(last.statement_date), balance: formatCents(last.statement_balance_cents) };
    if (!window.confirm(t('reconcile.undoQuestion', what))) return;
    setError(null);
    try {
      await api('DELETE', `/reconciliations/${last.id}`);
      setUndone(t('reconcile.undone', what));
      setState(await api<ReconciliationState>('GET', `/accounts/${account.id}/reconciliation`));
      onUndone();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <div className="stack">
      <div className="row reconciliation">
        <span>{state ? `${reconciledThrough(state.last)}.` : ' '}</span>
        <Link to={reconcilePath(account.id)}>
          <Trans i18nKey="reconcile.reconcileLink" values={{ name: account.name }} components={{ hidden: <span className="visually-hidden" /> }} />
        </Link>
        {state?.last && (
          <button type="button" className="secondary" onClick={() => void undo()}>
            {t('reconcile.undoLast')}
          </button>
        )}
      </div>
      {undone && (
        <p role="status" className="notice">
          {undone}
        </p>
      )}
      <ErrorNote error={error} />
    </div>
  );
}

function RegisterLines({ account, period }: { account: Account; period: { from: string; to: string } }) {
  // The answer for the account and period chosen last only (issue 6/7 finding 7).
  const register = useReport<AccountRegister>(withQuery(`/reports/accounts/${account.id}/register`, period));
  return (
    <>
      <ErrorNote error={register.error} />
      {!register.error && (register.data && register.current ? <RegisterTable register={register.data} /> : <Loading />)}
    </>
  );
}

/**
 * One account's entries over the period with the running balance (natural sign), a ✓ on each
 * reconciled one (D20); `/reports?account=<id>` opens it on that account.
 */
export function Register({ accounts, period }: { accounts: Account[]; period: { from: string; to: string } }) {
  const { path } = useApp();
  const { t } = useTranslation();
  const [registerOf, setRegisterOf] = useState(() => new URLSearchParams(path.split('?')[1] ?? '').get('account') ?? '');
  // An undone reconciliation takes the ✓ off its lines: the register is asked for again.
  const [version, setVersion] = useState(0);
  const account = accounts.find((a) => String(a.id) === registerOf);

  return (
    <section aria-labelledby="register-heading">
      <h2 id="register-heading">{t('reports.register.heading')}</h2>
      <label>
        {t('reports.register.account')}
        <select value={registerOf} onChange={(e) => setRegisterOf(e.target.value)}>
          <option value="">{t('reports.register.choose')}</option>
          {accounts.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
        </select>
      </label>
      {account && (account.kind === 'asset' || account.kind === 'liability') && (
        <Reconciliation key={account.id} account={account} onUndone={() => setVersion((v) => v + 1)} />
      )}
      {account && <RegisterLines key={`${account.id}:${version}`} account={account} period={period} />}
    </section>
  );
}
