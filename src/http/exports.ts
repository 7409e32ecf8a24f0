import type { Context } from 'hono';
import { auditPack } from '../book/audit-pack';
import { AuditQuerySchema } from '../book/audit-summary';
import { JournalExportSchema } from '../book/exports';
import { beancountFile } from '../book/exports-beancount';
import { transactionsCsv } from '../book/exports-csv';
import { changesCsv } from '../book/exports-changes';
import { hledgerJournal } from '../book/exports-hledger';
import { receiptsZip } from '../book/exports-receipts';
import { PeriodSchema } from '../book/reports';
import type { AppEnv } from './context';
import { EXPORT_IDLE_MS, EXPORT_RETRY_AFTER_SECONDS, EXPORT_SLOTS, streamHoldingSlot, takeExportSlot } from './export-budget';
import { badQuery, ErrorBody, refused, type Reply } from './replies';
import { route } from './route';

/**
 * A file to save (Content-Disposition: attachment), sent as it is written: only a batch of the book
 * is in memory at a time. The first part is awaited before answering, so a statement that fails
 * at once is the route's 500; a failure later can only cut the download short, and is logged.
 * Issue 26 item 1: a download takes one of the process's export slots (none free: 503 with
 * Retry-After) and holds it, with its cursor's connection, until it ends; a client that has not
 * taken the next part within EXPORT_IDLE_MS has its download cut (cursor closed, connection
 * given back, response ended), so unread downloads cannot hold the pool.
 */
async function download(c: Context<AppEnv>, book: () => AsyncGenerator<string | Uint8Array>, mediaType: string, filename: string): Promise<Response> {
  const headers = {
    // Text is UTF-8; an archive is bytes.
    'Content-Type': mediaType.startsWith('text/') ? `${mediaType}; charset=utf-8` : mediaType,
    'Content-Disposition': `attachment; filename="${filename}"`,
  };
  // HEAD: the headers alone. Hono answers it from the GET route and drops the body unread, which
  // would hold an export slot and its connection until the idle cut (issue 26 item 1).
  if (c.req.method === 'HEAD') return c.body(null, 200, headers);
  const slot = takeExportSlot();
  if (!slot) {
    c.header('Retry-After', String(EXPORT_RETRY_AFTER_SECONDS));
    return c.json({ error: 'too many exports are running; try again shortly' }, 503);
  }
  let parts: AsyncGenerator<string | Uint8Array>;
  let first: IteratorResult<string | Uint8Array>;
  try {
    parts = book();
    first = await parts.next();
  } catch (error) {
    slot.release();
    throw error;
  }
  const body = streamHoldingSlot(c, 'export', slot, parts, first.done ? [] : [first.value]);
  return c.body(body, 200, headers);
}

/** The documented 200 of a download. */
function file(description: string, mediaType: string, filename: string, body: string): Reply {
  return {
    description,
    text: body,
    media: mediaType,
    headers: { 'Content-Disposition': `attachment; filename="${filename}"` },
  };
}

const badJournalQuery = refused('A malformed date, or a commodity that is not three upper-case letters (ISO 4217).');
/** Issue 26 item 1: the documented 503 of a download refused for want of an export slot. */
const busy: Reply = {
  description: `${EXPORT_SLOTS} exports are already running in this process (each holds a database connection while it runs): \`{"error": …}\`, try again after Retry-After. A running download whose client takes nothing for ${EXPORT_IDLE_MS / 1000} s is cut and its connection given back.`,
  json: ErrorBody,
  headers: { 'Retry-After': `seconds to wait (${EXPORT_RETRY_AFTER_SECONDS})` },
};

const PERIOD = '`from` and `to` (optional) limit the transactions by date, both included.';

/** D17: /export/* (full tier): the books as a CSV file, an hledger journal and a Beancount file. */
export const exportRoutes = [
  route(
    {
      method: 'get', path: '/export/transactions.csv', tier: 'full', summary: 'Every entry as CSV', description: PERIOD, query: PeriodSchema,
      responses: {
        200: file(
          'One row per entry, oldest first (occurred_on, then transaction id, then entry id).',
          'text/csv',
          'transactions.csv',
          'RFC 4180 (CRLF line ends), header `transaction_id,occurred_on,description,account_id,account_name,account_kind,amount`; `amount` the stored signed amount with two decimals (`-12.30`); a text cell starting with `=`, `+`, `-`, `@`, tab or CR is prefixed with `\'`.',
        ),
        400: badQuery,
        503: busy,
      },
    },
    {},
    async (c, { query }) => download(c, () => transactionsCsv(c.var.db, query), 'text/csv', 'transactions.csv'),
  ),
  route(
    {
      method: 'get', path: '/export/ledger.journal', tier: 'full', summary: 'The books as an hledger journal', description: PERIOD, query: JournalExportSchema,
      responses: {
        200: file(
          'Accounts under `assets`, `liabilities`, `equity`, `income`, `expenses`; one transaction per transaction, its id as the code.',
          'text/plain',
          'ledger.journal',
          'An hledger journal; amounts with two decimals in `commodity` (default: the book\'s currency, D20).',
        ),
        400: badJournalQuery,
        503: busy,
      },
    },
    {},
    async (c, { query }) => download(c, () => hledgerJournal(c.var.db, query), 'text/plain', 'ledger.journal'),
  ),
  route(
    {
      method: 'get', path: '/export/ledger.beancount', tier: 'full', summary: 'The books as a Beancount file', description: PERIOD, query: JournalExportSchema,
      responses: {
        200: file(
          'Accounts under `Assets`, `Liabilities`, `Equity`, `Income`, `Expenses`, each opened before its first use; one transaction per transaction.',
          'text/plain',
          'ledger.beancount',
          'A Beancount file; amounts with two decimals in `commodity` (default: the book\'s currency, D20).',
        ),
        400: badJournalQuery,
        503: busy,
      },
    },
    {},
    async (c, { query }) => download(c, () => beancountFile(c.var.db, query), 'text/plain', 'ledger.beancount'),
  ),
  route(
    {
      method: 'get', path: '/export/receipts.zip', tier: 'full', summary: 'Every receipt of a period as one ZIP, with an index (D22)', description: PERIOD, query: PeriodSchema,
      responses: {
        200: {
          description:
            'Every receipt of the transactions dated in the period, named `YYYY-MM-DD_<transaction id>_<name>` (`-2`, `-3` … before the ' +
            'extension when two would collide), and `index.csv` (D17\'s CSV rules): `transaction_id,occurred_on,description,amount,file`, ' +
            'one row per file, `amount` the sum of the transaction\'s positive entries. Streamed.',
          binary: ['application/zip'],
          headers: { 'Content-Disposition': 'attachment; filename="receipts.zip"' },
        },
        400: badQuery,
        503: busy,
      },
    },
    {},
    async (c, { query }) => download(c, () => receiptsZip(c.var.db, query), 'application/zip', 'receipts.zip'),
  ),
  route(
    {
      method: 'get', path: '/export/audit.zip', tier: 'full', summary: "The auditors' pack of a period as one ZIP, fingerprinted (D28)",
      description:
        '`from` and `to` (required, `to` ≥ `from`) the period; `receipts_over` money like `50.00` (default), the checklist\'s threshold for ' +
        'a missing receipt; `lang` `en` (default) or `de`, the language of the two pages.',
      query: AuditQuerySchema,
      responses: {
        200: {
          description:
            'At the archive\'s root: `index.html` (the pages to read and print), `summary.json`, `transactions.csv`, `changes.csv`, ' +
            '`ledger.journal`, `receipts/` (its files and `index.csv`), `MANIFEST.sha256` (every file but itself and `signature.html`, ' +
            'as `sha256sum -c` reads it) and `signature.html` (the sign-off page with the SHA-256 of MANIFEST.sha256). Streamed.',
          binary: ['application/zip'],
          headers: { 'Content-Disposition': 'attachment; filename="audit-<from>-<to>.zip"' },
        },
        400: refused('A missing or malformed date, `to` before `from`, a `receipts_over` that is not an amount like 50.00, or a `lang` other than en or de.'),
        503: busy,
      },
    },
    {},
    async (c, { query }) => download(c, () => auditPack(c.var.db, query), 'application/zip', `audit-${query.from}-${query.to}.zip`),
  ),
  route(
    {
      method: 'get', path: '/export/changes.csv', tier: 'full', summary: 'The change log of a period as CSV, for the auditors (D22)',
      description: '`from` and `to` (optional) are days (UTC) of the change, both included.', query: PeriodSchema,
      responses: {
        200: file(
          'Every change record of the period, oldest first.',
          'text/csv',
          'changes.csv',
          'RFC 4180 (CRLF), header `id,at,actor_email,via,client_id,subject,subject_id,action,summary`; `summary` the change in the words the History page uses.',
        ),
        400: badQuery,
        503: busy,
      },
    },
    {},
    async (c, { query }) => download(c, () => changesCsv(c.var.db, query), 'text/csv', 'changes.csv'),
  ),
];
