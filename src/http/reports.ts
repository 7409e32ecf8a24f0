import { Hono } from 'hono';
import {
  accountRegisterReport,
  AsOfSchema,
  balanceSheetReport,
  balancesReport,
  incomeStatementReport,
  monthlyReport,
  PeriodSchema,
} from '../book/reports';
import type { AppEnv } from './context';
import { requireFull } from './tiers';
import { pathId, queryParams } from './validation';

/** D7: /reports/* (full tier). */
export const reportRoutes = new Hono<AppEnv>()
  .use(requireFull)
  .get('/balances', queryParams(AsOfSchema), async (c) => c.json(await balancesReport(c.var.db, c.req.valid('query'))))
  .get('/balance-sheet', queryParams(AsOfSchema), async (c) =>
    c.json(await balanceSheetReport(c.var.db, c.req.valid('query'))),
  )
  .get('/income-statement', queryParams(PeriodSchema), async (c) =>
    c.json(await incomeStatementReport(c.var.db, c.req.valid('query'))),
  )
  .get('/monthly', queryParams(PeriodSchema), async (c) => c.json(await monthlyReport(c.var.db, c.req.valid('query'))))
  .get('/accounts/:id/register', queryParams(PeriodSchema), async (c) =>
    c.json(await accountRegisterReport(c.var.db, pathId(c.req.param('id'), 'account'), c.req.valid('query'))),
  );
