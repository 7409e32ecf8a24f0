import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, apiPage, withQuery, type Account, type ListedTransaction, type Transaction } from '../api';
import { closedBooksRefusal, useApp } from '../app';
import { ErrorNote, ExportButtons, Link, Loading, Money, PageHeading, Scroll, TableHead, useSubmit } from '../components';
import { formatAmount, formatCents, formatDate } from '../money';
import { startingBalanceInWords, startingBalanceOf } from '../words';
import { confirmFarDate, useBookYears, DateAndDescription, MovementFields, movementEntries, movementOf, Notice, RecordForm, savedInWords, SimpleModeChoice, type Movement } from './RecordForm';
import { directionOf, naturalBalance } from '../../book/rules';
import { Paperclip, receiptsInWords, Receipts } from './Receipts';
import { ReconciledMark } from './Register';
import { ScheduleForm } from './ScheduleForm';
import { entriesOf, SplitLines, type Line } from './SplitLines';
import { everyTransaction, PrintedList, type ListQuery } from './TransactionsPrint';
import { useLatestRequest, useSettled } from '../settled';
import { t as translate } from '../i18n';

/** How many transactions a page of the list holds; "Load more" asks for the next (D15). */
export const PAGE_SIZE = 50;
/** Issue 37 item 1: how long a person's pause in typing is before the list is asked for. */
const SEARCH_PAUSE_MS = 250;

/** D20: why a reconciled transaction keeps its date and entries, said before anything is sent. */
const reconciledRefusal = (t: Transaction, action: 'changed' | 'deleted') =>
  action === 'deleted'
    ? translate('transactions.reconciledDelete', { description: t.description })
    : translate('transactions.reconciledChange', { description: t.description });

/** D20 (D22): why the receipts of a transaction stay as they are (reconciled, or dated in the closed period), said before asking; null when one can be removed. */
function receiptRemovalRefusal(t: Transaction, reconciled: boolean, closedThrough: string | null): string | null {
  if (reconciled) return translate('transactions.reconciledReceipts', { description: t.description });
  if (closedThrough && t.occurred_on <= closedThrough) {
    return translate('transactions.closedReceipts', { closed: formatDate(closedThrough), date: formatDate(t.occurred_on) });
  }
  return null;
}

/** Whether a correction leaves the date and every entry (account and amount, in order) as they were: D20 lets it through. */
const sameDateAndEntries = (t: Transaction, date: string, entries: { account_id: number; amount_cents: number }[]) =>
  date === t.occurred_on &&
  entries.length === t.entries.length &&
  entries.every((e, i) => e.account_id === t.entries[i]!.account_id && e.amount_cents === t.entries[i]!.amount_cents);

/**
 * The corrected entries in the order the transaction keeps them (D20 compares entries in order: a
 * description-only edit of a reconciled transaction must send them as they were).
 */
const inOrderOf = (original: Transaction, entries: { account_id: number; amount_cents: number }[]) =>
  entries.length === 2 && original.entries.length === 2 && (original.entries[0]!.amount_cents < 0) !== (entries[0]!.amount_cents < 0) ? [entries[1]!, entries[0]!] : entries;

/**
 * A transaction opened for correction: its date, words and entries, saved at once (D15). Issue
 * 25 item 5: a two-entry one edits in the words it was recorded in (money in, out or a move: one
 * amount, two accounts); the split lines stay for the others. Item 4: it scrolls into view and
 * takes the focus when it opens. D20: a reconciled one may change its description only, and
 * nothing dated in the closed period changes; both said before sending.
 */
function EditTransaction({
  accounts,
  transaction,
  reconciled,
  onDone,
  onReceipts,
}: {
  accounts: Account[];
  transaction: Transaction;
  reconciled: boolean;
  onDone(saved: string | null): void;
  onReceipts(count: number): void;
}) {
  useBookYears();
  const { t } = useTranslation();
  const { closedThrough, words } = useApp();
  const [date, setDate] = useState(transaction.occurred_on);
  const [description, setDescription] = useState(transaction.description);
  const [simple] = useState(() => movementOf(transaction.entries, accounts));
  const [movement, setMovement] = useState<Movement | null>(
    simple && { mode: simple.mode, amount: formatAmount(simple.cents), receives: String(simple.receives), gives: String(simple.gives) },
  );
  const [lines, setLines] = useState<Line[]>(
    transaction.entries.map((e) => ({ account: String(e.account_id), amount: formatAmount(e.amount_cents) })),
  );
  const moves = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.scrollIntoView({ block: 'start' });
    heading.current?.focus({ preventScroll: true });
  }, []);
  // D21: the transaction made to repeat, from its next occurrence (a form of its own: forms do not nest).
  const [repeating, setRepeating] = useState(false);
  const closed = closedBooksRefusal(transaction.occurred_on, closedThrough, 'changed');
  const save = useSubmit(async () => {
    const refusal = closed ?? closedBooksRefusal(date, closedThrough, 'changed');
    if (refusal) throw new Error(refusal);
    let entries: { account_id: number; amount_cents: number }[];
    let said: string;
    if (movement) {
      const built = movementEntries(movement, accounts, words);
      entries = inOrderOf(transaction, built.entries);
      said = built.said;
    } else {
      entries = entriesOf(lines);
      said = t('transactions.form.splitSaid', { split: words.happened.split, count: entries.length });
    }
    if (reconciled && !sameDateAndEntries(transaction, date, entries)) throw new Error(reconciledRefusal(transaction, 'changed'));
    if (date !== transaction.occurred_on) confirmFarDate(date);
    await api('PUT', `/transactions/${transaction.id}`, { occurred_on: date, description, entries });
    onDone(savedInWords(description, date, said));
  });
  return (
    <>
    <form aria-label={t('transactions.edit.label')} className="record" onSubmit={save.onSubmit} onChange={() => save.error && save.setError(null)}>
      <h3 ref={heading} tabIndex={-1}>
        {t('transactions.edit.heading', { description: transaction.description })}
        {reconciled && <ReconciledMark />}
      </h3>
      {closed ? (
        <p className="warning">{closed}</p>
      ) : (
        reconciled && <p className="warning">{t('transactions.edit.reconciled')}</p>
      )}
      {movement && <SimpleModeChoice movement={movement} accounts={accounts} onChange={setMovement} />}
      <DateAndDescription date={date} description={description} onDate={setDate} onDescription={setDescription} />
      {movement ? (
        <MovementFields movement={movement} accounts={accounts} onChange={setMovement} describedBy={moves} />
      ) : (
        <SplitLines accounts={accounts} lines={lines} onChange={setLines} />
      )}
      <ErrorNote error={save.error} />
      <div className="row">
        <button type="submit" disabled={save.busy} aria-describedby={movement ? moves : undefined}>
          {t('transactions.edit.save')}
        </button>
        <button type="button" className="secondary" onClick={() => onDone(null)}>
          {t('transactions.edit.cancel')}
        </button>
        <button type="button" className="secondary" aria-expanded={repeating} onClick={() => setRepeating(!repeating)}>
          {t('transactions.edit.repeat')}
        </button>
        <Link to={`/history?subject=transaction&subject_id=${transaction.id}`}>{t('transactions.edit.history')}</Link>
      </div>
    </form>
    <Receipts transaction={transaction} removalRefusal={receiptRemovalRefusal(transaction, reconciled, closedThrough)} onChange={onReceipts} />
    {repeating && (
      <section aria-labelledby="repeat-heading">
        <h3 id="repeat-heading">{t('transactions.edit.repeatHeading', { description: transaction.description })}</h3>
        <ScheduleForm
          accounts={accounts}
          origin={{ transaction }}
          label={t('transactions.edit.repeatLabel', { description: transaction.description })}
          onSaved={(_, said) => onDone(said)}
          onCancel={() => setRepeating(false)}
        />
      </section>
    )}
    </>
  );
}

/**
 * What a transaction did, as a person reads it (issue 6/7 finding 4): a two-entry one as money
 * in, out or moved, from one account to the other, with the amount that moved; a split as each
 * account's amount in its natural sign (D6), so income received reads as a plus, not a red minus.
 */
function WhatHappened({ transaction, accounts }: { transaction: Transaction; accounts: Account[] }) {
  const { t } = useTranslation();
  const { words, bookStyle } = useApp();
  const kindOf = (id: number) => accounts.find((a) => a.id === id)?.kind;
  // Issue 37 item 7: an opening balance is told as such ("Opening balance: we owe $1,204.33 on Visa card"), never as money out.
  const balance = startingBalanceOf(transaction.entries, kindOf);
  if (balance !== null) {
    const { lead, rest } = startingBalanceInWords(bookStyle, balance, transaction.description, formatCents);
    return (
      <span>
        <strong>{lead}:</strong> {rest}
      </span>
    );
  }
  const direction = directionOf(transaction.entries, kindOf);
  if (direction !== 'split') {
    const to = transaction.entries.find((e) => e.amount_cents > 0)!;
    const from = transaction.entries.find((e) => e.amount_cents < 0)!;
    return (
      <span>
        <strong>{words.happened[direction]}</strong> <Money cents={to.amount_cents} />
        <span className="fromto">
          {' '}
          {t('transactions.list.fromTo', { from: from.account_name, to: to.account_name })}
        </span>
      </span>
    );
  }
  return (
    <>
      <strong>{words.happened.split}</strong>
      <ul className="plain">
        {transaction.entries.map((e, i) => {
          const kind = kindOf(e.account_id);
          return (
            <li key={i}>
              {e.account_name} <Money cents={kind ? naturalBalance(kind, e.amount_cents) : e.amount_cents} />
            </li>
          );
        })}
      </ul>
    </>
  );
}

/** Issue 25 item 11: an email that breaks, when it must, after its @ and never mid-word. */
function Email({ address }: { address: string }) {
  const at = address.lastIndexOf('@');
  if (at < 0) return address;
  return (
    <>
      <span className="unbroken">{address.slice(0, at + 1)}</span>
      <wbr />
      <span className="unbroken">{address.slice(at + 1)}</span>
    </>
  );
}

function History({ list, accounts, onEdit, onDelete }: { list: ListedTransaction[]; accounts: Account[]; onEdit(t: Transaction): void; onDelete(t: ListedTransaction): void }) {
  const { t: say } = useTranslation();
  if (list.length === 0) return <p>{say('transactions.list.empty')}</p>;
  return (
    <Scroll>
      <table aria-labelledby="list-heading" className="transactions-list">
        <TableHead columns={[say('transactions.list.date'), say('transactions.list.description'), say('transactions.list.whatHappened'), say('transactions.list.recordedBy')]} actions />
        <tbody>
          {list.map((t) => (
            <tr key={t.id}>
              <td>{formatDate(t.occurred_on)}</td>
              <td>
                {t.description}
                {t.reconciled && <ReconciledMark />}
                {(t.attachments ?? 0) > 0 && (
                  <>
                    {' '}
                    <button type="button" className="paperclip" aria-label={receiptsInWords(t.attachments!)} title={receiptsInWords(t.attachments!)} onClick={() => onEdit(t)}>
                      <Paperclip />
                      {t.attachments! > 1 && t.attachments}
                    </button>
                  </>
                )}
              </td>
              <td>
                <WhatHappened transaction={t} accounts={accounts} />
              </td>
              <td className="byline">{t.created_by_email ? <Email address={t.created_by_email} /> : '—'}</td>
              <td>
                <div className="row">
                  <button type="button" className="secondary" onClick={() => onEdit(t)} aria-label={say('transactions.list.editLabel', { description: t.description })}>
                    {say('transactions.list.edit')}
                  </button>
                  <button type="button" className="secondary" onClick={() => onDelete(t)} aria-label={say('transactions.list.deleteLabel', { description: t.description })}>
                    {say('transactions.list.delete')}
                  </button>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}

/** Issue 25 items 8 and 9: the list's heading says what it lists. */
const listHeading = (account: Account | undefined) => (account ? translate('transactions.listHeadingOn', { account: account.name }) : translate('transactions.listHeading'));

/** The query a list answers, as one comparable key. */
const keyOf = (query: ListQuery) => JSON.stringify(query);

export function Transactions() {
  const { t: say } = useTranslation();
  const [accounts, setAccounts] = useState<Account[] | null>(null);
  const [query, setQuery] = useState({ from: '', to: '', q: '' });
  // Issue 25 item 8: the list of one account's transactions (D15 `account_id`), linked from elsewhere as ?account_id=.
  const accountId = new URLSearchParams(useApp().path.split('?')[1] ?? '').get('account_id') ?? '';
  /**
   * Issue 37 item 1: the list with the query it answers. Typing asks once the person pauses, and
   * only the latest request's answer is shown, so the rows, their totals and the printed list
   * always belong to one query; while the box says something else, they are marked as not current.
   */
  const [shown, setShown] = useState<{ query: ListQuery; items: ListedTransaction[]; next: string | null } | null>(null);
  const list = shown?.items ?? null;
  const next = shown?.next ?? null;
  const asked = { ...query, account_id: accountId };
  const settled = useSettled(asked, SEARCH_PAUSE_MS);
  const settledKey = keyOf(settled);
  const current = shown !== null && keyOf(shown.query) === keyOf(asked);
  const { begin, join } = useLatestRequest();
  // Issue 25 item 10: every transaction of the list, fetched for print.
  const [printed, setPrinted] = useState<ListedTransaction[] | null>(null);
  const [editing, setEditing] = useState<Transaction | null>(null);
  const [deleted, setDeleted] = useState<Transaction | null>(null);
  /** Issue 25 item 5: the last correction, confirmed in words. */
  const [saved, setSaved] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const pageOf = (of: ListQuery, cursor?: string) => withQuery('/transactions', { ...of, limit: String(PAGE_SIZE), cursor });
  const load = useCallback(async () => {
    const latest = begin();
    const of: ListQuery = JSON.parse(settledKey);
    try {
      const [known, first] = await Promise.all([api<Account[]>('GET', '/accounts'), apiPage<ListedTransaction>(pageOf(of))]);
      if (!latest()) return;
      setAccounts(known);
      setShown({ query: of, items: first.items, next: first.next });
      setPrinted(null);
    } catch (e) {
      if (latest()) setError((e as Error).message);
    }
  }, [settledKey]);
  useEffect(() => {
    if (printed) window.print();
  }, [printed]);
  /** Issue 25 item 7: a search or another date is the next action: the delete's notice and its Undo go. */
  const search = (patch: Partial<typeof query>) => {
    setDeleted(null);
    setQuery({ ...query, ...patch });
  };
  const print = async () => {
    if (!shown || !current) return;
    const latest = join();
    try {
      const every = await everyTransaction(shown.query);
      if (latest()) setPrinted(every);
    } catch (e) {
      if (latest()) setError((e as Error).message);
    }
  };
  useEffect(() => void load(), [load]);

  // Every list links a transaction here with ?edit=<id>: it opens for editing (D15).
  const { path } = useApp();
  const editId = new URLSearchParams(path.split('?')[1] ?? '').get('edit');
  useEffect(() => {
    if (!editId) return;
    const open = async () => {
      const one = await api<Transaction>('GET', `/transactions/${encodeURIComponent(editId)}`);
      // D20: the single read has the spec's shape; the paged list of its day also says whether it
      // is reconciled, so the form explains the lock before sending, whichever page linked here.
      const day = await apiPage<ListedTransaction>(withQuery('/transactions', { from: one.occurred_on, to: one.occurred_on, limit: '1000' }));
      setEditing(day.items.find((t) => t.id === one.id) ?? one);
    };
    open().catch((e: Error) => setError(e.message));
  }, [editId]);

  const more = async () => {
    if (!shown || !shown.next) return;
    const of = shown.query;
    const latest = join();
    try {
      const page = await apiPage<ListedTransaction>(pageOf(of, shown.next));
      if (!latest()) return;
      setShown((was) => was && keyOf(was.query) === keyOf(of) ? { query: of, items: [...was.items, ...page.items], next: page.next } : was);
    } catch (e) {
      if (latest()) setError((e as Error).message);
    }
  };

  const { closedThrough } = useApp();
  const remove = async (t: ListedTransaction) => {
    // D20: said before asking, and nothing sent.
    const refusal = t.reconciled ? reconciledRefusal(t, 'deleted') : closedBooksRefusal(t.occurred_on, closedThrough, 'deleted');
    if (refusal) return setError(refusal);
    setError(null);
    if (!window.confirm(say('transactions.deleteConfirm', { description: t.description, date: formatDate(t.occurred_on) }))) return;
    try {
      await api('DELETE', `/transactions/${t.id}`);
      setSaved(null);
      setDeleted(t);
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const undo = async () => {
    if (!deleted) return;
    const refusal = closedBooksRefusal(deleted.occurred_on, closedThrough, 'restored');
    if (refusal) return setError(refusal);
    try {
      await api('POST', `/transactions/${deleted.id}/restore`);
      setDeleted(null);
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <main>
      <PageHeading>{say('transactions.title')}</PageHeading>
      {!accounts || !list ? (
        error ? <ErrorNote error={error} /> : <Loading />
      ) : (
        <div className="transactions-layout">
          <section aria-labelledby="record-heading">
            <h2 id="record-heading">{say('transactions.recordHeading')}</h2>
            <RecordForm accounts={accounts} onSaved={() => { setDeleted(null); void load(); }} />
          </section>
          <section aria-labelledby="list-heading">
            {/* Issue 25 item 9: named after what it lists, not "History" like the change log. */}
            <h2 id="list-heading">{listHeading(accounts.find((a) => String(a.id) === accountId))}</h2>
            <Notice said={saved} focus />
            <Notice said={deleted && say('transactions.deleted', { description: deleted.description })} focus>
              {deleted && (
                <>
                  {say('transactions.deleted', { description: deleted.description })}{' '}
                  <button type="button" onClick={() => void undo()}>
                    {say('transactions.undo')}
                  </button>
                </>
              )}
            </Notice>
            <div className="row" role="search">
              <label>
                {say('transactions.search')}
                {/* D15 `q` (issue 25 item 6): words of a description or an account's name, or an amount. */}
                <input type="search" value={query.q} aria-describedby="search-hint" onChange={(e) => search({ q: e.target.value })} />
              </label>
              <label>
                {say('transactions.from')}
                <input type="date" value={query.from} onChange={(e) => search({ from: e.target.value })} />
              </label>
              <label>
                {say('transactions.to')}
                <input type="date" value={query.to} onChange={(e) => search({ to: e.target.value })} />
              </label>
            </div>
            <p id="search-hint" className="muted small screen-only">
              {say('transactions.searchHint')}
            </p>
            {accountId && (
              <p className="screen-only">
                <Trans
                  i18nKey="transactions.onlyAccount"
                  values={{ account: accounts.find((a) => String(a.id) === accountId)?.name ?? say('transactions.oneAccount') }}
                  // Not <link>: Trans reads it as HTML's empty <link> element and leaves the link without words.
                  components={{ every: <Link to="/transactions">{null}</Link> }}
                />
              </p>
            )}
            <div className="row screen-only">
              <button type="button" className="secondary" disabled={!current} onClick={() => void print()}>
                {say('transactions.printList')}
              </button>
            </div>
            <ExportButtons period={{ from: query.from, to: query.to }} />
            <ErrorNote error={error} />
            {editing && (
              <EditTransaction
                key={editing.id}
                accounts={accounts}
                transaction={editing}
                reconciled={(editing as ListedTransaction).reconciled ?? list.find((t) => t.id === editing.id)?.reconciled ?? false}
                onReceipts={(count) => setShown((was) => was && { ...was, items: was.items.map((t) => (t.id === editing.id ? { ...t, attachments: count } : t)) })}
                onDone={(said) => {
                  setEditing(null);
                  if (!said) return;
                  setSaved(said);
                  void load();
                }}
              />
            )}
            {!current && (
              <p className="muted screen-only" role="status">
                {query.q ? say('transactions.searchingFor', { q: query.q }) : say('transactions.searching')}
              </p>
            )}
            <div aria-busy={!current} className={current ? undefined : 'stale'}>
              <History list={list} accounts={accounts} onEdit={(t) => { setDeleted(null); setEditing(t); }} onDelete={(t) => void remove(t)} />
            </div>
            {shown && <PrintedList list={printed ?? list} complete={printed !== null || !next} query={shown.query} accounts={accounts} />}
            {next && current && (
              <button type="button" className="secondary" onClick={() => void more()}>
                {say('transactions.loadMore')}
              </button>
            )}
          </section>
        </div>
      )}
    </main>
  );
}
