import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { sqlConstraint, sqlMessage, sqlState } from '../db/database';
import { Refusal, type RefusalReason } from '../errors';
import { describeFault } from '../log';
import type { AppEnv } from './context';

/** Error rule 3: the fixed sentence of every unexpected fault; detail goes to the server log only. */
export const GENERIC_FAULT = 'something went wrong on the server';

export const AUTHENTICATION_REQUIRED = 'authentication required';

/** Error rule 4: no credential, or an expired or invalid one, on a protected route. */
export class Unauthenticated extends Error {
  constructor() {
    super(AUTHENTICATION_REQUIRED);
    this.name = 'Unauthenticated';
  }
}

const STATUS_OF: Record<RefusalReason, ContentfulStatusCode> = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
};

/** What a constraint violation means to the caller: plain words, never the driver's text. */
const CONSTRAINT_MESSAGES: Record<string, string> = {
  accounts_name_unique: 'an account with that name already exists',
  entries_account_id_accounts_id_fk: 'an entry names an account that does not exist',
};
const CONSTRAINT_FALLBACK = 'the request conflicts with the data already stored';

export function challengeHeader(apiOrigin: string): string {
  return `Bearer resource_metadata="${apiOrigin}/.well-known/oauth-protected-resource"`;
}

/** The one place where errors become HTTP answers in the `{error}` shape (spec: Errors). */
export function answerError(error: unknown, c: Context<AppEnv>): Response {
  if (error instanceof Unauthenticated) {
    c.header('WWW-Authenticate', challengeHeader(c.var.config.apiOrigin));
    return c.json({ error: AUTHENTICATION_REQUIRED }, 401);
  }
  if (error instanceof Refusal) return c.json({ error: error.message }, STATUS_OF[error.reason]);
  if (error instanceof HTTPException && error.status < 500) {
    // Hono's own rejections (malformed JSON); their messages are fixed strings of the framework.
    const message = error.status === 400 ? 'the request body is not valid JSON' : error.message;
    return c.json({ error: message }, error.status);
  }
  const state = sqlState(error);
  // Error rule 2: our balance trigger (P0001) and constraint violations (23xxx) are the caller's fault.
  if (state === 'P0001') {
    const message = sqlMessage(error) ?? '';
    const ours = /^transaction \d+ does not balance: \d+ entries sum to -?\d+$/.test(message);
    return c.json({ error: ours ? message : 'the entries of a transaction must sum to zero' }, 400);
  }
  if (state?.startsWith('23')) {
    const constraint = sqlConstraint(error);
    return c.json({ error: (constraint && CONSTRAINT_MESSAGES[constraint]) ?? CONSTRAINT_FALLBACK }, 400);
  }
  c.var.log?.error('request.fault', { method: c.req.method, path: c.req.path, ...describeFault(error) });
  return c.json({ error: GENERIC_FAULT }, 500);
}
