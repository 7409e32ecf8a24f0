import * as v from 'valibot';
import {
  deleteTransaction,
  listTransactionsJson,
  NewTransactionSchema,
  postTransaction,
  postTransactionAsBearer,
  TransactionRangeSchema,
} from '../book/transactions';
import { CreatedTransaction, Transaction } from '../book/views';
import { Unauthenticated } from './errors';
import { badId, badJson, badQuery, positiveId, refused } from './replies';
import { route } from './route';
import { adoptBearerCaller, requireFullCheckedByWrite } from './tiers';
import { pathId } from './validation';

/** Spec: Ledger routes, /transactions (full tier). */
export const transactionRoutes = [
  route(
    {
      method: 'get', path: '/transactions', tier: 'full', summary: 'Transactions, newest first', query: TransactionRangeSchema,
      description: '`from` and `to` are inclusive bounds on occurred_on. Ordered by occurred_on, then id, descending.',
      responses: { 200: { description: 'Transactions with their entries.', json: v.array(Transaction) }, 400: badQuery },
    },
    {},
    async (c, { query }) => c.body(await listTransactionsJson(c.var.db, query), 200, { 'content-type': 'application/json' }),
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
    { guard: requireFullCheckedByWrite },
    async (c, { json }) => {
      const bearer = c.get('bearer');
      if (bearer === undefined) return c.json({ id: await postTransaction(c.var.db, json, c.var.identity.userId) }, 201);
      const posted = await postTransactionAsBearer(c.var.db, json, { token: bearer, audience: c.var.config.apiOrigin });
      if (!posted) throw new Unauthenticated();
      await adoptBearerCaller(c, posted.caller);
      return c.json({ id: posted.id }, 201);
    },
  ),
  route(
    {
      method: 'delete', path: '/transactions/{id}', tier: 'full', summary: 'Deletes a transaction and its entries', params: { id: positiveId },
      responses: { 204: { description: 'Deleted.' }, 400: badId, 404: refused('`{"error": "no such transaction"}`.') },
    },
    {},
    async (c) => {
      await deleteTransaction(c.var.db, pathId(c.req.param('id')!, 'transaction'));
      return c.body(null, 204);
    },
  ),
];
