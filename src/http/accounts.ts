import * as v from 'valibot';
import { AccountPatchSchema, createAccount, deleteAccount, listAccounts, NewAccountSchema, updateAccount } from '../book/accounts';
import { Account } from '../book/views';
import { responseSchema } from '../shapes';
import { badId, badJson, positiveId, refused } from './replies';
import { route } from './route';
import { authorOf } from './tiers';
import { pathId } from './validation';

const accountId = (raw: string | undefined) => pathId(raw!, 'account');
const noSuchAccount = refused('`{"error": "no such account"}`.');
/** D26: an account in use answers which budget names it. */
const InUse = responseSchema('AccountInUse', v.strictObject({
  error: v.string(),
  budget_id: v.pipe(v.optional(v.pipe(v.number(), v.integer())), v.description('D26: the budget whose line names the account')),
}));

/** Spec: Ledger routes, /accounts (full tier). */
export const accountRoutes = [
  route(
    {
      method: 'get', path: '/accounts', tier: 'full', summary: 'Accounts, by kind then name',
      responses: { 200: { description: 'Every account.', json: v.array(Account) } },
    },
    {},
    async (c) => c.json(await listAccounts(c.var.db)),
  ),
  route(
    {
      method: 'post', path: '/accounts', tier: 'full', summary: 'Creates an account', json: NewAccountSchema,
      responses: {
        201: { description: 'Created.', json: Account },
        400: badJson('Blank or too long name, unknown kind, or a duplicate name'),
      },
    },
    {},
    async (c, { json }) => c.json(await createAccount(c.var.db, json, authorOf(c)), 201),
  ),
  route(
    {
      method: 'put', path: '/accounts/{id}', tier: 'full', summary: 'Renames an account or fixes its kind (D15)', params: { id: positiveId }, json: AccountPatchSchema,
      responses: {
        200: { description: 'Changed.', json: Account },
        400: badJson('A bad id, neither name nor kind, a blank or too long name, an unknown kind, or a duplicate name'),
        404: noSuchAccount,
        409: { description: 'D26: a kind of asset, liability or equity for an account a budget line names: `{"error": "the account is in the budget <name>", "budget_id": n}`.', json: InUse },
      },
    },
    {},
    async (c, { json }) => c.json(await updateAccount(c.var.db, accountId(c.req.param('id')), json, authorOf(c))),
  ),
  route(
    {
      method: 'delete', path: '/accounts/{id}', tier: 'full', summary: 'Deletes an account no entry names (D15)', params: { id: positiveId },
      responses: {
        204: { description: 'Deleted.' },
        400: badId,
        404: noSuchAccount,
        409: { description: '`{"error": "the account has entries"}`; or, D26, a budget line names it: `{"error": "the account is in the budget <name>", "budget_id": n}`.', json: InUse },
      },
    },
    {},
    async (c) => {
      await deleteAccount(c.var.db, accountId(c.req.param('id')), authorOf(c));
      return c.body(null, 204);
    },
  ),
];
