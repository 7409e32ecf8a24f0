import * as v from 'valibot';
import { budgetReport, BudgetReportQuerySchema } from '../book/budget-report';
import { createBudget, deleteBudget, draftBudget, DraftQuerySchema, getBudget, listBudgets, NewBudgetSchema, replaceBudget } from '../book/budgets';
import { Budget, BudgetReport } from '../book/views';
import { badId, badJson, positiveId, refused } from './replies';
import { route } from './route';
import { authorOf } from './tiers';
import { pathId } from './validation';

const budgetId = (raw: string | undefined) => pathId(raw!, 'budget');
const noSuchBudget = refused('`{"error": "no such budget"}`.');
const RULES =
  '`from`/`to` are months YYYY-MM, `to` ≥ `from`, at most 36 months; `name` 1–100 characters after cleaning, unique among ' +
  'budgets ignoring case; each line names an income or expense account, at most once; `amount_cents` an integer ≥ 0 in natural ' +
  'sign; `per` month or period; `rollover` (default false) only with month. Lines keep the order sent.';

/** D26: budgets (full tier). */
export const budgetRoutes = [
  route(
    {
      method: 'get', path: '/budgets', tier: 'full', summary: 'Every budget (D26)',
      responses: { 200: { description: 'By from, then id.', json: v.array(Budget) } },
    },
    {},
    async (c) => c.json(await listBudgets(c.var.db)),
  ),
  route(
    {
      method: 'post', path: '/budgets', tier: 'full', summary: 'Makes a budget (D26)', json: NewBudgetSchema, description: RULES,
      responses: { 201: { description: 'Made.', json: Budget }, 400: badJson('A bad field (the message names it), a name taken, or a line naming an unknown, non-income-or-expense or repeated account') },
    },
    {},
    async (c, { json }) => c.json(await createBudget(c.var.db, json, authorOf(c)), 201),
  ),
  route(
    {
      method: 'get', path: '/budgets/draft', tier: 'full', summary: 'A budget from last year\'s figures, not stored (D26)', query: DraftQuerySchema,
      description:
        'One `period` line per income or expense account (GET /accounts order) whose natural-sign total over the basis dates ' +
        '(inclusive) is above zero, at that total. `basis_from`/`basis_to` default to the 12 months before `from`.',
      responses: { 200: { description: 'The draft: `id` null, `name` empty.', json: Budget }, 400: refused('A query parameter is malformed or repeated, `to` before `from`, more than 36 months, or basis_to before basis_from.') },
    },
    {},
    async (c, { query }) => c.json(await draftBudget(c.var.db, query)),
  ),
  route(
    {
      method: 'get', path: '/budgets/{id}', tier: 'full', summary: 'One budget (D26)', params: { id: positiveId },
      responses: { 200: { description: 'The budget.', json: Budget }, 400: badId, 404: noSuchBudget },
    },
    {},
    async (c) => c.json(await getBudget(c.var.db, budgetId(c.req.param('id')))),
  ),
  route(
    {
      method: 'put', path: '/budgets/{id}', tier: 'full', summary: 'Replaces a budget (D26)', params: { id: positiveId }, json: NewBudgetSchema, description: RULES,
      responses: { 200: { description: 'Replaced.', json: Budget }, 400: badJson('A bad id, or what POST /budgets refuses'), 404: noSuchBudget },
    },
    {},
    async (c, { json }) => c.json(await replaceBudget(c.var.db, budgetId(c.req.param('id')), json, authorOf(c))),
  ),
  route(
    {
      method: 'delete', path: '/budgets/{id}', tier: 'full', summary: 'Deletes a budget (D26)', params: { id: positiveId },
      responses: { 204: { description: 'Deleted.' }, 400: badId, 404: noSuchBudget },
    },
    {},
    async (c) => {
      await deleteBudget(c.var.db, budgetId(c.req.param('id')), authorOf(c));
      return c.body(null, 204);
    },
  ),
];

/** D26: plan and reality (under /reports). */
export const budgetReportRoute = route(
  {
    method: 'get', path: '/reports/budget', tier: 'full', summary: 'A budget beside what happened (D26)', query: BudgetReportQuerySchema,
    description:
      'Natural sign throughout. `planned_cents`: the whole budget; `actual_cents`: entries dated in the budget\'s months, whatever ' +
      '`as_of` (default today, UTC); `*_to_date`: through `as_of`. `months`: one per month; `available_cents` only on rollover ' +
      'lines. `unbudgeted`: income and expense accounts without a line and with a non-zero actual. `result` = income − expense.',
    responses: { 200: { description: 'The report.', json: BudgetReport }, 400: refused('A malformed or missing `id`, or a malformed `as_of`.'), 404: noSuchBudget },
  },
  {},
  async (c, { query }) => c.json(await budgetReport(c.var.db, query)),
);
