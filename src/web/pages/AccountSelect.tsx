import { useTranslation } from 'react-i18next';
import type { Account } from '../api';
import { useApp } from '../app';
import type { AccountKind } from '../../book/rules';
import { usePeopleAccounts } from '../people-accounts';

const KINDS = ['asset', 'liability', 'equity', 'income', 'expense'] as const;

/**
 * A required choice of account, grouped by kind in the book style's words. `kinds` offers only
 * the kinds that make sense for the form (issue 6/7 finding 3; every kind when absent), and
 * `exclude` leaves out the account chosen on the other side: never the same account twice (D19).
 */
export function AccountSelect(props: { label: string; accounts: Account[]; value: string; onChange(v: string): void; kinds?: readonly AccountKind[]; exclude?: string }) {
  const { t } = useTranslation();
  const { words, bookStyle } = useApp();
  const kinds = props.kinds ?? KINDS;
  // D27: people's accounts are not among the book's other accounts. A choice: every picker still
  // offers them, in a group of their own ("People" / "Members"), whatever kinds it offers — a
  // member's dues paid into the bank are money in from them, money paid back to a person who
  // advanced it is money out to them, and a statement's line is booked to them (D27).
  const people = usePeopleAccounts() ?? new Map<number, string>();
  const offered = (a: Account) => String(a.id) !== props.exclude;
  return (
    <label>
      {props.label}
      <select required value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        <option value="">{t('transactions.form.chooseAccount')}</option>
        {KINDS.filter((kind) => kinds.includes(kind)).map((kind) => (
          <optgroup key={kind} label={words.kinds[kind]}>
            {props.accounts
              .filter((a) => a.kind === kind && !people.has(a.id) && offered(a))
              .map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                </option>
              ))}
          </optgroup>
        ))}
        {people.size > 0 && (
          <optgroup label={t('people.title', { context: bookStyle })}>
            {props.accounts
              .filter((a) => people.has(a.id) && offered(a))
              .map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                </option>
              ))}
          </optgroup>
        )}
      </select>
    </label>
  );
}
