import { startingBalanceInWords, startingBalanceOf } from './debt-words';
import { amountMoved, type AccountKind, type BookStyle } from './rules';

// A change record (D15) in the app's English words: what History shows, and the `summary` of
// D22's GET /export/changes.csv for the auditors. One wording for both: the web app passes its
// own money, date and time formats (the person's locale); the export passes plain English ones.

type Every = 'week' | 'month' | 'year';
interface Line {
  account_id: number;
  account_name: string;
  amount_cents: number;
}
interface TransactionShape {
  occurred_on: string;
  description: string;
  entries: Line[];
}
interface ScheduleShape {
  description: string;
  entries: Line[];
  every: Every;
  interval: number;
  start_on: string;
  until_on: string | null;
  mode: 'post' | 'remind';
}

/** What a change record holds, as GET /changes answers it (the fields the words need). */
export interface ChangeRecord {
  at: string;
  actor_email: string | null;
  via: 'session' | 'token' | 'cli' | 'schedule';
  client_id: string | null;
  subject: 'transaction' | 'account' | 'settings' | 'reconciliation' | 'schedule' | 'attachment';
  subject_id: number | null;
  action: 'create' | 'update' | 'delete' | 'restore';
  schedule_id: number | null;
  before: unknown;
  after: unknown;
  /** Read beside the record (issue 37 item 6): the statement line that made the transaction or was linked to it. */
  statement_line?: { account_id: number; account_name: string; occurred_on: string; linked: boolean };
  /** Read beside a receipt's record: its transaction's description and date. */
  transaction?: { id: number; description: string; occurred_on: string };
}

export interface Wording {
  money(cents: number): string;
  date(isoDate: string): string;
  /** When the change was made, as a phrase ("Mar 3 at 2:05 PM"); none: the time is left out. */
  time?(at: string): string;
  accountName?(id: number): string | undefined;
  scheduleName?(id: number): string | undefined;
  /** Issue 37 item 7: an account's kind, so that an opening balance is told as such. */
  accountKind?(id: number): AccountKind | undefined;
  /** D12: "we owe" or "the club owes"; personal when absent. */
  bookStyle?: BookStyle;
  /** The reader's email: their own changes are "You". */
  reader?: string;
}

/** A unit of a schedule, in the singular and the plural (the web app's "How often" choice words it so too). */
export const UNITS: Record<Every, [string, string]> = { week: ['week', 'weeks'], month: ['month', 'months'], year: ['year', 'years'] };

/** "Every month", "Every 2 weeks". */
export function howOften(every: Every, interval: number): string {
  return interval === 1 ? `Every ${UNITS[every][0]}` : `Every ${interval} ${UNITS[every][1]}`;
}

/** Through what the change came; D21: a schedule by its description, or that it was deleted since. */
function through(change: ChangeRecord, words: Wording): string {
  if (change.via === 'schedule') {
    const name = change.schedule_id === null ? undefined : words.scheduleName?.(change.schedule_id);
    return name === undefined ? 'posted by a schedule since deleted' : `posted by the schedule “${name}”`;
  }
  if (change.via === 'session') return 'from the web app';
  if (change.via === 'cli') return 'with an admin command';
  return change.client_id === 'ledger-cli' ? 'with a token' : `through ${change.client_id}`;
}

/** The differences an update made ("the amount from 30.00 to 35.00"). */
function differences(change: ChangeRecord, words: Wording): string[] {
  const out: string[] = [];
  if (change.subject === 'transaction') {
    const [b, a] = [change.before as TransactionShape, change.after as TransactionShape];
    if (b.occurred_on !== a.occurred_on) out.push(`the date from ${words.date(b.occurred_on)} to ${words.date(a.occurred_on)}`);
    if (b.description !== a.description) out.push(`the description from “${b.description}” to “${a.description}”`);
    if (amountMoved(b.entries) !== amountMoved(a.entries)) out.push(`the amount from ${words.money(amountMoved(b.entries))} to ${words.money(amountMoved(a.entries))}`);
    const accountsOf = (t: TransactionShape) => t.entries.map((e) => e.account_name).join(', ');
    if (accountsOf(b) !== accountsOf(a)) out.push(`the accounts from ${accountsOf(b)} to ${accountsOf(a)}`);
  } else if (change.subject === 'schedule') {
    const [b, a] = [change.before as ScheduleShape, change.after as ScheduleShape];
    if (b.description !== a.description) out.push(`the description from “${b.description}” to “${a.description}”`);
    if (amountMoved(b.entries) !== amountMoved(a.entries)) out.push(`the amount from ${words.money(amountMoved(b.entries))} to ${words.money(amountMoved(a.entries))}`);
    if (b.every !== a.every || b.interval !== a.interval) out.push(`how often from ${howOften(b.every, b.interval).toLowerCase()} to ${howOften(a.every, a.interval).toLowerCase()}`);
    if (b.start_on !== a.start_on) out.push(`the first date from ${words.date(b.start_on)} to ${words.date(a.start_on)}`);
    if (b.until_on !== a.until_on) out.push(`the end from ${b.until_on ? words.date(b.until_on) : 'none'} to ${a.until_on ? words.date(a.until_on) : 'none'}`);
    if (b.mode !== a.mode) out.push(a.mode === 'post' ? 'reminding to posting by itself' : 'posting by itself to reminding');
  } else {
    const [b, a] = [change.before as { name: string; kind: string }, change.after as { name: string; kind: string }];
    if (b.name !== a.name) out.push(`the name from “${b.name}” to “${a.name}”`);
    if (b.kind !== a.kind) out.push(`the kind from ${b.kind} to ${a.kind}`);
  }
  return out;
}

/** D20: the book style and the currency changed, the books closed through a date, or reopened. */
function settingsChanged(change: ChangeRecord, words: Wording): string {
  const before = change.before as { book_style?: string; currency?: string; closed_through?: string | null };
  const after = change.after as typeof before;
  const out: string[] = [];
  if (before.book_style !== after.book_style) out.push(`changed the book style from ${before.book_style} to ${after.book_style}`);
  if (before.currency && after.currency && before.currency !== after.currency) out.push(`changed the currency from ${before.currency} to ${after.currency}`);
  const [was, is] = [before.closed_through ?? null, after.closed_through ?? null];
  if (was !== is) {
    if (is === null) out.push(`reopened the books (closed through ${words.date(was!)})`);
    else if (was === null) out.push(`closed the books through ${words.date(is)}`);
    else out.push(`moved the close of the books from ${words.date(was)} to ${words.date(is)}`);
  }
  return out.join(' and ') || 'changed nothing visible of the settings';
}

/** D20: "reconciled Bank through Mar 31, 2026 at €2,548.15", or its undoing. */
function reconciliationChanged(change: ChangeRecord, words: Wording): string {
  const shape = (change.after ?? change.before) as { account_id: number; statement_date: string; statement_balance_cents: number };
  const account = words.accountName?.(shape.account_id) ?? 'an account';
  const statement = `${account} through ${words.date(shape.statement_date)} at ${words.money(shape.statement_balance_cents)}`;
  return change.action === 'delete' ? `undid the reconciliation of ${statement}` : `reconciled ${statement}`;
}

/**
 * D22: "added the receipt “till.jpg” to “Groceries” of Mar 3, 2026", or its removal (issue 37
 * item 6: the transaction by its description and date; "transaction 12" only when the log holds
 * nothing of it).
 */
function attachmentChanged(change: ChangeRecord, words: Wording): string {
  const shape = (change.after ?? change.before) as { name: string; transaction_id: number };
  const of = change.transaction;
  const transaction = of ? `“${of.description}” of ${words.date(of.occurred_on)}` : `transaction ${shape.transaction_id}`;
  return change.action === 'delete' ? `removed the receipt “${shape.name}” of ${transaction}` : `added the receipt “${shape.name}” to ${transaction}`;
}

/** A transaction by its description and what it moved: its amount, or (issue 37 item 7) the opening balance it set. */
function transactionName(shape: TransactionShape, words: Wording): string {
  const balance = words.accountKind ? startingBalanceOf(shape.entries, words.accountKind) : null;
  if (balance === null) return `“${shape.description}” (${words.money(amountMoved(shape.entries))})`;
  const { lead, rest } = startingBalanceInWords(words.bookStyle ?? 'personal', balance, shape.description, words.money);
  return `“${shape.description}” (${lead.toLowerCase()}: ${rest})`;
}

/**
 * Issue 37 item 6: a transaction's creation that was more than a hand entry — a reminder posted by
 * hand names its schedule (D21: the record's schedule_id), a statement line imported names the
 * statement, a hand entry linked since to a bank line says so; null for a plain one.
 */
function creationTold(change: ChangeRecord, words: Wording, who: string, at: string): string | null {
  const shape = change.after as TransactionShape;
  const name = transactionName(shape, words);
  const line = change.statement_line;
  if (line && !line.linked) return `${who} imported ${name} from the statement of ${line.account_name} of ${words.date(line.occurred_on)} ${at}.`;
  const linked = line ? `, since linked to the bank line of ${words.date(line.occurred_on)} on ${line.account_name}` : '';
  if (change.schedule_id !== null && change.via !== 'schedule') {
    const schedule = words.scheduleName?.(change.schedule_id);
    const from = schedule === undefined ? 'from a schedule since deleted' : `from the schedule “${schedule}”`;
    return `${who} posted ${name} of ${words.date(shape.occurred_on)} ${from} ${at}${linked}.`;
  }
  return linked ? `${who} recorded ${name} ${at}${linked}.` : null;
}

/** Issue 37 item 6: a skipped occurrence (its record's `after` names the date): "skipped “Rent” of Mar 1, 2026". */
function skipOf(change: ChangeRecord): string | null {
  if (change.subject !== 'schedule' || change.action !== 'update') return null;
  const after = change.after as { description: string; skipped_on?: string };
  return after.skipped_on ?? null;
}

/** One record in plain words: who ("You" for the reader), what, when (if the wording tells time), through what. */
export function describeChange(change: ChangeRecord, words: Wording): string {
  const who =
    change.actor_email === null
      ? change.via === 'schedule'
        ? 'A schedule'
        : 'An admin command'
      : change.actor_email.toLowerCase() === words.reader?.toLowerCase()
        ? 'You'
        : change.actor_email;
  const at = `${words.time ? `on ${words.time(change.at)}, ` : ''}${through(change, words)}`;
  if (change.subject === 'reconciliation') return `${who} ${reconciliationChanged(change, words)} ${at}.`;
  if (change.subject === 'attachment') return `${who} ${attachmentChanged(change, words)} ${at}.`;
  if (change.subject === 'settings' && change.action === 'update') return `${who} ${settingsChanged(change, words)} ${at}.`;
  const skipped = skipOf(change);
  if (skipped !== null) return `${who} skipped “${(change.after as ScheduleShape).description}” of ${words.date(skipped)} ${at}.`;
  if (change.subject === 'transaction' && change.action === 'create') {
    const told = creationTold(change, words, who, at);
    if (told !== null) return told;
  }
  const shape = (change.after ?? change.before) as Record<string, unknown>;
  const name =
    change.subject === 'transaction'
      ? transactionName(shape as unknown as TransactionShape, words)
      : change.subject === 'account'
        ? `the account “${String(shape.name)}”`
        : change.subject === 'schedule'
          ? `the schedule “${String(shape.description)}” (${words.money(amountMoved((shape as unknown as ScheduleShape).entries))}, ${howOften((shape as unknown as ScheduleShape).every, (shape as unknown as ScheduleShape).interval).toLowerCase()})`
          : 'the settings';
  const changed = () => differences(change, words).join(', ') || 'nothing visible';
  // A new description already names the transaction ("from “Rnet” to “Rent”"): its amount is enough
  // beside it, so that a record with its time of day still fits three lines of a phone (issue 25 item 7).
  const renamed =
    change.subject === 'transaction' && change.action === 'update' && (change.before as TransactionShape).description !== (change.after as TransactionShape).description;
  const what =
    change.action === 'update'
      ? renamed
        ? `changed ${changed()} (${words.money(amountMoved((shape as unknown as TransactionShape).entries))})`
        : `changed ${changed()} of ${name}`
      : `${{ create: change.subject === 'schedule' ? 'made' : 'recorded', delete: 'deleted', restore: 'restored' }[change.action]} ${name}`;
  return `${who} ${what} ${at}.`;
}
