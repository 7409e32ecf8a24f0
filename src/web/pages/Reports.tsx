import { useEffect, useState } from 'react';
import { api, type Account, type Section } from '../api';
import { useApp } from '../app';
import { BalanceTable, ErrorNote, Loading, Money } from '../components';
import { formatCents, formatDate, today } from '../money';

interface BalanceSheet {
  assets: Section;
  liabilities: Section;
  equity: Section;
  net_income_cents: number;
}
interface IncomeStatement {
  from: string;
  to: string;
  income: Section;
  expenses: Section;
  net_cents: number;
}
interface Month {
  month: string;
  income_cents: number;
  expense_cents: number;
  net_cents: number;
}
interface Register {
  opening_balance_cents: number;
  closing_balance_cents: number;
  entries: { transaction_id: number; occurred_on: string; description: string; amount_cents: number; balance_cents: number }[];
}

function SectionTable({ title, section }: { title: string; section: Section }) {
  return <BalanceTable caption={title} lines={section.lines} total={section.total_cents} />;
}

/** A bar chart of money in and out per month, in SVG, with the figures also in a table for screen readers. */
function MonthlyChart({ months }: { months: Month[] }) {
  const peak = Math.max(1, ...months.flatMap((m) => [m.income_cents, m.expense_cents]));
  const width = Math.max(320, months.length * 48);
  return (
    <figure>
      <svg viewBox={`0 0 ${width} 180`} role="img" aria-label="Money in and out per month" className="chart">
        {months.map((m, i) => {
          const x = i * 48 + 8;
          const hIn = (m.income_cents / peak) * 140;
          const hOut = (m.expense_cents / peak) * 140;
          return (
            <g key={m.month}>
              <rect x={x} y={150 - hIn} width={16} height={hIn} className="bar-in">
                <title>{`${m.month} in ${formatCents(m.income_cents)}`}</title>
              </rect>
              <rect x={x + 18} y={150 - hOut} width={16} height={hOut} className="bar-out">
                <title>{`${m.month} out ${formatCents(m.expense_cents)}`}</title>
              </rect>
              <text x={x} y={170} fontSize="10">
                {m.month.slice(2)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>
        <span className="legend-in">■</span> in <span className="legend-out">■</span> out
      </figcaption>
    </figure>
  );
}

export function Reports() {
  const { words } = useApp();
  const year = today().slice(0, 4);
  const [period, setPeriod] = useState({ from: `${year}-01-01`, to: today() });
  const [sheet, setSheet] = useState<BalanceSheet | null>(null);
  const [statement, setStatement] = useState<IncomeStatement | null>(null);
  const [months, setMonths] = useState<Month[] | null>(null);
  const [accounts, setAccounts] = useState<Account[]>([]);
  const [registerOf, setRegisterOf] = useState('');
  const [register, setRegister] = useState<Register | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const q = `from=${period.from}&to=${period.to}`;
    Promise.all([
      api<BalanceSheet>('GET', '/reports/balance-sheet'),
      api<IncomeStatement>('GET', `/reports/income-statement?${q}`),
      api<Month[]>('GET', `/reports/monthly?${q}`),
      api<Account[]>('GET', '/accounts'),
    ])
      .then(([s, st, m, a]) => {
        setSheet(s);
        setStatement(st);
        setMonths(m);
        setAccounts(a);
        setError(null);
      })
      .catch((e: Error) => setError(e.message));
  }, [period]);

  useEffect(() => {
    if (!registerOf) return setRegister(null);
    api<Register>('GET', `/reports/accounts/${registerOf}/register?from=${period.from}&to=${period.to}`)
      .then(setRegister)
      .catch((e: Error) => setError(e.message));
  }, [registerOf, period]);

  if (!sheet || !statement || !months) return error ? <ErrorNote error={error} /> : <Loading />;
  return (
    <main>
      <h1>Reports</h1>
      <section aria-labelledby="sheet-heading">
        <h2 id="sheet-heading">{words.balanceSheet}</h2>
        <div className="cards">
          <SectionTable title={words.kinds.asset} section={sheet.assets} />
          <SectionTable title={words.kinds.liability} section={sheet.liabilities} />
          <SectionTable title={words.kinds.equity} section={sheet.equity} />
        </div>
        <p>
          Result so far: <Money cents={sheet.net_income_cents} />
        </p>
      </section>
      <section aria-labelledby="statement-heading">
        <h2 id="statement-heading">{words.incomeStatement}</h2>
        <div className="row">
          <label>
            From
            <input type="date" value={period.from} onChange={(e) => setPeriod({ ...period, from: e.target.value })} />
          </label>
          <label>
            To
            <input type="date" value={period.to} onChange={(e) => setPeriod({ ...period, to: e.target.value })} />
          </label>
        </div>
        <ErrorNote error={error} />
        <div className="cards">
          <SectionTable title={words.kinds.income} section={statement.income} />
          <SectionTable title={words.kinds.expense} section={statement.expenses} />
        </div>
        <p>
          Net: <Money cents={statement.net_cents} />
        </p>
        <MonthlyChart months={months} />
      </section>
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
        {register && (
          <table>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Description</th>
                <th scope="col">Amount</th>
                <th scope="col">Balance</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td colSpan={3}>Opening balance</td>
                <td className="num">
                  <Money cents={register.opening_balance_cents} />
                </td>
              </tr>
              {register.entries.map((e, i) => (
                <tr key={i}>
                  <td>{formatDate(e.occurred_on)}</td>
                  <td>{e.description}</td>
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
        )}
      </section>
    </main>
  );
}
