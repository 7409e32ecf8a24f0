import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type Account, type Transaction } from '../api';
import { closedBooksRefusal, useApp } from '../app';
import { ErrorNote, Link, useSubmit } from '../components';
import { formatAmount, formatCents, formatDate, readAmount, today } from '../money';
import { BALANCE_MOVES, OWED_WORDS, type Words } from '../words';
import { AmountField, amountOrThrow } from './AmountField';
import { AccountSelect } from './AccountSelect';
import { AddReceiptButton, receiptProblem, RECEIPTS_PER_TRANSACTION, sendReceipt, SendingProgress, sizeInWords, type Sending } from './Receipts';
import { blankLines, entriesOf, SplitLines } from './SplitLines';
import { directionOf, naturalBalance, twoEntries, type AccountKind } from '../../book/rules';
import { t } from '../i18n';

export type Mode = 'in' | 'out' | 'move' | 'split';
/** Money in, money out, a move: one amount between two accounts (D6). */
export type Simple = Exclude<Mode, 'split'>;
type Entry = { account_id: number; amount_cents: number };

/**
 * For each simple mode: the label (its catalogue key, D29) of the account that receives (+amount) and of the one that
 * gives (−amount), and the kinds each side offers (issue 6/7 finding 3: a move from Bank to Bank
 * or a payment "spent on" an income account were saved). The split form offers every account.
 */
const LABELS: Record<Simple, { receives: string; gives: string; receivesFirst: boolean; receiveKinds: AccountKind[]; giveKinds: AccountKind[] }> = {
  in: { receives: 'transactions.form.inReceives', gives: 'transactions.form.inGives', receivesFirst: true, receiveKinds: ['asset', 'liability'], giveKinds: ['income', 'equity'] },
  out: { receives: 'transactions.form.outReceives', gives: 'transactions.form.outGives', receivesFirst: false, receiveKinds: ['expense'], giveKinds: ['asset', 'liability'] },
  move: { receives: 'transactions.form.moveReceives', gives: 'transactions.form.moveGives', receivesFirst: false, receiveKinds: ['asset', 'liability'], giveKinds: ['asset', 'liability'] },
};

/** A simple transaction as its form holds it: the mode, the typed amount and the two accounts' ids. */
export interface Movement {
  mode: Simple;
  amount: string;
  receives: string;
  gives: string;
}

/**
 * Issue 25 item 5: the simple form a two-entry transaction was recorded in (money in, out or a
 * move: D6's directionOf, with the kinds that form offers on each side), or null when it fits
 * none (more entries, or accounts no simple form offers): the split lines then.
 */
export function movementOf(entries: readonly Entry[], accounts: Account[]): { mode: Simple; cents: number; receives: number; gives: number } | null {
  const kindOf = (id: number) => accounts.find((a) => a.id === id)?.kind;
  const direction = directionOf(entries, kindOf);
  if (direction === 'split') return null;
  const to = entries.find((e) => e.amount_cents > 0)!;
  const from = entries.find((e) => e.amount_cents < 0)!;
  const fits = LABELS[direction].receiveKinds.includes(kindOf(to.account_id)!) && LABELS[direction].giveKinds.includes(kindOf(from.account_id)!);
  return fits ? { mode: direction, cents: to.amount_cents, receives: to.account_id, gives: from.account_id } : null;
}

/**
 * The two entries of a simple form (D6: the account that receives gets +amount, the one that
 * gives −amount) and the save confirmation's words for it; a sentence thrown when it is not
 * filled in properly.
 */
export function movementEntries(movement: Movement, accounts: Account[], words: Words): { entries: Entry[]; said: string } {
  const cents = amountOrThrow(movement.amount);
  if (cents === 0) throw new Error(t('transactions.form.amountZero'));
  if (!movement.receives || !movement.gives) throw new Error(t('transactions.form.bothAccounts'));
  if (movement.receives === movement.gives) throw new Error(t('transactions.form.twoAccounts'));
  const name = (id: string) => accounts.find((a) => String(a.id) === id)?.name ?? '';
  return {
    entries: twoEntries({ to_account_id: Number(movement.receives), from_account_id: Number(movement.gives), amount_cents: cents }),
    said: t('transactions.form.said', { what: words.happened[movement.mode], amount: formatCents(cents), from: name(movement.gives), to: name(movement.receives) }),
  };
}

/** The confirmation of a save, in words (issue 6/7 finding 4, issue 25 item 5). */
export const savedInWords = (description: string, date: string, said: string) => t('transactions.form.saved', { description: description.trim(), date: formatDate(date), said });

/**
 * Issue 37 item 11: the years a far date is not asked about — those the book already has
 * transactions in (learnt from the whole income statement's first and last dates when a form is
 * shown) and those the person said yes to since the page was loaded. Entering last year's six
 * lines asks once, not six times.
 */
const unsurprisingYears = new Set<string>();
let bookYearsAsked = false;
export function useBookYears(): void {
  useEffect(() => {
    if (bookYearsAsked) return;
    bookYearsAsked = true;
    api<{ from: string; to: string }>('GET', '/reports/income-statement').then(
      ({ from, to }) => {
        for (let year = Number(from.slice(0, 4)); year <= Number(to.slice(0, 4)); year++) unsurprisingYears.add(String(year).padStart(4, '0'));
      },
      () => {
        bookYearsAsked = false;
      },
    );
  }, []);
}

/** D19: a date more than a year from today is asked about before saving (a typo like 2062 hides on Home and Reports). */
export function confirmFarDate(date: string): void {
  const days = Math.abs(Date.parse(date) - Date.parse(today())) / 86_400_000;
  if (days <= 366 || unsurprisingYears.has(date.slice(0, 4))) return;
  if (!window.confirm(t('transactions.form.farDate', { date: formatDate(date) }))) {
    throw new Error(t('transactions.form.farDateNotSaved', { date: formatDate(date) }));
  }
  unsurprisingYears.add(date.slice(0, 4));
}

/**
 * Issue 25 item 4: a confirmation (a save, a delete with its undo) announced to screen readers
 * (role=status, present before its words arrive) and scrolled into view each time `said`
 * changes, where the person would otherwise not see it; with `focus`, it also takes the focus
 * (the control that was used is gone).
 */
export function Notice({ said, focus = false, children }: { said: string | null; focus?: boolean; children?: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!said || !ref.current) return;
    ref.current.scrollIntoView({ block: 'nearest' });
    if (focus) ref.current.focus({ preventScroll: true });
  }, [said, focus]);
  return (
    <div ref={ref} role="status" className={said ? 'notice' : undefined} tabIndex={focus && said ? -1 : undefined}>
      {said && (children ?? said)}
    </div>
  );
}

export function ModeChoice({ mode, onChange, split = true, legend }: { mode: Mode; onChange(mode: Mode): void; split?: boolean; legend?: string }) {
  const { t } = useTranslation();
  const { words } = useApp();
  const name = useId();
  const modes = [
    ['in', words.moneyIn],
    ['out', words.moneyOut],
    ['move', words.move],
    ...(split ? [['split', t('transactions.form.split')] as const] : []),
  ] as const;
  return (
    <fieldset className="modes">
      <legend>{legend ?? t('transactions.form.whatHappened')}</legend>
      {modes.map(([value, label]) => (
        <label key={value} className="mode">
          <input type="radio" name={name} value={value} checked={mode === value} onChange={() => onChange(value)} />
          {label}
        </label>
      ))}
    </fieldset>
  );
}

/** The date and the words of a transaction, as every form that writes one asks for them. */
export function DateAndDescription(props: { date: string; description: string; onDate(date: string): void; onDescription(text: string): void }) {
  const { t } = useTranslation();
  return (
    <>
      <label>
        {t('transactions.form.date')}
        <input type="date" required value={props.date} onChange={(e) => props.onDate(e.target.value)} />
      </label>
      <label>
        {t('transactions.form.description')}
        <input required value={props.description} onChange={(e) => props.onDescription(e.target.value)} maxLength={500} />
      </label>
    </>
  );
}

/**
 * Issue 25 item 1 (D6, D19): what a simple form does to each of its two accounts, in natural
 * sign and in words that cannot be misread ("Visa card: we owe €45.50 more, spent on the card"),
 * once the amount and both accounts are there.
 */
function BalanceMoves({ id, movement, accounts }: { id: string; movement: Movement; accounts: Account[] }) {
  const { t } = useTranslation();
  const { bookStyle } = useApp();
  const reading = readAmount(movement.amount);
  const cents = 'cents' in reading ? reading.cents : 0;
  const receiving = accounts.find((a) => String(a.id) === movement.receives);
  const giving = accounts.find((a) => String(a.id) === movement.gives);
  // Always there (empty until the form is filled in), so that the Save button's description points at something.
  if (cents === 0 || !receiving || !giving || receiving === giving) return <p id={id} className="balance-moves" />;
  const line = (account: Account, entry: number) => {
    const natural = naturalBalance(account.kind, entry);
    const moved = BALANCE_MOVES[bookStyle][account.kind][natural > 0 ? 'more' : 'less'].replace('{amount}', formatCents(Math.abs(natural)));
    const debt = OWED_WORDS(account.name);
    const owed =
      account.kind !== 'liability'
        ? null
        : movement.mode === 'out'
          ? debt.spent
          : movement.mode === 'in'
            ? debt.refund
            : entry > 0
              ? debt.paidOff
              : debt.borrowed;
    return (
      <span key={account.id} className="balance-move">
        {account.name}: {moved}
        {owed && `, ${owed}`}.
      </span>
    );
  };
  const lines = [line(giving, -cents), line(receiving, cents)];
  if (LABELS[movement.mode].receivesFirst) lines.reverse();
  return (
    <p id={id} className="balance-moves">
      <span className="balance-moves-lead">{t('transactions.form.inTheBooks')} </span>
      {lines[0]} {lines[1]}
    </p>
  );
}

/**
 * The fields of money in / money out / a move (D6: one amount, two accounts), each side offering
 * the kinds that make sense and never the account chosen on the other (D19), with what it does
 * to each account in words (issue 25 item 1). `describedBy` is the id of those words, for the
 * button that saves them.
 */
export function MovementFields({ movement, accounts, onChange, describedBy, placeholder }: { movement: Movement; accounts: Account[]; onChange(movement: Movement): void; describedBy: string; placeholder?: string }) {
  const { t } = useTranslation();
  const labels = LABELS[movement.mode];
  const receiving = (
    <AccountSelect label={t(labels.receives)} accounts={accounts} kinds={labels.receiveKinds} exclude={movement.gives} value={movement.receives} onChange={(receives) => onChange({ ...movement, receives })} />
  );
  const giving = <AccountSelect label={t(labels.gives)} accounts={accounts} kinds={labels.giveKinds} exclude={movement.receives} value={movement.gives} onChange={(gives) => onChange({ ...movement, gives })} />;
  return (
    <>
      <AmountField label={t('transactions.form.amount')} placeholder={placeholder} value={movement.amount} onChange={(amount) => onChange({ ...movement, amount })} />
      {labels.receivesFirst ? (
        <>
          {receiving}
          {giving}
        </>
      ) : (
        <>
          {giving}
          {receiving}
        </>
      )}
      <BalanceMoves id={describedBy} movement={movement} accounts={accounts} />
    </>
  );
}

/** The movement in another simple mode: a choice the new form does not offer is dropped, not kept out of sight. */
export function inMode(movement: Movement, mode: Simple, accounts: Account[]): Movement {
  const kindOf = (id: string) => accounts.find((a) => String(a.id) === id)?.kind;
  return {
    ...movement,
    mode,
    receives: LABELS[mode].receiveKinds.includes(kindOf(movement.receives)!) ? movement.receives : '',
    gives: LABELS[mode].giveKinds.includes(kindOf(movement.gives)!) ? movement.gives : '',
  };
}

/** The mode choice of the simple forms alone (a transaction opened for editing, issue 25 item 5). */
export function SimpleModeChoice({ movement, accounts, onChange }: { movement: Movement; accounts: Account[]; onChange(movement: Movement): void }) {
  return <ModeChoice mode={movement.mode} split={false} onChange={(mode) => onChange(inMode(movement, mode as Simple, accounts))} />;
}

/**
 * Money in / money out / move are client words for two-entry transactions (D6): the account that
 * receives gets +amount, the one that gives −amount. A split takes any number of signed lines.
 */
export function RecordForm({ accounts, onSaved }: { accounts: Account[]; onSaved(): void }) {
  useBookYears();
  const { t } = useTranslation();
  const [mode, setMode] = useState<Mode>('in');
  const [date, setDate] = useState(today());
  const [description, setDescription] = useState('');
  const [movement, setMovement] = useState<Movement>({ mode: 'in', amount: '', receives: '', gives: '' });
  const [lines, setLines] = useState(blankLines);
  const [saved, setSaved] = useState<string | null>(null);
  const { words, closedThrough } = useApp();
  const moves = useId();
  // D20: a date in the closed period is refused here, before anything is sent.
  const closed = closedBooksRefusal(date, closedThrough, 'recorded');
  // D22: receipts chosen with the transaction, sent to it once it is recorded.
  const [receipts, setReceipts] = useState<File[]>([]);
  const [receiptErrors, setReceiptErrors] = useState<string[]>([]);
  const [sending, setSending] = useState<Sending | null>(null);
  /** The transaction just recorded whose receipts were not all added: opened from the notice to try again. */
  const [unfinished, setUnfinished] = useState<number | null>(null);

  const chooseReceipts = (files: File[]) => {
    const refused = files.map(receiptProblem).filter((problem): problem is string => problem !== null);
    const kept = [...receipts, ...files.filter((file) => receiptProblem(file) === null)];
    if (kept.length > RECEIPTS_PER_TRANSACTION) refused.push(t('transactions.form.receiptLimit', { limit: RECEIPTS_PER_TRANSACTION }));
    setReceipts(kept.slice(0, RECEIPTS_PER_TRANSACTION));
    setReceiptErrors(refused);
  };

  const submit = useSubmit(async () => {
    if (closed) throw new Error(closed);
    let entries: Entry[];
    let said: string;
    if (mode === 'split') {
      entries = entriesOf(lines);
      said = t('transactions.form.splitSaid', { split: words.happened.split, count: entries.length });
    } else {
      ({ entries, said } = movementEntries(movement, accounts, words));
    }
    confirmFarDate(date);
    setReceiptErrors([]);
    setUnfinished(null);
    const made = await api<Transaction>('POST', '/transactions', { occurred_on: date, description, entries });
    // Recorded: the receipts follow, one by one; one refused does not undo the transaction.
    const refused: string[] = [];
    for (const file of receipts) {
      try {
        await sendReceipt(made.id, file, setSending);
      } catch (e) {
        refused.push((e as Error).message);
      }
    }
    setSending(null);
    const added = receipts.length - refused.length;
    setSaved(added ? `${savedInWords(description, date, said)} ${t('transactions.form.withReceipts', { count: added })}` : savedInWords(description, date, said));
    setReceiptErrors(refused);
    setUnfinished(refused.length ? made.id : null);
    setReceipts([]);
    setDescription('');
    setMovement({ ...movement, amount: '' });
    setLines(blankLines());
    onSaved();
  });

  const choose = (next: Mode) => {
    setMode(next);
    if (next !== 'split') setMovement(inMode(movement, next, accounts));
  };

  // A message about the last attempt goes as soon as the person changes anything (finding 2).
  const changed = () => {
    if (submit.error) submit.setError(null);
    if (saved) setSaved(null);
    if (unfinished) setUnfinished(null);
  };
  return (
    <form onSubmit={submit.onSubmit} onChange={changed} className="record">
      <ModeChoice mode={mode} onChange={choose} />
      <DateAndDescription date={date} description={description} onDate={setDate} onDescription={setDescription} />
      {closed && submit.error !== closed && <p className="warning">{closed}</p>}
      {mode === 'split' ? (
        <SplitLines accounts={accounts} lines={lines} onChange={setLines} />
      ) : (
        <MovementFields movement={movement} accounts={accounts} onChange={setMovement} describedBy={moves} placeholder={formatAmount(1250)} />
      )}
      <ChosenReceipts files={receipts} busy={submit.busy} onChosen={chooseReceipts} onRemove={(file) => setReceipts(receipts.filter((f) => f !== file))} />
      <ErrorNote error={submit.error} />
      <button type="submit" disabled={submit.busy} aria-describedby={mode === 'split' ? undefined : moves}>
        {submit.busy ? (sending ? t('transactions.form.sendingReceipts') : t('transactions.form.saving')) : t('transactions.form.save')}
      </button>
      <SendingProgress sending={sending} />
      <Notice said={saved}>
        {saved} <a href="#list-heading">{t('transactions.form.seeInList')}</a>
      </Notice>
      {receiptErrors.map((error) => (
        <ErrorNote key={error} error={error} />
      ))}
      {unfinished !== null && (
        <p>
          {t('transactions.form.unfinished', { count: receiptErrors.length })}{' '}
          <Link to={`/transactions?edit=${unfinished}`}>{t('transactions.form.openToAdd')}</Link>
        </p>
      )}
    </form>
  );
}

/**
 * D22: the receipts chosen for a transaction not yet recorded ("Add receipt": the camera on a
 * phone), each with its size and a button to take it off again; sent once the transaction is.
 */
function ChosenReceipts({ files, busy, onChosen, onRemove }: { files: File[]; busy: boolean; onChosen(files: File[]): void; onRemove(file: File): void }) {
  const { t } = useTranslation();
  const hint = useId();
  return (
    <fieldset className="stack chosen-receipts" aria-describedby={hint}>
      <legend>{t('transactions.form.receipts')}</legend>
      <p id={hint} className="muted small">
        {files.length ? t('transactions.form.receiptsHintChosen') : t('transactions.form.receiptsHint')}
      </p>
      {files.length > 0 && (
        <ul className="plain">
          {files.map((file, i) => (
            <li key={`${i}-${file.name}`} className="row">
              <span className="receipt-name">
                {file.name} <span className="muted small">{sizeInWords(file.size)}</span>
              </span>
              <button type="button" className="secondary" disabled={busy} aria-label={t('transactions.form.takeOffLabel', { name: file.name })} onClick={() => onRemove(file)}>
                {t('transactions.form.takeOff')}
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="row">
        <AddReceiptButton disabled={busy || files.length >= RECEIPTS_PER_TRANSACTION} onChosen={onChosen} />
      </div>
    </fieldset>
  );
}
