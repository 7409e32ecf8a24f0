import { useEffect, useState } from 'react';
import { api, withQuery, type Account, type AccountRegister, type ReconciliationState, type RegisterLine } from '../api';
import { useApp } from '../app';
import { ErrorNote, Link, Loading, Money, Scroll, TableHead } from '../components';
import { formatCents, formatDate } from '../money';
import { reconciledThrough, reconcilePath } from './Reconcile';
import { useReport } from './useReport';

/** D20: a ✓ on a reconciled line, said in words to a screen reader. */
export function ReconciledMark() {
  return (
    <span className="reconciled" title="Reconciled">
      {' '}
      ✓<span className="visually-hidden"> reconciled</span>
    </span>
  );
}

function RegisterTable({ register }: { register: AccountRegister }) {
  return (
    <Scroll>
      <table aria-labelledby="register-heading">
        <TableHead columns={['Date', 'Description', 'Amount', 'Balance']} numeric={['Amount', 'Balance']} />
        <tbody>
          <tr>
            <td colSpan={3}>Opening balance</td>
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
  const [state, setState] = useState<ReconciliationState | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [undone, setUndone] = useState<string | null>(null);
  useEffect(() => {
    api<ReconciliationState>('GET', `/accounts/${account.id}/reconciliation`).then(setState, (e: Error) => setError(e.message));
  }, [account.id]);

  const undo = async () => {
    const last = state?.last;
    if (!last) return;
    const what = `the reconciliation of ${account.name} through ${formatDate(last.statement_date)} at ${formatCents(last.statement_balance_cents)}`;
    if (!window.confirm(`Undo ${what}? Its transactions can be changed again until they are reconciled anew.`)) return;
    setError(null);
    try {
      await api('DELETE', `/reconciliations/${last.id}`);
      setUndone(`Undid ${what}.`);
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
          Reconcile<span className="visually-hidden"> {account.name}</span>
        </Link>
        {state?.last && (
          <button type="button" className="secondary" onClick={() => void undo()}>
            Undo the last reconciliation
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
  const [registerOf, setRegisterOf] = useState(() => new URLSearchParams(path.split('?')[1] ?? '').get('account') ?? '');
  // An undone reconciliation takes the ✓ off its lines: the register is asked for again.
  const [version, setVersion] = useState(0);
  const account = accounts.find((a) => String(a.id) === registerOf);

  return (
    <section aria-labelledby="register-heading">
      <h2 id="register-heading">Account register</h2>
      <label>
        Account
        <select value={registerOf} onChange={(e) => setRegisterOf(e.target.value)}>
          <option value="">Choose…</option>
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
