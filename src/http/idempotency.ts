import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { createMiddleware } from 'hono/factory';
import type { Context, MiddlewareHandler } from 'hono';
import type { Db } from '../db/database';
import { invalid } from '../errors';
import type { AppEnv } from './context';
import { answerError } from './errors';
import { claimKey, findKeptAnswer, keepAnswer, type KeptAnswer, type KeyedRequest } from '../db/idempotency-keys';
import { refused, type Reply } from './replies';

// D21: `Idempotency-Key` (IETF httpapi draft-ietf-httpapi-idempotency-key-header) on the POSTs
// that create: a retry never writes twice. The whole keyed request runs in one database
// transaction that first takes the key's advisory lock, so what the handler writes and the answer
// kept for the key commit together or not at all, and two requests with one key, on one instance
// or two, never both run: the second waits for nothing, it is told (409) or, once the first has
// committed, replayed.

export const IDEMPOTENCY_KEY = 'Idempotency-Key';
export const IDEMPOTENT_REPLAYED = 'Idempotent-Replayed';
const MAX_KEY_LENGTH = 255;

export const IDEMPOTENCY_KEY_DESCRIPTION =
  'D21 (draft-ietf-httpapi-idempotency-key-header): a quoted string (`"…"`) or a bare value, 1 to 255 visible ASCII characters. ' +
  'The first answer (2xx or 4xx) is kept 24 hours per user and key; the same method, path (query included) and body sent again ' +
  'get it again with `Idempotent-Replayed: true` and nothing is run.';
export const KEY_IN_USE = 'a request with this Idempotency-Key is still being processed';

/**
 * The key of an `Idempotency-Key` value (D21): an RFC 8941 String as the draft writes it
 * (`"…"`, with `\"` and `\\` escaped; §2 of the draft), or the bare value; 1 to 255 visible ASCII
 * characters either way, so `"abc"` and `abc` are one key. Anything else is a 400 saying what is wrong.
 */
export function readIdempotencyKey(value: string): string {
  let key = value;
  if (value.startsWith('"')) {
    const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(value);
    if (!quoted) throw invalid('Idempotency-Key must be one quoted string ("…", with \\" and \\\\ escaped inside) or a bare value');
    key = quoted[1]!.replace(/\\(["\\])/g, '$1');
  }
  if (key.length === 0) throw invalid('Idempotency-Key is empty: it must hold 1 to 255 characters');
  if (key.length > MAX_KEY_LENGTH) throw invalid(`Idempotency-Key holds ${key.length} characters: at most ${MAX_KEY_LENGTH}`);
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw invalid('Idempotency-Key may hold only visible ASCII characters (! to ~): no spaces, control characters or non-ASCII letters');
  }
  return key;
}

/**
 * A route's variant of its tier's middleware (POST /transactions checks a bearer token inside its
 * own insert) gives way to the tier itself when the request carries a key: the key is per user,
 * so the caller must be known before the keyed transaction starts.
 */
export function authenticateFirstWithKey(variant: MiddlewareHandler<AppEnv>, tier: MiddlewareHandler<AppEnv>): MiddlewareHandler<AppEnv> {
  return (c, next) => (c.req.header(IDEMPOTENCY_KEY) === undefined ? variant(c, next) : tier(c, next));
}

/** Rolls back what is inside it: the handler's savepoint after a refusal, the whole transaction after a 5xx. */
class Undo extends Error {}

type Outcome = { kind: 'answered' } | { kind: 'in use' } | { kind: 'replay'; answer: KeptAnswer } | { kind: 'another request'; differs: string };

/**
 * After the tier (the caller is known) and the body limit: a request without the header passes
 * untouched; with it, it is answered once per user and key for 24 hours (D21).
 */
export const answerOnce = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header(IDEMPOTENCY_KEY);
  if (header === undefined) return next();
  const url = new URL(c.req.url);
  const request: KeyedRequest = {
    userId: c.var.identity.userId,
    key: readIdempotencyKey(header),
    method: c.req.method,
    path: url.pathname + url.search,
    // Hono keeps the bytes read here: the route's own JSON parsing reads them again from its cache.
    bodySha256: createHash('sha256').update(new Uint8Array(await c.req.arrayBuffer())).digest('hex'),
  };
  const outcome = await inKeyedTransaction(c.var.db, request, async (tx) => {
    await runHandler(c, next, tx);
    return c.res;
  });
  if (outcome.kind === 'in use') return c.json({ error: KEY_IN_USE }, 409);
  if (outcome.kind === 'another request') return c.json({ error: `this Idempotency-Key was first sent with another ${outcome.differs}` }, 422);
  if (outcome.kind === 'replay') {
    const { status, contentType, body } = outcome.answer;
    const headers: Record<string, string> = { [IDEMPOTENT_REPLAYED]: 'true', ...(contentType !== null && { 'Content-Type': contentType }) };
    return new Response(body === '' ? null : body, { status, headers });
  }
});

/**
 * The keyed transaction: the key's lock first (taken: another request with the key is running),
 * then its kept answer (the same request: replayed; another: refused), else the handler, whose
 * answer is kept unless it is a 5xx, which rolls back everything it wrote.
 */
async function inKeyedTransaction(db: Db, request: KeyedRequest, handle: (tx: Db) => Promise<Response>): Promise<Outcome> {
  try {
    return await db.transaction(async (tx): Promise<Outcome> => {
      if (!(await claimKey(tx, request))) return { kind: 'in use' };
      const kept = await findKeptAnswer(tx, request);
      if (kept) {
        if (kept.method !== request.method || kept.path !== request.path) return { kind: 'another request', differs: 'path' };
        if (kept.bodySha256 !== request.bodySha256) return { kind: 'another request', differs: 'body' };
        return { kind: 'replay', answer: kept };
      }
      const res = await handle(tx);
      if (res.status >= 500) throw new Undo();
      await keepAnswer(tx, request, { status: res.status, contentType: res.headers.get('Content-Type'), body: await res.clone().text() });
      return { kind: 'answered' };
    });
  } catch (error) {
    if (error instanceof Undo) return { kind: 'answered' };
    throw error;
  }
}

/**
 * The rest of the route (validation, handler) with `tx` as its database, inside a savepoint: a
 * thrown error (already answered by src/http/errors.ts: Hono's compose catches it at the layer that
 * threw) undoes what the handler wrote, and leaves the transaction usable for keeping that answer
 * even when a failed statement aborted it. Deferred checks (the balance trigger) run before the
 * savepoint ends, so a refusal of theirs is the answer kept, not a failure of the commit afterwards.
 */
async function runHandler(c: Context<AppEnv>, next: () => Promise<void>, tx: Db): Promise<void> {
  const db = c.var.db;
  try {
    await tx.transaction(async (savepoint) => {
      c.set('db', savepoint);
      await next();
      if (c.error) throw new Undo();
      await savepoint.execute(sql`set constraints all immediate`);
    });
  } catch (error) {
    if (!(error instanceof Undo)) {
      c.error = error as Error;
      c.res = answerError(error, c);
    }
  } finally {
    c.set('db', db);
  }
}

/**
 * The answers of a keyed route in /openapi.json: the 400 of a malformed key, the 409 and 422 of
 * D21, and `Idempotent-Replayed` on every answer the route's own work can give (a replay is one).
 */
export function withIdempotencyReplies(responses: Record<number, Reply>): Record<number, Reply> {
  const replayable = Object.keys(responses).map(Number).filter((s) => s < 500 && s !== 401 && s !== 413);
  const added: Record<number, string> = {
    400: 'A malformed `Idempotency-Key` (empty, over 255 characters, not visible ASCII, or not one quoted string): nothing is run.',
    409: `A request with the same \`Idempotency-Key\` is still running: \`{"error": "${KEY_IN_USE}"}\`; send it again later.`,
    422: 'The `Idempotency-Key` was first sent, in the last 24 hours, with another method, path (query included) or body.',
  };
  const all = { ...responses };
  for (const [status, description] of Object.entries(added)) {
    const own = all[Number(status)];
    all[Number(status)] = own ? { ...own, description: `${own.description} ${description}` } : refused(description);
  }
  for (const status of replayable) {
    const reply = all[status]!;
    all[status] = { ...reply, sometimes: { ...reply.sometimes, [IDEMPOTENT_REPLAYED]: '`true`: the answer kept for this Idempotency-Key, replayed; nothing was run (D21)' } };
  }
  return all;
}
