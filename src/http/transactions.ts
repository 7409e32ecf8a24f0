import { Hono } from 'hono';
import { invalid, notFound } from '../errors';
import {
  deleteTransaction,
  listTransactions,
  NewTransactionSchema,
  postTransaction,
  TransactionRangeSchema,
} from '../transactions';
import type { AppEnv } from './context';
import { requireFull } from './tiers';
import { jsonBody, queryParams } from './validation';

const INT4_MAX = 2 ** 31 - 1;

/** A path id: digits only; one too large to be any row's id names nothing (404). */
function transactionId(raw: string): number {
  if (!/^\d{1,20}$/.test(raw)) throw invalid('the transaction id must be a positive integer');
  const id = Number(raw);
  if (id < 1 || id > INT4_MAX) throw notFound('no such transaction');
  return id;
}

/** Spec: Ledger routes, /transactions (full tier). */
export const transactionRoutes = new Hono<AppEnv>()
  .use(requireFull)
  .get('/', queryParams(TransactionRangeSchema), async (c) =>
    c.json(await listTransactions(c.var.db, c.req.valid('query'))),
  )
  .post('/', jsonBody(NewTransactionSchema), async (c) => {
    const id = await postTransaction(c.var.db, c.req.valid('json'), c.var.identity.userId);
    return c.json({ id }, 201);
  })
  .delete('/:id', async (c) => {
    await deleteTransaction(c.var.db, transactionId(c.req.param('id')));
    return c.body(null, 204);
  });
