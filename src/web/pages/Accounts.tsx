import { useCallback, useEffect, useState } from 'react';
import { api, withQuery, type Account, type Kind } from '../api';
import { useApp } from '../app';
import { BalanceTable, ErrorNote, Loading, PageHeading, useSubmit } from '../components';
import { today } from '../money';

const KINDS: Kind[] = ['asset', 'liability', 'equity', 'income', 'expense'];
type Balance = Account & { balance_cents: number };

function Balances({ balances }: { balances: Balance[] }) {
  const { words } = useApp();
  return KINDS.map((k) => {
    const of = balances.filter((a) => a.kind === k);
    return (
      <section key={k} aria-label={words.kinds[k]}>
        <h2>{words.kinds[k]}</h2>
        {of.length === 0 ? <p className="muted">None yet.</p> : <BalanceTable lines={of} />}
      </section>
    );
  });
}

function NewAccount({ onCreated }: { onCreated(): Promise<void> }) {
  const { words } = useApp();
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
        <label>
          Name
          <input required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {words.kinds[k]}
              </option>
            ))}
          </select>
        </label>
        <ErrorNote error={create.error} />
        <button type="submit" disabled={create.busy}>
          Add account
        </button>
      </form>
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
    </main>
  );
}
