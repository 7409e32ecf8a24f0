import { useCallback, useEffect, useId, useState } from 'react';
import { api, withQuery, type Account, type DueOccurrence, type Schedule } from '../api';
import { useApp } from '../app';
import { ErrorNote, Link, Loading, useSubmit } from '../components';
import { formatAmount, formatCents, formatDate, today } from '../money';
import { daysAfter, occurrencesOf } from '../recurrence';
import { AmountField, amountOrThrow } from './AmountField';
import { Notice } from './RecordForm';
import { dayInWords, whatItMoves } from './ScheduleForm';
import { entriesOf, SplitLines, type Line } from './SplitLines';

// D21 on Home: the next 30 days. What will post by itself (the post schedules' dates from their
// next one), and what waits for a decision (GET /schedules/due: reminders, and blocked dates with
// their reason), each with Post and Skip, and "Post now with another amount" for a bill that
// varies (the optional body of the post route).

/** How far Home looks ahead. */
const DAYS_AHEAD = 30;

type Entry = { account_id: number; amount_cents: number };

/** The entries of a two-entry occurrence with another amount (the same accounts and direction). */
function withAmount(entries: readonly Entry[], cents: number): Entry[] {
  return entries.map((e) => ({ account_id: e.account_id, amount_cents: e.amount_cents > 0 ? cents : -cents }));
}

/** "Post now with another amount": one amount for a two-entry occurrence, the lines of a split. */
function OtherAmount({ due, accounts, onPosted, onCancel }: { due: DueOccurrence; accounts: Account[]; onPosted(said: string): void; onCancel(): void }) {
  const two = due.entries.length === 2;
  const usual = due.entries.find((e) => e.amount_cents > 0)?.amount_cents ?? 0;
  const [amount, setAmount] = useState('');
  const [lines, setLines] = useState<Line[]>(due.entries.map((e) => ({ account: String(e.account_id), amount: formatAmount(e.amount_cents) })));
  const send = useSubmit(async () => {
    let entries: Entry[];
    if (two) {
      const cents = amountOrThrow(amount);
      if (cents === 0) throw new Error('Enter an amount more than zero.');
      entries = withAmount(due.entries, cents);
    } else entries = entriesOf(lines);
    await api('POST', `/schedules/${due.schedule_id}/occurrences/${due.occurs_on}/post`, { entries });
    onPosted(`Posted “${due.description}” of ${formatDate(due.occurs_on)} with ${formatCents(entries.reduce((sum, e) => sum + Math.max(0, e.amount_cents), 0))}.`);
  });
  return (
    <form className="record other-amount" aria-label={`Post ${due.description} of ${formatDate(due.occurs_on)} with another amount`} onSubmit={send.onSubmit}>
      {two ? (
        <AmountField label={`Amount this time (usually ${formatCents(usual)})`} value={amount} onChange={setAmount} placeholder={formatAmount(usual)} />
      ) : (
        <SplitLines accounts={accounts} lines={lines} onChange={setLines} />
      )}
      <ErrorNote error={send.error} />
      <div className="row">
        <button type="submit" disabled={send.busy}>
          {send.busy ? 'Posting…' : 'Post now'}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** One date waiting for a decision: Post, Skip, or post another amount; a blocked one says why. */
function Waiting({ due, accounts, onDone }: { due: DueOccurrence; accounts: Account[]; onDone(said: string): void }) {
  const { words } = useApp();
  const [other, setOther] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const name = `${due.description} of ${formatDate(due.occurs_on)}`;
  const act = async (action: 'post' | 'skip') => {
    setBusy(true);
    setError(null);
    try {
      await api('POST', `/schedules/${due.schedule_id}/occurrences/${due.occurs_on}/${action}`);
      onDone(action === 'post' ? `Posted “${due.description}” of ${formatDate(due.occurs_on)}.` : `Skipped “${due.description}” of ${formatDate(due.occurs_on)}.`);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const late = due.occurs_on < today();
  return (
    <li className="coming">
      <div>
        <span className="nowrap">{dayInWords(due.occurs_on)}</span>
        {late && <span className="late"> (late)</span>} — <strong>{due.description}</strong>: {whatItMoves(due.entries, accounts, words)}
      </div>
      {due.blocked && <p className="warning">Cannot be posted: {due.blocked.replace(/\b\d{4}-\d{2}-\d{2}\b/g, formatDate)}.</p>}
      <div className="row" role="group" aria-label={name}>
        <button type="button" disabled={busy || due.blocked !== null} aria-label={`Post ${name}`} onClick={() => void act('post')}>
          Post
        </button>
        <button type="button" className="secondary" disabled={busy} aria-label={`Skip ${name}`} onClick={() => void act('skip')}>
          Skip
        </button>
        {!due.blocked && (
          <button type="button" className="secondary" aria-expanded={other} aria-label={`Post now with another amount: ${name}`} onClick={() => setOther(!other)}>
            Post now with another amount
          </button>
        )}
      </div>
      <ErrorNote error={error} />
      {other && <OtherAmount due={due} accounts={accounts} onPosted={onDone} onCancel={() => setOther(false)} />}
    </li>
  );
}

/** Home's "Coming up" (D21): the next DAYS_AHEAD days of the book's schedules. */
export function ComingUp({ accounts, onPosted }: { accounts: Account[]; onPosted(): void }) {
  const { words } = useApp();
  const [data, setData] = useState<{ schedules: Schedule[]; due: DueOccurrence[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const heading = useId();
  const through = daysAfter(today(), DAYS_AHEAD);

  const load = useCallback(async () => {
    try {
      const [schedules, due] = await Promise.all([api<Schedule[]>('GET', '/schedules'), api<DueOccurrence[]>('GET', withQuery('/schedules/due', { through }))]);
      setData({ schedules, due });
    } catch (e) {
      setError((e as Error).message);
    }
  }, [through]);
  useEffect(() => void load(), [load]);

  const done = (message: string) => {
    setSaid(message);
    void load();
    onPosted();
  };

  // A post schedule's dates from its next one: those the server posts by itself (a blocked one is in `due`).
  const blocked = new Set(data?.due.map((d) => `${d.schedule_id} ${d.occurs_on}`));
  const automatic = (data?.schedules ?? [])
    .filter((s) => s.mode === 'post' && s.next_on && s.next_on <= through)
    .flatMap((s) => occurrencesOf(s, { from: s.next_on!, through }).map((on) => ({ schedule: s, on })))
    .filter(({ schedule, on }) => !blocked.has(`${schedule.id} ${on}`))
    .sort((a, b) => a.on.localeCompare(b.on) || a.schedule.id - b.schedule.id);

  return (
    <section aria-labelledby={heading} className="coming-up">
      <h2 id={heading}>Coming up</h2>
      <p className="muted small">The next {DAYS_AHEAD} days, through {formatDate(through)}.</p>
      <Notice said={said} />
      {error ? (
        <ErrorNote error={error} />
      ) : !data ? (
        <Loading />
      ) : data.schedules.length === 0 ? (
        <p>
          Nothing comes back yet. <Link to="/schedules">Make a schedule</Link> for rent, dues or a subscription.
        </p>
      ) : (
        <>
          <h3>Waiting for you</h3>
          {data.due.length === 0 ? (
            <p>Nothing to decide.</p>
          ) : (
            <ul className="plain coming-list" aria-label="Waiting for you">
              {data.due.map((d) => (
                <Waiting key={`${d.schedule_id} ${d.occurs_on}`} due={d} accounts={accounts} onDone={done} />
              ))}
            </ul>
          )}
          <h3>Will post by itself</h3>
          {automatic.length === 0 ? (
            <p>Nothing in the next {DAYS_AHEAD} days.</p>
          ) : (
            <ul className="plain coming-list" aria-label="Will post by itself">
              {automatic.map(({ schedule, on }) => (
                <li key={`${schedule.id} ${on}`} className="coming">
                  <div>
                    <span className="nowrap">{dayInWords(on)}</span> — <strong>{schedule.description}</strong>: {whatItMoves(schedule.entries, accounts, words)}
                  </div>
                </li>
              ))}
            </ul>
          )}
          <p>
            <Link to="/schedules">All schedules</Link>
          </p>
        </>
      )}
    </section>
  );
}
