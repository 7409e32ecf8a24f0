import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type BookSettings, type SepaCreditor } from '../api';
import { ErrorNote, useSubmit } from '../components';

// D27 (issue 41 item 1): the club's creditor details for SEPA direct debit, entered once and kept
// in Settings (`sepa`). The API checks each field as a bank would and names the one at fault
// ("sepa.creditor_id's check digits are wrong"); the form says which field, in the person's
// language (D29), next to the form.

const FIELDS = ['creditor_name', 'creditor_iban', 'creditor_bic', 'creditor_id'] as const;
type Field = (typeof FIELDS)[number];

/** The API's refusal of a creditor field in the person's words, else as the API said it. */
function creditorRefusalInWords(message: string, t: (key: string) => string): string {
  const field = /^sepa\.(creditor_(?:name|iban|bic|id))\b/.exec(message)?.[1] as Field | undefined;
  return field ? t(`directDebits.creditor.refused.${field}`) : message;
}

/** The saved creditor details in a few lines, with a button to change them. */
export function CreditorDetails({ sepa, onChange }: { sepa: SepaCreditor; onChange(): void }) {
  const { t } = useTranslation();
  return (
    <div className="stack">
      <dl className="creditor-details">
        <dt>{t('directDebits.creditor.name')}</dt>
        <dd>{sepa.creditor_name}</dd>
        <dt>{t('directDebits.creditor.iban')}</dt>
        <dd>{sepa.creditor_iban}</dd>
        {sepa.creditor_bic && (
          <>
            <dt>{t('directDebits.creditor.bic')}</dt>
            <dd>{sepa.creditor_bic}</dd>
          </>
        )}
        <dt>{t('directDebits.creditor.id')}</dt>
        <dd>{sepa.creditor_id}</dd>
      </dl>
      <div className="row">
        <button type="button" className="secondary" onClick={onChange}>
          {t('directDebits.creditor.change')}
        </button>
      </div>
    </div>
  );
}

/** The creditor details typed once: PUT /settings {sepa}; the refusal is shown next to the form. */
export function CreditorForm({ sepa, onSaved, onCancel }: { sepa?: SepaCreditor; onSaved(settings: BookSettings): void; onCancel?: () => void }) {
  const { t } = useTranslation();
  const [values, setValues] = useState<Record<Field, string>>({
    creditor_name: sepa?.creditor_name ?? '',
    creditor_iban: sepa?.creditor_iban ?? '',
    creditor_bic: sepa?.creditor_bic ?? '',
    creditor_id: sepa?.creditor_id ?? '',
  });
  const { busy, error, onSubmit } = useSubmit(async () => {
    const { creditor_bic, ...rest } = values;
    const request: SepaCreditor = { ...rest, ...(creditor_bic.trim() ? { creditor_bic: creditor_bic.trim() } : {}) };
    try {
      onSaved(await api<BookSettings>('PUT', '/settings', { sepa: request }));
    } catch (e) {
      throw new Error(creditorRefusalInWords((e as Error).message, t));
    }
  });
  const field = (name: Field, required: boolean, hint?: string) => (
    <label key={name}>
      {t(`directDebits.creditor.${name.replace('creditor_', '')}`)}
      <input
        required={required}
        value={values[name]}
        autoComplete="off"
        spellCheck={false}
        onChange={(e) => setValues({ ...values, [name]: e.target.value })}
        placeholder={hint}
      />
    </label>
  );
  return (
    <form className="creditor-form stack" aria-label={t('directDebits.creditor.formLabel')} onSubmit={(e) => void onSubmit(e)}>
      {field('creditor_name', true)}
      <div className="row">
        {field('creditor_iban', true, 'DE89 3704 0044 0532 0130 00')}
        {field('creditor_bic', false)}
      </div>
      {field('creditor_id', true, 'DE98ZZZ09999999999')}
      <p className="muted small">{t('directDebits.creditor.idHint')}</p>
      <ErrorNote error={error} />
      <div className="row">
        <button type="submit" disabled={busy}>
          {t('directDebits.creditor.save')}
        </button>
        {onCancel && (
          <button type="button" className="secondary" onClick={onCancel}>
            {t('directDebits.creditor.cancel')}
          </button>
        )}
      </div>
    </form>
  );
}
