import type { ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';

// D28: the two pages of the auditors' pack, index.html and signature.html. React components
// rendered to static markup, so every name and description from the book is escaped by
// construction; one inline <style> (print: page breaks between sections, nothing to navigate), no
// script and no reference outside the pack, so they read from disk in any browser, offline.
// Server-rendered files, not the web app: their words are the small table below (English and
// German, D29; the book's wording, D12), not the web app's catalogues.

export type PackLanguage = 'en' | 'de';
export type BookStyle = 'personal' | 'club';

/** Words that differ by book style (D12): [personal, club]. */
type Styled = readonly [string, string];

const WORDS = {
  en: {
    pack: ['Review pack', "Auditors' pack"] as Styled,
    balanceSheet: ['What we have and owe', 'Statement of funds'] as Styled,
    incomeStatement: ['Money in and out', 'Income and expenditure'] as Styled,
    assets: ['Accounts (money we have)', 'Funds (bank, cash box)'] as Styled,
    liabilities: ['What we owe', 'What the club owes'] as Styled,
    equity: ['Starting balances', 'Reserves'] as Styled,
    income: ['Income', 'Income (dues, donations, events)'] as Styled,
    expenses: ['Spending categories', 'Payments (venue, kit, events)'] as Styled,
    period: 'Period',
    contents: 'Contents',
    asOf: 'as of',
    total: 'Total',
    netIncome: 'Result so far',
    net: 'Result',
    budgets: 'Plan and reality',
    noBudgets: 'No budget covers the period.',
    account: 'Account',
    planned: 'Planned',
    actual: 'Actual',
    accounts: 'Accounts and reconciliations',
    opening: 'Opening balance',
    closing: 'Closing balance',
    reconciledOn: 'Reconciled against the statement of',
    statementBalance: 'statement balance',
    notReconciled: 'Not reconciled in the period',
    lastReconciled: 'last reconciled on',
    neverReconciled: 'never reconciled',
    closedThrough: 'Closed through',
    notClosed: 'No period is closed.',
    transactions: 'Transactions of the period',
    date: 'Date',
    description: 'Description',
    amount: 'Amount',
    receipts: 'Receipts',
    noTransactions: 'No transactions in the period.',
    checklist: 'Checklist',
    missingReceipts: 'Transactions above {amount} on expense accounts without a receipt',
    changedAfter: 'Changes written more than 7 days after the transaction’s date',
    unreconciled: 'Accounts with entries in the period and no reconciliation in it',
    none: 'None.',
    transaction: 'Transaction',
    signature: 'Sign-off page',
    signatureLead: 'We have examined the pack of this period. Its fingerprint identifies exactly the files we examined:',
    fingerprint: 'Fingerprint (SHA-256 of MANIFEST.sha256)',
    verify: 'Check the files with: sha256sum -c MANIFEST.sha256',
    name: 'Name',
    signedOn: 'Date',
    signed: 'Signature',
    people: 'Who owes',
    owedToBook: 'Owed to the book',
    owedByBook: 'Owed by the book',
    files: 'Files for recomputing: summary.json, transactions.csv, changes.csv, ledger.journal, receipts/index.csv, MANIFEST.sha256.',
  },
  de: {
    pack: ['Prüfunterlagen', 'Unterlagen für die Kassenprüfung'] as Styled,
    balanceSheet: ['Was wir haben und schulden', 'Vermögensübersicht'] as Styled,
    incomeStatement: ['Einnahmen und Ausgaben', 'Einnahmen und Ausgaben'] as Styled,
    assets: ['Konten (unser Geld)', 'Geldbestände (Girokonto, Kasse)'] as Styled,
    liabilities: ['Was wir schulden', 'Verbindlichkeiten des Vereins'] as Styled,
    equity: ['Anfangsbestände', 'Rücklagen'] as Styled,
    income: ['Einnahmen', 'Einnahmen (Mitgliedsbeiträge, Spenden, Veranstaltungen)'] as Styled,
    expenses: ['Ausgabenkategorien', 'Ausgaben (Miete, Ausrüstung, Veranstaltungen)'] as Styled,
    period: 'Zeitraum',
    contents: 'Inhalt',
    asOf: 'Stand',
    total: 'Summe',
    netIncome: 'Ergebnis bisher',
    net: 'Ergebnis',
    budgets: 'Plan und Wirklichkeit',
    noBudgets: 'Kein Haushaltsplan umfasst den Zeitraum.',
    account: 'Konto',
    planned: 'Geplant',
    actual: 'Tatsächlich',
    accounts: 'Konten und Abstimmungen',
    opening: 'Anfangsbestand',
    closing: 'Endbestand',
    reconciledOn: 'Abgestimmt mit dem Kontoauszug vom',
    statementBalance: 'Saldo laut Auszug',
    notReconciled: 'Im Zeitraum nicht abgestimmt',
    lastReconciled: 'zuletzt abgestimmt am',
    neverReconciled: 'nie abgestimmt',
    closedThrough: 'Abgeschlossen bis',
    notClosed: 'Kein Zeitraum ist abgeschlossen.',
    transactions: 'Buchungen des Zeitraums',
    date: 'Datum',
    description: 'Beschreibung',
    amount: 'Betrag',
    receipts: 'Belege',
    noTransactions: 'Keine Buchungen im Zeitraum.',
    checklist: 'Prüfliste',
    missingReceipts: 'Buchungen über {amount} auf Ausgabenkonten ohne Beleg',
    changedAfter: 'Änderungen, die mehr als 7 Tage nach dem Buchungsdatum geschrieben wurden',
    unreconciled: 'Konten mit Buchungen im Zeitraum, aber ohne Abstimmung darin',
    none: 'Keine.',
    transaction: 'Buchung',
    signature: 'Prüfvermerk',
    signatureLead: 'Wir haben die Unterlagen dieses Zeitraums geprüft. Ihr Fingerabdruck bezeichnet genau die geprüften Dateien:',
    fingerprint: 'Fingerabdruck (SHA-256 von MANIFEST.sha256)',
    verify: 'Prüfen der Dateien: sha256sum -c MANIFEST.sha256',
    name: 'Name',
    signedOn: 'Datum',
    signed: 'Unterschrift',
    people: 'Wer schuldet',
    owedToBook: 'Forderungen',
    owedByBook: 'Verbindlichkeiten',
    files: 'Dateien zum Nachrechnen: summary.json, transactions.csv, changes.csv, ledger.journal, receipts/index.csv, MANIFEST.sha256.',
  },
} as const;

type Words = (typeof WORDS)['en'];
type WordKey = keyof Words;

/** The page words of one language and book style. */
function wordsFor(lang: PackLanguage, style: BookStyle): (key: WordKey) => string {
  const table = WORDS[lang] as Words;
  return (key) => {
    const word = table[key];
    return typeof word === 'string' ? word : word[style === 'personal' ? 0 : 1];
  };
}

interface Line {
  id: number;
  name: string;
  balance_cents: number;
}
interface Section {
  lines: readonly Line[];
  total_cents: number;
}
interface BalanceSheet {
  as_of: string;
  assets: Section;
  liabilities: Section;
  equity: Section;
  net_income_cents: number;
}
interface BudgetLine {
  account_id: number;
  account_name: string;
  kind: string;
  planned_cents: number;
  planned_to_date_cents: number;
  actual_cents: number;
  actual_to_date_cents: number;
}
interface PlanAndActual {
  planned_cents: number;
  actual_cents: number;
}

/** What the pages read of D28's summary.json (src/book/audit-summary.ts makes it). */
export interface PageSummary {
  from: string;
  to: string;
  balance_sheet_opening: BalanceSheet;
  balance_sheet_closing: BalanceSheet;
  income_statement: { income: Section; expenses: Section; net_cents: number };
  budgets: readonly { budget_id: number; name: string; from: string; to: string; lines: readonly BudgetLine[]; totals: { result: PlanAndActual } }[];
  accounts: readonly {
    id: number;
    name: string;
    kind: string;
    opening_cents: number;
    closing_cents: number;
    reconciliations: readonly { id: number; statement_date: string; statement_balance_cents: number }[];
  }[];
  people: { people: readonly { id: number; name: string; balance_cents: number }[]; owed_to_book_cents: number; owed_by_book_cents: number } | null;
  checklist: { missing_receipts: readonly number[]; changed_after: readonly number[]; unreconciled_accounts: readonly number[] };
}

/** One transaction of the period as the page lists it. */
export interface PageTransaction {
  id: number;
  occurredOn: string;
  description: string;
  entries: readonly { accountName: string; amountCents: number }[];
  /** Its receipts' names inside `receipts/` (receipts/index.csv's `file`). */
  receipts: readonly string[];
}

export interface IndexPageProps {
  lang: PackLanguage;
  bookStyle: BookStyle;
  currency: string;
  summary: PageSummary;
  closedThrough: string | null;
  receiptsOverCents: number;
  transactions: readonly PageTransaction[];
  /** Each change of checklist.changed_after in words (History's sentence). */
  changes: readonly { id: number; at: string; words: string }[];
  /** For accounts not reconciled in the period: the last statement date before it, if any. */
  lastReconciled: ReadonlyMap<number, string>;
}

interface Formats {
  money: (cents: number) => string;
  date: (iso: string) => string;
}

function formatsFor(lang: PackLanguage, currency: string): Formats {
  const locale = lang === 'de' ? 'de-DE' : 'en-US';
  const money = new Intl.NumberFormat(locale, { style: 'currency', currency });
  const dates = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', dateStyle: 'medium' });
  return {
    money: (cents) => money.format(cents / 100),
    date: (iso) => dates.format(new Date(`${iso.slice(0, 10)}T00:00:00Z`)),
  };
}

/** Print: each section on its own page, nothing but the content; links keep their colour on screen only. */
const STYLE = `
body { font: 11pt/1.4 system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #111; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; border-bottom: 1px solid #999; } h3 { font-size: 1.1em; }
table { border-collapse: collapse; width: 100%; margin: 0.5em 0 1em; }
th, td { text-align: left; padding: 0.2em 0.5em; border-bottom: 1px solid #ddd; vertical-align: top; }
td.money, th.money { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.signature td { height: 3em; }
@media print {
  body { margin: 0; max-width: none; }
  section { break-before: page; }
  section:first-of-type { break-before: auto; }
  nav { display: none; }
  a { color: inherit; text-decoration: none; }
  tr { break-inside: avoid; }
}`;

function Page({ lang, title, children }: { lang: PackLanguage; title: string; children: ReactNode }) {
  return (
    <html lang={lang}>
      <head>
        <meta charSet="utf-8" />
        <title>{title}</title>
        <style>{STYLE}</style>
      </head>
      <body>{children}</body>
    </html>
  );
}

function SectionTable({ heading, section, f, w }: { heading: string; section: Section; f: Formats; w: (k: WordKey) => string }) {
  return (
    <>
      <h3>{heading}</h3>
      <table>
        <tbody>
          {section.lines.map((l) => (
            <tr key={l.id}>
              <td>{l.name}</td>
              <td className="money">{f.money(l.balance_cents)}</td>
            </tr>
          ))}
          <tr>
            <th>{w('total')}</th>
            <th className="money">{f.money(section.total_cents)}</th>
          </tr>
        </tbody>
      </table>
    </>
  );
}

function BalanceSheetSection({ id, sheet, f, w }: { id: string; sheet: BalanceSheet; f: Formats; w: (k: WordKey) => string }) {
  return (
    <section id={id}>
      <h2>
        {w('balanceSheet')}, {w('asOf')} {f.date(sheet.as_of)}
      </h2>
      <SectionTable heading={w('assets')} section={sheet.assets} f={f} w={w} />
      <SectionTable heading={w('liabilities')} section={sheet.liabilities} f={f} w={w} />
      <SectionTable heading={w('equity')} section={sheet.equity} f={f} w={w} />
      <p>
        {w('netIncome')}: {f.money(sheet.net_income_cents)}
      </p>
    </section>
  );
}

function IndexPage(props: IndexPageProps) {
  const { summary, lang } = props;
  const w = wordsFor(lang, props.bookStyle);
  const f = formatsFor(lang, props.currency);
  const accountName = new Map(summary.accounts.map((a) => [a.id, a.name]));
  const title = `${w('pack')}: ${f.date(summary.from)} – ${f.date(summary.to)}`;
  const changeWords = new Map(props.changes.map((c) => [c.id, c]));
  return (
    <Page lang={lang} title={title}>
      <h1>{title}</h1>
      <p>
        {w('period')}: {f.date(summary.from)} – {f.date(summary.to)}.{' '}
        {props.closedThrough ? `${w('closedThrough')} ${f.date(props.closedThrough)}.` : w('notClosed')}
      </p>
      <nav>
        <h2>{w('contents')}</h2>
        <ul>
          <li><a href="#checklist">{w('checklist')}</a></li>
          <li><a href="#opening">{w('balanceSheet')}, {f.date(summary.balance_sheet_opening.as_of)}</a></li>
          <li><a href="#closing">{w('balanceSheet')}, {f.date(summary.balance_sheet_closing.as_of)}</a></li>
          <li><a href="#income">{w('incomeStatement')}</a></li>
          <li><a href="#budgets">{w('budgets')}</a></li>
          <li><a href="#accounts">{w('accounts')}</a></li>
          <li><a href="#transactions">{w('transactions')}</a></li>
          <li><a href="signature.html">{w('signature')}</a></li>
        </ul>
      </nav>
      <p>{w('files')}</p>

      <section id="checklist">
        <h2>{w('checklist')}</h2>
        <h3>{w('missingReceipts').replace('{amount}', f.money(props.receiptsOverCents))}</h3>
        {summary.checklist.missing_receipts.length === 0 ? <p>{w('none')}</p> : (
          <ul>
            {summary.checklist.missing_receipts.map((id) => (
              <li key={id}><a href={`#t${id}`}>{w('transaction')} {id}</a></li>
            ))}
          </ul>
        )}
        <h3>{w('changedAfter')}</h3>
        {summary.checklist.changed_after.length === 0 ? <p>{w('none')}</p> : (
          <ul>
            {summary.checklist.changed_after.map((id) => {
              const change = changeWords.get(id);
              return <li key={id}>#{id}{change ? `, ${f.date(change.at)}: ${change.words}` : ''}</li>;
            })}
          </ul>
        )}
        <h3>{w('unreconciled')}</h3>
        {summary.checklist.unreconciled_accounts.length === 0 ? <p>{w('none')}</p> : (
          <ul>
            {summary.checklist.unreconciled_accounts.map((id) => <li key={id}>{accountName.get(id) ?? `#${id}`}</li>)}
          </ul>
        )}
      </section>

      <BalanceSheetSection id="opening" sheet={summary.balance_sheet_opening} f={f} w={w} />
      <BalanceSheetSection id="closing" sheet={summary.balance_sheet_closing} f={f} w={w} />

      <section id="income">
        <h2>{w('incomeStatement')}, {f.date(summary.from)} – {f.date(summary.to)}</h2>
        <SectionTable heading={w('income')} section={summary.income_statement.income} f={f} w={w} />
        <SectionTable heading={w('expenses')} section={summary.income_statement.expenses} f={f} w={w} />
        <p>{w('net')}: {f.money(summary.income_statement.net_cents)}</p>
        {summary.people && (
          <>
            <h3>{w('people')}</h3>
            <table>
              <tbody>
                {summary.people.people.map((p) => (
                  <tr key={p.id}><td>{p.name}</td><td className="money">{f.money(p.balance_cents)}</td></tr>
                ))}
              </tbody>
            </table>
            <p>{w('owedToBook')}: {f.money(summary.people.owed_to_book_cents)}; {w('owedByBook')}: {f.money(summary.people.owed_by_book_cents)}</p>
          </>
        )}
      </section>

      <section id="budgets">
        <h2>{w('budgets')}</h2>
        {summary.budgets.length === 0 && <p>{w('noBudgets')}</p>}
        {summary.budgets.map((b) => (
          <div key={b.budget_id}>
            <h3>{b.name} ({b.from} – {b.to})</h3>
            <table>
              <thead>
                <tr><th>{w('account')}</th><th className="money">{w('planned')}</th><th className="money">{w('actual')}</th></tr>
              </thead>
              <tbody>
                {b.lines.map((l) => (
                  <tr key={l.account_id}>
                    <td>{l.account_name}</td>
                    <td className="money">{f.money(l.planned_to_date_cents)}</td>
                    <td className="money">{f.money(l.actual_to_date_cents)}</td>
                  </tr>
                ))}
                <tr>
                  <th>{w('net')}</th>
                  <th className="money">{f.money(b.totals.result.planned_cents)}</th>
                  <th className="money">{f.money(b.totals.result.actual_cents)}</th>
                </tr>
              </tbody>
            </table>
          </div>
        ))}
      </section>

      <section id="accounts">
        <h2>{w('accounts')}</h2>
        {summary.accounts.map((a) => {
          const last = props.lastReconciled.get(a.id);
          return (
            <div key={a.id}>
              <h3>{a.name}</h3>
              <p>{w('opening')}: {f.money(a.opening_cents)}; {w('closing')}: {f.money(a.closing_cents)}</p>
              {a.reconciliations.length === 0 ? (
                <p>{w('notReconciled')} ({last ? `${w('lastReconciled')} ${f.date(last)}` : w('neverReconciled')}).</p>
              ) : (
                <ul>
                  {a.reconciliations.map((r) => (
                    <li key={r.id}>{w('reconciledOn')} {f.date(r.statement_date)}: {w('statementBalance')} {f.money(r.statement_balance_cents)}</li>
                  ))}
                </ul>
              )}
            </div>
          );
        })}
      </section>

      <section id="transactions">
        <h2>{w('transactions')}</h2>
        {props.transactions.length === 0 ? <p>{w('noTransactions')}</p> : (
          <table>
            <thead>
              <tr><th>{w('date')}</th><th>{w('description')}</th><th>{w('account')}</th><th className="money">{w('amount')}</th><th>{w('receipts')}</th></tr>
            </thead>
            <tbody>
              {props.transactions.map((t) => t.entries.map((e, i) => (
                <tr key={`${t.id}-${i}`} id={i === 0 ? `t${t.id}` : undefined}>
                  <td>{i === 0 ? f.date(t.occurredOn) : ''}</td>
                  <td>{i === 0 ? `${t.description} (${t.id})` : ''}</td>
                  <td>{e.accountName}</td>
                  <td className="money">{f.money(e.amountCents)}</td>
                  <td>{i === 0 && t.receipts.map((file) => <div key={file}><a href={`receipts/${encodeURIComponent(file)}`}>{file}</a></div>)}</td>
                </tr>
              )))}
            </tbody>
          </table>
        )}
        <p><a href="signature.html">{w('signature')}</a></p>
      </section>
    </Page>
  );
}

export interface SignaturePageProps {
  lang: PackLanguage;
  bookStyle: BookStyle;
  from: string;
  to: string;
  /** SHA-256 of MANIFEST.sha256, hex. */
  fingerprint: string;
}

function SignaturePage(props: SignaturePageProps) {
  const w = wordsFor(props.lang, props.bookStyle);
  const f = formatsFor(props.lang, 'EUR');
  const title = `${w('signature')}: ${w('pack')}, ${f.date(props.from)} – ${f.date(props.to)}`;
  return (
    <Page lang={props.lang} title={title}>
      <h1>{title}</h1>
      <p>{w('period')}: {f.date(props.from)} – {f.date(props.to)}</p>
      <p>{w('signatureLead')}</p>
      <p>
        {w('fingerprint')}:<br />
        <code id="fingerprint">{props.fingerprint}</code>
      </p>
      <p>{w('verify')}</p>
      <table className="signature">
        <thead>
          <tr><th>{w('name')}</th><th>{w('signedOn')}</th><th>{w('signed')}</th></tr>
        </thead>
        <tbody>
          {[1, 2, 3].map((n) => <tr key={n}><td /><td /><td /></tr>)}
        </tbody>
      </table>
    </Page>
  );
}

const DOCTYPE = '<!DOCTYPE html>\n';

/** D28: index.html of the pack. */
export function renderIndexPage(props: IndexPageProps): string {
  return DOCTYPE + renderToStaticMarkup(<IndexPage {...props} />);
}

/** D28: signature.html, the sign-off page carrying the pack's fingerprint. */
export function renderSignaturePage(props: SignaturePageProps): string {
  return DOCTYPE + renderToStaticMarkup(<SignaturePage {...props} />);
}
