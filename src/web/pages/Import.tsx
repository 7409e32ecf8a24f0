import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, ApiError, type Account, type ImportLineError, type ImportPreview as Preview, type ImportResult, type ImportRule, type StatementRequest } from '../api';
import type { DateFormat } from '../../book/imports/date-formats';
import { ErrorNote, Link, Loading, PageHeading, refusalInWords } from '../components';
import { t as translate } from '../i18n';
import { formatDate } from '../money';
import { columnCells, csvOptions, CsvMappingFields, guessMapping, hasRememberedMapping, rememberedMapping, rememberMapping, type CsvMapping } from './ImportCsv';
import { DateChoice } from './ImportDates';
import { ImportPreview, LineErrors } from './ImportPreview';
import { AccountSelect } from './AccountSelect';
import { ImportRules } from './ImportRules';

// D16: a bank statement in. The person picks the statement's account, the account for lines no
// rule matches and the file; the format is detected; a CSV file's columns are mapped (dates whose
// format the file leaves open are asked about, never guessed). A preview shows every line as it
// would be booked, the lines already typed by hand ticked to be linked, and the statement's
// balance beside the book's; the import books the new ones, all or nothing, and, when the bank
// and the book agree, can reconcile the account through the statement's date at once (D20).

type Format = StatementRequest['format'];
/** The formats by name (asked when shown: the words follow the chosen language). */
const formats = (): { value: Format; label: string }[] => [
  { value: 'csv', label: 'CSV' },
  { value: 'ofx', label: translate('import.form.formatOfx') },
  { value: 'camt053', label: 'camt.053 (ISO 20022 XML)' },
];
/** Why a remembered mapping was not applied (a key: the note is worded when shown). */
const COLUMNS_DIFFER = 'import.form.columnsDiffer';

const LAST_ACCOUNT = 'ledger.import.account';
const counterKey = (accountId: string) => `ledger.import.counter.${accountId}`;

/** The format of a statement, by its content first (the XML formats say what they are), then its name. */
export function detectFormat(name: string, text: string): Format {
  const head = text.slice(0, 65_536);
  if (/^\s*OFXHEADER/.test(head) || /<OFX>/i.test(head) || /\.(ofx|qfx)$/i.test(name)) return 'ofx';
  if (/camt\.053/.test(head)) return 'camt053';
  return 'csv';
}

/** The file's text: UTF-8, or Windows-1252 (many banks' CSV exports) when it is not valid UTF-8. */
async function readStatementFile(file: File): Promise<string> {
  const text = await file.text();
  return text.includes('\uFFFD') ? new TextDecoder('windows-1252').decode(await file.arrayBuffer()) : text;
}

interface StatementFile {
  name: string;
  text: string;
  /** Which file this is: a preview belongs to the file it was made from. */
  serial: number;
  detected: Format;
}
interface Refusal {
  message?: string;
  errors: ImportLineError[];
  /** D16: the date formats the file's dates fit, to choose among. */
  candidates: string[];
}
const refusalOf = (e: unknown): Refusal =>
  e instanceof ApiError
    ? { message: e.message, errors: e.errors, candidates: e.candidates }
    : { message: e instanceof Error ? e.message : String(e), errors: [], candidates: [] };

interface Imported {
  created: number;
  duplicates: number;
  linked: number;
  /** D20: the statement date the account was reconciled through, when it was. */
  reconciledThrough?: string;
  reconcileError?: string;
}

/** What the import did, in one sentence: the transactions made, the lines linked, the ones already there. */
function importedWords({ created, linked, duplicates }: Imported): string {
  const words = {
    transactions: translate('import.count.transactions', { count: created }),
    linked: translate('import.result.linked', { count: linked }),
    duplicates: translate('import.result.duplicates', { count: duplicates }),
  };
  if (linked > 0 && duplicates > 0) return translate('import.result.importedLinkedDuplicates', words);
  if (linked > 0) return translate('import.result.importedLinked', words);
  if (duplicates > 0) return translate('import.result.importedDuplicates', words);
  return translate('import.result.imported', words);
}

export function Import() {
  const { t } = useTranslation();
  const [accounts, setAccounts] = useState<Account[] | null>(null);
  const [rules, setRules] = useState<ImportRule[]>([]);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [accountId, setAccountId] = useState('');
  const [counterId, setCounterId] = useState('');
  const [file, setFile] = useState<StatementFile | null>(null);
  const [format, setFormat] = useState<Format>('csv');
  const [mapping, setMapping] = useState<CsvMapping | null>(null);
  const [preview, setPreview] = useState<{ key: string; result: Preview } | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [imported, setImported] = useState<Imported | null>(null);
  /** D16: the lines with a match_of the person unticked: they are created, not linked. */
  const [unlinked, setUnlinked] = useState<ReadonlySet<number>>(new Set());
  /** Why the mapping remembered for the account was not applied to this file. */
  const [mappingNote, setMappingNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** D27: the lines the treasurer booked against an account of their own choosing (line → account). */
  const [chosenCounters, setChosenCounters] = useState<ReadonlyMap<number, number>>(new Map());
  const result = useRef<HTMLDivElement>(null);

  /** The statement's account: its remembered counter account and CSV mapping come with it. */
  const chooseAccount = useCallback((id: string, all: Account[], text: string | null) => {
    setAccountId(id);
    setChosenCounters(new Map());
    if (!id) return;
    localStorage.setItem(LAST_ACCOUNT, id);
    const counter = localStorage.getItem(counterKey(id)) ?? '';
    setCounterId(all.some((a) => String(a.id) === counter) ? counter : '');
    const remembered = rememberedMapping(id, text);
    setMappingNote(text !== null && !remembered && hasRememberedMapping(id) ? COLUMNS_DIFFER : null);
    setMapping(remembered ?? (text === null ? null : guessMapping(text)));
  }, []);

  useEffect(() => {
    Promise.all([api<Account[]>('GET', '/accounts'), api<ImportRule[]>('GET', '/import-rules')])
      .then(([all, list]) => {
        setAccounts(all);
        setRules(list);
        const last = localStorage.getItem(LAST_ACCOUNT) ?? '';
        if (all.some((a) => String(a.id) === last && (a.kind === 'asset' || a.kind === 'liability'))) chooseAccount(last, all, null);
      })
      .catch((e: Error) => setLoadError(e.message));
  }, [chooseAccount]);

  useEffect(() => {
    if (imported) result.current?.focus();
  }, [imported]);

  if (!accounts) {
    return (
      <main>
        <PageHeading>{t('import.title')}</PageHeading>
        {loadError ? <ErrorNote error={loadError} /> : <Loading />}
      </main>
    );
  }

  const chooseFile = async (chosen: File | undefined) => {
    setImported(null);
    setRefusal(null);
    setChosenCounters(new Map());
    if (!chosen) return setFile(null);
    const text = await readStatementFile(chosen);
    const detected = detectFormat(chosen.name, text);
    setFile({ name: chosen.name, text, serial: (file?.serial ?? 0) + 1, detected });
    setFormat(detected);
    // The account's own mapping when it has one for a file like this (the same header row, D16),
    // else what this file looks like.
    const remembered = accountId ? rememberedMapping(accountId, text) : null;
    setMappingNote(accountId && !remembered && hasRememberedMapping(accountId) ? COLUMNS_DIFFER : null);
    setMapping(remembered ?? guessMapping(text));
  };

  // Nothing chosen: no counter_accounts sent (the person matched, the rules, the default decide).
  const requestWith = (m: CsvMapping | null, chosen: ReadonlyMap<number, number> = chosenCounters): StatementRequest | null =>
    accountId && counterId && file
      ? {
          account_id: Number(accountId),
          format,
          content: file.text,
          unmatched_account_id: Number(counterId),
          ...(format === 'csv' && m ? { csv: csvOptions(m) } : {}),
          ...(chosen.size > 0 ? { counter_accounts: [...chosen].map(([line, id]) => ({ line, account_id: id })) } : {}),
        }
      : null;
  const request = requestWith(mapping);
  // What a preview was made of (the file by its serial): one made of anything else is not shown.
  const key = request && file ? JSON.stringify({ ...request, content: file.serial }) : '';
  const shown = preview && preview.key === key ? preview.result : null;

  /** A preview of the statement as mapped by `m` (the mapping of the form, or one just chosen). */
  const runPreview = async (m: CsvMapping | null = mapping, chosen: ReadonlyMap<number, number> = chosenCounters) => {
    const body = requestWith(m, chosen);
    if (!body || !file) return;
    setBusy(true);
    setRefusal(null);
    setImported(null);
    try {
      const result = await api<Preview>('POST', '/imports/preview', body);
      setUnlinked(new Set());
      setPreview({ key: JSON.stringify({ ...body, content: file.serial }), result });
      if (format === 'csv' && m) {
        // What the file's dates were read as is kept: the next statement of the bank is read alike.
        const kept = result.date_format ? { ...m, dateFormat: result.date_format } : m;
        rememberMapping(accountId, kept, file.text);
        setMappingNote(null);
      }
    } catch (e) {
      setPreview(null);
      setRefusal(refusalOf(e));
    } finally {
      setBusy(false);
    }
  };

  /** D16: the import, linking the ticked lines; then, when asked, D20's reconciliation through the statement's closing date. */
  const runImport = async (reconcile: boolean) => {
    if (!request || !shown) return;
    setBusy(true);
    setRefusal(null);
    const toLink = shown.lines.filter((l) => l.match_of !== null && !unlinked.has(l.line));
    const closing = shown.statement.closing;
    try {
      const done = await api<ImportResult>('POST', '/imports', {
        ...request,
        ...(shown.lines.some((l) => l.match_of !== null) ? { matches: toLink.map((l) => ({ line: l.line, transaction_id: l.match_of! })) } : {}),
      });
      const result: Imported = { created: done.created.length, duplicates: done.duplicates.length, linked: done.linked?.length ?? 0 };
      if (reconcile && closing) {
        try {
          await api('POST', `/accounts/${accountId}/reconciliations`, { statement_date: closing.on, statement_balance_cents: closing.amount_cents });
          result.reconciledThrough = closing.on;
        } catch (e) {
          result.reconcileError = refusalOf(e).message;
        }
      }
      setPreview(null);
      setImported(result);
    } catch (e) {
      setRefusal(refusalOf(e));
    } finally {
      setBusy(false);
    }
  };

  /** D16: the reading the person chose for dates the file left open; previewed at once. */
  const chooseDateFormat = (chosen: DateFormat) => {
    if (!mapping) return;
    const next = { ...mapping, dateFormat: chosen };
    setMapping(next);
    void runPreview(next);
  };

  const rulesChanged = async () => {
    setRules(await api<ImportRule[]>('GET', '/import-rules'));
    if (shown) await runPreview();
  };

  const accountName = accounts.find((a) => String(a.id) === accountId)?.name ?? '';
  return (
    <main className="import">
      <PageHeading>{t('import.title')}</PageHeading>
      <p>{t('import.intro')}</p>
      <form
        aria-label={t('import.form.label')}
        onSubmit={(e) => {
          e.preventDefault();
          void runPreview();
        }}
      >
        <AccountSelect label={t('import.form.account')} kinds={['asset', 'liability']} accounts={accounts} value={accountId} onChange={(id) => chooseAccount(id, accounts, file?.text ?? null)} />
        <div>
          <AccountSelect
            label={t('import.form.counter')}
            kinds={['expense', 'income']}
            accounts={accounts}
            value={counterId}
            onChange={(id) => {
              setCounterId(id);
              if (accountId) localStorage.setItem(counterKey(accountId), id);
            }}
          />
          <p className="muted small">{t('import.form.counterHint')}</p>
        </div>
        <label>
          {t('import.form.file')}
          <input type="file" required={!file} accept=".csv,.txt,.ofx,.qfx,.xml" onChange={(e) => void chooseFile(e.target.files?.[0])} />
        </label>
        {file && (
          <div>
            <label>
              {t('import.form.format')}
              <select value={format} onChange={(e) => setFormat(e.target.value as Format)}>
                {formats().map((f) => (
                  <option key={f.value} value={f.value}>
                    {f.label}
                  </option>
                ))}
              </select>
            </label>
            <p className="muted small">{t('import.form.detected', { name: file.name, format: formats().find((f) => f.value === file.detected)?.label })}</p>
          </div>
        )}
        {file && format === 'csv' && mappingNote && <p className="note">{t(mappingNote)}</p>}
        {file && format === 'csv' && mapping && <CsvMappingFields text={file.text} mapping={mapping} accountName={accountName} onChange={setMapping} />}
        <div className="row">
          <button type="submit" disabled={busy}>
            {t('import.form.preview')}
          </button>
        </div>
      </form>
      {refusal && refusal.candidates.length > 0 && file && mapping ? (
        <DateChoice dates={columnCells(file.text, mapping, mapping.date)} candidates={refusal.candidates} onChoose={chooseDateFormat} />
      ) : (
        refusal && <LineErrors message={refusal.message} errors={refusal.errors} />
      )}
      {imported && (
        <div role="status" tabIndex={-1} ref={result} className="result">
          <p>{importedWords(imported)}</p>
          {imported.reconciledThrough && <p>{t('import.result.reconciledThrough', { account: accountName, date: formatDate(imported.reconciledThrough) })}</p>}
          {imported.reconcileError && <p className="error">{t('import.result.reconcileError', { error: refusalInWords(imported.reconcileError) })}</p>}
          <p>
            <Link to="/transactions">{t('import.result.seeThem')}</Link>
          </p>
        </div>
      )}
      {shown && (
        <ImportPreview
          preview={shown}
          rules={rules}
          accounts={accounts}
          account={accounts.find((a) => String(a.id) === accountId)}
          unlinked={unlinked}
          onLinkChange={(line, link) => {
            const next = new Set(unlinked);
            if (link) next.delete(line);
            else next.add(line);
            setUnlinked(next);
          }}
          busy={busy}
          onImport={(reconcile) => void runImport(reconcile)}
          onCounterChange={(line, id) => {
            // D27: the server books the line as chosen and says so in a new preview.
            const next = new Map(chosenCounters).set(line, id);
            setChosenCounters(next);
            void runPreview(mapping, next);
          }}
        />
      )}
      <ImportRules rules={rules} accounts={accounts} onChanged={rulesChanged} />
    </main>
  );
}
