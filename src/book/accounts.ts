import { asc, eq, sql } from 'drizzle-orm';
import * as v from 'valibot';
import type { Db } from '../db/database';
import { accountKind, accounts, budgetLines, budgets, duesPlans, entries, people } from '../db/schema';
import { conflict, notFound, Refusal } from '../errors';
import { requiredText } from '../text';
import { requestSchema } from '../shapes';
import { recordChange, type Actor } from './changes';
import { holdOffCompaction } from './day-totals';
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

type AccountView = v.InferOutput<typeof Account>;

/** A duplicate name is refused by the unique constraint (23505 → 400, error rule 2). */
export async function createAccount(db: Db, input: NewAccount, actor: Actor): Promise<AccountView> {
  return db.transaction(async (tx) => {
    const [account] = await tx.insert(accounts).values(input).returning(accountColumns);
    await recordChange(tx, actor, { subject: 'account', subjectId: account!.id, action: 'create', before: null, after: account });
    return account!;
  });
}

/** `PUT /accounts/{id}` body (D15): a new name, a new kind, or both, each by POST's rules. */
export const AccountPatchSchema = requestSchema(
  'AccountPatch',
  v.pipe(
    v.object(
      { name: v.optional(NewAccountSchema.entries.name), kind: v.optional(NewAccountSchema.entries.kind) },
      'the request body must be a JSON object',
    ),
    v.check((patch) => patch.name !== undefined || patch.kind !== undefined, 'give a name, a kind or both'),
  ),
);
export type AccountPatch = v.InferOutput<typeof AccountPatchSchema>;

/** The account `id`, locked until the end of the transaction `tx`; 404 when there is none. */
async function lockedAccount(tx: Db, id: number): Promise<AccountView> {
  const [account] = await tx.select(accountColumns).from(accounts).where(eq(accounts.id, id)).for('update');
  if (!account) throw notFound('no such account');
  return account;
}

/**
 * D26: an account a budget line names is in use: 409 naming the budget (the lowest id). Called
 * under the account's row lock, which a budget's writer waits for (it reads the accounts it names
 * with a key-share lock), so no line can appear between this check and the change.
 */
async function refuseWhenBudgeted(tx: Db, id: number): Promise<void> {
  const [budget] = await tx
    .select({ id: budgets.id, name: budgets.name })
    .from(budgetLines)
    .innerJoin(budgets, eq(budgets.id, budgetLines.budgetId))
    .where(eq(budgetLines.accountId, id))
    .orderBy(asc(budgets.id))
    .limit(1);
  if (budget) throw new Refusal('conflict', `the account is in the budget ${budget.name}`, undefined, undefined, { budget_id: budget.id });
}

/**
 * D27: a person's account is in use (renamed and deleted only with the person), and so is a dues
 * plan's income account (its kind and its existence): 409 naming the person or the plan. Called
 * under the account's row lock; a person's writer locks the person's row before its account's.
 */
async function refuseWhenPersonOrPlan(tx: Db, id: number, change: { rename: boolean; rekind: boolean; remove: boolean }): Promise<void> {
  const [person] = await tx.select({ name: people.name }).from(people).where(eq(people.accountId, id)).limit(1);
  if (person && (change.rename || change.rekind || change.remove)) {
    throw conflict(`the account is the person ${person.name}'s own; change or delete the person instead`);
  }
  if (!change.rekind && !change.remove) return;
  const [plan] = await tx.select({ name: duesPlans.name }).from(duesPlans).where(eq(duesPlans.incomeAccountId, id)).orderBy(asc(duesPlans.id)).limit(1);
  if (plan) throw conflict(`the account is the income account of the dues plan ${plan.name}`);
}

/** Renames an account or fixes its kind (D15), with its change record. */
export async function updateAccount(db: Db, id: number, patch: AccountPatch, actor: Actor): Promise<AccountView> {
  return db.transaction(async (tx) => {
    const before = await lockedAccount(tx, id);
    if (patch.kind === 'asset' || patch.kind === 'liability' || patch.kind === 'equity') await refuseWhenBudgeted(tx, id);
    await refuseWhenPersonOrPlan(tx, id, {
      rename: patch.name !== undefined && patch.name !== before.name,
      rekind: patch.kind !== undefined && patch.kind !== before.kind,
      remove: false,
    });
    const [after] = await tx.update(accounts).set(patch).where(eq(accounts.id, id)).returning(accountColumns);
    await recordChange(tx, actor, { subject: 'account', subjectId: id, action: 'update', before, after });
    return after!;
  });
}

/**
 * Deletes an account no entry names (D15), with its change record; 409 otherwise. The row lock
 * orders it with any post naming the account (which takes a key-share lock on it): a post first
 * means entries exist; a delete first means the post finds no account (400).
 */
export async function deleteAccount(db: Db, id: number, actor: Actor): Promise<void> {
  await db.transaction(async (tx) => {
    // Before the account's row lock: a fold under way finishes first (issue 31 item 5, D7).
    await holdOffCompaction(tx);
    const before = await lockedAccount(tx, id);
    const [used] = await tx.select({ id: entries.id }).from(entries).where(eq(entries.accountId, id)).limit(1);
    await refuseWhenPersonOrPlan(tx, id, { rename: false, rekind: false, remove: true });
    if (used) throw conflict('the account has entries');
    await refuseWhenBudgeted(tx, id);
    await tx.delete(accounts).where(eq(accounts.id, id));
    await recordChange(tx, actor, { subject: 'account', subjectId: id, action: 'delete', before, after: null });
  });
}
