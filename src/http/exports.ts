import type { Context } from 'hono';
import { JournalExportSchema } from '../book/exports';
import { beancountFile } from '../book/exports-beancount';
import { transactionsCsv } from '../book/exports-csv';
import { hledgerJournal } from '../book/exports-hledger';
import { PeriodSchema } from '../book/reports';
import { describeFault } from '../log';
import type { AppEnv } from './context';
import { badQuery, refused, type Reply } from './replies';
import { route } from './route';

/**
 * A file to save (Content-Disposition: attachment), sent as it is written: only a batch of the book
 * is in memory at a time. The first part is awaited before answering, so a statement that fails
 * at once is the route's 500; a failure later can only cut the download short, and is logged.
 */
async function download(c: Context<AppEnv>, parts: AsyncGenerator<string>, mediaType: string, filename: string): Promise<Response> {
  const first = await parts.next();
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (first.done) controller.close();
      else controller.enqueue(encoder.encode(first.value));
    },
    async pull(controller) {
      try {
        const next = await parts.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (error) {
        c.var.log.error('export.fault', { path: c.req.path, ...describeFault(error) });
        controller.error(error);
      }
    },
    async cancel() {
      await parts.return(undefined);
    },
  });
  return c.body(body, 200, {
    'Content-Type': `${mediaType}; charset=utf-8`,
    'Content-Disposition': `attachment; filename="${filename}"`,
  });
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
      },
    },
    {},
    async (c, { query }) => download(c, transactionsCsv(c.var.db, query), 'text/csv', 'transactions.csv'),
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
      },
    },
    {},
    async (c, { query }) => download(c, hledgerJournal(c.var.db, query), 'text/plain', 'ledger.journal'),
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
      },
    },
    {},
    async (c, { query }) => download(c, beancountFile(c.var.db, query), 'text/plain', 'ledger.beancount'),
  ),
];
