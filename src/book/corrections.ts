import { eq, sql } from 'drizzle-orm';
import { rowsOf, sqlConstraint, sqlState, type Db } from '../db/database';
import { entries, transactions, users } from '../db/schema';
import { conflict, notFound } from '../errors';
import { lastDeleted, recordChange, type Actor } from './changes';
import { checkBalanced, entryArrays, TRANSACTION_JSON, type NewTransaction, type TransactionView } from './transactions';

// D15: a transaction read by its id, corrected, deleted and restored, each with its change record
// in the same database transaction.

const NO_SUCH_TRANSACTION = 'no such transaction';

/**
 * The read shape of transaction `id`; with `lock`, its row stays locked until `db` ends. The lock
 * is taken first, on its own: a statement that waited for it still reads with the snapshot it
 * began with, so the entries of an edit that committed meanwhile would be missing from its shape.
 */
async function readTransaction(db: Db, id: number, lock = false): Promise<TransactionView | undefined> {
  if (lock) {
    const [locked] = await db.select({ id: transactions.id }).from(transactions).where(eq(transactions.id, id)).for('update');
    if (!locked) return undefined;
  }
  const result = await db.execute(sql`
    select ${TRANSACTION_JSON}::text as shape
    from ${transactions} t left join ${users} u on u.id = t.created_by
    where t.id = ${id}`);
  const [row] = rowsOf<{ shape: string }>(result);
  return row ? (JSON.parse(row.shape) as TransactionView) : undefined;
}

export async function getTransaction(db: Db, id: number): Promise<TransactionView> {
  const found = await readTransaction(db, id);
  if (!found) throw notFound(NO_SUCH_TRANSACTION);
  return found;
}

/** The entries of `input` written for transaction `id`, in the order given (their ids follow it). */
async function writeEntries(db: Db, id: number, occurredOn: string, lines: NewTransaction['entries']): Promise<void> {
  const { account_ids, amounts } = entryArrays(lines);
  await db.execute(sql`
    insert into ${entries} (transaction_id, occurred_on, account_id, amount_cents)
    select ${id}::integer, ${occurredOn}::date, line.account_id, line.amount_cents
    from unnest(${account_ids}::integer[], ${amounts}::bigint[])
      with ordinality as line(account_id, amount_cents, n)
    order by line.n`);
}

/**
 * `PUT /transactions/{id}`: date, description and every entry replaced in one database
 * transaction, with POST's rules (the balance trigger still decides at commit); the id and the
 * author stay. The row lock orders concurrent edits and deletes: each sees the other's result.
 */
export async function updateTransaction(db: Db, id: number, input: NewTransaction, actor: Actor): Promise<TransactionView> {
  checkBalanced(input);
  return db.transaction(async (tx) => {
    const before = await readTransaction(tx, id, true);
    if (!before) throw notFound(NO_SUCH_TRANSACTION);
    // Entries follow the header's date through their composite foreign key (on update cascade).
    await tx.update(transactions).set({ occurredOn: input.occurred_on, description: input.description }).where(eq(transactions.id, id));
    // D20: entries are replaced only when they differ, so that a correction of the description
    // alone leaves a reconciled transaction's entries as they are and passes the lock.
    if (!sameEntries(before.entries, input.entries)) {
      await tx.delete(entries).where(eq(entries.transactionId, id));
      await writeEntries(tx, id, input.occurred_on, input.entries);
    }
    const after = (await readTransaction(tx, id))!;
    await recordChange(tx, actor, { subject: 'transaction', subjectId: id, action: 'update', before, after });
    return after;
  });
}

/** D20: the same entries by value (account and amount, in order). */
function sameEntries(current: TransactionView['entries'], wanted: NewTransaction['entries']): boolean {
  return current.length === wanted.length && current.every((e, i) => e.account_id === wanted[i]!.account_id && e.amount_cents === wanted[i]!.amount_cents);
}

/** Deletes a transaction and its entries (ON DELETE CASCADE), with its change record. */
export async function deleteTransaction(db: Db, id: number, actor: Actor): Promise<void> {
  await db.transaction(async (tx) => {
    const before = await readTransaction(tx, id, true);
    if (!before) throw notFound(NO_SUCH_TRANSACTION);
    await tx.delete(transactions).where(eq(transactions.id, id));
    await recordChange(tx, actor, { subject: 'transaction', subjectId: id, action: 'delete', before, after: null });
  });
}

/**
 * `POST /transactions/{id}/restore` (D15): the transaction as its last delete record holds it,
 * with its id, date, description, author (by email: none if that user is gone) and entries. A live
 * one: 409; never deleted: 404; an account it names is gone: 400 (the foreign key).
 */
export async function restoreTransaction(db: Db, id: number, actor: Actor): Promise<TransactionView> {
  try {
    return await db.transaction(async (tx) => {
      if (await readTransaction(tx, id)) throw conflict('the transaction exists');
      const deleted = (await lastDeleted(tx, id)) as TransactionView | undefined;
      if (!deleted) throw notFound(NO_SUCH_TRANSACTION);
      await tx.execute(sql`
        insert into ${transactions} (id, occurred_on, description, created_by) overriding system value
        values (${id}::integer, ${deleted.occurred_on}::date, ${deleted.description}::text,
          (select id from ${users} where email = ${deleted.created_by_email}::text))`);
      await writeEntries(tx, id, deleted.occurred_on, deleted.entries);
      const after = (await readTransaction(tx, id))!;
      await recordChange(tx, actor, { subject: 'transaction', subjectId: id, action: 'restore', before: null, after });
      return after;
    });
  } catch (error) {
    // Two restores at once: the second finds the id taken only when it inserts.
    if (sqlState(error) === '23505' && sqlConstraint(error) === 'transactions_pkey') throw conflict('the transaction exists');
    throw error;
  }
}

