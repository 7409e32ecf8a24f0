import * as v from 'valibot';
import {
  listReconciliations,
  NewReconciliationSchema,
  reconcileAccount,
  ReconciliationQuerySchema,
  reconciliationStatus,
  undoReconciliation,
} from '../book/reconciliation';
import { Reconciliation, ReconciliationStatus } from '../book/views';
import { responseSchema } from '../shapes';
import { badId, badJson, badQuery, positiveId, refused } from './replies';
import { route } from './route';
import { authorOf } from './tiers';
import { pathId } from './validation';

const accountId = (raw: string | undefined) => pathId(raw!, 'account');
const noSuchAccount = refused('`{"error": "no such account"}`.');

/** D20: the 409 of a statement the entries do not come to, with the difference (statement − reconciled). */
const Difference = responseSchema('ReconciliationDifference', v.strictObject({ error: v.string(), difference_cents: v.pipe(v.number(), v.integer()) }));

/** D20: reconciling an account against its bank statement (full tier). */
export const accountReconciliationRoutes = [
  route(
    {
      method: 'post', path: '/accounts/{id}/reconciliations', tier: 'full', summary: 'Reconciles an account with a statement (D20)', params: { id: positiveId }, json: NewReconciliationSchema,
      description:
        'The entries already reconciled plus those of `transaction_ids` (absent: every unreconciled one dated on or before ' +
        '`statement_date`) must come, in natural sign, to `statement_balance_cents`; then they are all reconciled at once, ' +
        'and no writer can change or delete them until the reconciliation is undone.',
      responses: {
        201: { description: 'Reconciled.', json: Reconciliation },
        400: badJson('A bad field; a listed transaction with no entry on the account, already reconciled or dated after statement_date; or statement_date before the last reconciliation'),
        404: noSuchAccount,
        409: { description: '`{"error": "the statement says 1234.56 but the reconciled entries come to 1200.00", "difference_cents": 3456}`: nothing changed.', json: Difference },
      },
    },
    {},
    async (c, { json }) => c.json(await reconcileAccount(c.var.db, accountId(c.req.param('id')), json, authorOf(c)), 201),
  ),
  route(
    {
      method: 'get', path: '/accounts/{id}/reconciliations', tier: 'full', summary: "An account's reconciliations, newest first (D20)", params: { id: positiveId },
      responses: { 200: { description: 'Every reconciliation of the account.', json: v.array(Reconciliation) }, 400: badId, 404: noSuchAccount },
    },
    {},
    async (c) => c.json(await listReconciliations(c.var.db, accountId(c.req.param('id')))),
  ),
  route(
    {
      method: 'get', path: '/accounts/{id}/reconciliation', tier: 'full', summary: 'Where an account stands against its statements (D20)', params: { id: positiveId }, query: ReconciliationQuerySchema,
      description: '`as_of` (default today) bounds the book balance and the unreconciled transactions; the last reconciliation and the reconciled balance are the latest whatever `as_of`.',
      responses: { 200: { description: 'The reconciled and book balances, and what is not reconciled yet.', json: ReconciliationStatus }, 400: badQuery, 404: noSuchAccount },
    },
    {},
    async (c, { query }) => c.json(await reconciliationStatus(c.var.db, accountId(c.req.param('id')), query.as_of)),
  ),
];

export const reconciliationRoutes = [
  route(
    {
      method: 'delete', path: '/reconciliations/{id}', tier: 'full', summary: "Undoes an account's latest reconciliation (D20)", params: { id: positiveId },
      responses: {
        204: { description: 'Undone: its entries are unreconciled.' },
        400: badId,
        404: refused('`{"error": "no such reconciliation"}`.'),
        409: refused("Not the account's latest reconciliation."),
      },
    },
    {},
    async (c) => {
      await undoReconciliation(c.var.db, pathId(c.req.param('id')!, 'reconciliation'), authorOf(c));
      return c.body(null, 204);
    },
  ),
];
