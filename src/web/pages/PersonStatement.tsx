import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, withQuery, type BookSettings, type PeopleReport, type Person, type PersonStatement as Statement } from '../api';
import { useApp } from '../app';
import { ErrorNote, Link, Loading, Money, PageHeading, Scroll, TableHead } from '../components';
import { formatCents, formatDate, today } from '../money';
import { standingInWords } from '../people-words';

// D27 (issue 40 item 3): a person's statement of account — the opening balance, each charge and
// payment with the running balance, the closing balance, between two dates (the API's defaults
// when none is chosen) — and a friendly payment reminder to print: the club's name and IBAN when
// the book knows them (D27's direct-debit settings), the amount, the months still open, the date.

/** The club's name and IBAN, from the direct-debit settings (Settings `sepa`, D27) when the book has them; else none. */
type Creditor = { name: string | null; iban: string | null };
function creditorOf(settings: BookSettings): Creditor {
  return { name: settings.sepa?.creditor_name || null, iban: settings.sepa?.creditor_iban || null };
}

/** An IBAN as people read it, in groups of four. */
const ibanShown = (iban: string) => iban.replace(/(.{4})(?=.)/g, '$1 ');

/**
 * The charges a balance still owes, oldest first: payments settle the oldest charges first (D27),
 * so the open ones are the newest charges that together come to the balance.
 */
export function openCharges(lines: Statement['lines'], balance: number): Statement['lines'] {
  const open: Statement['lines'] = [];
  let left = balance;
  for (const line of [...lines].reverse()) {
    if (left <= 0) break;
    if (line.amount_cents <= 0) continue;
    open.unshift(line);
    left -= line.amount_cents;
  }
  return open;
}

function Reminder({ person, amount, open, creditor, onClose }: { person: Person; amount: number; open: Statement['lines']; creditor: Creditor; onClose(): void }) {
  const { t } = useTranslation();
  const { bookStyle } = useApp();
  return (
    <section className="reminder" aria-labelledby="reminder-heading">
      <div className="row screen-only">
        <button type="button" onClick={() => window.print()}>
          {t('personStatement.reminder.print')}
        </button>
        <button type="button" className="secondary" onClick={onClose}>
          {t('personStatement.reminder.close')}
        </button>
      </div>
      {creditor.name && <p className="reminder-from">{creditor.name}</p>}
      <p className="reminder-date">{t('personStatement.reminder.date', { date: formatDate(today()) })}</p>
      <h2 id="reminder-heading">{t('personStatement.reminder.heading')}</h2>
      <p>{t('personStatement.reminder.dear', { name: person.name })}</p>
      <p>{t('personStatement.reminder.open', { amount: formatCents(amount), context: bookStyle })}</p>
      {open.length > 0 && (
        <ul className="reminder-months">
          {open.map((line) => (
            <li key={line.transaction_id}>
              {line.description} ({formatCents(line.amount_cents)})
            </li>
          ))}
        </ul>
      )}
      {creditor.iban ? (
        <p>{t('personStatement.reminder.payTo', { amount: formatCents(amount), iban: ibanShown(creditor.iban) })}</p>
      ) : (
        <p>{t('personStatement.reminder.pay', { amount: formatCents(amount) })}</p>
      )}
      <p>{t('personStatement.reminder.thanks', { context: bookStyle })}</p>
    </section>
  );
}

export function PersonStatement() {
  const { t } = useTranslation();
  const { path, bookStyle } = useApp();
  const id = Number(new URLSearchParams(path.split('?')[1] ?? '').get('id'));
  const [period, setPeriod] = useState({ from: '', to: '' });
  const [person, setPerson] = useState<Person | null>(null);
  const [statement, setStatement] = useState<Statement | null>(null);
  const [standing, setStanding] = useState<PeopleReport['people'][number] | null>(null);
  const [creditor, setCreditor] = useState<Creditor>({ name: null, iban: null });
  const [reminder, setReminder] = useState<Statement['lines'] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      const [p, s, owes, settings] = await Promise.all([
        api<Person>('GET', `/people/${id}`),
        api<Statement>('GET', withQuery(`/people/${id}/statement`, period)),
        api<PeopleReport>('GET', withQuery('/reports/people', { as_of: today() })),
        api<BookSettings>('GET', '/settings'),
      ]);
      setPerson(p);
      setStatement(s);
      setStanding(owes.people.find((o) => o.id === id) ?? null);
      setCreditor(creditorOf(settings));
      setError(null);
    } catch (e) {
      setError((e as Error).message);
    }
  }, [id, period]);
  useEffect(() => void load(), [load]);

  /** The reminder: the charges still open since the oldest one unpaid (GET the statement from that day), then print. */
  const remind = async () => {
    if (!standing?.overdue_since) return;
    try {
      const since = await api<Statement>('GET', withQuery(`/people/${id}/statement`, { from: standing.overdue_since, to: today() }));
      setReminder(openCharges(since.lines, standing.overdue_cents));
      setTimeout(() => window.print(), 0);
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const title = person ? t('personStatement.title', { name: person.name }) : t('personStatement.titleLoading');
  return (
    <main className={reminder ? 'reminding' : undefined}>
      <PageHeading>{title}</PageHeading>
      <p className="screen-only">
        <Link to="/people">{t('personStatement.back', { context: bookStyle })}</Link>
      </p>
      <ErrorNote error={error} />
      {person && reminder && standing && <Reminder person={person} amount={standing.overdue_cents} open={reminder} creditor={creditor} onClose={() => setReminder(null)} />}
      {!person || !statement ? (
        !error && <Loading />
      ) : (
        <section className="statement" aria-labelledby="statement-heading">
          <p className="standing">{standingInWords(bookStyle, person.balance_cents, standing?.overdue_since ?? null)}</p>
          {standing?.overdue_since && !reminder && (
            <button type="button" onClick={() => void remind()}>
              {t('personStatement.remind')}
            </button>
          )}
          <h2 id="statement-heading">{t('personStatement.period', { from: formatDate(statement.from), to: formatDate(statement.to) })}</h2>
          <form className="row screen-only" aria-label={t('personStatement.dates')} onSubmit={(e) => e.preventDefault()}>
            <label>
              {t('personStatement.from')}
              <input type="date" value={period.from || statement.from} onChange={(e) => setPeriod({ ...period, from: e.target.value })} />
            </label>
            <label>
              {t('personStatement.to')}
              <input type="date" value={period.to || statement.to} onChange={(e) => setPeriod({ ...period, to: e.target.value })} />
            </label>
          </form>
          <Scroll>
            <table aria-label={t('personStatement.table', { name: person.name })} className="person-statement">
              <TableHead columns={[t('personStatement.date'), t('personStatement.description'), t('personStatement.amount'), t('personStatement.balance')]} numeric={[t('personStatement.amount'), t('personStatement.balance')]} />
              <tbody>
                <tr className="total">
                  <td className="nowrap">{formatDate(statement.from)}</td>
                  <th scope="row">{t('personStatement.opening')}</th>
                  <td />
                  <td className="num">
                    <Money cents={statement.opening_cents} />
                  </td>
                </tr>
                {statement.lines.map((line) => (
                  <tr key={line.transaction_id}>
                    <td className="nowrap">{formatDate(line.occurred_on)}</td>
                    <td>{line.description}</td>
                    <td className="num">
                      <Money cents={line.amount_cents} />
                    </td>
                    <td className="num">
                      <Money cents={line.balance_cents} />
                    </td>
                  </tr>
                ))}
                <tr className="total">
                  <td className="nowrap">{formatDate(statement.to)}</td>
                  <th scope="row">{t('personStatement.closing')}</th>
                  <td />
                  <td className="num">
                    <Money cents={statement.closing_cents} />
                  </td>
                </tr>
              </tbody>
            </table>
          </Scroll>
          {statement.lines.length === 0 && <p className="muted">{t('personStatement.noLines')}</p>}
          <p className="muted small screen-only">{t('personStatement.signs')}</p>
        </section>
      )}
    </main>
  );
}
