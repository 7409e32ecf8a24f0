import { useId, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, type Account, type Schedule, type ScheduleRequest } from '../api';
import { useApp } from '../app';
import { ErrorNote, useSubmit } from '../components';
import { formatAmount, formatCents, formatDate, today, utcDay } from '../money';
import { clampsMonthEnd, EVERY_UNITS, howOftenInWords, MAX_DATES_AT_ONCE, nextAfter, occurrencesOf, unitInWords, type Every, type Recurrence } from '../recurrence';
import { currentLanguage, locale, t } from '../i18n';
import type { Words } from '../words';
import { confirmFarDate, useBookYears, ModeChoice, inMode, MovementFields, movementEntries, movementOf, type Mode, type Movement, type Simple } from './RecordForm';
import { blankLines, entriesOf, SplitLines, type Line } from './SplitLines';
import { amountMoved, directionOf } from '../../book/rules';

// D21 in the web app: a schedule made, from a transaction (its next occurrence after it) or from
// the Schedules page, or changed. Before saving, the next dates are shown in words, the month's
// last day where a month is shorter than the start's day, and a start in the past says how many
// dates are already due and, for a schedule that posts itself, asks before posting them at once.

type Entry = { account_id: number; amount_cents: number };

/** A date with its weekday ("Fri, Jan 31, 2027" in en-US; "Fr., 31. Januar 2027" in German, whose dates spell the month: formatDate). */
export function dayInWords(isoDate: string): string {
  const month = currentLanguage() === 'de' ? 'long' : 'short';
  return utcDay(isoDate).toLocaleDateString(locale(), { timeZone: 'UTC', weekday: 'short', year: 'numeric', month, day: 'numeric' });
}

/** What a schedule's entries do, in the words of the book (D12): "Money out €850.00 from Bank to Hall rent". */
export function whatItMoves(entries: readonly { account_id: number; account_name: string; amount_cents: number }[], accounts: Account[], words: Words): string {
  const direction = directionOf(entries, (id) => accounts.find((a) => a.id === id)?.kind);
  if (direction === 'split') return t('schedules.moves.split', { split: words.happened.split, amount: formatCents(amountMoved(entries)) });
  const to = entries.find((e) => e.amount_cents > 0)!;
  const from = entries.find((e) => e.amount_cents < 0)!;
  return t('schedules.moves.simple', { happened: words.happened[direction], amount: formatCents(to.amount_cents), from: from.account_name, to: to.account_name });
}

/** "a and b", "a, b and c" (no comma before the last: Intl.ListFormat's English has one). */
function listed(items: string[]): string {
  return items.length < 2 ? (items[0] ?? '') : t('schedules.preview.listed', { most: items.slice(0, -1).join(', '), last: items.at(-1) });
}

/** What a schedule starts from: a transaction (its date, the first occurrence), an existing schedule, or nothing. */
export type ScheduleOrigin = { transaction: { occurred_on: string; description: string; entries: readonly Entry[] } } | { schedule: Schedule } | null;

/** The dates the schedule will handle from now: those already due (today included), and the next ones. */
interface Preview {
  series: Recurrence;
  /** The first occurrence of `series` is the transaction it was made from: never posted again. */
  anchored: boolean;
  /** At most MAX_DATES_AT_ONCE (D21's bounds: no more dates of one schedule are computed at once). */
  due: string[];
  /** More than MAX_DATES_AT_ONCE are due: the server refuses to post them at once (400). */
  tooMany: boolean;
  next: string[];
  none: boolean;
}

const PREVIEW_COUNT = 4;

function previewOf(series: Recurrence, anchored: boolean, handledBefore: string | null): Preview {
  const day = today();
  const skip = (dates: string[]) => (anchored ? dates.filter((d) => d !== series.start_on) : dates);
  // One more than the bound, to know that there are more (never a count of 105,000 dates).
  const upToOneMore = skip(occurrencesOf(series, { from: handledBefore ?? undefined, through: day, limit: MAX_DATES_AT_ONCE + 2 }));
  const due = upToOneMore.slice(0, MAX_DATES_AT_ONCE);
  const next = skip(occurrencesOf(series, { from: day > series.start_on ? day : series.start_on, limit: PREVIEW_COUNT + 2 })).filter((d) => d > day).slice(0, PREVIEW_COUNT);
  return { series, anchored, due, tooMany: upToOneMore.length > MAX_DATES_AT_ONCE, next, none: due.length === 0 && next.length === 0 };
}

/** The bound in the chosen language's figures ("1,000", "1.000"). */
const atOnce = () => MAX_DATES_AT_ONCE.toLocaleString(locale());

/**
 * D21's bounds in words: a schedule that posts itself may post at most 1,000 dates at once (the
 * server answers 400 beyond), so the form says so before anything is sent.
 */
function tooManyInWords(first: string): string {
  return t('schedules.preview.tooManyPost', { atOnce: atOnce(), first: formatDate(first) });
}

/** The preview in words: "Next: Fri, Jan 31, 2027, then Feb 28, 2027, …"; the last day of shorter months; what is due already. */
function PreviewNote({ preview, post }: { preview: Preview; post: boolean }) {
  const { t } = useTranslation();
  const { series, due, tooMany, next, none } = preview;
  if (none) return <p className="warning">{t('schedules.preview.noDate')}</p>;
  const [first, ...rest] = next;
  const clamped = clampsMonthEnd(series) ? occurrencesOf(series, { from: next[0] ?? series.start_on, limit: 50 }).find((d) => d.slice(8) !== series.start_on.slice(8)) : undefined;
  const ends = series.until_on ? ` ${t('schedules.preview.lastDate', { until: formatDate(series.until_on) })}` : '';
  const nextKey = rest.length === 0 ? 'schedules.preview.nextOnly' : next.length === PREVIEW_COUNT ? 'schedules.preview.nextThenMore' : 'schedules.preview.nextThen';
  const dueDates = listed(due.length > 4 ? [formatDate(due[0]!), '…', formatDate(due.at(-1)!)] : due.map(formatDate));
  return (
    <div className="schedule-preview stack">
      {first && (
        <p>
          <Trans i18nKey={nextKey} values={{ first: dayInWords(first), rest: rest.map(formatDate).join(', ') }} components={{ strong: <strong /> }} />
          {ends}
        </p>
      )}
      {!first && (
        <p>
          {t('schedules.preview.noDateAfterToday')}
          {ends}
        </p>
      )}
      {clamped && <p className="muted">{t('schedules.preview.clamped', { date: formatDate(clamped) })}</p>}
      {tooMany && post && <p className="warning">{tooManyInWords(due[0]!)}</p>}
      {tooMany && !post && <p className="warning">{t('schedules.preview.tooManyRemind', { atOnce: atOnce(), first: formatDate(due[0]!) })}</p>}
      {due.length > 0 && !tooMany && (
        <p className="warning">{post ? t('schedules.preview.duePost', { count: due.length, dates: dueDates }) : t('schedules.preview.dueRemind', { count: due.length, dates: dueDates })}</p>
      )}
    </div>
  );
}

/** The entries of the form, as the transaction forms ask for them: money in, out, a move, or a split. */
function useEntries(initial: readonly Entry[] | null, accounts: Account[]) {
  const [simple] = useState(() => (initial ? movementOf(initial, accounts) : null));
  const [mode, setMode] = useState<Mode>(initial && !simple ? 'split' : (simple?.mode ?? 'out'));
  const [movement, setMovement] = useState<Movement>(
    simple ? { mode: simple.mode, amount: formatAmount(simple.cents), receives: String(simple.receives), gives: String(simple.gives) } : { mode: 'out', amount: '', receives: '', gives: '' },
  );
  const [lines, setLines] = useState<Line[]>(() => (initial && !simple ? initial.map((e) => ({ account: String(e.account_id), amount: formatAmount(e.amount_cents) })) : blankLines()));
  const choose = (next: Mode) => {
    setMode(next);
    if (next !== 'split') setMovement(inMode(movement, next as Simple, accounts));
  };
  return { mode, choose, movement, setMovement, lines, setLines };
}

/**
 * A schedule's form (D21): the entries, how often, from and until when, posted or reminded; the
 * dates it falls on shown in words before saving. Made from a transaction, it starts at the next
 * occurrence after it (the transaction was the first); a month-end transaction's series keeps its
 * day (31 Jan → 28 Feb → 31 Mar), so it is saved from the transaction's date with that first
 * date skipped.
 */
export function ScheduleForm({ accounts, origin, label, onSaved, onCancel }: { accounts: Account[]; origin: ScheduleOrigin; label: string; onSaved(schedule: Schedule, said: string): void; onCancel?(): void }) {
  useBookYears();
  const { words } = useApp();
  const { t } = useTranslation();
  const existing = origin && 'schedule' in origin ? origin.schedule : null;
  const transaction = origin && 'transaction' in origin ? origin.transaction : null;
  const initial = existing ?? transaction;
  const [description, setDescription] = useState(initial?.description ?? '');
  const entries = useEntries(initial?.entries ?? null, accounts);
  const [every, setEvery] = useState<Every>(existing?.every ?? 'month');
  const [intervalText, setIntervalText] = useState(String(existing?.interval ?? 1));
  const interval = /^\d{1,2}$/.test(intervalText) && Number(intervalText) >= 1 ? Number(intervalText) : null;
  // Made from a transaction, the start follows how often until the person types one.
  const [startTyped, setStartTyped] = useState<string | null>(existing?.start_on ?? null);
  const start = startTyped ?? (transaction ? nextAfter(transaction.occurred_on, every, interval ?? 1) : today());
  const [until, setUntil] = useState(existing?.until_on ?? '');
  const [post, setPost] = useState((existing?.mode ?? 'post') === 'post');
  const moves = useId();
  const hint = useId();

  const anchored = transaction !== null && start === nextAfter(transaction.occurred_on, every, interval ?? 1) && clampsMonthEnd({ start_on: transaction.occurred_on, every });
  const series: Recurrence = { start_on: anchored ? transaction.occurred_on : start, every, interval: interval ?? 1, until_on: until || null };
  const valid = interval !== null && /^\d{4}-\d{2}-\d{2}$/.test(start) && (!until || until >= start);
  // D21: a change never posts the dates before the schedule's next date at that moment.
  const preview = valid ? previewOf(series, anchored, existing ? (existing.next_on ?? '9999-12-31') : null) : null;

  const save = useSubmit(async () => {
    if (!description.trim()) throw new Error(t('schedules.form.enterDescription'));
    if (interval === null || interval > 99) throw new Error(t('schedules.form.intervalRange'));
    if (until && until < start) throw new Error(t('schedules.form.untilBeforeStart', { date: formatDate(start) }));
    let lines: Entry[];
    if (entries.mode === 'split') lines = entriesOf(entries.lines);
    else lines = movementEntries(entries.movement, accounts, words).entries;
    const due = preview?.due ?? [];
    // Before any question: the server would refuse it whatever the answers (D21's bounds).
    if (post && preview?.tooMany) throw new Error(t('schedules.form.notSaved', { reason: tooManyInWords(due[0]!) }));
    // D19: a first date more than a year away is asked about (a typo like 2062).
    if (!existing || start !== existing.start_on) confirmFarDate(start);
    if (post && due.length > 0) {
      const question = t('schedules.form.confirmPast', { count: due.length, first: formatDate(due[0]!), last: formatDate(due.at(-1)!) });
      if (!window.confirm(question)) throw new Error(t('schedules.form.notSavedNothingPosted'));
    }
    const body: ScheduleRequest = { description: description.trim(), entries: lines, start_on: series.start_on, every, interval, mode: post ? 'post' : 'remind', ...(until ? { until_on: until } : {}) };
    let saved: Schedule;
    if (existing) saved = await api<Schedule>('PUT', `/schedules/${existing.id}`, body);
    else if (anchored) {
      // The transaction is the series' first date: saved as a reminder, that date skipped, then
      // made to post if asked (D21: a change never posts dates before its next date).
      const made = await api<Schedule>('POST', '/schedules', { ...body, mode: 'remind' });
      await api('POST', `/schedules/${made.id}/occurrences/${series.start_on}/skip`);
      saved = body.mode === 'post' ? await api<Schedule>('PUT', `/schedules/${made.id}`, body) : await api<Schedule>('GET', `/schedules/${made.id}`);
    } else saved = await api<Schedule>('POST', '/schedules', body);
    const told = { description: saved.description, howOften: howOftenInWords(every, interval, 'sentence'), next: saved.next_on ? formatDate(saved.next_on) : '' };
    const said = existing
      ? saved.next_on
        ? t('schedules.form.savedNext', told)
        : t('schedules.form.saved', told)
      : saved.next_on
        ? t('schedules.form.madeNext', told)
        : t('schedules.form.made', told);
    onSaved(saved, said);
  });

  return (
    <form aria-label={label} className="record schedule-form" onSubmit={save.onSubmit} onChange={() => save.error && save.setError(null)}>
      <label>
        {t('schedules.form.description')}
        <input required value={description} onChange={(e) => setDescription(e.target.value)} maxLength={500} />
      </label>
      <ModeChoice mode={entries.mode} onChange={entries.choose} legend={t('schedules.form.whatEachTime')} />
      {entries.mode === 'split' ? (
        <SplitLines accounts={accounts} lines={entries.lines} onChange={entries.setLines} />
      ) : (
        <MovementFields movement={entries.movement} accounts={accounts} onChange={entries.setMovement} describedBy={moves} placeholder={formatAmount(85000)} />
      )}
      <fieldset className="stack">
        <legend>{t('schedules.form.howOften')}</legend>
        <div className="row">
          <label>
            {t('schedules.form.every')}
            <input type="number" inputMode="numeric" min={1} max={99} required value={intervalText} className="interval" onChange={(e) => setIntervalText(e.target.value)} />
          </label>
          <label>
            {t('schedules.form.unit')}
            <select value={every} onChange={(e) => setEvery(e.target.value as Every)}>
              {EVERY_UNITS.map((unit) => (
                <option key={unit} value={unit}>
                  {unitInWords(unit, interval)}
                </option>
              ))}
            </select>
          </label>
        </div>
        <div className="row">
          <label>
            {transaction ? t('schedules.form.nextDate') : t('schedules.form.firstDate')}
            <input type="date" required value={start} aria-describedby={transaction ? hint : undefined} onChange={(e) => setStartTyped(e.target.value)} />
          </label>
          <label>
            {t('schedules.form.until')}
            <input type="date" value={until} min={start} onChange={(e) => setUntil(e.target.value)} />
          </label>
        </div>
        {transaction && (
          <p id={hint} className="muted small">
            {t('schedules.form.wasFirst', { description: transaction.description, date: formatDate(transaction.occurred_on) })}
          </p>
        )}
      </fieldset>
      <fieldset>
        <legend>{t('schedules.form.whenDateComes')}</legend>
        <label className="mode">
          <input type="radio" name={`${hint}-mode`} checked={post} onChange={() => setPost(true)} />
          {t('schedules.form.post')}
        </label>
        <label className="mode">
          <input type="radio" name={`${hint}-mode`} checked={!post} onChange={() => setPost(false)} />
          {t('schedules.form.remind')}
        </label>
      </fieldset>
      <div aria-live="polite">{preview && <PreviewNote preview={preview} post={post} />}</div>
      <ErrorNote error={save.error} />
      <div className="row">
        <button type="submit" disabled={save.busy} aria-describedby={entries.mode === 'split' ? undefined : moves}>
          {save.busy ? t('schedules.form.saving') : existing ? t('schedules.form.save') : t('schedules.form.make')}
        </button>
        {onCancel && (
          <button type="button" className="secondary" onClick={onCancel}>
            {t('schedules.form.cancel')}
          </button>
        )}
      </div>
    </form>
  );
}
