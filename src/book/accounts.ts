import { asc, sql } from 'drizzle-orm';
import * as v from 'valibot';
import type { Db } from '../db/database';
import { accountKind, accounts } from '../db/schema';
import { requiredText } from '../text';
import { requestSchema } from '../shapes';
import type { Account } from './views';

export const ACCOUNT_NAME_MAX = 100;

/** Create body `NewAccount` (spec: Account; D6 name limit; D13 invalid kind is 400). */
export const NewAccountSchema = requestSchema('NewAccount', v.object(
  {
    name: requiredText('name', ACCOUNT_NAME_MAX),
    kind: v.picklist(accountKind.enumValues, `kind must be one of ${accountKind.enumValues.join(', ')}`),
  },
  'the request body must be a JSON object',
));
export type NewAccount = v.InferOutput<typeof NewAccountSchema>;

const accountColumns = { id: accounts.id, name: accounts.name, kind: accounts.kind };

/**
 * Ordered by kind (the enum's balance-sheet order: asset, liability, equity, income, expense), then
 * by name case-insensitively with a byte-wise collation, so both backends order alike.
 */
export function listAccounts(db: Db): Promise<v.InferOutput<typeof Account>[]> {
  return db
    .select(accountColumns)
    .from(accounts)
    .orderBy(asc(accounts.kind), sql`lower(${accounts.name}) collate "C"`, sql`${accounts.name} collate "C"`);
}

/** A duplicate name is refused by the unique constraint (23505 → 400, error rule 2). */
export async function createAccount(db: Db, input: NewAccount): Promise<v.InferOutput<typeof Account>> {
  const [account] = await db.insert(accounts).values(input).returning(accountColumns);
  return account!;
}
