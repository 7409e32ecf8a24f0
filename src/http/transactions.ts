import { Hono } from 'hono';
import {
  deleteTransaction,
  listTransactionsJson,
  NewTransactionSchema,
  postTransaction,
  postTransactionAsBearer,
  TransactionRangeSchema,
} from '../book/transactions';
import type { AppEnv } from './context';
import { Unauthenticated } from './errors';
import { adoptBearerCaller, requireFull, requireFullCheckedByWrite } from './tiers';
import { jsonBody, pathId, queryParams } from './validation';

/** Spec: Ledger routes, /transactions (full tier). */
export const transactionRoutes = new Hono<AppEnv>()
  .get('/', requireFull, queryParams(TransactionRangeSchema), async (c) =>
    c.body(await listTransactionsJson(c.var.db, c.req.valid('query')), 200, { 'content-type': 'application/json' }),
  )
  .post('/', requireFullCheckedByWrite, jsonBody(NewTransactionSchema), async (c) => {
    const input = c.req.valid('json');
    const bearer = c.get('bearer');
    if (bearer === undefined) return c.json({ id: await postTransaction(c.var.db, input, c.var.identity.userId) }, 201);
    const posted = await postTransactionAsBearer(c.var.db, input, { token: bearer, audience: c.var.config.apiOrigin });
    if (!posted) throw new Unauthenticated();
    await adoptBearerCaller(c, posted.caller);
    return c.json({ id: posted.id }, 201);
  })
  .delete('/:id', requireFull, async (c) => {
    await deleteTransaction(c.var.db, pathId(c.req.param('id'), 'transaction'));
    return c.body(null, 204);
  });
