import { conflict, invalid, type Refusal } from '../errors';
import { sqlConstraint, sqlMessage, sqlState } from './database';

/** What a constraint violation means to the caller: plain words, never the driver's text. */
const CONSTRAINT_MESSAGES: Record<string, string> = {
  accounts_name_lower_unique: 'an account with that name already exists',
  budgets_name_lower_unique: 'a budget with that name already exists',
  entries_account_id_accounts_id_fk: 'an entry names an account that does not exist',
};
const CONSTRAINT_FALLBACK = 'the request conflicts with the data already stored';

/**
 * Error rule 2: our balance trigger (P0001) and constraint violations (23xxx) are the caller's
 * fault (400); the locks of D20 (migration 0008: LR001 reconciled, LR002 closed period) are a
 * conflict with the book's state (409). This is the refusal they become, in plain words (never the
 * driver's text), or undefined for any other error. Shared by the HTTP mapper (src/http/errors.ts)
 * and the MCP tools (D8: the same message).
 */
export function databaseRefusal(error: unknown): Refusal | undefined {
  const text = unstorableText(error);
  if (text !== undefined) return invalid(text);
  const state = sqlState(error);
  if (state === 'P0001') {
    const message = sqlMessage(error) ?? '';
    const ours = /^transaction \d+ does not balance: \d+ entries sum to -?\d+$/.test(message);
    return invalid(ours ? message : 'the entries of a transaction must sum to zero');
  }
  if (state === RECONCILED) return conflict(TRANSACTION_RECONCILED);
  if (state === CLOSED) {
    const message = sqlMessage(error) ?? '';
    return conflict(/^the books are closed through \d{4}-\d{2}-\d{2}$/.test(message) ? message : 'the books are closed');
  }
  if (state?.startsWith('23')) {
    const constraint = sqlConstraint(error);
    return invalid((constraint && CONSTRAINT_MESSAGES[constraint]) ?? CONSTRAINT_FALLBACK);
  }
  return undefined;
}

/** D20: the SQLSTATEs of the locks (drizzle/0008_reconciled_and_closed_locks.sql). */
const RECONCILED = 'LR001';
const CLOSED = 'LR002';
export const TRANSACTION_RECONCILED = 'the transaction is reconciled';

/**
 * Text the database cannot store: a NUL character (22021) or one without a UTF-8 form (22P05).
 * Every text input refuses these itself; this keeps one that slipped through the caller's 400,
 * on every route, rather than a fault.
 */
export function unstorableText(error: unknown): string | undefined {
  const state = sqlState(error);
  return state === '22021' || state === '22P05' ? 'text must not contain NUL characters' : undefined;
}
