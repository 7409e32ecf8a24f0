import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type Account, type ImportRule } from '../api';
import { ErrorNote, useSubmit } from '../components';
import { AccountSelect } from './AccountSelect';

/**
 * D16: import rules, kept in place on the Import page: a line whose description contains a rule's
 * pattern (any case) goes against the rule's account; the first rule listed that fits wins.
 * `onChanged` reloads the rules (and the preview, so that its matches follow).
 */
export function ImportRules({ rules, accounts, onChanged }: { rules: ImportRule[]; accounts: Account[]; onChanged(): Promise<void> }) {
  const { t } = useTranslation();
  const names = new Map(accounts.map((a) => [a.id, a.name]));
  const [pattern, setPattern] = useState('');
  const [accountId, setAccountId] = useState('');
  const [removeError, setRemoveError] = useState<string | null>(null);
  const add = useSubmit(async () => {
    await api('POST', '/import-rules', { pattern, account_id: Number(accountId) });
    setPattern('');
    await onChanged();
  });
  const remove = async (rule: ImportRule) => {
    setRemoveError(null);
    try {
      await api('DELETE', `/import-rules/${rule.id}`);
      await onChanged();
    } catch (e) {
      setRemoveError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <section aria-labelledby="rules-heading">
      <h2 id="rules-heading">{t('import.rules.heading')}</h2>
      <p className="muted small">{t('import.rules.intro')}</p>
      {rules.length === 0 ? (
        <p>{t('import.rules.none')}</p>
      ) : (
        <ul className="plain rules">
          {rules.map((rule) => (
            <li key={rule.id} className="row">
              <span>{t('import.rules.rule', { pattern: rule.pattern, account: names.get(rule.account_id) ?? '?' })}</span>
              <button type="button" className="secondary" aria-label={t('import.rules.deleteLabel', { pattern: rule.pattern })} onClick={() => void remove(rule)}>
                {t('import.rules.delete')}
              </button>
            </li>
          ))}
        </ul>
      )}
      <ErrorNote error={removeError} />
      <form aria-label={t('import.rules.form')} className="row" onSubmit={add.onSubmit}>
        <label>
          {t('import.rules.pattern')}
          <input required maxLength={100} value={pattern} onChange={(e) => setPattern(e.target.value)} />
        </label>
        <AccountSelect label={t('import.rules.bookAgainst')} accounts={accounts} value={accountId} onChange={setAccountId} />
        <button type="submit" disabled={add.busy}>
          {t('import.rules.add')}
        </button>
      </form>
      <ErrorNote error={add.error} />
    </section>
  );
}
