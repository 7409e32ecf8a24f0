import * as v from 'valibot';
import { createAccount, listAccounts, NewAccountSchema } from '../book/accounts';
import { Account } from '../book/views';
import { badJson } from './replies';
import { route } from './route';

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
    async (c, { json }) => c.json(await createAccount(c.var.db, json), 201),
  ),
];
