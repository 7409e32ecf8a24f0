import { useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, withQuery, type Account, type Transaction } from '../api';
import { useApp } from '../app';
import { BalanceTable, ErrorNote, Link, Loading, Money, PageHeading, Scroll, TableHead } from '../components';
import { daysBefore, formatCents, formatDate, today } from '../money';
import { startingBalanceInWords, startingBalanceOf } from '../words';
import { amountMoved, directionOf } from '../../book/rules';
import { BudgetCard } from './BudgetCard';
import { ComingUp } from './ComingUp';

type Balance = Account & { balance_cents: number };
interface Month {
  month: string;
  income_cents: number;
  expense_cents: number;
}

const RECENT = 8;

/**
 * The latest transactions without loading the whole history: the last month, and the last year
 * when that month holds fewer than RECENT (GET /transactions filters by dates only).
 */
async function recentTransactions(): Promise<Transaction[]> {
  const to = today();
  let list: Transaction[] = [];
  for (const days of [31, 366]) {
    list = await api<Transaction[]>('GET', withQuery('/transactions', { from: daysBefore(to, days), to }));
    if (list.length >= RECENT) break;
  }
  return list.slice(0, RECENT);
}

const amountOf = (t: Transaction) => amountMoved(t.entries);

function MonthCards({ month }: { month: Month | null }) {
  const { words } = useApp();
  const { t } = useTranslation();
  return (
    <section className="cards" aria-label={t('home.thisMonth')}>
      <div className="card">
        <h2>{words.thisMonthIn}</h2>
        <Money cents={month?.income_cents ?? 0} />
      </div>
      <div className="card">
        <h2>{words.thisMonthOut}</h2>
        <Money cents={month?.expense_cents ?? 0} />
      </div>
    </section>
  );
}

/** What we have (assets) and what we owe (liabilities), each in its natural sign (D6). */
function BalancesSections({ balances }: { balances: Balance[] }) {
  const { words } = useApp();
  const assets = balances.filter((a) => a.kind === 'asset');
  const liabilities = balances.filter((a) => a.kind === 'liability');
  return (
    <>
      <section aria-labelledby="assets-heading">
        <h2 id="assets-heading">{words.kinds.asset}</h2>
        {assets.length === 0 ? (
          <p>
            <Trans i18nKey="home.noAccounts" components={{ add: <Link to="/accounts">{null}</Link> }} />
          </p>
        ) : (
          <BalanceTable lines={assets} />
        )}
      </section>
      {liabilities.length > 0 && (
        <section aria-labelledby="liabilities-heading">
          <h2 id="liabilities-heading">{words.kinds.liability}</h2>
          <BalanceTable lines={liabilities} />
        </section>
      )}
    </>
  );
}

/**
 * The recent transactions, each with what it was (money in, out, moved) beside the amount it moved
 * (finding 4); an opening balance told as such, never as spending (issue 37 item 7: "Opening
 * balance: we owe $1,204.33 on Visa card").
 */
function RecentTable({ recent, accounts }: { recent: Transaction[]; accounts: Account[] }) {
  const { words, bookStyle } = useApp();
  const { t: translate } = useTranslation();
  const kindOf = (id: number) => accounts.find((a) => a.id === id)?.kind;
  const what = (t: Transaction) => {
    const balance = startingBalanceOf(t.entries, kindOf);
    if (balance === null) return words.happened[directionOf(t.entries, kindOf)];
    const { lead, rest } = startingBalanceInWords(bookStyle, balance, t.description, formatCents);
    return translate('home.startingBalance', { lead, rest });
  };
  return (
    <section aria-labelledby="recent-heading">
      <h2 id="recent-heading">{translate('home.recent')}</h2>
      {recent.length === 0 ? (
        <p>{translate('home.nothingRecent')}</p>
      ) : (
        <Scroll>
          <table aria-labelledby="recent-heading">
            <TableHead
              columns={[translate('home.columns.date'), translate('home.columns.description'), translate('home.columns.what'), translate('home.columns.amount')]}
              numeric={[translate('home.columns.amount')]}
            />
            <tbody>
              {recent.map((t) => (
                <tr key={t.id}>
                  <td>{formatDate(t.occurred_on)}</td>
                  <th scope="row">
                    <Link to={`/transactions?edit=${t.id}`}>{t.description}</Link>
                  </th>
                  <td>{what(t)}</td>
                  <td className="num">
                    <Money cents={amountOf(t)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
      <p>
        <Link to="/transactions">{translate('home.allTransactions')}</Link>
      </p>
    </section>
  );
}

/** Home (D9): balances by account in natural sign, this month's money in and out, recent transactions. */
export function Home() {
  const [data, setData] = useState<{ balances: Balance[]; month: Month | null; recent: Transaction[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { t } = useTranslation();

  // A date posted from "Coming up" moves the balances and the recent transactions.
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const day = today();
    Promise.all([
      api<{ accounts: Balance[] }>('GET', withQuery('/reports/balances', { as_of: day })),
      api<Month[]>('GET', withQuery('/reports/monthly', { from: `${day.slice(0, 8)}01`, to: day })),
      recentTransactions(),
    ])
      .then(([b, m, recent]) => setData({ balances: b.accounts, month: m.at(-1) ?? null, recent }))
      .catch((e: Error) => setError(e.message));
  }, [version]);

  return (
    <main>
      <PageHeading>{t('home.title')}</PageHeading>
      {error ? (
        <ErrorNote error={error} />
      ) : !data ? (
        <Loading />
      ) : (
        <>
          <MonthCards month={data.month} />
          <BudgetCard />
          <ComingUp accounts={data.balances} onPosted={() => setVersion((v) => v + 1)} />
          <BalancesSections balances={data.balances} />
          <RecentTable recent={data.recent} accounts={data.balances} />
        </>
      )}
    </main>
  );
}
