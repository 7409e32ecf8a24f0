import { useState } from 'react';
import { api, type Account } from '../api';
import { closedBooksRefusal, useApp } from '../app';
import { ErrorNote, useSubmit } from '../components';
import { formatCents, formatDate, today } from '../money';
import { AmountField, amountOrThrow } from './AmountField';
import { AccountSelect } from './AccountSelect';
import { blankLines, entriesOf, SplitLines } from './SplitLines';
import { twoEntries, type AccountKind } from '../../book/rules';

type Mode = 'in' | 'out' | 'move' | 'split';
type Simple = Exclude<Mode, 'split'>;

/**
 * For each simple mode: the label of the account that receives (+amount) and of the one that
 * gives (−amount), and the kinds each side offers (issue 6/7 finding 3: a move from Bank to Bank
 * or a payment "spent on" an income account were saved). The split form offers every account.
 */
const LABELS: Record<Simple, { receives: string; gives: string; receivesFirst: boolean; receiveKinds: AccountKind[]; giveKinds: AccountKind[] }> = {
  in: { receives: 'Into', gives: 'From (where the money comes from)', receivesFirst: true, receiveKinds: ['asset', 'liability'], giveKinds: ['income', 'equity'] },
  out: { receives: 'Spent on', gives: 'Paid from', receivesFirst: false, receiveKinds: ['expense'], giveKinds: ['asset', 'liability'] },
  move: { receives: 'To', gives: 'From', receivesFirst: false, receiveKinds: ['asset', 'liability'], giveKinds: ['asset', 'liability'] },
};

/** D19: a date more than a year from today is asked about before saving (a typo like 2062 hides on Home and Reports). */
export function confirmFarDate(date: string): void {
  const days = Math.abs(Date.parse(date) - Date.parse(today())) / 86_400_000;
  if (days > 366 && !window.confirm(`The date ${formatDate(date)} is more than a year from today. Save it anyway?`)) {
    throw new Error(`Not saved: check the date (${formatDate(date)}).`);
  }
}

function ModeChoice({ mode, onChange }: { mode: Mode; onChange(mode: Mode): void }) {
  const { words } = useApp();
  const modes = [
    ['in', words.moneyIn],
    ['out', words.moneyOut],
    ['move', words.move],
    ['split', 'Split (advanced)'],
  ] as const;
  return (
    <fieldset className="modes">
      <legend>What happened?</legend>
      {modes.map(([value, label]) => (
        <label key={value} className="mode">
          <input type="radio" name="mode" value={value} checked={mode === value} onChange={() => onChange(value)} />
          {label}
        </label>
      ))}
    </fieldset>
  );
}

/** The date and the words of a transaction, as every form that writes one asks for them. */
export function DateAndDescription(props: { date: string; description: string; onDate(date: string): void; onDescription(text: string): void }) {
  return (
    <>
      <label>
        Date
        <input type="date" required value={props.date} onChange={(e) => props.onDate(e.target.value)} />
      </label>
      <label>
        Description
        <input required value={props.description} onChange={(e) => props.onDescription(e.target.value)} maxLength={500} />
      </label>
    </>
  );
}

/**
 * Money in / money out / move are client words for two-entry transactions (D6): the account that
 * receives gets +amount, the one that gives −amount. A split takes any number of signed lines.
 */
export function RecordForm({ accounts, onSaved }: { accounts: Account[]; onSaved(): void }) {
  const [mode, setMode] = useState<Mode>('in');
  const [date, setDate] = useState(today());
  const [description, setDescription] = useState('');
  const [amount, setAmount] = useState('');
  const [receives, setReceives] = useState('');
  const [gives, setGives] = useState('');
  const [lines, setLines] = useState(blankLines);
  const [saved, setSaved] = useState<string | null>(null);
  const { words, closedThrough } = useApp();
  // D20: a date in the closed period is refused here, before anything is sent.
  const closed = closedBooksRefusal(date, closedThrough, 'recorded');

  const submit = useSubmit(async () => {
    if (closed) throw new Error(closed);
    let entries: { account_id: number; amount_cents: number }[];
    let said: string;
    if (mode === 'split') {
      entries = entriesOf(lines);
      said = `${words.happened.split} of ${entries.length} entries`;
    } else {
      const cents = amountOrThrow(amount);
      if (cents === 0) throw new Error('Enter an amount more than zero.');
      if (receives === gives) throw new Error('Choose two different accounts.');
      entries = twoEntries({ to_account_id: Number(receives), from_account_id: Number(gives), amount_cents: cents });
      const name = (id: string) => accounts.find((a) => String(a.id) === id)?.name ?? '';
      said = `${words.happened[mode]} ${formatCents(cents)}, from ${name(gives)} to ${name(receives)}`;
    }
    confirmFarDate(date);
    await api('POST', '/transactions', { occurred_on: date, description, entries });
    setSaved(`Saved “${description.trim()}” of ${formatDate(date)}: ${said}.`);
    setDescription('');
    setAmount('');
    setLines(blankLines());
    onSaved();
  });

  const choose = (next: Mode) => {
    setMode(next);
    if (next === 'split') return;
    // A choice the new form does not offer is dropped, not kept out of sight.
    const kindOf = (id: string) => accounts.find((a) => String(a.id) === id)?.kind;
    if (!LABELS[next].receiveKinds.includes(kindOf(receives)!)) setReceives('');
    if (!LABELS[next].giveKinds.includes(kindOf(gives)!)) setGives('');
  };

  const simple = mode === 'split' ? null : LABELS[mode];
  const receiving = simple && (
    <AccountSelect label={simple.receives} accounts={accounts} kinds={simple.receiveKinds} exclude={gives} value={receives} onChange={setReceives} />
  );
  const giving = simple && <AccountSelect label={simple.gives} accounts={accounts} kinds={simple.giveKinds} exclude={receives} value={gives} onChange={setGives} />;
  // A message about the last attempt goes as soon as the person changes anything (finding 2).
  const changed = () => {
    if (submit.error) submit.setError(null);
    if (saved) setSaved(null);
  };
  return (
    <form onSubmit={submit.onSubmit} onChange={changed} className="record">
      <ModeChoice mode={mode} onChange={choose} />
      <DateAndDescription date={date} description={description} onDate={setDate} onDescription={setDescription} />
      {closed && submit.error !== closed && <p className="warning">{closed}</p>}
      {simple ? (
        <>
          <AmountField label="Amount" placeholder="12.50" value={amount} onChange={setAmount} />
          {simple.receivesFirst ? (
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
        </>
      ) : (
        <SplitLines accounts={accounts} lines={lines} onChange={setLines} />
      )}
      <ErrorNote error={submit.error} />
      <button type="submit" disabled={submit.busy}>
        {submit.busy ? 'Saving…' : 'Save'}
      </button>
      {saved && (
        <p role="status" className="notice">
          {saved} <a href="#list-heading">See it in the history</a>
        </p>
      )}
    </form>
  );
}
