import { Hono } from 'hono';
import {
  deleteTransaction,
  listTransactionsJson,
  NewTransactionSchema,
  postTransaction,
  TransactionRangeSchema,
} from '../transactions';
import type { AppEnv } from './context';
import { requireFull } from './tiers';
import { jsonBody, pathId, queryParams } from './validation';

/** Spec: Ledger routes, /transactions (full tier). */
export const transactionRoutes = new Hono<AppEnv>()
  .use(requireFull)
  .get('/', queryParams(TransactionRangeSchema), async (c) =>
    c.body(await listTransactionsJson(c.var.db, c.req.valid('query')), 200, { 'content-type': 'application/json' }),
  )
  .post('/', jsonBody(NewTransactionSchema), async (c) => {
    const id = await postTransaction(c.var.db, c.req.valid('json'), c.var.identity.userId);
    return c.json({ id }, 201);
  })
  .delete('/:id', async (c) => {
    await deleteTransaction(c.var.db, pathId(c.req.param('id'), 'transaction'));
    return c.body(null, 204);
  });
