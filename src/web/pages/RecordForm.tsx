import { useState } from 'react';
import { api, type Account } from '../api';
import { useApp } from '../app';
import { ErrorNote, useSubmit } from '../components';
import { today } from '../money';
import { AmountField, amountOrThrow } from './AmountField';
import { AccountSelect } from './AccountSelect';
import { blankLines, entriesOf, SplitLines } from './SplitLines';
import { twoEntries } from '../../book/rules';

type Mode = 'in' | 'out' | 'move' | 'split';
type Simple = Exclude<Mode, 'split'>;

/** For each simple mode: the label of the account that receives (+amount) and of the one that gives (−amount). */
const LABELS: Record<Simple, { receives: string; gives: string; receivesFirst: boolean }> = {
  in: { receives: 'Into', gives: 'From (where the money comes from)', receivesFirst: true },
  out: { receives: 'Spent on', gives: 'Paid from', receivesFirst: false },
  move: { receives: 'To', gives: 'From', receivesFirst: false },
};

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

  const submit = useSubmit(async () => {
    let entries: { account_id: number; amount_cents: number }[];
    if (mode === 'split') entries = entriesOf(lines);
    else {
      const cents = amountOrThrow(amount);
      if (cents === 0) throw new Error('Enter an amount more than zero.');
      entries = twoEntries({ to_account_id: Number(receives), from_account_id: Number(gives), amount_cents: cents });
    }
    await api('POST', '/transactions', { occurred_on: date, description, entries });
    setDescription('');
    setAmount('');
    setLines(blankLines());
    onSaved();
  });

  const simple = mode === 'split' ? null : LABELS[mode];
  const receiving = simple && <AccountSelect label={simple.receives} accounts={accounts} value={receives} onChange={setReceives} />;
  const giving = simple && <AccountSelect label={simple.gives} accounts={accounts} value={gives} onChange={setGives} />;
  return (
    <form onSubmit={submit.onSubmit} className="record">
      <ModeChoice mode={mode} onChange={setMode} />
      <DateAndDescription date={date} description={description} onDate={setDate} onDescription={setDescription} />
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
    </form>
  );
}
