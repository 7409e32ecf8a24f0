import { vValidator } from '@hono/valibot-validator';
import type { Context } from 'hono';
import type * as v from 'valibot';
import { invalid, notFound, Refusal } from '../errors';
import { describeIssues } from '../text';
import { INT4_MAX } from '../book/transactions';
import type { AppEnv } from './context';

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

export type Rejection = (message: string, c: Context<AppEnv>) => Response;

/** Own validation failures are 400 (error rule 1), in the shape of the route (src/http/errors.ts). */
export const badRequest: Rejection = (message) => {
  throw invalid(message);
};

/**
 * A JSON body checked by a valibot schema. Only `application/json` is read: a cross-site form
 * cannot send it without a CORS preflight, so cookie-authenticated writes cannot be forged.
 * Malformed JSON is thrown by Hono and answered 400 in src/http/errors.ts.
 */
export function jsonBody<S extends v.GenericSchema>(schema: S, reject: Rejection = badRequest) {
  return vValidator('json', schema, (result, c) => {
    const mediaType = (c.req.header('Content-Type') ?? '').split(';')[0]!.trim();
    if (!JSON_MEDIA_TYPE.test(mediaType)) {
      throw new Refusal('unsupported_media_type', 'the request body must be JSON (Content-Type: application/json)');
    }
    if (!result.success) return reject(describeIssues(result.issues), c as Context<AppEnv>);
  });
}

/** Query parameters checked by a valibot schema; a repeated parameter is refused, not guessed at. */
export function queryParams<S extends v.GenericSchema>(schema: S, reject: Rejection = badRequest) {
  return vValidator('query', schema, (result, c) => {
    if (!result.success) return reject(describeIssues(result.issues), c as Context<AppEnv>);
  });
}


/**
 * A path id of an integer-keyed row: a positive whole number (else 400, D7: "bad ids: 400"); one
 * too large to be any row's id names nothing (404).
 */
export function pathId(raw: string, what: string): number {
  if (!/^\d{1,20}$/.test(raw) || Number(raw) < 1) throw invalid(`the ${what} id must be a positive integer`);
  const id = Number(raw);
  if (id > INT4_MAX) throw notFound(`no such ${what}`);
  return id;
}
