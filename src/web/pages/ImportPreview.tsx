import { useEffect, useState } from 'react';
import { api, type Account, type ImportLineError, type ImportPreview as Preview, type ImportRule, type Reconciliation, type Transaction } from '../api';
import { isCreditNormal } from '../../book/rules';
import { Money, Scroll, TableHead } from '../components';
import { formatCents, formatDate } from '../money';

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

/**
 * What marks a line: the rule that chose its account, whether it is already in the book, and
 * whether booking it changes a balance already reconciled (D16, issue 37).
 */
function notes(line: Preview['lines'][number], rules: ImportRule[], names: Map<number, string>, inReconciled: boolean): string {
  const out: string[] = [];
  const rule = rules.find((r) => r.id === line.rule_id);
  if (rule) out.push(`rule: ${rule.pattern} → ${names.get(rule.account_id) ?? '?'}`);
  if (line.duplicate_of !== null) out.push('already imported, left out');
  if (inReconciled) out.push('⚠ in a period already reconciled');
  return out.join('; ');
}

/**
 * D16 (issue 37): the lines this import would book in a period already reconciled: dated on or
 * before the account's last reconciliation (`reconciled_period`) and neither left out as a
 * duplicate nor linked to what is in the book already, so each one changes a reconciled balance.
 */
const bookedInReconciled = (preview: Preview, unlinked: ReadonlySet<number>) =>
  new Set(preview.lines.filter((l) => l.reconciled_period && l.duplicate_of === null && (l.match_of === null || unlinked.has(l.line))).map((l) => l.line));

/** D16 (issue 37): the statement date the account is reconciled through, fetched only when a line falls on or before it. */
function useReconciledThrough(accountId: number | undefined, needed: boolean): string | null {
  const [through, setThrough] = useState<string | null>(null);
  useEffect(() => {
    setThrough(null);
    if (!needed || accountId === undefined) return;
    let live = true;
    // Newest first: the first is the last reconciliation.
    api<Reconciliation[]>('GET', `/accounts/${accountId}/reconciliations`)
      .then((list) => live && setThrough(list[0]?.statement_date ?? null))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [accountId, needed]);
  return through;
}

/** The warning above the lines: how many would change a reconciled balance, and through when it is reconciled. */
function reconciledWarning(count: number, through: string | null): string {
  const lines = count === 1 ? '1 line falls' : `${count} lines fall`;
  return `${lines} in a period already reconciled${through ? ` (through ${formatDate(through)})` : ''}: importing ${count === 1 ? 'it' : 'them'} changes a reconciled balance.`;
}

/** D16: the transactions typed by hand that lines match, fetched once each, for their descriptions. */
function useHandEntries(ids: number[]): Map<number, Transaction> {
  const [found, setFound] = useState<Map<number, Transaction>>(new Map());
  const key = ids.join(',');
  useEffect(() => {
    let live = true;
    Promise.all(ids.map((id) => api<Transaction>('GET', `/transactions/${id}`).catch(() => null)))
      .then((all) => live && setFound(new Map(all.filter((t): t is Transaction => t !== null).map((t) => [t.id, t]))))
      .catch(() => undefined);
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return found;
}

/**
 * D16 statement balances in words: what the bank says on the closing date beside what the book
 * will say after this import (the figures the API gives, with lines the person chose not to link
 * counted as the new transactions they then become), and whether they agree.
 */
function balanceCheck(preview: Preview, account: Account | undefined, unlinked: ReadonlySet<number>): { text: string; agrees: boolean } | null {
  const closing = preview.statement.closing;
  if (!closing || preview.book_closing_cents === null) return null;
  const sign = account && isCreditNormal(account.kind) ? -1 : 1;
  const extra = preview.lines
    .filter((l) => l.match_of !== null && unlinked.has(l.line) && l.occurred_on <= closing.on)
    .reduce((sum, l) => sum + sign * l.amount_cents, 0);
  const book = preview.book_closing_cents + extra;
  const agrees = book === closing.amount_cents;
  const said = `The bank says ${formatCents(closing.amount_cents)} on ${formatDate(closing.on)}; after this import the book says ${formatCents(book)}`;
  return { text: agrees ? `${said} ✓ agrees` : `${said}: ${formatCents(Math.abs(closing.amount_cents - book))} apart`, agrees };
}

/**
 * D16: the statement as it would be booked: each line's date, words, money in or out and the
 * account it goes against, the rule behind it and whether it is already in the book (imported
 * before, or typed by hand: ticked to be linked), and a warning in words for the lines it would
 * book in a period already reconciled (issue 37); the lines that cannot be booked; the
 * statement's balances beside the book's; and the buttons that import the new ones (none while a
 * line is at fault), and import and reconcile when the bank and the book agree (D20).
 */
export function ImportPreview({
  preview,
  rules,
  accounts,
  account,
  unlinked,
  onLinkChange,
  busy,
  onImport,
}: {
  preview: Preview;
  rules: ImportRule[];
  accounts: Account[];
  /** The statement's account. */
  account: Account | undefined;
  unlinked: ReadonlySet<number>;
  onLinkChange(line: number, link: boolean): void;
  busy: boolean;
  onImport(reconcile: boolean): void;
}) {
  const names = new Map(accounts.map((a) => [a.id, a.name]));
  const hand = useHandEntries(preview.lines.flatMap((l) => (l.match_of === null ? [] : [l.match_of])));
  const links = preview.lines.filter((l) => l.match_of !== null && !unlinked.has(l.line)).length;
  const fresh = preview.lines.filter((l) => l.duplicate_of === null).length - links;
  const known = preview.lines.filter((l) => l.duplicate_of !== null).length;
  const faults = preview.errors.length;
  const summary = `${fresh} new, ${known} already imported, ${links > 0 ? `${links} already in the book, ` : ''}${plural(faults, 'error', 'errors')}`;
  const inReconciled = bookedInReconciled(preview, unlinked);
  const through = useReconciledThrough(account?.id, preview.lines.some((l) => l.reconciled_period));
  const check = balanceCheck(preview, account, unlinked);
  const opening = preview.statement.opening;
  const action =
    fresh === 0 && links === 0
      ? 'Nothing to import'
      : `Import ${plural(fresh, 'transaction', 'transactions')}${links > 0 ? `, link ${plural(links, 'line', 'lines')}` : ''}`;
  return (
    <section aria-labelledby="preview-heading">
      <h2 id="preview-heading">Preview</h2>
      <p role="status" className="summary">
        {summary}
      </p>
      {inReconciled.size > 0 && <p className="warning">{reconciledWarning(inReconciled.size, through)}</p>}
      <LineErrors errors={preview.errors} />
      {preview.lines.length > 0 && (
        <Scroll>
          <table aria-label="Statement lines" className="preview">
            <TableHead columns={['Line', 'Date', 'Description', 'Money in', 'Money out', 'Booked against', 'Note']} numeric={['Line', 'Money in', 'Money out']} />
            <tbody>
              {preview.lines.map((line) => (
                <tr key={line.line} className={line.duplicate_of === null ? undefined : 'duplicate'}>
                  <td className="num" data-label="Line">{line.line}</td>
                  <td className="nowrap">{formatDate(line.occurred_on)}</td>
                  <td>{line.description}</td>
                  <td className="num" data-label={line.amount_cents >= 0 ? 'Money in' : undefined}>{line.amount_cents >= 0 && <Money cents={line.amount_cents} />}</td>
                  <td className="num" data-label={line.amount_cents < 0 ? 'Money out' : undefined}>{line.amount_cents < 0 && <Money cents={-line.amount_cents} />}</td>
                  <td data-label="Booked against">{names.get(line.counter_account_id)}</td>
                  <td>
                    {notes(line, rules, names, inReconciled.has(line.line))}
                    {line.match_of !== null && (
                      <>
                        <label className="check">
                          <input type="checkbox" checked={!unlinked.has(line.line)} onChange={(e) => onLinkChange(line.line, e.target.checked)} />
                          already in the book: link
                        </label>
                        <span className="muted small">
                          {' '}
                          typed by hand: {hand.get(line.match_of)?.description ?? `transaction ${line.match_of}`}
                          {hand.get(line.match_of) && `, ${formatDate(hand.get(line.match_of)!.occurred_on)}`}
                        </span>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
      {check && (
        <p className={check.agrees ? 'balance-check agrees' : 'balance-check differs'}>
          {check.text}
          {opening && <span className="muted small"> (the statement opened at {formatCents(opening.amount_cents)} on {formatDate(opening.on)})</span>}
        </p>
      )}
      <div className="row">
        <button type="button" disabled={busy || faults > 0 || (fresh === 0 && links === 0)} onClick={() => onImport(false)}>
          {action}
        </button>
        {check?.agrees && faults === 0 && (
          <button type="button" disabled={busy} onClick={() => onImport(true)}>
            Import and reconcile
          </button>
        )}
      </div>
      {faults > 0 && (
        <p className="muted small">Nothing is imported while a line cannot be booked: correct the file or the choices above, then preview again.</p>
      )}
    </section>
  );
}
