import type { Context } from 'hono';
import { invalidRequest } from '../oauth/errors';
import type { AppEnv } from './context';
import { PlainTextRejection } from './errors';

const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/** RFC 6749 Appendix A: every OAuth parameter value is VSCHAR (%x20-7E) or, for URIs, a subset. */
const VSCHARS = /^[\x20-\x7e]*$/;

/**
 * Reads an `application/x-www-form-urlencoded` body (RFC 6749 §3.2: the token endpoint's
 * encoding). Hono's parseBody would answer `{}` for another Content-Type and keep the last of
 * repeated keys (stack notes); here a wrong type is a 415 and a repeated parameter is refused
 * (RFC 6749 §3.2: "MUST NOT be included more than once").
 */
export async function readForm(c: Context<AppEnv>): Promise<Record<string, string>> {
  const mediaType = (c.req.header('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== FORM_MEDIA_TYPE) {
    throw new PlainTextRejection(415, 'Content-Type must be application/x-www-form-urlencoded');
  }
  const params = new URLSearchParams(await c.req.text());
  const form: Record<string, string> = {};
  for (const [key, value] of params) {
    if (Object.hasOwn(form, key)) throw invalidRequest(`the parameter ${key} appears more than once`);
    // A NUL or any other non-VSCHAR cannot belong to a code, token, client id or URI, and
    // PostgreSQL refuses NUL in text: refused here, never a database fault.
    if (!VSCHARS.test(value)) throw invalidRequest(`the parameter ${key} holds characters outside printable ASCII`);
    form[key] = value;
  }
  return form;
}

/** A required form parameter; missing or empty is 400 invalid_request. */
export function required(form: Record<string, string>, name: string): string {
  const value = form[name];
  if (value === undefined || value === '') throw invalidRequest(`${name} is required`);
  return value;
}
