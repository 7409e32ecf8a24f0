import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type Account, type BookStyle, type ImportLineError, type ImportPreview as Preview, type ImportRule, type Reconciliation, type Transaction } from '../api';
import { useApp } from '../app';
import { isCard } from '../../book/debt-words';
import { isCreditNormal } from '../../book/rules';
import { Money, refusalInWords, Scroll, TableHead } from '../components';
import { t } from '../i18n';
import { formatCents, formatDate } from '../money';
import { LineAccount, usePeopleNames } from './ImportLineAccount';

/**
 * A line error, its line named in the page's words: the API's own "line 3: " is taken off its
 * message (the API's words stay its contract's), any other message is shown as it comes.
 */
function lineError(e: ImportLineError): string {
  const own = `line ${e.line}`;
  if (e.error.startsWith(`${own}: `)) return t('import.preview.lineError', { line: e.line, error: e.error.slice(own.length + 2) });
  return e.error.startsWith(own) ? e.error : t('import.preview.lineError', { line: e.line, error: e.error });
}

/** D16: why a statement cannot be booked, line by line. */
export function LineErrors({ message, errors }: { message?: string; errors: ImportLineError[] }) {
  if (!message && errors.length === 0) return null;
  return (
    <div className="error" role="alert">
      {message && <p>{refusalInWords(message)}</p>}
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
  if (rule) out.push(t('import.preview.notes.rule', { pattern: rule.pattern, account: names.get(rule.account_id) ?? '?' }));
  if (line.duplicate_of !== null) out.push(t('import.preview.notes.duplicate'));
  if (inReconciled) out.push(t('import.preview.notes.inReconciled'));
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
  return through ? t('import.preview.reconciledThrough', { count, date: formatDate(through) }) : t('import.preview.reconciled', { count });
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

/** The hand entry a line matches, by its description and date (by its number until it is fetched). */
function handEntryWords(entry: Transaction | undefined, id: number): string {
  if (!entry) return t('import.preview.handEntry', { description: t('import.preview.transaction', { id }) });
  return t('import.preview.handEntryDated', { description: entry.description, date: formatDate(entry.occurred_on) });
}

/** Who owes, now and when the statement opened, by book style (D12). */
const OWES: Record<BookStyle, { now: string; then: string }> = {
  personal: { now: 'import.preview.owes.personal.now', then: 'import.preview.owes.personal.then' },
  club: { now: 'import.preview.owes.club.now', then: 'import.preview.owes.club.then' },
};

/**
 * A statement's balance in words (issue 37 item 13, D6 natural sign): money in a bank account as
 * money; a card's or loan's as what is owed ("we owe €509.59"), or what is in credit.
 */
function balanceWords(cents: number, account: Account | undefined, style: BookStyle, tense: 'now' | 'then' = 'now'): string {
  if (account?.kind !== 'liability') return formatCents(cents);
  return cents >= 0 ? t(OWES[style][tense], { amount: formatCents(cents) }) : t('import.preview.inCredit', { amount: formatCents(-cents) });
}

/** Who states the balance: a card's statement comes from the card company, anything else's from the bank. */
const whoSays = (account: Account | undefined) => (account?.kind === 'liability' && isCard(account.name) ? 'import.preview.check.card' : 'import.preview.check.bank');

/** Where the statement started, after the check: "(the statement opened at €2,500.00 on Feb 28, 2026)". */
function openingWords(opening: NonNullable<Preview['statement']['opening']>, account: Account | undefined, style: BookStyle): string {
  if (account?.kind !== 'liability') return ` ${t('import.preview.opening.money', { amount: formatCents(opening.amount_cents), date: formatDate(opening.on) })}`;
  const balance = opening.amount_cents >= 0 ? balanceWords(opening.amount_cents, account, style, 'then') : t('import.preview.wasInCredit', { amount: formatCents(-opening.amount_cents) });
  return ` ${t('import.preview.opening.debt', { date: formatDate(opening.on), balance })}`;
}

/**
 * D16 statement balances in words: what the bank (or card company) says on the closing date beside
 * what the book will say after this import (the figures the API gives, with lines the person chose
 * not to link counted as the new transactions they then become), and whether they agree; a card's
 * or loan's balance said as what is owed (issue 37 item 13).
 */
function balanceCheck(preview: Preview, account: Account | undefined, unlinked: ReadonlySet<number>, style: BookStyle): { text: string; agrees: boolean } | null {
  const closing = preview.statement.closing;
  if (!closing || preview.book_closing_cents === null) return null;
  const sign = account && isCreditNormal(account.kind) ? -1 : 1;
  const extra = preview.lines
    .filter((l) => l.match_of !== null && unlinked.has(l.line) && l.occurred_on <= closing.on)
    .reduce((sum, l) => sum + sign * l.amount_cents, 0);
  const book = preview.book_closing_cents + extra;
  const agrees = book === closing.amount_cents;
  const said = t(whoSays(account), { balance: balanceWords(closing.amount_cents, account, style), date: formatDate(closing.on), book: balanceWords(book, account, style) });
  return {
    text: agrees ? t('import.preview.check.agrees', { check: said }) : t('import.preview.check.apart', { check: said, difference: formatCents(Math.abs(closing.amount_cents - book)) }),
    agrees,
  };
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
  onCounterChange,
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
  /** D27: the treasurer books a line against an account of their choosing (the preview is asked again). */
  onCounterChange(line: number, accountId: number): void;
}) {
  // The words follow the chosen language (the module's t is asked at each render).
  useTranslation();
  const { bookStyle } = useApp();
  const names = new Map(accounts.map((a) => [a.id, a.name]));
  const peopleNames = usePeopleNames(preview.lines.some((l) => l.person_id !== null));
  const hand = useHandEntries(preview.lines.flatMap((l) => (l.match_of === null ? [] : [l.match_of])));
  const links = preview.lines.filter((l) => l.match_of !== null && !unlinked.has(l.line)).length;
  const fresh = preview.lines.filter((l) => l.duplicate_of === null).length - links;
  const known = preview.lines.filter((l) => l.duplicate_of !== null).length;
  const faults = preview.errors.length;
  const counts = {
    fresh: t('import.preview.fresh', { count: fresh }),
    known: t('import.preview.known', { count: known }),
    linked: t('import.preview.linked', { count: links }),
    errors: t('import.preview.errors', { count: faults }),
  };
  const summary = links > 0 ? t('import.preview.summaryLinked', counts) : t('import.preview.summary', counts);
  const inReconciled = bookedInReconciled(preview, unlinked);
  const through = useReconciledThrough(account?.id, preview.lines.some((l) => l.reconciled_period));
  const check = balanceCheck(preview, account, unlinked, bookStyle);
  const opening = preview.statement.opening;
  const toBook = { transactions: t('import.count.transactions', { count: fresh }), lines: t('import.count.lines', { count: links }) };
  const action =
    fresh === 0 && links === 0 ? t('import.preview.nothing') : links > 0 ? t('import.preview.importAndLink', toBook) : t('import.preview.import', toBook);
  const column = {
    line: t('import.preview.columns.line'),
    date: t('import.preview.columns.date'),
    description: t('import.preview.columns.description'),
    moneyIn: t('import.preview.columns.moneyIn'),
    moneyOut: t('import.preview.columns.moneyOut'),
    bookedAgainst: t('import.preview.columns.bookedAgainst'),
    note: t('import.preview.columns.note'),
  };
  return (
    <section aria-labelledby="preview-heading">
      <h2 id="preview-heading">{t('import.preview.heading')}</h2>
      <p role="status" className="summary">
        {summary}
      </p>
      {inReconciled.size > 0 && <p className="warning">{reconciledWarning(inReconciled.size, through)}</p>}
      <LineErrors errors={preview.errors} />
      {preview.lines.length > 0 && (
        <Scroll>
          <table aria-label={t('import.preview.table')} className="preview">
            <TableHead
              columns={[column.line, column.date, column.description, column.moneyIn, column.moneyOut, column.bookedAgainst, column.note]}
              numeric={[column.line, column.moneyIn, column.moneyOut]}
            />
            <tbody>
              {preview.lines.map((line) => (
                <tr key={line.line} className={line.duplicate_of === null ? undefined : 'duplicate'}>
                  <td className="num" data-label={column.line}>{line.line}</td>
                  <td className="nowrap">{formatDate(line.occurred_on)}</td>
                  <td>{line.description}</td>
                  <td className="num" data-label={line.amount_cents >= 0 ? column.moneyIn : undefined}>{line.amount_cents >= 0 && <Money cents={line.amount_cents} />}</td>
                  <td className="num" data-label={line.amount_cents < 0 ? column.moneyOut : undefined}>{line.amount_cents < 0 && <Money cents={-line.amount_cents} />}</td>
                  <td data-label={column.bookedAgainst}>
                    <LineAccount
                      line={line}
                      accounts={accounts}
                      statementAccountId={account?.id}
                      accountNames={names}
                      peopleNames={peopleNames}
                      busy={busy}
                      onChange={(id) => onCounterChange(line.line, id)}
                    />
                  </td>
                  <td>
                    {notes(line, rules, names, inReconciled.has(line.line))}
                    {line.match_of !== null && (
                      <>
                        <label className="check">
                          <input type="checkbox" checked={!unlinked.has(line.line)} onChange={(e) => onLinkChange(line.line, e.target.checked)} />
                          {t('import.preview.link')}
                        </label>
                        <span className="muted small">
                          {' '}
                          {handEntryWords(hand.get(line.match_of), line.match_of)}
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
          {opening && <span className="muted small">{openingWords(opening, account, bookStyle)}</span>}
        </p>
      )}
      <div className="row">
        <button type="button" disabled={busy || faults > 0 || (fresh === 0 && links === 0)} onClick={() => onImport(false)}>
          {action}
        </button>
        {check?.agrees && faults === 0 && (
          <button type="button" disabled={busy} onClick={() => onImport(true)}>
            {t('import.preview.importAndReconcile')}
          </button>
        )}
      </div>
      {faults > 0 && (
        <p className="muted small">{t('import.preview.faults')}</p>
      )}
    </section>
  );
}
