import { useCallback, useEffect, useId, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
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
  const { t } = useTranslation();
  const usual = due.entries.find((e) => e.amount_cents > 0)?.amount_cents ?? 0;
  const [amount, setAmount] = useState('');
  const [lines, setLines] = useState<Line[]>(due.entries.map((e) => ({ account: String(e.account_id), amount: formatAmount(e.amount_cents) })));
  const send = useSubmit(async () => {
    let entries: Entry[];
    if (two) {
      const cents = amountOrThrow(amount);
      if (cents === 0) throw new Error(t('home.comingUp.moreThanZero'));
      entries = withAmount(due.entries, cents);
    } else entries = entriesOf(lines);
    await api('POST', `/schedules/${due.schedule_id}/occurrences/${due.occurs_on}/post`, { entries });
    const total = formatCents(entries.reduce((sum, e) => sum + Math.max(0, e.amount_cents), 0));
    onPosted(t('home.comingUp.postedWith', { description: due.description, date: formatDate(due.occurs_on), amount: total }));
  });
  return (
    <form className="record other-amount" aria-label={t('home.comingUp.otherAmountForm', { description: due.description, date: formatDate(due.occurs_on) })} onSubmit={send.onSubmit}>
      {two ? (
        <AmountField label={t('home.comingUp.amountThisTime', { amount: formatCents(usual) })} value={amount} onChange={setAmount} placeholder={formatAmount(usual)} />
      ) : (
        <SplitLines accounts={accounts} lines={lines} onChange={setLines} />
      )}
      <ErrorNote error={send.error} />
      <div className="row">
        <button type="submit" disabled={send.busy}>
          {send.busy ? t('home.comingUp.posting') : t('home.comingUp.postNow')}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          {t('home.comingUp.cancel')}
        </button>
      </div>
    </form>
  );
}

/** One date waiting for a decision: Post, Skip, or post another amount; a blocked one says why. */
function Waiting({ due, accounts, onDone }: { due: DueOccurrence; accounts: Account[]; onDone(said: string): void }) {
  const { words } = useApp();
  const { t } = useTranslation();
  const [other, setOther] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const name = t('home.comingUp.occurrence', { description: due.description, date: formatDate(due.occurs_on) });
  const act = async (action: 'post' | 'skip') => {
    setBusy(true);
    setError(null);
    try {
      await api('POST', `/schedules/${due.schedule_id}/occurrences/${due.occurs_on}/${action}`);
      const values = { description: due.description, date: formatDate(due.occurs_on) };
      onDone(action === 'post' ? t('home.comingUp.posted', values) : t('home.comingUp.skipped', values));
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
        {late && <span className="late"> {t('home.comingUp.late')}</span>} — <strong>{due.description}</strong>: {whatItMoves(due.entries, accounts, words)}
      </div>
      {due.blocked && <p className="warning">{t('home.comingUp.blocked', { reason: due.blocked.replace(/\b\d{4}-\d{2}-\d{2}\b/g, formatDate) })}</p>}
      <div className="row" role="group" aria-label={name}>
        <button type="button" disabled={busy || due.blocked !== null} aria-label={t('home.comingUp.postOf', { name })} onClick={() => void act('post')}>
          {t('home.comingUp.post')}
        </button>
        <button type="button" className="secondary" disabled={busy} aria-label={t('home.comingUp.skipOf', { name })} onClick={() => void act('skip')}>
          {t('home.comingUp.skip')}
        </button>
        {!due.blocked && (
          <button type="button" className="secondary" aria-expanded={other} aria-label={t('home.comingUp.otherAmountOf', { name })} onClick={() => setOther(!other)}>
            {t('home.comingUp.otherAmount')}
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
  const { t } = useTranslation();
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
      <h2 id={heading}>{t('home.comingUp.title')}</h2>
      <p className="muted small">{t('home.comingUp.nextDays', { count: DAYS_AHEAD, date: formatDate(through) })}</p>
      <Notice said={said} />
      {error ? (
        <ErrorNote error={error} />
      ) : !data ? (
        <Loading />
      ) : data.schedules.length === 0 ? (
        <p>
          <Trans i18nKey="home.comingUp.noSchedules" components={{ make: <Link to="/schedules">{null}</Link> }} />
        </p>
      ) : (
        <>
          <h3>{t('home.comingUp.waiting')}</h3>
          {data.due.length === 0 ? (
            <p>{t('home.comingUp.nothingToDecide')}</p>
          ) : (
            <ul className="plain coming-list" aria-label={t('home.comingUp.waiting')}>
              {data.due.map((d) => (
                <Waiting key={`${d.schedule_id} ${d.occurs_on}`} due={d} accounts={accounts} onDone={done} />
              ))}
            </ul>
          )}
          <h3>{t('home.comingUp.automatic')}</h3>
          {automatic.length === 0 ? (
            <p>{t('home.comingUp.nothingAhead', { count: DAYS_AHEAD })}</p>
          ) : (
            <ul className="plain coming-list" aria-label={t('home.comingUp.automatic')}>
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
            <Link to="/schedules">{t('home.comingUp.allSchedules')}</Link>
          </p>
        </>
      )}
    </section>
  );
}
