import {
  accountRegisterReport,
  AsOfSchema,
  balanceSheetReport,
  balancesReport,
  incomeStatementReport,
  MONTHLY_MAX_MONTHS,
  monthlyReport,
  PeriodSchema,
} from '../book/reports';
import { forecastReport, ForecastQuerySchema } from '../book/forecast';
import { Balances, BalanceSheet, Forecast, IncomeStatement, Monthly, Register } from '../book/views';
import { badQuery, positiveId, refused } from './replies';
import { route } from './route';
import { pathId } from './validation';

/** D7: /reports/* (full tier). */
export const reportRoutes = [
  route(
    {
      method: 'get', path: '/reports/balances', tier: 'full', summary: 'Every account as of a date', query: AsOfSchema,
      responses: { 200: { description: 'Natural balances (D6); as_of defaults to today (UTC).', json: Balances }, 400: badQuery },
    },
    {},
    async (c, { query }) => c.json(await balancesReport(c.var.db, query)),
  ),
  route(
    {
      method: 'get', path: '/reports/balance-sheet', tier: 'full', summary: 'Balance sheet', query: AsOfSchema,
      responses: { 200: { description: 'Sections list every account of their kinds, zero balances included.', json: BalanceSheet }, 400: badQuery },
    },
    {},
    async (c, { query }) => c.json(await balanceSheetReport(c.var.db, query)),
  ),
  route(
    {
      method: 'get', path: '/reports/income-statement', tier: 'full', summary: 'Income statement', query: PeriodSchema,
      responses: { 200: { description: '`from`/`to` default to the first and last transaction dates.', json: IncomeStatement }, 400: badQuery },
    },
    {},
    async (c, { query }) => c.json(await incomeStatementReport(c.var.db, query)),
  ),
  route(
    {
      method: 'get', path: '/reports/monthly', tier: 'full', summary: 'Income and expense per month', query: PeriodSchema,
      responses: {
        200: { description: 'Oldest month first; months without transactions as zeros.', json: Monthly },
        400: refused(`A malformed date, or a period longer than ${MONTHLY_MAX_MONTHS} months.`),
      },
    },
    {},
    async (c, { query }) => c.json(await monthlyReport(c.var.db, query)),
  ),
  route(
    {
      method: 'get', path: '/reports/accounts/{id}/register', tier: 'full', summary: "An account's register with running balances",
      params: { id: positiveId }, query: PeriodSchema,
      responses: {
        200: { description: 'Entries oldest first, amounts and running balances in natural sign.', json: Register },
        400: refused('A malformed date or account id.'),
        404: refused('No such account.'),
      },
    },
    {},
    async (c, { query }) => c.json(await accountRegisterReport(c.var.db, pathId(c.req.param('id')!, 'account'), query)),
  ),
  route(
    {
      method: 'get', path: '/reports/forecast', tier: 'full', summary: 'Where the bank, cash and card accounts are heading (D21)', query: ForecastQuerySchema,
      description:
        'Today\'s balance (UTC) of every asset and liability account, then one point per date through `to` (default one ' +
        'year ahead, at most 3) on which occurrences of schedules not yet posted or skipped, or transactions recorded with a later date, touch it: the balance after that date. Natural sign.',
      responses: { 200: { description: 'The forecast.', json: Forecast }, 400: badQuery },
    },
    {},
    async (c, { query }) => c.json(await forecastReport(c.var.db, query)),
  ),
];
