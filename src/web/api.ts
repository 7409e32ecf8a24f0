/** The API client of the web app: JSON over fetch with the session cookie (D9: credentials "include"). */

import { t } from './i18n';

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
    /** D16: the lines at fault of a refused statement (`errors` beside `error`), if any. */
    readonly errors: ImportLineError[] = [],
    /** D16: the date formats a statement's dates fit, to choose among (`candidates` beside `error`), if any. */
    readonly candidates: string[] = [],
  ) {
    super(message);
  }
}

/** The refusal of an API error body, in any of the spec's three shapes, with D16's line errors. */
async function refusalOf(res: Response): Promise<ApiError> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as { error?: string; error_description?: string; errors?: ImportLineError[]; candidates?: string[] };
    return new ApiError(
      res.status,
      body.error_description ?? body.error ?? text,
      Array.isArray(body.errors) ? body.errors : [],
      Array.isArray(body.candidates) ? body.candidates : [],
    );
  } catch {
    return new ApiError(res.status, text || t('common.requestFailed', { status: res.status }));
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
/** The body of every protected route's 401 (spec: Errors, rule 4). */
const AUTHENTICATION_REQUIRED = 'authentication required';

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
  if (!res.ok) {
    const refusal = await refusalOf(res);
    // Only the tiers' own 401 (error rule 4) means the session is gone; an OAuth route's 401
    // invalid_client (a refused client metadata document, D18) is the page's to show.
    if (res.status === 401 && refusal.message === AUTHENTICATION_REQUIRED && !SIGN_IN_PATHS.includes(path.split('?')[0]!)) sessionLost();
    throw refusal;
  }
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

/**
 * The file name of a `Content-Disposition` answer (RFC 6266 §4.3: `filename*` wins over
 * `filename`), without any folder part; null when it names none.
 */
export function fileNameOf(disposition: string | null): string | null {
  const extended = /filename\*\s*=\s*[^']*'[^']*'([^;\s]+)/i.exec(disposition ?? '');
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(disposition ?? '');
  const name = (extended && decoded(extended[1]!)) ?? plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2];
  return name?.split(/[\\/]/).pop()?.trim() || null;
}

function decoded(percentEncoded: string): string | null {
  try {
    return decodeURIComponent(percentEncoded);
  } catch {
    return null;
  }
}

/**
 * D17: a download from the API (an export) with the session cookie: the answer becomes a Blob,
 * saved under the name the API gives in Content-Disposition (exposed by its CORS rules), else
 * under `fallbackName`. A refused request is thrown as an ApiError, like any other.
 */
export async function download(path: string, fallbackName: string): Promise<void> {
  const res = await send('GET', path);
  const blob = await res.blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileNameOf(res.headers.get('Content-Disposition')) ?? fallbackName;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser reads the Blob after this click returns: let it go once the download has begun.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The API's address of `path`, for a request the helpers above do not make (an upload with progress). */
export const apiUrl = (path: string) => `${apiOrigin}${path}`;

/** The bytes of an answer (a receipt, D22) with the session cookie; a refusal is thrown as an ApiError. */
export async function apiBlob(path: string): Promise<Blob> {
  return (await send('GET', path)).blob();
}

/**
 * D22: a file sent as the body of a POST with its own type, its progress reported as it goes
 * (fetch reports no upload progress: XMLHttpRequest's `upload.onprogress` does), with the session
 * cookie; the JSON answer, or the refusal thrown as an ApiError like any other.
 */
export function upload<T>(path: string, file: Blob, onProgress: (sent: number, total: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', apiUrl(path));
    request.withCredentials = true;
    request.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    request.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    request.onerror = () => reject(new ApiError(0, t('common.uploadFailed')));
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) return resolve(JSON.parse(request.responseText) as T);
      void refusalOf(new Response(request.responseText, { status: request.status })).then((refusal) => {
        if (request.status === 401 && refusal.message === AUTHENTICATION_REQUIRED) sessionLost();
        reject(refusal);
      });
    };
    request.send(file);
  });
}

// The shapes the API answers: the output types of the server's own valibot schemas (type-only
// imports of the views modules: nothing of the server is bundled).
import type * as v from 'valibot';
import type { ImportRequestSchema } from '../book/imports/booking';
import type { AccountKind, BookStyle as ServerBookStyle } from '../book/rules';
import type {
  Account as AccountShape,
  Attachment as AttachmentShape,
  Budget as BudgetShape,
  BudgetReport as BudgetReportShape,
  Change as ChangeShape,
  DueOccurrence as DueOccurrenceShape,
  Forecast as ForecastShape,
  ImportLineError as ImportLineErrorShape,
  ImportPreview as ImportPreviewShape,
  ImportResult as ImportResultShape,
  ImportRule as ImportRuleShape,
  ListedTransaction as ListedTransactionShape,
  Reconciliation as ReconciliationShape,
  ReconciliationStatus,
  Register,
  Schedule as ScheduleShape,
  Section as SectionShape,
  Settings as SettingsShape,
  Transaction as TransactionShape,
} from '../book/views';
import type { Connection as ConnectionShape, Me as MeShape, Passkey as PasskeyShape } from '../identity/views';
import type { Client } from '../oauth/views';

export type Kind = AccountKind;
export type BookStyle = ServerBookStyle;
export type Account = v.InferOutput<typeof AccountShape>;
/** D22: a receipt kept with a transaction (its metadata; the bytes are GET /attachments/{id}). */
export type Attachment = v.InferOutput<typeof AttachmentShape>;
/** D22: GET /attachments/usage. */
export interface ReceiptsUsage {
  used_bytes: number;
  count: number;
  /** Of those, what deleted transactions keep for their restore (issue 36 item 4). */
  deleted_bytes: number;
  deleted_count: number;
  limit_bytes: number;
}
export type Transaction = v.InferOutput<typeof TransactionShape>;
export type Section = v.InferOutput<typeof SectionShape>;
export type AccountRegister = v.InferOutput<typeof Register>;
export type ClientView = v.InferOutput<typeof Client>;
export type Passkey = v.InferOutput<typeof PasskeyShape>;
export type Connection = v.InferOutput<typeof ConnectionShape>;
export type Me = v.InferOutput<typeof MeShape>;
export type Change = v.InferOutput<typeof ChangeShape>;
/** D16: the body of `POST /imports/preview` and `POST /imports`. */
export type StatementRequest = v.InferInput<typeof ImportRequestSchema>;
export type ImportRule = v.InferOutput<typeof ImportRuleShape>;
export type ImportPreview = v.InferOutput<typeof ImportPreviewShape>;
export type ImportResult = v.InferOutput<typeof ImportResultShape>;
export type ImportLineError = v.InferOutput<typeof ImportLineErrorShape>;

/** D20: the book's settings (a PUT sends any non-empty part of them). */
export type BookSettings = v.InferOutput<typeof SettingsShape>;
/** D20: a statement an account was proven against (`POST /accounts/{id}/reconciliations`). */
export type Reconciliation = v.InferOutput<typeof ReconciliationShape>;
/** D20: where an account stands (`GET /accounts/{id}/reconciliation?as_of=`), natural sign. */
export type ReconciliationState = v.InferOutput<typeof ReconciliationStatus>;
/** D20: a transaction of the paged list (D15 with `limit`), which says whether it is reconciled. */
export type ListedTransaction = v.InferOutput<typeof ListedTransactionShape>;
/** D20: a line of the account register, which says whether it is reconciled. */
export type RegisterLine = AccountRegister['entries'][number];

/** D21: a schedule of the book (`GET /schedules`), its entries with their accounts' names. */
export type Schedule = v.InferOutput<typeof ScheduleShape>;
/** D21: what `POST /schedules` and `PUT /schedules/{id}` take. */
export interface ScheduleRequest {
  description: string;
  entries: { account_id: number; amount_cents: number }[];
  start_on: string;
  every: Schedule['every'];
  interval: number;
  until_on?: string;
  mode: Schedule['mode'];
}
/** D21: an occurrence waiting for a decision, or blocked (`GET /schedules/due`). */
export type DueOccurrence = v.InferOutput<typeof DueOccurrenceShape>;
/** D21: the balances of the bank, cash and card accounts as the schedules will move them (`GET /reports/forecast`). */
export type Forecast = v.InferOutput<typeof ForecastShape>;
/** D26: a budget (`GET /budgets/{id}`, and the draft of `GET /budgets/draft` with `id` null). */
export type Budget = v.InferOutput<typeof BudgetShape>;
/** D26: what `POST /budgets` and `PUT /budgets/{id}` take. */
export interface BudgetRequest {
  name: string;
  from: string;
  to: string;
  lines: { account_id: number; amount_cents: number; per: Budget['lines'][number]['per']; rollover?: boolean }[];
}
/** D26: plan and reality (`GET /reports/budget`). */
export type BudgetReport = v.InferOutput<typeof BudgetReportShape>;

// D27: people and dues plans, the output types of the server's valibot schemas (type-only).
/** D27: a person of the book (a club's member, a family member), with their account's balance (natural sign: > 0 they owe the book). */
export type Person = v.InferOutput<typeof import('../book/views').Person>;
/** D27: what `POST /people`, `PUT /people/{id}` and each person of `POST /people/batch` take. */
export type PersonRequest = import('../book/people').NewPerson;
/** D27: `POST /people/batch`'s refusal, one per person at fault (`index` 0-based in the list sent). */
export interface BatchError {
  index: number;
  error: string;
}
/** D27: who owes (`GET /reports/people?as_of=`), every person whose balance is not zero. */
export type PeopleReport = v.InferOutput<typeof import('../book/views').WhoOwes>;
/** D27: a person's statement of account (`GET /people/{id}/statement?from=&to=`), natural sign. */
export type PersonStatement = v.InferOutput<typeof import('../book/views').PersonStatement>;
/** D27: a dues plan (`GET /dues-plans`), `members` how many people follow it. */
export type DuesPlan = v.InferOutput<typeof import('../book/views').DuesPlan>;
/** D27: what `POST /dues-plans` and `PUT /dues-plans/{id}` take. */
export type DuesPlanRequest = import('../book/dues-plans').NewDuesPlan;
// D27 (issue 41): collections by SEPA direct debit, the output types of the server's valibot schemas (type-only).
/** D27: a collection by direct debit (`POST /direct-debits`, `GET /direct-debits`). */
export type DirectDebit = v.InferOutput<typeof import('../book/views').DirectDebit>;
/** D27: what a collection on a date would take (`GET /direct-debits/draft?collect_on=`), nothing written. */
export type DirectDebitDraft = v.InferOutput<typeof import('../book/views').DirectDebitDraft>;
/** D27: what one person collected is told before the debit (`GET /direct-debits/{id}/pre-notifications`). */
export type PreNotification = v.InferOutput<typeof import('../book/views').PreNotification>;
/** D27: the club's creditor details (Settings `sepa`). */
export type SepaCreditor = NonNullable<BookSettings['sepa']>;
