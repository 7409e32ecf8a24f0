import type { Context } from 'hono';
import * as v from 'valibot';
import { deleteTransaction, getTransaction, restoreTransaction, updateTransaction } from '../book/corrections';
import { isSearch, searchTransactionsJson, TransactionQuerySchema } from '../book/search';
import { listByteChunks, NewTransactionSchema, postTransaction, postTransactionAs, type TransactionRange } from '../book/transactions';
import { CreatedTransaction, ListedTransaction, Transaction } from '../book/views';
import { Unauthenticated } from './errors';
import { badId, badJson, badQuery, positiveId, refused } from './replies';
import type { AppEnv } from './context';
import { streamHoldingSlot, takeExportSlot } from './export-budget';
import { route } from './route';
import { adoptBearerCaller, authorOf, bearerCallerOf, requireFullCheckedByWrite } from './tiers';
import { pathId } from './validation';

const transactionId = (raw: string | undefined) => pathId(raw!, 'transaction');
const noSuchTransaction = refused('`{"error": "no such transaction"}`.');

const JSON_TYPE = { 'content-type': 'application/json' };

/**
 * GET /transactions without search (issue 31 item 4): the list's parts (book/transactions.ts'
 * listByteChunks, one per batch of its cursor: the bytes PostgreSQL wrote). A list of one part (a
 * month: a short range is one statement) is answered as it always was, in one piece. A longer one (the whole book) is streamed as it is read, so the
 * first byte leaves after the first batch and memory holds a batch or two, not the book: that
 * holds the cursor's connection while the client reads, so it takes one of the export slots (issue
 * 26: at most EXPORT_SLOTS per process, and a client that takes nothing for EXPORT_IDLE_MS is cut).
 * With no slot free the rest is read at once and answered in one piece, as before: never a 503.
 */
/** The list's parts are Buffers over ordinary ArrayBuffers (never shared): a body as Hono types one. */
const bytes = (part: Buffer) => part as Uint8Array<ArrayBuffer>;

async function listAnswer(c: Context<AppEnv>, range: TransactionRange): Promise<Response> {
  // HEAD: the headers alone; Hono would drop a streamed body unread, holding a slot (issue 26 item 1).
  if (c.req.method === 'HEAD') return c.body(null, 200, JSON_TYPE);
  const parts = listByteChunks(c.var.db, range);
  let first: IteratorResult<Buffer>;
  let second: IteratorResult<Buffer>;
  try {
    first = await parts.next();
    second = await parts.next();
  } catch (error) {
    await parts.return(undefined).catch(() => {});
    throw error;
  }
  if (first.done) return c.body('[]', 200, JSON_TYPE);
  if (second.done) return c.body(bytes(first.value), 200, JSON_TYPE);
  const slot = takeExportSlot();
  if (!slot) {
    const all = [first.value, second.value];
    for await (const part of parts) all.push(part);
    return c.body(bytes(Buffer.concat(all)), 200, JSON_TYPE);
  }
  const body = streamHoldingSlot(c, 'list', slot, parts, [first.value, second.value]);
  return c.body(body, 200, JSON_TYPE);
}

/** Spec: Ledger routes, /transactions (full tier); D15: reading one, correcting, restoring, searching. */
export const transactionRoutes = [
  route(
    {
      method: 'get', path: '/transactions', tier: 'full', summary: 'Transactions, newest first', query: TransactionQuerySchema,
      description:
        '`from` and `to` are inclusive bounds on occurred_on. Ordered by occurred_on, then id, descending. D15: `q` keeps a ' +
        'transaction when its description, or the name of an account one of its entries names, contains `q` ignoring case ' +
        'and accents (`muller` finds `Müller`; `%` and `_` are literal), or when `q` reads as an amount (`94.90`, `94,90`, ' +
        '`94.9`, `94`) equal to the absolute value of one of its entries; `account_id` keeps those with an entry on that account; with ' +
        '`limit`, at most that many come back and, when there are more, `Next-Cursor` holds the `cursor` of the next page. ' +
        'Without these four the answer is exactly the spec\'s.',
      responses: {
        200: { description: 'Transactions with their entries.', json: v.array(ListedTransaction), sometimes: { 'Next-Cursor': 'the cursor of the next page (with limit, when more exist)' } },
        400: badQuery,
      },
    },
    {},
    async (c, { query }) => {
      const json = { 'content-type': 'application/json' };
      if (!isSearch(query)) return listAnswer(c, query);
      const page = await searchTransactionsJson(c.var.db, query);
      return c.body(page.list, 200, page.nextCursor ? { ...json, 'Next-Cursor': page.nextCursor } : json);
    },
  ),
  route(
    {
      method: 'post', path: '/transactions', tier: 'full', summary: 'Posts a balanced transaction', json: NewTransactionSchema,
      description: 'At least 2 entries (at most 100) summing to 0; positive = debit, negative = credit.',
      responses: {
        201: { description: 'Posted.', json: CreatedTransaction },
        400: badJson('Blank description, fewer than 2 entries, entries not summing to zero (the message states the count and the sum), or an unknown account_id'),
      },
    },
    { guard: requireFullCheckedByWrite, idempotent: true },
    async (c, { json }) => {
      // A bearer token is checked by the insert itself (one round trip): its caller subquery comes
      // from the tier, and the tier adopts what the insert found, or answers 401.
      const bearer = bearerCallerOf(c);
      if (bearer === undefined) return c.json({ id: await postTransaction(c.var.db, json, authorOf(c)) }, 201);
      const posted = await postTransactionAs(c.var.db, json, bearer);
      if (!posted) throw new Unauthenticated();
      await adoptBearerCaller(c, posted);
      return c.json({ id: posted.id }, 201);
    },
  ),
  route(
    {
      method: 'get', path: '/transactions/{id}', tier: 'full', summary: 'One transaction (D15)', params: { id: positiveId },
      responses: { 200: { description: 'The transaction with its entries.', json: Transaction }, 400: badId, 404: noSuchTransaction },
    },
    {},
    async (c) => c.json(await getTransaction(c.var.db, transactionId(c.req.param('id')))),
  ),
  route(
    {
      method: 'put', path: '/transactions/{id}', tier: 'full', summary: 'Corrects a transaction (D15)', params: { id: positiveId }, json: NewTransactionSchema,
      description: 'Date, description and every entry replaced at once, by the rules of POST; the id and the author stay.',
      responses: {
        200: { description: 'Corrected.', json: Transaction },
        400: badJson('A bad id, or what POST /transactions refuses'),
        404: noSuchTransaction,
      },
    },
    {},
    async (c, { json }) => c.json(await updateTransaction(c.var.db, transactionId(c.req.param('id')), json, authorOf(c))),
  ),
  route(
    {
      method: 'delete', path: '/transactions/{id}', tier: 'full', summary: 'Deletes a transaction and its entries', params: { id: positiveId },
      responses: { 204: { description: 'Deleted.' }, 400: badId, 404: noSuchTransaction },
    },
    {},
    async (c) => {
      await deleteTransaction(c.var.db, transactionId(c.req.param('id')), authorOf(c));
      return c.body(null, 204);
    },
  ),
  route(
    {
      method: 'post', path: '/transactions/{id}/restore', tier: 'full', summary: 'Undoes the delete of a transaction (D15)', params: { id: positiveId },
      description: 'Recreates the transaction from its last delete record: its id, date, description, author and entries.',
      responses: {
        201: { description: 'Restored.', json: Transaction },
        400: refused('A bad id, or an account the transaction names no longer exists.'),
        404: refused('The transaction was never deleted.'),
        409: refused('`{"error": "the transaction exists"}`.'),
      },
    },
    {},
    async (c) => c.json(await restoreTransaction(c.var.db, transactionId(c.req.param('id')), authorOf(c)), 201),
  ),
];
