import { useCallback, useEffect, useState } from 'react';
import { api, type Account, type Transaction } from '../api';
import { useApp } from '../app';
import { ErrorNote, Loading, Money, useSubmit } from '../components';
import { formatDate, parseMoney, today } from '../money';

type Mode = 'in' | 'out' | 'move' | 'split';

function AccountSelect({ label, accounts, value, onChange }: { label: string; accounts: Account[]; value: string; onChange(v: string): void }) {
  const { words } = useApp();
  const kinds = ['asset', 'liability', 'equity', 'income', 'expense'] as const;
  return (
    <label>
      {label}
      <select required value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Choose…</option>
        {kinds.map((kind) => (
          <optgroup key={kind} label={words.kinds[kind]}>
            {accounts.filter((a) => a.kind === kind).map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
    </label>
  );
}

/**
 * Money in / money out / move are client words for two-entry transactions (D6): the account that
 * receives gets +amount, the one that gives −amount.
 */
function RecordForm({ accounts, onSaved }: { accounts: Account[]; onSaved(): void }) {
  const { words } = useApp();
  const [mode, setMode] = useState<Mode>('in');
  const [date, setDate] = useState(today());
  const [description, setDescription] = useState('');
  const [amount, setAmount] = useState('');
  const [into, setInto] = useState('');
  const [from, setFrom] = useState('');
  const [lines, setLines] = useState([{ account: '', amount: '' }, { account: '', amount: '' }]);

  const submit = useSubmit(async () => {
    let entries: { account_id: number; amount_cents: number }[];
    if (mode === 'split') {
      entries = lines.map((line, i) => {
        const cents = parseMoney(line.amount.replace(/^-/, ''));
        if (cents === null || !line.account) throw new Error(`Line ${i + 1}: choose an account and an amount like 12.50.`);
        return { account_id: Number(line.account), amount_cents: line.amount.trim().startsWith('-') ? -cents : cents };
      });
    } else {
      const cents = parseMoney(amount);
      if (cents === null || cents === 0) throw new Error('Enter an amount like 12.50.');
      entries = [
        { account_id: Number(into), amount_cents: cents },
        { account_id: Number(from), amount_cents: -cents },
      ];
    }
    await api('POST', '/transactions', { occurred_on: date, description, entries });
    setDescription('');
    setAmount('');
    onSaved();
  });

  const labels: Record<Exclude<Mode, 'split'>, [string, string]> = {
    in: ['Into', 'From (where the money comes from)'],
    out: ['Paid from', 'Spent on'],
    move: ['From', 'To'],
  };
  return (
    <form onSubmit={submit.onSubmit} className="record">
      <fieldset className="modes">
        <legend>What happened?</legend>
        {(
          [
            ['in', words.moneyIn],
            ['out', words.moneyOut],
            ['move', words.move],
            ['split', 'Split (advanced)'],
          ] as const
        ).map(([value, label]) => (
          <label key={value} className="mode">
            <input type="radio" name="mode" value={value} checked={mode === value} onChange={() => setMode(value)} />
            {label}
          </label>
        ))}
      </fieldset>
      <label>
        Date
        <input type="date" required value={date} onChange={(e) => setDate(e.target.value)} />
      </label>
      <label>
        Description
        <input required value={description} onChange={(e) => setDescription(e.target.value)} maxLength={500} />
      </label>
      {mode === 'split' ? (
        <fieldset>
          <legend>Entries (positive goes into an account, negative comes out; they must add up to zero)</legend>
          {lines.map((line, i) => (
            <div className="row" key={i}>
              <AccountSelect
                label={`Account ${i + 1}`}
                accounts={accounts}
                value={line.account}
                onChange={(v) => setLines(lines.map((l, j) => (j === i ? { ...l, account: v } : l)))}
              />
              <label>
                Amount {i + 1}
                <input
                  inputMode="decimal"
                  required
                  value={line.amount}
                  onChange={(e) => setLines(lines.map((l, j) => (j === i ? { ...l, amount: e.target.value } : l)))}
                />
              </label>
            </div>
          ))}
          <button type="button" className="secondary" onClick={() => setLines([...lines, { account: '', amount: '' }])}>
            Add a line
          </button>
        </fieldset>
      ) : (
        <>
          <label>
            Amount
            <input inputMode="decimal" required placeholder="12.50" value={amount} onChange={(e) => setAmount(e.target.value)} />
          </label>
          {mode === 'in' ? (
            <>
              <AccountSelect label={labels.in[0]} accounts={accounts} value={into} onChange={setInto} />
              <AccountSelect label={labels.in[1]} accounts={accounts} value={from} onChange={setFrom} />
            </>
          ) : (
            <>
              <AccountSelect label={labels[mode][0]} accounts={accounts} value={from} onChange={setFrom} />
              <AccountSelect label={labels[mode][1]} accounts={accounts} value={into} onChange={setInto} />
            </>
          )}
        </>
      )}
      <ErrorNote error={submit.error} />
      <button type="submit" disabled={submit.busy}>
        {submit.busy ? 'Saving…' : 'Save'}
      </button>
    </form>
  );
}

export function Transactions() {
  const [accounts, setAccounts] = useState<Account[] | null>(null);
  const [list, setList] = useState<Transaction[] | null>(null);
  const [range, setRange] = useState({ from: '', to: '' });
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      const query = new URLSearchParams(Object.entries(range).filter(([, v]) => v));
      setAccounts(await api<Account[]>('GET', '/accounts'));
      setList(await api<Transaction[]>('GET', `/transactions${query.size ? `?${query}` : ''}`));
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

  if (!accounts || !list) return error ? <ErrorNote error={error} /> : <Loading />;
  return (
    <main>
      <h1>Transactions</h1>
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
        {list.length === 0 ? (
          <p>No transactions in this period.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Description</th>
                <th scope="col">Entries</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
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
                    <button type="button" className="secondary" onClick={() => void remove(t)} aria-label={`Delete ${t.description}`}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </main>
  );
}
