import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { t } from '../i18n';
import type { Account } from '../api';
import { formatCents, parseSignedMoney } from '../money';
import { AmountField, amountOrThrow } from './AmountField';
import { AccountSelect } from './AccountSelect';

export interface Line {
  account: string;
  amount: string;
}
export const blankLines = (): Line[] => [
  { account: '', amount: '' },
  { account: '', amount: '' },
];

/** The entries of a split, or an error naming the first line that is not filled in properly. */
export function entriesOf(lines: Line[]): { account_id: number; amount_cents: number }[] {
  const entries = lines.map((line, i) => {
    if (!line.account) throw new Error(t('transactions.split.noAccount', { line: i + 1 }));
    return { account_id: Number(line.account), amount_cents: amountOrThrow(line.amount, { signed: true, prefix: t('transactions.split.linePrefix', { line: i + 1 }) }) };
  });
  // Said in money before the server is asked, whose message counts in cents (finding 2).
  const total = entries.reduce((sum, e) => sum + e.amount_cents, 0);
  if (total !== 0) throw new Error(t('transactions.split.notZero', { total: formatCents(total) }));
  return entries;
}

/** The running total of the lines typed so far, and what is left to balance (it must reach zero). */
function Balance({ lines }: { lines: Line[] }) {
  const { t } = useTranslation();
  const amounts = lines.map((l) => parseSignedMoney(l.amount));
  const total = amounts.reduce<number>((sum, cents) => sum + (cents ?? 0), 0);
  const complete = amounts.every((cents) => cents !== null);
  return (
    <output className="split-balance" aria-live="polite">
      {t('transactions.split.total', { total: formatCents(total) })}{' '}
      {total === 0 && complete ? t('transactions.split.balanced') : t('transactions.split.remaining', { amount: formatCents(-total || 0) })}
    </output>
  );
}

/** The lines of a split (at least two): an account and a signed amount each. */
export function SplitLines({ accounts, lines, onChange }: { accounts: Account[]; lines: Line[]; onChange(lines: Line[]): void }) {
  const { t } = useTranslation();
  const add = useRef<HTMLButtonElement>(null);
  const update = (i: number, change: Partial<Line>) => onChange(lines.map((l, j) => (j === i ? { ...l, ...change } : l)));
  const remove = (i: number) => {
    onChange(lines.filter((_, j) => j !== i));
    // The removed line's button is gone: keep the keyboard in the form.
    add.current?.focus();
  };
  return (
    <fieldset>
      <legend>{t('transactions.split.legend')}</legend>
      {lines.map((line, i) => (
        <div className="row" key={i}>
          <AccountSelect label={t('transactions.split.account', { line: i + 1 })} accounts={accounts} value={line.account} onChange={(account) => update(i, { account })} />
          <AmountField label={t('transactions.split.amount', { line: i + 1 })} signed value={line.amount} onChange={(amount) => update(i, { amount })} />
          {lines.length > 2 && (
            <button type="button" className="secondary" onClick={() => remove(i)}>
              {t('transactions.split.remove', { line: i + 1 })}
            </button>
          )}
        </div>
      ))}
      <Balance lines={lines} />
      <button type="button" className="secondary" ref={add} onClick={() => onChange([...lines, { account: '', amount: '' }])}>
        {t('transactions.split.add')}
      </button>
    </fieldset>
  );
}
