import { useCallback, useEffect, useState } from 'react';
import { api, type Account, type Kind } from '../api';
import { useApp } from '../app';
import { BalanceTable, ErrorNote, Loading, useSubmit } from '../components';

const KINDS: Kind[] = ['asset', 'liability', 'equity', 'income', 'expense'];

export function Accounts() {
  const { words } = useApp();
  const [balances, setBalances] = useState<(Account & { balance_cents: number })[] | null>(null);
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Kind>('asset');

  const load = useCallback(async () => {
    setBalances((await api<{ accounts: (Account & { balance_cents: number })[] }>('GET', '/reports/balances')).accounts);
  }, []);
  useEffect(() => void load(), [load]);

  const create = useSubmit(async () => {
    await api('POST', '/accounts', { name, kind });
    setName('');
    await load();
  });

  if (!balances) return <Loading />;
  return (
    <main>
      <h1>Accounts</h1>
      {KINDS.map((k) => {
        const of = balances.filter((a) => a.kind === k);
        return (
          <section key={k} aria-label={words.kinds[k]}>
            <h2>{words.kinds[k]}</h2>
            {of.length === 0 ? (
              <p className="muted">None yet.</p>
            ) : (
              <BalanceTable lines={of} />
            )}
          </section>
        );
      })}
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
    </main>
  );
}
