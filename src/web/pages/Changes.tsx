import { useCallback, useEffect, useState } from 'react';
import { api, withQuery, type Account, type BookSettings, type Change, type Reconciliation, type Transaction } from '../api';
import { closedBooksRefusal, useApp } from '../app';
import { ErrorNote, Loading, PageHeading } from '../components';
import { formatCents, formatDate } from '../money';
import { amountMoved } from '../../book/rules';

const amountOf = (t: Transaction) => amountMoved(t.entries);

/** Through what the change came, in words. */
function through(change: Change): string {
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
 * One record in plain words: who ("You" for the person reading it: shorter, so a phone shows each
 * record in a few lines, issue 6/7 finding 8), what, when, through what.
 */
export function describeChange(change: Change, reader?: string, accountName: (id: number) => string | undefined = () => undefined): string {
  const who = change.actor_email === null ? 'An admin command' : change.actor_email.toLowerCase() === reader?.toLowerCase() ? 'You' : change.actor_email;
  const at = `on ${formatDate(change.at.slice(0, 10))}, ${through(change)}`;
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
        : 'the settings';
  const what =
    change.action === 'update'
      ? `changed ${differences(change.subject, change.before as Record<string, unknown>, change.after as Record<string, unknown>).join(', ') || 'nothing visible'} of ${name}`
      : `${{ create: 'recorded', delete: 'deleted', restore: 'restored' }[change.action]} ${name}`;
  return `${who} ${what} ${at}.`;
}

/** D15: the history of the book, or of one transaction or account (?subject=&subject_id=). */
export function Changes() {
  const { path, me, closedThrough } = useApp();
  const search = path.split('?')[1] ?? '';
  const [changes, setChanges] = useState<Change[] | null>(null);
  const [next, setNext] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  // D20: a reconciliation record names its account by id.
  const [accounts, setAccounts] = useState<Account[]>([]);
  useEffect(() => {
    api<Account[]>('GET', '/accounts').then(setAccounts, () => undefined);
  }, []);
  const accountName = (id: number) => accounts.find((a) => a.id === id)?.name;

  const load = useCallback(
    async (before?: number) => {
      try {
        const params = new URLSearchParams(search);
        const filter = { subject: params.get('subject') ?? undefined, subject_id: params.get('subject_id') ?? undefined };
        const page = await api<{ changes: Change[]; next_before: number | null }>(
          'GET',
          withQuery('/changes', { ...filter, before: before === undefined ? undefined : String(before) }),
        );
        setChanges((shown) => (before === undefined ? page.changes : [...(shown ?? []), ...page.changes]));
        setNext(page.next_before);
      } catch (e) {
        setError((e as Error).message);
      }
    },
    [search],
  );
  useEffect(() => void load(), [load]);

  const undo = async (change: Change) => {
    // D20: a deleted transaction in the closed period stays deleted: said before asking.
    const refusal = closedBooksRefusal((change.before as Transaction).occurred_on, closedThrough, 'restored');
    if (refusal) return setError(refusal);
    setError(null);
    try {
      await api('POST', `/transactions/${change.subject_id}/restore`);
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <main>
      <PageHeading>History</PageHeading>
      <ErrorNote error={error} />
      {!changes ? (
        error ? null : <Loading />
      ) : changes.length === 0 ? (
        <p>Nothing has changed yet.</p>
      ) : (
        <ol className="plain history">
          {changes.map((c) => (
            <li key={c.id}>
              <span>{describeChange(c, me?.email, accountName)}</span>
              {c.subject === 'transaction' && c.action === 'delete' && (
                <button type="button" className="secondary" aria-label="Undo this delete" onClick={() => void undo(c)}>
                  Undo
                </button>
              )}
            </li>
          ))}
        </ol>
      )}
      {next !== null && (
        <button type="button" className="secondary" onClick={() => void load(next)}>
          Load more
        </button>
      )}
    </main>
  );
}
