import type { Account } from '../api';
import { useApp } from '../app';

const KINDS = ['asset', 'liability', 'equity', 'income', 'expense'] as const;

/** A required choice of account, grouped by kind in the book style's words. */
export function AccountSelect({ label, accounts, value, onChange }: { label: string; accounts: Account[]; value: string; onChange(v: string): void }) {
  const { words } = useApp();
  return (
    <label>
      {label}
      <select required value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Choose…</option>
        {KINDS.map((kind) => (
          <optgroup key={kind} label={words.kinds[kind]}>
            {accounts
              .filter((a) => a.kind === kind)
              .map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                </option>
              ))}
          </optgroup>
        ))}
      </select>
    </label>
  );
}
