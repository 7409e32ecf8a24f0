import { useId } from 'react';
import { formatCents, readAmount } from '../money';

/**
 * D19: an amount as a person types it, with what the app understood shown beside it as money
 * (or why it cannot understand it) before anything is saved. `signed` allows a leading minus
 * (the lines of a split, an overdrawn opening balance); `optional` lets it stay empty (an opening
 * balance, issue 25 item 1); `hint` says how to answer, read with the field.
 */
export function AmountField(props: { label: string; value: string; onChange(value: string): void; signed?: boolean; optional?: boolean; placeholder?: string; hint?: string }) {
  const id = useId();
  const reading = props.value.trim() === '' ? null : readAmount(props.value, { signed: props.signed });
  const refused = reading !== null && 'error' in reading;
  return (
    <div className="amount-field">
      <label>
        {props.label}
        <input
          inputMode="decimal"
          required={!props.optional}
          placeholder={props.placeholder}
          value={props.value}
          aria-invalid={refused || undefined}
          aria-describedby={props.hint ? `${id}-hint ${id}` : id}
          onChange={(e) => props.onChange(e.target.value)}
        />
      </label>
      {props.hint && (
        <span id={`${id}-hint`} className="muted amount-hint">
          {props.hint}
        </span>
      )}
      <output id={id} className={refused ? 'amount-reading error' : 'amount-reading'} aria-live="polite">
        {reading === null ? '' : 'cents' in reading ? `= ${formatCents(reading.cents)}` : reading.error}
      </output>
    </div>
  );
}

/** The cents of a typed amount, or the sentence saying why not, thrown for the form to show. */
export function amountOrThrow(value: string, options: { signed?: boolean; prefix?: string } = {}): number {
  const reading = readAmount(value, { signed: options.signed });
  if ('error' in reading) throw new Error(`${options.prefix ?? ''}${reading.error}`);
  return reading.cents;
}
