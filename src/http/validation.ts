import { vValidator } from '@hono/valibot-validator';
import type { Context } from 'hono';
import type * as v from 'valibot';
import { describeIssues } from '../text';
import type { AppEnv } from './context';

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

type Rejection = (message: string, c: Context<AppEnv>) => Response;

/** Own validation failures are 400 `{error}` (error rule 1). */
export const badRequest: Rejection = (message, c) => c.json({ error: message }, 400);

/**
 * A JSON body checked by a valibot schema. Only `application/json` is read: a cross-site form
 * cannot send it without a CORS preflight, so cookie-authenticated writes cannot be forged.
 * Malformed JSON is thrown by Hono and answered 400 in src/http/errors.ts.
 */
export function jsonBody<S extends v.GenericSchema>(schema: S, reject: Rejection = badRequest) {
  return vValidator('json', schema, (result, c) => {
    const mediaType = (c.req.header('Content-Type') ?? '').split(';')[0]!.trim();
    if (!JSON_MEDIA_TYPE.test(mediaType)) {
      return c.json({ error: 'the request body must be JSON (Content-Type: application/json)' }, 415);
    }
    if (!result.success) return reject(describeIssues(result.issues), c as Context<AppEnv>);
  });
}

/** Query parameters checked by a valibot schema; a repeated parameter is refused, not guessed at. */
export function queryParams<S extends v.GenericSchema>(schema: S) {
  return vValidator('query', schema, (result, c) => {
    if (!result.success) return badRequest(describeIssues(result.issues), c as Context<AppEnv>);
  });
}
