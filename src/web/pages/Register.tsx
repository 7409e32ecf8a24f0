import { useState } from 'react';
import { withQuery, type Account, type AccountRegister } from '../api';
import { ErrorNote, Link, Loading, Money, Scroll, TableHead } from '../components';
import { formatDate } from '../money';
import { useReport } from './useReport';

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
  // The answer for the account and period chosen last only (issue 6/7 finding 7).
  const register = useReport<AccountRegister>(registerOf ? withQuery(`/reports/accounts/${registerOf}/register`, period) : null);

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
      <ErrorNote error={register.error} />
      {registerOf && !register.error && (register.data && register.current ? <RegisterTable register={register.data} /> : <Loading />)}
    </section>
  );
}
