import { useCallback, useEffect, useState } from 'react';
import { api, withQuery, type Account, type Kind } from '../api';
import { useApp } from '../app';
import { BalanceTable, ErrorNote, Link, Loading, PageHeading, useSubmit } from '../components';
import { today } from '../money';
import { reconcilePath, registerPath } from './Reconcile';

const KINDS: Kind[] = ['asset', 'liability', 'equity', 'income', 'expense'];
type Balance = Account & { balance_cents: number };

function Balances({ balances }: { balances: Balance[] }) {
  const { words } = useApp();
  return KINDS.map((k) => {
    const of = balances.filter((a) => a.kind === k);
    return (
      <section key={k} aria-label={words.accountHeadings[k]}>
        <h2>{words.accountHeadings[k]}</h2>
        {of.length === 0 ? <p className="muted">None yet.</p> : <BalanceTable lines={of} />}
      </section>
    );
  });
}

/** An account's name and kind, labelled for the form they are in ("Name", or "Name of Bank"). */
function AccountFields({ of, name, kind, onName, onKind }: { of?: string; name: string; kind: Kind; onName(name: string): void; onKind(kind: Kind): void }) {
  const { words } = useApp();
  const suffix = of === undefined ? '' : ` of ${of}`;
  return (
    <>
      <label>
        Name{suffix}
        <input required maxLength={100} value={name} onChange={(e) => onName(e.target.value)} />
      </label>
      <label>
        Kind{suffix}
        <select value={kind} onChange={(e) => onKind(e.target.value as Kind)}>
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {words.kinds[k]}
            </option>
          ))}
        </select>
      </label>
    </>
  );
}

function NewAccount({ onCreated }: { onCreated(): Promise<void> }) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Kind>('asset');
  const create = useSubmit(async () => {
    await api('POST', '/accounts', { name, kind });
    setName('');
    await onCreated();
  });
  return (
    <section aria-labelledby="new-account">
      <h2 id="new-account">New account</h2>
      <form onSubmit={create.onSubmit}>
        <AccountFields name={name} kind={kind} onName={setName} onKind={setKind} />
        <ErrorNote error={create.error} />
        <button type="submit" disabled={create.busy}>
          Add account
        </button>
      </form>
    </section>
  );
}

/** D15: rename an account or fix its kind; delete one nothing uses; see its register and history; reconcile a bank, cash or card account (D20). */
function ManageAccount({ account, onChanged }: { account: Account; onChanged(): Promise<void> }) {
  const [name, setName] = useState(account.name);
  const [kind, setKind] = useState<Kind>(account.kind);
  const save = useSubmit(async () => {
    await api('PUT', `/accounts/${account.id}`, { name, kind });
    await onChanged();
  });
  const remove = useSubmit(async () => {
    if (!window.confirm(`Delete the account "${account.name}"?`)) return;
    await api('DELETE', `/accounts/${account.id}`);
    await onChanged();
  });
  // Closed until asked for: the page's own "Name" and "Kind" fields stay the only ones of their name.
  const [open, setOpen] = useState(false);
  return (
    <li className="manage">
      {/* The name once, then short buttons named after it for screen readers (issue 6/7 finding 8: whole on a phone). */}
      <div className="row">
        <strong className="name">{account.name}</strong>
        <span className="row actions">
          <button type="button" className="secondary" aria-label={`Change ${account.name}`} aria-expanded={open} onClick={() => setOpen(!open)}>
            Change
          </button>
          <button type="button" className="secondary" aria-label={`Delete ${account.name}`} disabled={remove.busy} onClick={() => void remove.onSubmit()}>
            Delete
          </button>
          <Link to={registerPath(account.id)}>
            Register<span className="visually-hidden"> of {account.name}</span>
          </Link>
          {(account.kind === 'asset' || account.kind === 'liability') && (
            <Link to={reconcilePath(account.id)}>
              Reconcile<span className="visually-hidden"> {account.name}</span>
            </Link>
          )}
          <Link to={`/history?subject=account&subject_id=${account.id}`}>
            History<span className="visually-hidden"> of {account.name}</span>
          </Link>
        </span>
      </div>
      {open && (
        <form aria-label={`Change ${account.name}`} className="row" onSubmit={save.onSubmit}>
          <AccountFields of={account.name} name={name} kind={kind} onName={setName} onKind={setKind} />
          <button type="submit" disabled={save.busy || (name === account.name && kind === account.kind)}>
            Save {account.name}
          </button>
        </form>
      )}
      <ErrorNote error={save.error ?? remove.error} />
    </li>
  );
}

function ManageAccounts({ balances, onChanged }: { balances: Balance[]; onChanged(): Promise<void> }) {
  return (
    <section aria-labelledby="manage-accounts">
      <h2 id="manage-accounts">Change or delete</h2>
      <ul className="plain">
        {balances.map((a) => (
          <ManageAccount key={`${a.id}:${a.name}:${a.kind}`} account={a} onChanged={onChanged} />
        ))}
      </ul>
    </section>
  );
}

export function Accounts() {
  const [balances, setBalances] = useState<Balance[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    // as_of = today where the person is, as the transaction forms date things (not the API's UTC today).
    setBalances((await api<{ accounts: Balance[] }>('GET', withQuery('/reports/balances', { as_of: today() }))).accounts);
  }, []);
  useEffect(() => void load().catch((e: Error) => setError(e.message)), [load]);

  return (
    <main>
      <PageHeading>Accounts</PageHeading>
      {balances ? <Balances balances={balances} /> : error ? <ErrorNote error={error} /> : <Loading />}
      <NewAccount onCreated={load} />
      {balances && <ManageAccounts balances={balances} onChanged={load} />}
    </main>
  );
}
