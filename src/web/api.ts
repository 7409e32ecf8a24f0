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

export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${apiOrigin}${path}`, {
    method,
    credentials: 'include',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 401 && !SIGN_IN_PATHS.includes(path.split('?')[0]!)) sessionLost();
  if (!res.ok) throw new ApiError(res.status, await messageOf(res));
  if (res.status === 204) return undefined as T;
  const type = res.headers.get('content-type') ?? '';
  return (type.includes('json') ? await res.json() : await res.text()) as T;
}

// The shapes the API answers, taken from the server's own types (type-only imports: nothing of
// the server is bundled). `Wire` is what JSON makes of them: dates arrive as ISO strings.
import type { AccountKind, BookStyle as ServerBookStyle } from '../db/schema';
import type { ClientView as ServerClientView } from '../oauth/clients';
import type { PasskeyView } from '../identity/passkeys';
import type { accountRegisterReport, Section as ServerSection } from '../book/reports';
import type { Connection as ServerConnection } from '../identity/connections';
import type { TransactionView } from '../book/transactions';

type Wire<T> = T extends Date ? string : T extends (infer U)[] ? Wire<U>[] : T extends object ? { [K in keyof T]: Wire<T[K]> } : T;

export type Kind = AccountKind;
export type BookStyle = ServerBookStyle;
export interface Account {
  id: number;
  name: string;
  kind: Kind;
}
export type Transaction = Wire<TransactionView>;
export type Section = Wire<ServerSection>;
export type AccountRegister = Wire<Awaited<ReturnType<typeof accountRegisterReport>>>;
export type ClientView = Wire<ServerClientView>;
export type Passkey = Wire<PasskeyView>;
export type Connection = Wire<ServerConnection>;
export interface Me {
  email: string;
  has_passkeys: boolean;
  mfa_complete: boolean;
  via: 'session' | 'bearer';
}
