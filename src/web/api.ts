/** The API client of the web app: JSON over fetch with the session cookie (D9: credentials "include"). */

let apiOrigin = '';

/** The API's origin is served by the web server at /config.json, from the same configuration as the API. */
export async function loadConfig(): Promise<void> {
  const res = await fetch('/config.json');
  apiOrigin = ((await res.json()) as { apiOrigin: string }).apiOrigin;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The message of an API error body, in any of the spec's three shapes. */
async function messageOf(res: Response): Promise<string> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as { error?: string; error_description?: string };
    return body.error_description ?? body.error ?? text;
  } catch {
    return text || `request failed (${res.status})`;
  }
}

let sessionLost: () => void = () => undefined;

/**
 * Called when the API answers 401 to a signed-in request: the session expired or was ended
 * elsewhere. (A refused password or an absent session on /auth/me are ordinary answers.)
 */
export function onSessionLost(handler: () => void): void {
  sessionLost = handler;
}
const SIGN_IN_PATHS = ['/auth/login', '/auth/me'];

/** `path?query` without the empty parameters. */
export function withQuery(path: string, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams(Object.entries(query).filter((pair): pair is [string, string] => Boolean(pair[1])));
  return params.size ? `${path}?${params}` : path;
}

/** A request with the session cookie; an answer outside 2xx is thrown as an ApiError. */
async function send(method: string, path: string, body?: unknown): Promise<Response> {
  const res = await fetch(`${apiOrigin}${path}`, {
    method,
    credentials: 'include',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 401 && !SIGN_IN_PATHS.includes(path.split('?')[0]!)) sessionLost();
  if (!res.ok) throw new ApiError(res.status, await messageOf(res));
  return res;
}

/** One page of a paged list (D15) and the cursor of the next one, if there is one. */
export async function apiPage<T>(path: string): Promise<{ items: T[]; next: string | null }> {
  const res = await send('GET', path);
  return { items: (await res.json()) as T[], next: res.headers.get('Next-Cursor') };
}

export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await send(method, path, body);
  if (res.status === 204) return undefined as T;
  const type = res.headers.get('content-type') ?? '';
  return (type.includes('json') ? await res.json() : await res.text()) as T;
}

// The shapes the API answers: the output types of the server's own valibot schemas (type-only
// imports of the views modules: nothing of the server is bundled).
import type * as v from 'valibot';
import type { AccountKind, BookStyle as ServerBookStyle } from '../book/rules';
import type { Account as AccountShape, Change as ChangeShape, Register, Section as SectionShape, Transaction as TransactionShape } from '../book/views';
import type { Connection as ConnectionShape, Me as MeShape, Passkey as PasskeyShape } from '../identity/views';
import type { Client } from '../oauth/views';

export type Kind = AccountKind;
export type BookStyle = ServerBookStyle;
export type Account = v.InferOutput<typeof AccountShape>;
export type Transaction = v.InferOutput<typeof TransactionShape>;
export type Section = v.InferOutput<typeof SectionShape>;
export type AccountRegister = v.InferOutput<typeof Register>;
export type ClientView = v.InferOutput<typeof Client>;
export type Passkey = v.InferOutput<typeof PasskeyShape>;
export type Connection = v.InferOutput<typeof ConnectionShape>;
export type Me = v.InferOutput<typeof MeShape>;
export type Change = v.InferOutput<typeof ChangeShape>;
