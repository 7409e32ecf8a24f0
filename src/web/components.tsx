import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { download, withQuery } from './api';
import { useApp } from './app';
import { chooseLanguage, currentLanguage, LANGUAGE_NAMES, LANGUAGES, t, type Language } from './i18n';
import { formatCents, formatDate } from './money';

export function Link({ to, children, className }: { to: string; children: ReactNode; className?: string }) {
  const { navigate, path } = useApp();
  const current = path.split('?')[0] === to;
  return (
    <a
      href={to}
      className={className}
      aria-current={current ? 'page' : undefined}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

let firstHeading = true;

/**
 * The page's h1: it names the page in the document title and, when the person arrived from
 * another page of the app (not on the first load), takes the focus so that screen readers
 * announce the new page and the keyboard starts from it.
 */
export function PageHeading({ children }: { children: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${children} — Ledger`;
  }, [children]);
  useEffect(() => {
    if (firstHeading) firstHeading = false;
    else ref.current?.focus();
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

/**
 * A table that scrolls sideways on its own on a narrow screen instead of the whole page. Issue 37
 * item 9 (axe `scrollable-region-focusable`): while it overflows, it is a named region that takes
 * the keyboard's focus, so a person without a mouse can scroll it with the arrow keys; when it
 * fits, it adds no stop to the Tab order.
 */
export function Scroll({ children, label }: { children: ReactNode; label?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const [overflows, setOverflows] = useState(false);
  useEffect(() => {
    const box = ref.current;
    if (!box || typeof ResizeObserver === 'undefined') return;
    const measure = () => setOverflows(box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1);
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    const inner = box.firstElementChild;
    if (inner) observer.observe(inner);
    measure();
    return () => observer.disconnect();
  }, []);
  const { t } = useTranslation();
  const name = label ?? ref.current?.querySelector('table')?.getAttribute('aria-label') ?? t('common.table');
  return (
    <div ref={ref} className="scroll" {...(overflows ? { tabIndex: 0, role: 'region', 'aria-label': t('common.scrollsSideways', { name }) } : {})}>
      {children}
    </div>
  );
}

export function Money({ cents }: { cents: number }) {
  return <span className={`money${cents < 0 ? ' negative' : ''}`}>{formatCents(cents)}</span>;
}

/**
 * D29: the API's refusals the web app knows, in the person's language (the API's own words stay
 * English: they are its contract): D20's closed period, reconciled transaction and difference at
 * reconciliation, which a page may meet after its own checks passed (another person closed the
 * books meanwhile); any other refusal is shown as the API sent it.
 */
const KNOWN_REFUSALS: Array<[RegExp, (match: RegExpExecArray) => string]> = [
  [/^the books are closed through (\d{4}-\d{2}-\d{2})$/, (m) => t('common.refusals.booksClosed', { date: formatDate(m[1]!) })],
  [/^the books are closed$/, () => t('common.refusals.booksClosedNoDate')],
  [/^the transaction is reconciled$/, () => t('common.refusals.transactionReconciled')],
  [
    /^the statement says (-?\d+\.\d{2}) but the reconciled entries come to (-?\d+\.\d{2})$/,
    (m) => t('common.refusals.statementDiffers', { statement: formatCents(centsOf(m[1]!)), reconciled: formatCents(centsOf(m[2]!)) }),
  ],
];

/** The API's money with two decimals ("-1234.56") in cents, read from its digits (no float rounding). */
const centsOf = (amount: string) => (amount.startsWith('-') ? -1 : 1) * Number(amount.replace(/[-.]/g, ''));

/** An API refusal as the person reads it: in their words when the app knows it, else as sent. */
export function refusalInWords(message: string): string {
  for (const [pattern, words] of KNOWN_REFUSALS) {
    const match = pattern.exec(message);
    if (match) return words(match);
  }
  return message;
}

/**
 * A refusal shown to the person. The API words its errors in lower case ("the account has
 * entries"); shown alone they start a sentence, so with a capital letter (issue 6/7 finding 11).
 */
export function ErrorNote({ error }: { error: string | null }) {
  useTranslation();
  if (!error) return null;
  const words = refusalInWords(error);
  return (
    <p className="error" role="alert">
      {words.charAt(0).toUpperCase() + words.slice(1)}
    </p>
  );
}

/** A form whose submit shows progress and the API's error message; the button is disabled while busy. */
export function useSubmit(action: () => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Issue 37 item 9: the Save button is disabled while busy and a disabled button drops the
  // keyboard's focus to the page's body; once done, the focus goes back to what had it, if it
  // was lost on the way and that control is still there.
  const focused = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const was = focused.current;
    if (busy || !was) return;
    focused.current = null;
    const lost = document.activeElement === null || document.activeElement === document.body;
    if (lost && was.isConnected && !(was as HTMLButtonElement).disabled) was.focus();
  }, [busy]);
  const onSubmit = async (event?: FormEvent) => {
    event?.preventDefault();
    focused.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, onSubmit };
}

export function Loading() {
  const { t } = useTranslation();
  return (
    <p className="loading" aria-live="polite">
      {t('common.loading')}
    </p>
  );
}

/** Accounts with their balances (natural sign), optionally with a caption and a total row. */
export function BalanceTable({
  lines,
  caption,
  total,
}: {
  lines: { id: number; name: string; balance_cents: number }[];
  caption?: string;
  total?: number;
}) {
  const { t } = useTranslation();
  return (
    <Scroll>
    <table aria-label={caption}>
      {caption && <caption>{caption}</caption>}
      <tbody>
        {lines.map((line) => (
          <tr key={line.id}>
            <th scope="row">{line.name}</th>
            <td className="num">
              <Money cents={line.balance_cents} />
            </td>
          </tr>
        ))}
        {total !== undefined && (
          <tr className="total">
            <th scope="row">{t('common.total')}</th>
            <td className="num">
              <Money cents={total} />
            </td>
          </tr>
        )}
      </tbody>
    </table>
    </Scroll>
  );
}

/**
 * A table's header: one column header per name (`numeric` ones aligned as figures), and for a
 * column of buttons a header screen readers announce but nobody sees.
 */
export function TableHead({ columns, numeric = [], actions = false }: { columns: string[]; numeric?: string[]; actions?: boolean }) {
  const { t } = useTranslation();
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col" className={numeric.includes(column) ? 'num' : undefined}>
            {column}
          </th>
        ))}
        {actions && (
          <th scope="col">
            <span className="visually-hidden">{t('common.actions')}</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

/** D17: the books out, one file per format, and the name each is saved under when the API names none. */
const EXPORTS = () => [
  { label: t('common.export.csv'), path: '/export/transactions.csv', fallbackName: 'ledger-transactions.csv' },
  { label: t('common.export.journal'), path: '/export/ledger.journal', fallbackName: 'ledger.journal' },
  { label: t('common.export.beancount'), path: '/export/ledger.beancount', fallbackName: 'ledger.beancount' },
];

type Period = { from: string; to: string };

function periodInWords({ from, to }: Period): string {
  if (from && to) return t('common.export.between', { from: formatDate(from), to: formatDate(to) });
  if (from) return t('common.export.since', { from: formatDate(from) });
  if (to) return t('common.export.upTo', { to: formatDate(to) });
  return t('common.export.everything');
}

/** A file the API hands out (D17, D22): the button's words, its path, and the name it is saved under when the API names none. */
export interface DownloadFile {
  label: string;
  path: string;
  fallbackName: string;
}

/**
 * Buttons that each download a file of the API (D17: named as its Content-Disposition says),
 * described by `hint`, with the API's message when one fails; all disabled while one downloads.
 */
export function Downloads({ files, hint, label }: { files: DownloadFile[]; hint: string; label?: string }) {
  const { t } = useTranslation();
  const hintId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const save = async (file: DownloadFile) => {
    setBusy(true);
    setError(null);
    try {
      await download(file.path, file.fallbackName);
    } catch (e) {
      setError(t('common.downloadFailed', { label: file.label, error: refusalInWords(e instanceof Error ? e.message : String(e)) }));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="stack exports">
      <p className="muted" id={hintId}>
        {hint}
      </p>
      <div className="row" role="group" aria-label={label ?? t('common.downloads')} aria-describedby={hintId}>
        {files.map((file) => (
          <button key={file.path} type="button" className="secondary" disabled={busy} onClick={() => void save(file)}>
            {file.label}
          </button>
        ))}
      </div>
      <ErrorNote error={error} />
    </div>
  );
}

/**
 * Buttons that download the transactions of `period` (the whole book where a date is empty) as
 * CSV, an hledger journal or a Beancount file (D17).
 */
export function ExportButtons({ period }: { period: Period }) {
  useTranslation();
  return <Downloads hint={periodInWords(period)} files={EXPORTS().map((file) => ({ ...file, path: withQuery(file.path, period) }))} />;
}

/**
 * D29: the language of the app, each offered by its own name (a person finds their own whatever
 * the page shows now); the choice applies at once and is kept in this browser.
 */
export function LanguageChoice() {
  const { t } = useTranslation();
  return (
    <label className="language">
      {t('common.language')}
      <select value={currentLanguage()} onChange={(e) => void chooseLanguage(e.target.value as Language)}>
        {LANGUAGES.map((language) => (
          <option key={language} value={language} lang={language}>
            {LANGUAGE_NAMES[language]}
          </option>
        ))}
      </select>
    </label>
  );
}
