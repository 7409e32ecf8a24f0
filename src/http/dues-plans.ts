import * as v from 'valibot';
import { deleteDuesPlan, getDuesPlan, listDuesPlans, NewDuesPlanSchema } from '../book/dues-plans';
import { createDuesPlanAndPostDue, replaceDuesPlanAndPostDue } from '../book/dues-posting';
import { DuesPlan } from '../book/views';
import { badId, badJson, positiveId, refused } from './replies';
import { route } from './route';
import { authorOf } from './tiers';
import { pathId } from './validation';

const planId = (raw: string | undefined) => pathId(raw!, 'dues plan');
const noSuchPlan = refused('`{"error": "no such dues plan"}`.');
const RULES =
  '`name` 1–100 characters after cleaning, unique among dues plans ignoring case; `amount_cents` an integer > 0; `every` month, ' +
  'quarter (every 3 months) or year; occurrences are start_on, then every month, 3 months or year on start_on\'s day, clamped ' +
  'to the month\'s last day (31 Jan → 28/29 Feb → 31 Mar), none after until_on; `income_account_id` an income account. ' +
  'Each occurrence charges every person following the plan who is a member that day (joined_on null or before, left_on null ' +
  'or after, and not before the day their plan last changed): one transaction dated that day, +amount on the person\'s ' +
  'account, −amount on the income account, "<name> <YYYY-MM>" ("<name> <YYYY>" for a yearly plan), its author the plan\'s ' +
  'creator and its change record `via: "dues"`. Exactly once per plan, person and date; what is due (through today, UTC) is ' +
  'posted when the plan or a person is saved, at start and every 10 minutes; an occurrence in a closed period waits until it ' +
  'reopens. A plan with more than 1,000 occurrences through today is refused.';

/** D27: dues plans (full tier). */
export const duesPlanRoutes = [
  route(
    {
      method: 'get', path: '/dues-plans', tier: 'full', summary: 'Every dues plan (D27)',
      responses: { 200: { description: 'By name.', json: v.array(DuesPlan) } },
    },
    {},
    async (c) => c.json(await listDuesPlans(c.var.db)),
  ),
  route(
    {
      method: 'post', path: '/dues-plans', tier: 'full', summary: 'Makes a dues plan (D27)', json: NewDuesPlanSchema, description: RULES,
      responses: {
        201: { description: 'Made (`members` 0).', json: DuesPlan },
        400: badJson('A bad field (the message names it), a name taken, an income_account_id naming no income account, or more than 1,000 occurrences through today'),
      },
    },
    {},
    async (c, { json }) => c.json(await createDuesPlanAndPostDue(c.var.db, json, authorOf(c)), 201),
  ),
  route(
    {
      method: 'get', path: '/dues-plans/{id}', tier: 'full', summary: 'One dues plan (D27)', params: { id: positiveId },
      responses: { 200: { description: 'The plan.', json: DuesPlan }, 400: badId, 404: noSuchPlan },
    },
    {},
    async (c) => c.json(await getDuesPlan(c.var.db, planId(c.req.param('id')))),
  ),
  route(
    {
      method: 'put', path: '/dues-plans/{id}', tier: 'full', summary: 'Replaces a dues plan (D27)', params: { id: positiveId }, json: NewDuesPlanSchema,
      description:
        `${RULES} A PUT never re-posts or changes what was posted: what fell due before it is posted first as the plan was; a new ` +
        'amount or name counts from the next occurrence; when start_on, every or until_on change, the new dates before today ' +
        'count as handled for the people following the plan.',
      responses: { 200: { description: 'Replaced.', json: DuesPlan }, 400: badJson('A bad id, or what POST /dues-plans refuses'), 404: noSuchPlan },
    },
    {},
    async (c, { json }) => c.json(await replaceDuesPlanAndPostDue(c.var.db, planId(c.req.param('id')), json, authorOf(c))),
  ),
  route(
    {
      method: 'delete', path: '/dues-plans/{id}', tier: 'full', summary: 'Deletes a dues plan; what it posted stays (D27)', params: { id: positiveId },
      responses: {
        204: { description: 'Deleted.' },
        400: badId,
        404: noSuchPlan,
        409: refused('A person follows the plan: the message names it and says how many.'),
      },
    },
    {},
    async (c) => {
      await deleteDuesPlan(c.var.db, planId(c.req.param('id')), authorOf(c));
      return c.body(null, 204);
    },
  ),
];
