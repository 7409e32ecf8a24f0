import { Hono } from 'hono';
import { createAccount, listAccounts, NewAccountSchema } from '../book/accounts';
import type { AppEnv } from './context';
import { requireFull } from './tiers';
import { jsonBody } from './validation';

/** Spec: Ledger routes, /accounts (full tier). */
export const accountRoutes = new Hono<AppEnv>()
  .use(requireFull)
  .get('/', async (c) => c.json(await listAccounts(c.var.db)))
  .post('/', jsonBody(NewAccountSchema), async (c) => c.json(await createAccount(c.var.db, c.req.valid('json')), 201));
