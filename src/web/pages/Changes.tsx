import { useCallback, useEffect, useState } from 'react';
import { api, withQuery, type Account, type Change, type Transaction } from '../api';
import { useApp } from '../app';
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
  } else if (subject === 'account') {
    const [b, a] = [before as unknown as Account, after as unknown as Account];
    if (b.name !== a.name) out.push(`the name from “${b.name}” to “${a.name}”`);
    if (b.kind !== a.kind) out.push(`the kind from ${b.kind} to ${a.kind}`);
  } else if (before.book_style !== after.book_style) {
    out.push(`the book style from ${String(before.book_style)} to ${String(after.book_style)}`);
  }
  return out;
}

/**
 * One record in plain words: who ("You" for the person reading it: shorter, so a phone shows each
 * record in a few lines, issue 6/7 finding 8), what, when, through what.
 */
export function describeChange(change: Change, reader?: string): string {
  const who = change.actor_email === null ? 'An admin command' : change.actor_email.toLowerCase() === reader?.toLowerCase() ? 'You' : change.actor_email;
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
  return `${who} ${what} on ${formatDate(change.at.slice(0, 10))}, ${through(change)}.`;
}

/** D15: the history of the book, or of one transaction or account (?subject=&subject_id=). */
export function Changes() {
  const { path, me } = useApp();
  const search = path.split('?')[1] ?? '';
  const [changes, setChanges] = useState<Change[] | null>(null);
  const [next, setNext] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

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
              <span>{describeChange(c, me?.email)}</span>
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
