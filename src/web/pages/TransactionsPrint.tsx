import { Trans, useTranslation } from 'react-i18next';
import { apiPage, withQuery, type Account, type ListedTransaction } from '../api';
import { useApp } from '../app';
import { Money, TableHead } from '../components';
import { formatCents, formatDate } from '../money';
import { startingBalanceInWords, startingBalanceOf } from '../words';
import { amountMoved, directionOf } from '../../book/rules';
import type { BookStyle } from '../api';
import { t as translate } from '../i18n';

// Issue 25 item 10: the Transactions page on paper. What prints is the list of the chosen dates
// (and search, and account), every row of it, under the book's name, the period and the totals;
// the form, the search boxes and the buttons stay on the screen (the print rules of styles.css).

/** What the list asks for (D15): the dates, the words or amount, the account. */
export interface ListQuery {
  from: string;
  to: string;
  q: string;
  account_id: string;
}

/** The book as a page names it (D12: the book style's words; a book keeps no other name), by its catalogue key (D29). */
const BOOK_NAME: Record<BookStyle, string> = { personal: 'transactions.print.personalBook', club: 'transactions.print.clubBook' };

/** Every transaction the list's query finds, page after page (D15 `limit` and `cursor`), for print. */
export async function everyTransaction(query: ListQuery): Promise<ListedTransaction[]> {
  const all: ListedTransaction[] = [];
  let cursor: string | undefined;
  do {
    const page = await apiPage<ListedTransaction>(withQuery('/transactions', { ...query, limit: '1000', cursor }));
    all.push(...page.items);
    cursor = page.next ?? undefined;
  } while (cursor);
  return all;
}

/** The period of the list in words ("from 1 May 2026 to 31 May 2026"; "of the whole book" without dates, issue 37 item 13). */
export function periodOf({ from, to }: { from: string; to: string }): string {
  if (from && to) return translate('transactions.print.fromTo', { from: formatDate(from), to: formatDate(to) });
  if (from) return translate('transactions.print.fromOn', { from: formatDate(from) });
  if (to) return translate('transactions.print.upTo', { to: formatDate(to) });
  return translate('transactions.print.wholeBook');
}

/**
 * The printed list: the book's name, the period (with the search and the account when there is
 * one), every transaction in the list's order, and the totals of money in, out and moved (D12
 * words), each a sum of what the transactions moved. An opening balance (or a balance set later
 * from the Accounts page) is told as such, as the Transactions list tells it, and is neither money
 * in nor out: it is counted on a line of its own (issue 37 item 7).
 */
export function PrintedList({ list, query, accounts, complete }: { list: ListedTransaction[]; query: ListQuery; accounts: Account[]; complete: boolean }) {
  const { t: say } = useTranslation();
  const { bookStyle, words } = useApp();
  const kindOf = (id: number) => accounts.find((a) => a.id === id)?.kind;
  const totals = { in: 0, out: 0, move: 0, split: 0 };
  const starting = new Map(list.map((t) => [t.id, startingBalanceOf(t.entries, kindOf)]));
  // The lead of an opening (in the chosen language, D29): any other lead is a balance set later.
  const openingLead = startingBalanceInWords(bookStyle, { account_name: '', kind: 'asset', natural_cents: 0 }, '', formatCents).lead;
  const settings = { opening: 0, set: 0 };
  for (const t of list) {
    const balance = starting.get(t.id);
    if (balance) settings[startingBalanceInWords(bookStyle, balance, t.description, formatCents).lead === openingLead ? 'opening' : 'set']++;
    else totals[directionOf(t.entries, kindOf)] += amountMoved(t.entries);
  }
  const account = accounts.find((a) => String(a.id) === query.account_id);
  const narrowed = [query.q && say('transactions.print.matching', { q: query.q }), account && say('transactions.print.onAccount', { account: account.name })].filter(Boolean).join(', ');
  return (
    <section className="print-only printed-list" aria-label={say('transactions.print.region')}>
      <p className="print-title">
        <Trans i18nKey="transactions.print.title" values={{ book: say(BOOK_NAME[bookStyle]), period: periodOf(query) }} components={{ book: <strong /> }} />
        {narrowed && `, ${narrowed}`}
      </p>
      {!complete && <p>{say('transactions.print.partial', { count: list.length })}</p>}
      <table>
        <TableHead columns={[say('transactions.list.date'), say('transactions.list.description'), say('transactions.list.whatHappened'), say('transactions.print.amount')]} numeric={[say('transactions.print.amount')]} />
        <tbody>
          {list.map((t) => {
            const balance = starting.get(t.id);
            if (balance) {
              const { lead, rest } = startingBalanceInWords(bookStyle, balance, t.description, formatCents);
              return (
                <tr key={t.id}>
                  <td>{formatDate(t.occurred_on)}</td>
                  <td>{t.description}</td>
                  <td>
                    {lead}: {rest}
                  </td>
                  <td className="num">
                    <Money cents={Math.abs(balance.natural_cents)} />
                  </td>
                </tr>
              );
            }
            const direction = directionOf(t.entries, kindOf);
            const to = t.entries.find((e) => e.amount_cents > 0);
            const from = t.entries.find((e) => e.amount_cents < 0);
            return (
              <tr key={t.id}>
                <td>{formatDate(t.occurred_on)}</td>
                <td>{t.description}</td>
                <td>
                  {words.happened[direction]}
                  {direction === 'split' ? `: ${t.entries.map((e) => e.account_name).join(', ')}` : ` ${say('transactions.list.fromTo', { from: from!.account_name, to: to!.account_name })}`}
                </td>
                <td className="num">
                  <Money cents={amountMoved(t.entries)} />
                </td>
              </tr>
            );
          })}
        </tbody>
        <tbody>
          <tr className="total">
            <th scope="row" colSpan={3}>
              {say('transactions.print.count', { count: list.length, what: words.happened.in })}
            </th>
            <td className="num">
              <Money cents={totals.in} />
            </td>
          </tr>
          <tr className="total">
            <th scope="row" colSpan={3}>
              {words.happened.out}
            </th>
            <td className="num">
              <Money cents={totals.out} />
            </td>
          </tr>
          <tr className="total">
            <th scope="row" colSpan={3}>
              {words.happened.move}
            </th>
            <td className="num">
              <Money cents={totals.move} />
            </td>
          </tr>
          {totals.split > 0 && (
            <tr className="total">
              <th scope="row" colSpan={3}>
                {words.happened.split}
              </th>
              <td className="num">
                <Money cents={totals.split} />
              </td>
            </tr>
          )}
          {settings.opening > 0 && (
            <tr className="total">
              <th scope="row" colSpan={4}>
                {say('transactions.print.openings', { count: settings.opening })}
              </th>
            </tr>
          )}
          {settings.set > 0 && (
            <tr className="total">
              <th scope="row" colSpan={4}>
                {say('transactions.print.balancesSet', { count: settings.set })}
              </th>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  );
}
