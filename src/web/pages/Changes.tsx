import { useCallback, useEffect, useRef, useState } from 'react';
import { api, ApiError, withQuery, type Account, type BookSettings, type Change, type Reconciliation, type Schedule, type Transaction } from '../api';
import { closedBooksRefusal, useApp } from '../app';
import { ErrorNote, Loading, PageHeading } from '../components';
import { formatCents, formatDate } from '../money';
import { howOften } from './ScheduleForm';
import { amountMoved } from '../../book/rules';

const amountOf = (t: Pick<Transaction, 'entries'>) => amountMoved(t.entries);

/** Through what the change came, in words; D21: a schedule by its description, or that it was deleted since. */
function through(change: Change, scheduleName: (id: number) => string | undefined): string {
  if (change.via === 'schedule') {
    const name = change.schedule_id === null ? undefined : scheduleName(change.schedule_id);
    return name === undefined ? 'posted by a schedule since deleted' : `posted by the schedule “${name}”`;
  }
  if (change.via === 'session') return 'from the web app';
  if (change.via === 'cli') return 'with an admin command';
  return change.client_id === 'ledger-cli' ? 'with a token' : `through ${change.client_id}`;
}

/** The differences an update made, in words ("the amount from 30.00 to 35.00"). */
function differences(subject: Change['subject'], before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (subject === 'transaction') {
    const [b, a] = [before as unknown as Transaction, after as unknown as Transaction];
    if (b.occurred_on !== a.occurred_on) out.push(`the date from ${formatDate(b.occurred_on)} to ${formatDate(a.occurred_on)}`);
    if (b.description !== a.description) out.push(`the description from “${b.description}” to “${a.description}”`);
    if (amountOf(b) !== amountOf(a)) out.push(`the amount from ${formatCents(amountOf(b))} to ${formatCents(amountOf(a))}`);
    const accountsOf = (t: Transaction) => t.entries.map((e) => e.account_name).join(', ');
    if (accountsOf(b) !== accountsOf(a)) out.push(`the accounts from ${accountsOf(b)} to ${accountsOf(a)}`);
  } else if (subject === 'schedule') {
    const [b, a] = [before as unknown as Schedule, after as unknown as Schedule];
    if (b.description !== a.description) out.push(`the description from “${b.description}” to “${a.description}”`);
    if (amountOf(b) !== amountOf(a)) out.push(`the amount from ${formatCents(amountOf(b))} to ${formatCents(amountOf(a))}`);
    if (b.every !== a.every || b.interval !== a.interval) out.push(`how often from ${howOften(b.every, b.interval).toLowerCase()} to ${howOften(a.every, a.interval).toLowerCase()}`);
    if (b.start_on !== a.start_on) out.push(`the first date from ${formatDate(b.start_on)} to ${formatDate(a.start_on)}`);
    if (b.until_on !== a.until_on) out.push(`the end from ${b.until_on ? formatDate(b.until_on) : 'none'} to ${a.until_on ? formatDate(a.until_on) : 'none'}`);
    if (b.mode !== a.mode) out.push(a.mode === 'post' ? 'reminding to posting by itself' : 'posting by itself to reminding');
  } else {
    const [b, a] = [before as unknown as Account, after as unknown as Account];
    if (b.name !== a.name) out.push(`the name from “${b.name}” to “${a.name}”`);
    if (b.kind !== a.kind) out.push(`the kind from ${b.kind} to ${a.kind}`);
  }
  return out;
}

/**
 * D20: what a change of the settings did, in words: the book style and the currency changed,
 * the books closed through a date, or reopened. Older records carry no currency or close.
 */
function settingsChanged(before: Partial<BookSettings>, after: Partial<BookSettings>): string {
  const out: string[] = [];
  if (before.book_style !== after.book_style) out.push(`changed the book style from ${before.book_style} to ${after.book_style}`);
  if (before.currency && after.currency && before.currency !== after.currency) out.push(`changed the currency from ${before.currency} to ${after.currency}`);
  const [was, is] = [before.closed_through ?? null, after.closed_through ?? null];
  if (was !== is) {
    if (is === null) out.push(`reopened the books (closed through ${formatDate(was!)})`);
    else if (was === null) out.push(`closed the books through ${formatDate(is)}`);
    else out.push(`moved the close of the books from ${formatDate(was)} to ${formatDate(is)}`);
  }
  return out.join(' and ') || 'changed nothing visible of the settings';
}

/** D20: a reconciliation record ("reconciled Bank through 31 Mar 2026 at €2,548.15", or its undoing). */
function reconciliationChanged(change: Change, accountName: (id: number) => string | undefined): string {
  const shape = (change.after ?? change.before) as unknown as Reconciliation;
  const account = accountName(shape.account_id) ?? 'an account';
  const statement = `${account} through ${formatDate(shape.statement_date)} at ${formatCents(shape.statement_balance_cents)}`;
  return change.action === 'delete' ? `undid the reconciliation of ${statement}` : `reconciled ${statement}`;
}

/**
 * Issue 25 item 7: when a change was made, to the minute, in the person's time zone ("Mar 3 at
 * 2:05 PM"; the year only when it is not this one, so that a phone still shows a record in three
 * lines).
 */
function timeOf(at: string): string {
  const when = new Date(at);
  const thisYear = when.getFullYear() === new Date().getFullYear();
  const day = when.toLocaleDateString(undefined, thisYear ? { month: 'short', day: 'numeric' } : { dateStyle: 'medium' });
  return `${day} at ${when.toLocaleTimeString(undefined, { timeStyle: 'short' })}`;
}

/**
 * One record in plain words: who ("You" for the person reading it: shorter, so a phone shows each
 * record in a few lines, issue 6/7 finding 8), what, when, through what.
 */
export function describeChange(
  change: Change,
  reader?: string,
  accountName: (id: number) => string | undefined = () => undefined,
  scheduleName: (id: number) => string | undefined = () => undefined,
): string {
  const who =
    change.actor_email === null
      ? change.via === 'schedule'
        ? 'A schedule'
        : 'An admin command'
      : change.actor_email.toLowerCase() === reader?.toLowerCase()
        ? 'You'
        : change.actor_email;
  const at = `on ${timeOf(change.at)}, ${through(change, scheduleName)}`;
  if (change.subject === 'reconciliation') return `${who} ${reconciliationChanged(change, accountName)} ${at}.`;
  if (change.subject === 'settings' && change.action === 'update') {
    return `${who} ${settingsChanged(change.before as Partial<BookSettings>, change.after as Partial<BookSettings>)} ${at}.`;
  }
  const shape = (change.after ?? change.before) as Record<string, unknown>;
  const name =
    change.subject === 'transaction'
      ? `“${String(shape.description)}” (${formatCents(amountOf(shape as unknown as Transaction))})`
      : change.subject === 'account'
        ? `the account “${String(shape.name)}”`
        : change.subject === 'schedule'
          ? `the schedule “${String(shape.description)}” (${formatCents(amountOf(shape as unknown as Schedule))}, ${howOften((shape as unknown as Schedule).every, (shape as unknown as Schedule).interval).toLowerCase()})`
          : 'the settings';
  const changed = () => differences(change.subject, change.before as Record<string, unknown>, change.after as Record<string, unknown>).join(', ') || 'nothing visible';
  // A new description already names the transaction ("from “Rnet” to “Rent”"): its amount is enough
  // beside it, so that a record with its time of day still fits three lines of a phone (issue 25 item 7).
  const renamed = change.subject === 'transaction' && change.action === 'update' && (change.before as Transaction).description !== (change.after as Transaction).description;
  const what =
    change.action === 'update'
      ? renamed
        ? `changed ${changed()} (${formatCents(amountOf(shape as unknown as Transaction))})`
        : `changed ${changed()} of ${name}`
      : `${{ create: change.subject === 'schedule' ? 'made' : 'recorded', delete: 'deleted', restore: 'restored' }[change.action]} ${name}`;
  return `${who} ${what} ${at}.`;
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
  const { path, me, closedThrough } = useApp();
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
  // D21: a transaction a schedule posted names the schedule, if it still exists.
  const [schedules, setSchedules] = useState<Schedule[]>([]);
  const scheduleName = (id: number) => schedules.find((s) => s.id === id)?.description;

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
      setRestored(`Restored “${String((change.before as Transaction).description)}”.`);
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <main>
      <PageHeading>History</PageHeading>
      <div className="row" role="search" aria-label="Days">
        <label>
          From
          <input type="date" value={days.from} aria-describedby="history-days" onChange={(e) => act(() => setDays({ ...days, from: e.target.value }))} />
        </label>
        <label>
          To
          <input type="date" value={days.to} aria-describedby="history-days" onChange={(e) => act(() => setDays({ ...days, to: e.target.value }))} />
        </label>
      </div>
      <p id="history-days" className="muted small">
        The days of the changes, as the server counts them (UTC); the times shown are yours.
      </p>
      {restored && (
        <p role="status" className="notice">
          {restored}
        </p>
      )}
      <ErrorNote error={error} />
      {!changes ? (
        error ? null : <Loading />
      ) : changes.length === 0 ? (
        <p>{days.from || days.to ? 'Nothing changed on those days.' : 'Nothing has changed yet.'}</p>
      ) : (
        <ol className="plain history">
          {changes.map((c) => (
            <li key={c.id}>
              <span>{describeChange(c, me?.email, accountName, scheduleName)}</span>
              {isUndoable(c) && absent[c.subject_id!] === true && changes.find(isUndoableOf(c.subject_id!)) === c && (
                <button type="button" className="secondary" aria-label="Undo this delete" onClick={() => void undo(c)}>
                  Undo
                </button>
              )}
            </li>
          ))}
        </ol>
      )}
      {next !== null && (
        <button type="button" className="secondary" onClick={() => act(() => void load(next))}>
          Load more
        </button>
      )}
    </main>
  );
}
