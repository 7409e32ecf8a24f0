import { useCallback, useEffect, useState } from 'react';
import { api, withQuery, type Account, type Transaction } from '../api';
import { ErrorNote, Loading, Money, PageHeading, Scroll, TableHead } from '../components';
import { formatDate } from '../money';
import { RecordForm } from './RecordForm';

function History({ list, onDelete }: { list: Transaction[]; onDelete(t: Transaction): void }) {
  if (list.length === 0) return <p>No transactions in this period.</p>;
  return (
    <Scroll>
      <table aria-labelledby="list-heading">
        <TableHead columns={['Date', 'Description', 'Entries']} actions />
        <tbody>
          {list.map((t) => (
            <tr key={t.id}>
              <td>{formatDate(t.occurred_on)}</td>
              <td>{t.description}</td>
              <td>
                <ul className="plain">
                  {t.entries.map((e, i) => (
                    <li key={i}>
                      {e.account_name} <Money cents={e.amount_cents} />
                    </li>
                  ))}
                </ul>
              </td>
              <td>
                <button type="button" className="secondary" onClick={() => onDelete(t)} aria-label={`Delete ${t.description}`}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}

export function Transactions() {
  const [accounts, setAccounts] = useState<Account[] | null>(null);
  const [list, setList] = useState<Transaction[] | null>(null);
  const [range, setRange] = useState({ from: '', to: '' });
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setAccounts(await api<Account[]>('GET', '/accounts'));
      setList(await api<Transaction[]>('GET', withQuery('/transactions', range)));
    } catch (e) {
      setError((e as Error).message);
    }
  }, [range]);
  useEffect(() => void load(), [load]);

  const remove = async (t: Transaction) => {
    if (!window.confirm(`Delete "${t.description}" of ${formatDate(t.occurred_on)}?`)) return;
    try {
      await api('DELETE', `/transactions/${t.id}`);
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <main>
      <PageHeading>Transactions</PageHeading>
      {!accounts || !list ? (
        error ? <ErrorNote error={error} /> : <Loading />
      ) : (
        <>
          <section aria-labelledby="record-heading">
            <h2 id="record-heading">Record</h2>
            <RecordForm accounts={accounts} onSaved={() => void load()} />
          </section>
          <section aria-labelledby="list-heading">
            <h2 id="list-heading">History</h2>
            <div className="row">
              <label>
                From
                <input type="date" value={range.from} onChange={(e) => setRange({ ...range, from: e.target.value })} />
              </label>
              <label>
                To
                <input type="date" value={range.to} onChange={(e) => setRange({ ...range, to: e.target.value })} />
              </label>
            </div>
            <ErrorNote error={error} />
            <History list={list} onDelete={(t) => void remove(t)} />
          </section>
        </>
      )}
    </main>
  );
}
