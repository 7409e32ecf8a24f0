import { sqlConstraint, sqlMessage, sqlState } from './database';

/** What a constraint violation means to the caller: plain words, never the driver's text. */
const CONSTRAINT_MESSAGES: Record<string, string> = {
  accounts_name_unique: 'an account with that name already exists',
  entries_account_id_accounts_id_fk: 'an entry names an account that does not exist',
};
const CONSTRAINT_FALLBACK = 'the request conflicts with the data already stored';

/**
 * Error rule 2: our balance trigger (P0001) and constraint violations (23xxx) are the caller's
 * fault; this is the plain sentence they get (never the driver's text), or undefined for any other
 * error. Shared by the HTTP mapper (src/http/errors.ts) and the MCP tools (D8: the same message).
 */
export function databaseRefusal(error: unknown): string | undefined {
  const text = unstorableText(error);
  if (text !== undefined) return text;
  const state = sqlState(error);
  if (state === 'P0001') {
    const message = sqlMessage(error) ?? '';
    const ours = /^transaction \d+ does not balance: \d+ entries sum to -?\d+$/.test(message);
    return ours ? message : 'the entries of a transaction must sum to zero';
  }
  if (state?.startsWith('23')) {
    const constraint = sqlConstraint(error);
    return (constraint && CONSTRAINT_MESSAGES[constraint]) ?? CONSTRAINT_FALLBACK;
  }
  return undefined;
}

/**
 * Text the database cannot store: a NUL character (22021) or one without a UTF-8 form (22P05).
 * Every text input refuses these itself; this keeps one that slipped through the caller's 400,
 * on every route, rather than a fault.
 */
export function unstorableText(error: unknown): string | undefined {
  const state = sqlState(error);
  return state === '22021' || state === '22P05' ? 'text must not contain NUL characters' : undefined;
}
