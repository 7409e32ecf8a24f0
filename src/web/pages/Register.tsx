import { useEffect, useState } from 'react';
import { api, withQuery, type Account, type AccountRegister } from '../api';
import { ErrorNote, Link, Money, Scroll, TableHead } from '../components';
import { formatDate } from '../money';

function RegisterTable({ register }: { register: AccountRegister }) {
  return (
    <Scroll>
      <table aria-labelledby="register-heading">
        <TableHead columns={['Date', 'Description', 'Amount', 'Balance']} />
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
              <td>
                <Link to={`/transactions?edit=${e.transaction_id}`}>{e.description}</Link>
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

/** One account's entries over the period with the running balance (natural sign). */
export function Register({ accounts, period }: { accounts: Account[]; period: { from: string; to: string } }) {
  const [registerOf, setRegisterOf] = useState('');
  const [register, setRegister] = useState<AccountRegister | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!registerOf) return setRegister(null);
    api<AccountRegister>('GET', withQuery(`/reports/accounts/${registerOf}/register`, period))
      .then((r) => {
        setRegister(r);
        setError(null);
      })
      .catch((e: Error) => setError(e.message));
  }, [registerOf, period]);

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
      <ErrorNote error={error} />
      {register && <RegisterTable register={register} />}
    </section>
  );
}
