import type { Account, ImportLineError, ImportPreview as Preview, ImportRule } from '../api';
import { Money, Scroll, TableHead } from '../components';
import { formatDate } from '../money';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** A line error as the API words it ("line 3: …"), its line named where the message does not. */
const lineError = (e: ImportLineError) => (e.error.startsWith(`line ${e.line}`) ? e.error : `line ${e.line}: ${e.error}`);

/** D16: why a statement cannot be booked, line by line. */
export function LineErrors({ message, errors }: { message?: string; errors: ImportLineError[] }) {
  if (!message && errors.length === 0) return null;
  return (
    <div className="error" role="alert">
      {message && <p>{message}</p>}
      {errors.length > 0 && (
        <ul>
          {errors.map((e, i) => (
            <li key={i}>{lineError(e)}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** What marks a line: the rule that chose its account, and whether it is already in the book. */
function notes(line: Preview['lines'][number], rules: ImportRule[], names: Map<number, string>): string {
  const out: string[] = [];
  const rule = rules.find((r) => r.id === line.rule_id);
  if (rule) out.push(`rule: ${rule.pattern} → ${names.get(rule.account_id) ?? '?'}`);
  if (line.duplicate_of !== null) out.push('already imported, left out');
  return out.join('; ');
}

/**
 * D16: the statement as it would be booked: each line's date, words, money in or out and the
 * account it goes against, the rule behind it and whether it is already in the book; the lines
 * that cannot be booked; and the button that imports the new ones (none while a line is at fault).
 */
export function ImportPreview({
  preview,
  rules,
  accounts,
  busy,
  onImport,
}: {
  preview: Preview;
  rules: ImportRule[];
  accounts: Account[];
  busy: boolean;
  onImport(): void;
}) {
  const names = new Map(accounts.map((a) => [a.id, a.name]));
  const fresh = preview.lines.filter((l) => l.duplicate_of === null).length;
  const known = preview.lines.length - fresh;
  const faults = preview.errors.length;
  const summary = `${fresh} new, ${known} already imported, ${plural(faults, 'error', 'errors')}`;
  return (
    <section aria-labelledby="preview-heading">
      <h2 id="preview-heading">Preview</h2>
      <p role="status" className="summary">
        {summary}
      </p>
      <LineErrors errors={preview.errors} />
      {preview.lines.length > 0 && (
        <Scroll>
          <table aria-label="Statement lines" className="preview">
            <TableHead columns={['Line', 'Date', 'Description', 'Money in', 'Money out', 'Booked against', 'Note']} numeric={['Line', 'Money in', 'Money out']} />
            <tbody>
              {preview.lines.map((line) => (
                <tr key={line.line} className={line.duplicate_of === null ? undefined : 'duplicate'}>
                  <td className="num">{line.line}</td>
                  <td className="nowrap">{formatDate(line.occurred_on)}</td>
                  <td>{line.description}</td>
                  <td className="num">{line.amount_cents >= 0 && <Money cents={line.amount_cents} />}</td>
                  <td className="num">{line.amount_cents < 0 && <Money cents={-line.amount_cents} />}</td>
                  <td>{names.get(line.counter_account_id)}</td>
                  <td>{notes(line, rules, names)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
      <div className="row">
        <button type="button" disabled={busy || faults > 0 || fresh === 0} onClick={onImport}>
          {fresh === 0 ? 'Nothing to import' : `Import ${plural(fresh, 'transaction', 'transactions')}`}
        </button>
      </div>
      {faults > 0 && (
        <p className="muted small">Nothing is imported while a line cannot be booked: correct the file or the choices above, then preview again.</p>
      )}
    </section>
  );
}
