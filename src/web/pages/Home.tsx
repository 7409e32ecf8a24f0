import { useEffect, useState } from 'react';
import { api, type Account, type Transaction } from '../api';
import { useApp } from '../app';
import { BalanceTable, ErrorNote, Link, Loading, Money } from '../components';
import { formatDate, today } from '../money';

interface Balances {
  accounts: (Account & { balance_cents: number })[];
}
interface Month {
  month: string;
  income_cents: number;
  expense_cents: number;
}

/** Home (D9): balances by account in natural sign, this month's money in and out, recent transactions. */
export function Home() {
  const { words } = useApp();
  const [balances, setBalances] = useState<Balances | null>(null);
  const [month, setMonth] = useState<Month | null>(null);
  const [recent, setRecent] = useState<Transaction[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const first = `${today().slice(0, 8)}01`;
    Promise.all([
      api<Balances>('GET', '/reports/balances'),
      api<Month[]>('GET', `/reports/monthly?from=${first}&to=${today()}`),
      api<Transaction[]>('GET', '/transactions'),
    ])
      .then(([b, m, t]) => {
        setBalances(b);
        setMonth(m.at(-1) ?? null);
        setRecent(t.slice(0, 8));
      })
      .catch((e: Error) => setError(e.message));
  }, []);

  if (error) return <ErrorNote error={error} />;
  if (!balances || !recent) return <Loading />;
  const assets = balances.accounts.filter((a) => a.kind === 'asset');
  return (
    <main>
      <h1>Home</h1>
      <section className="cards" aria-label="This month">
        <div className="card">
          <h2>{words.moneyIn} this month</h2>
          <Money cents={month?.income_cents ?? 0} />
        </div>
        <div className="card">
          <h2>{words.moneyOut} this month</h2>
          <Money cents={month?.expense_cents ?? 0} />
        </div>
      </section>
      <section aria-labelledby="balances-heading">
        <h2 id="balances-heading">{words.kinds.asset}</h2>
        {assets.length === 0 ? (
          <p>
            No accounts yet. <Link to="/accounts">Add one</Link>.
          </p>
        ) : (
          <BalanceTable lines={assets} />
        )}
      </section>
      <section aria-labelledby="recent-heading">
        <h2 id="recent-heading">Recent transactions</h2>
        {recent.length === 0 ? (
          <p>Nothing recorded yet.</p>
        ) : (
          <ul className="plain">
            {recent.map((t) => (
              <li key={t.id}>
                {formatDate(t.occurred_on)} — {t.description}
              </li>
            ))}
          </ul>
        )}
        <Link to="/transactions">All transactions</Link>
      </section>
    </main>
  );
}
