import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, ApiError, withQuery, type Account, type Change, type Schedule, type Transaction } from '../api';
import { closedBooksRefusal, useApp } from '../app';
import { Downloads, ErrorNote, Loading, PageHeading } from '../components';
import { formatCents, formatDate } from '../money';
import { CHANGE_SENTENCE_KEYS, describeChange, type ChangeSentences, type Wording } from '../../book/change-words';
import { currentLanguage, locale, t } from '../i18n';
import { howOftenInWords } from '../recurrence';
import { startingBalanceInWords } from '../words';
import { KeptReceipts } from './Receipts';

/**
 * Issue 25 item 7: when a change was made, to the minute, in the person's time zone ("Mar 3 at
 * 2:05 PM"; the year only when it is not this one, so that a phone still shows a record in three
 * lines).
 */
function timeOf(at: string): string {
  const when = new Date(at);
  const thisYear = when.getFullYear() === new Date().getFullYear();
  // en: "Mar 3" / "Mar 3, 2025"; de: "3. März" / "3. März 2025" (D29: the chosen language's locale).
  const day = when.toLocaleDateString(locale(), thisYear ? { month: 'short', day: 'numeric' } : { month: 'short', day: 'numeric', year: 'numeric' });
  return t('history.when', { day, time: when.toLocaleTimeString(locale(), { timeStyle: 'short' }) });
}

/**
 * D29: History's sentences from the catalogue (`history.sentence.*`, the same keys as
 * CHANGE_SENTENCES in src/book/change-words.ts, whose English the change log's CSV keeps); their
 * {{placeholders}} are left in for describeChange to fill.
 */
function historySentences(): ChangeSentences {
  return Object.fromEntries(CHANGE_SENTENCE_KEYS.map((key) => [key, t(`history.sentence.${key}`)])) as ChangeSentences;
}

/** D22: what the change log's CSV holds: every change of the book (whatever History shows) on the days chosen. */
function changeLogInWords({ from, to }: { from: string; to: string }): string {
  if (from && to) return t('history.download.hintBetween', { from: formatDate(from), to: formatDate(to) });
  if (from) return t('history.download.hintFrom', { from: formatDate(from) });
  if (to) return t('history.download.hintTo', { to: formatDate(to) });
  return t('history.download.hint');
}

const isUndoable = (c: Change) => c.subject === 'transaction' && c.action === 'delete' && c.subject_id !== null;
/** The newest delete of transaction `id` shown (the one a restore undoes: D15 restores from the last delete). */
const isUndoableOf = (id: number) => (c: Change) => isUndoable(c) && c.subject_id === id;

/** Whether transaction `id` is absent now (GET /transactions/{id} answers 404). */
async function isAbsent(id: number): Promise<boolean> {
  try {
    await api('GET', `/transactions/${id}`);
    return false;
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return true;
    throw e;
  }
}

/**
 * D15: the history of the book, or of one transaction or account (?subject=&subject_id=), of the
 * days chosen (D15 `from`/`to`, issue 25 item 7). An Undo stands beside a delete only while the
 * transaction is absent (not beside one restored since); what an undo did is said until the next
 * action.
 */
export function Changes() {
  const { t } = useTranslation();
  const { path, me, closedThrough, bookStyle } = useApp();
  const search = path.split('?')[1] ?? '';
  const [changes, setChanges] = useState<Change[] | null>(null);
  const [next, setNext] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [days, setDays] = useState({ from: '', to: '' });
  /** Whether each deleted transaction shown is absent now (true), or back (false); unknown until asked. */
  const [absent, setAbsent] = useState<Record<number, boolean>>({});
  const [restored, setRestored] = useState<string | null>(null);
  // D20: a reconciliation record names its account by id.
  const [accounts, setAccounts] = useState<Account[]>([]);
  useEffect(() => {
    api<Account[]>('GET', '/accounts').then(setAccounts, () => undefined);
  }, []);
  const accountName = (id: number) => accounts.find((a) => a.id === id)?.name;
  // Issue 37 item 7: an opening balance is told by the kinds of its two accounts.
  const accountKind = (id: number) => accounts.find((a) => a.id === id)?.kind;
  // D21: a transaction a schedule posted names the schedule, if it still exists.
  const [schedules, setSchedules] = useState<Schedule[]>([]);
  const scheduleName = (id: number) => schedules.find((s) => s.id === id)?.description;
  // One wording with the change log's CSV (src/book/change-words.ts), in the person's language and formats (D29).
  const wording: Wording = {
    money: formatCents,
    date: formatDate,
    time: timeOf,
    accountName,
    scheduleName,
    accountKind,
    bookStyle,
    reader: me?.email,
    sentences: historySentences(),
    startingBalanceInWords,
    keepsCapitals: currentLanguage() === 'de',
    howOften: (every, interval) => howOftenInWords(every, interval, 'sentence'),
    kindName: (kind) => t(`history.kind.${kind}`),
    bookStyleName: (style) => t(`history.bookStyle.${style}`),
    // D26: a budget's months in the chosen language ("Jan 2027", "Jan. 2027").
    month: (yyyyMm) => new Date(`${yyyyMm}-01T00:00:00Z`).toLocaleDateString(locale(), { month: 'short', year: 'numeric', timeZone: 'UTC' }),
  };

  // Only the latest request's answer is shown: a slower earlier one (the list before a date was
  // typed, an undo's reload) never overwrites it.
  const latest = useRef(0);
  const load = useCallback(
    async (before?: number) => {
      const request = ++latest.current;
      try {
        const params = new URLSearchParams(search);
        const filter = { subject: params.get('subject') ?? undefined, subject_id: params.get('subject_id') ?? undefined, ...days };
        const [page, known] = await Promise.all([
          api<{ changes: Change[]; next_before: number | null }>('GET', withQuery('/changes', { ...filter, before: before === undefined ? undefined : String(before) })),
          // Read with the records, so that none says "since deleted" of a schedule not yet known.
          api<Schedule[]>('GET', '/schedules').catch(() => []),
        ]);
        const deletedIds = [...new Set(page.changes.filter(isUndoable).map((c) => c.subject_id!))];
        const found = await Promise.all(deletedIds.map(async (id) => [id, await isAbsent(id)] as const));
        if (request !== latest.current) return;
        setSchedules(known);
        setAbsent((known) => ({ ...known, ...Object.fromEntries(found) }));
        setChanges((shown) => (before === undefined ? page.changes : [...(shown ?? []), ...page.changes]));
        setNext(page.next_before);
        setError(null);
      } catch (e) {
        if (request === latest.current) setError((e as Error).message);
      }
    },
    [search, days],
  );
  useEffect(() => void load(), [load]);

  /** Any other action ends what the last undo said (issue 25 item 7). */
  const act = (action: () => void) => {
    setRestored(null);
    action();
  };

  const undo = async (change: Change) => {
    // D20: a deleted transaction in the closed period stays deleted: said before asking.
    const refusal = closedBooksRefusal((change.before as Transaction).occurred_on, closedThrough, 'restored');
    if (refusal) return setError(refusal);
    setError(null);
    setRestored(null);
    try {
      await api('POST', `/transactions/${change.subject_id}/restore`);
      setRestored(t('history.restored', { description: String((change.before as Transaction).description) }));
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <main>
      <PageHeading>{t('history.title')}</PageHeading>
      <div className="row" role="search" aria-label={t('history.days.label')}>
        <label>
          {t('history.days.from')}
          <input type="date" value={days.from} aria-describedby="history-days" onChange={(e) => act(() => setDays({ ...days, from: e.target.value }))} />
        </label>
        <label>
          {t('history.days.to')}
          <input type="date" value={days.to} aria-describedby="history-days" onChange={(e) => act(() => setDays({ ...days, to: e.target.value }))} />
        </label>
      </div>
      <p id="history-days" className="muted small">
        {t('history.days.hint')}
      </p>
      <Downloads
        label={t('history.download.label')}
        hint={changeLogInWords(days)}
        files={[{ label: t('history.download.file'), path: withQuery('/export/changes.csv', days), fallbackName: 'changes.csv' }]}
      />
      {restored && (
        <p role="status" className="notice">
          {restored}
        </p>
      )}
      <ErrorNote error={error} />
      {!changes ? (
        error ? null : <Loading />
      ) : changes.length === 0 ? (
        <p>{days.from || days.to ? t('history.emptyDays') : t('history.empty')}</p>
      ) : (
        <ol className="plain history">
          {changes.map((c) => (
            <li key={c.id}>
              <span>{describeChange(c, wording)}</span>
              {isUndoable(c) && absent[c.subject_id!] === true && changes.find(isUndoableOf(c.subject_id!)) === c && (
                <>
                  <button type="button" className="secondary" aria-label={t('history.undoLabel')} onClick={() => void undo(c)}>
                    {t('history.undo')}
                  </button>
                  <KeptReceipts transaction={{ id: c.subject_id!, description: String((c.before as Transaction).description) }} />
                </>
              )}
            </li>
          ))}
        </ol>
      )}
      {next !== null && (
        <button type="button" className="secondary" onClick={() => act(() => void load(next))}>
          {t('history.loadMore')}
        </button>
      )}
    </main>
  );
}
