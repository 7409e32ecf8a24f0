import { useId } from 'react';
import { formatCents, readAmount } from '../money';

/**
 * D19: an amount as a person types it, with what the app understood shown beside it as money
 * (or why it cannot understand it) before anything is saved. `signed` allows a leading minus
 * (the lines of a split).
 */
export function AmountField(props: { label: string; value: string; onChange(value: string): void; signed?: boolean; placeholder?: string }) {
  const id = useId();
  const reading = props.value.trim() === '' ? null : readAmount(props.value, { signed: props.signed });
  const refused = reading !== null && 'error' in reading;
  return (
    <div className="amount-field">
      <label>
        {props.label}
        <input
          inputMode="decimal"
          required
          placeholder={props.placeholder}
          value={props.value}
          aria-invalid={refused || undefined}
          aria-describedby={id}
          onChange={(e) => props.onChange(e.target.value)}
        />
      </label>
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
