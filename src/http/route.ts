import { Hono, type Context, type MiddlewareHandler } from 'hono';
import type * as v from 'valibot';
import type { AppEnv } from './context';
import { notFoundAnswer } from './errors';
import { answerOnce, authenticateFirstWithKey, IDEMPOTENCY_KEY, IDEMPOTENCY_KEY_DESCRIPTION, withIdempotencyReplies } from './idempotency';
import {
  bearerRefused,
  fault,
  notForm,
  notJson,
  oauthBearerRefused,
  oauthFault,
  oauthNotJson,
  oauthTooLarge,
  tooLarge,
  unauthenticated,
  type Reply,
} from './replies';
import { requireFull, requireHalf, requireSession } from './tiers';
import { badRequest, jsonBody, queryParams, type Rejection } from './validation';

// A route is its own contract (issue 3/7; the model is w3cj/hono-open-api-starter): method, path,
// tier, request schemas and one reply per status, declared once in the route group's file. The
// same declaration mounts the route (the tier's middleware, the validators, the handler) and
// describes it in /openapi.json (src/http/openapi.ts). A helper of ours rather than hono-openapi:
// our tiers decide middleware and answers together, our OAuth routes answer in their own error
// shape, and requests are checked by the same valibot schemas the document shows, which a
// route-description middleware would only have restated.

/** Spec: Endpoints, "Tiers" (session-only = the full tier, but a bearer token is refused with 403). */
export type Tier = 'open' | 'half' | 'full' | 'session-only';
type Schema = v.GenericSchema;
type Ctx = Context<AppEnv>;

/** Spec: Errors, Shapes — the plain `{error}`, or `{error, error_description}` on OAuth routes. */
export type ErrorShape = 'plain' | 'oauth';

export interface RouteContract {
  method: 'get' | 'post' | 'put' | 'delete';
  /** The whole path, `{name}` for a path parameter (OpenAPI's form). */
  path: string;
  tier: Tier;
  summary: string;
  description?: string;
  /** Path parameters (every `{name}` of the path must have one); read by the handler (pathId). */
  params?: Record<string, Schema>;
  query?: Schema;
  json?: Schema;
  /** An `application/x-www-form-urlencoded` body, read by src/http/form.ts and described here. */
  form?: Schema;
  /** A body of raw bytes of these media types (D22's receipts), read by the handler itself. */
  bytes?: readonly string[];
  /** The route's own body limit in place of D6's 1 MiB (D22: a receipt's 10 MiB), enforced before the body is read. */
  maxBodyBytes?: number;
  /**
   * The answers particular to the route. The tier adds its 401 (and 403 for session-only), a
   * body its 413 and 415, and every route the 500 of an unexpected fault, in the route's error
   * shape, unless given here.
   */
  responses: Record<number, Reply>;
  /** The error shape of the answers added for the route (default plain). */
  errors?: ErrorShape;
  /** No 500 is described: the route touches nothing that can fail (the discovery documents). */
  cannotFail?: true;
  /** Request headers the route reads, name → description (header parameters in /openapi.json). */
  headers?: Record<string, string>;
}

interface RouteOptions {
  /**
   * A variant of the tier's middleware that keeps the tier: POST /transactions checks its bearer
   * in its own statement; OAuth routes refuse a bearer token in their own shape.
   */
  guard?: MiddlewareHandler<AppEnv>;
  /** Middleware before the tier's (the MCP Origin check, the reaping of unused clients). */
  before?: MiddlewareHandler<AppEnv>[];
  /** The handler reads and answers its body itself (the MCP transport): `json` only describes it. */
  validatesItself?: true;
  /** How a body refused by `json` is answered (default: 400 in the plain shape). */
  rejectJson?: Rejection;
  /** How a query refused by `query` is answered (default: 400 in the plain shape). */
  rejectQuery?: Rejection;
  /**
   * D21: `Idempotency-Key` is honoured (src/http/idempotency.ts): after the tier, before the
   * body is validated, the request runs once per user and key and its answer is kept for 24 hours.
   */
  idempotent?: true;
}

type Parsed<S> = S extends Schema ? v.InferOutput<S> : undefined;
export interface Input<C extends RouteContract> {
  json: Parsed<C['json']>;
  query: Parsed<C['query']>;
}

export interface Route {
  contract: RouteContract & { responses: Record<number, Reply> };
  handlers: MiddlewareHandler<AppEnv>[];
}

/** The middleware of each tier (src/http/tiers.ts); open routes have none. */
const TIER_GUARD: Record<Exclude<Tier, 'open'>, MiddlewareHandler<AppEnv>> = {
  half: requireHalf,
  full: requireFull,
  'session-only': requireSession(),
};

/** The answers a route has by its tier, its body and its error shape. */
function impliedResponses(contract: RouteContract): Record<number, Reply> {
  const oauth = contract.errors === 'oauth';
  const implied: Record<number, Reply> = {};
  if (contract.tier !== 'open') implied[401] = unauthenticated;
  if (contract.tier === 'session-only') implied[403] = oauth ? oauthBearerRefused : bearerRefused;
  if (contract.json) Object.assign(implied, { 413: oauth ? oauthTooLarge : tooLarge, 415: oauth ? oauthNotJson : notJson });
  if (contract.form) Object.assign(implied, { 413: oauthTooLarge, 415: notForm });
  if (contract.bytes) implied[413] = tooLarge;
  if (!contract.cannotFail) implied[500] = oauth ? oauthFault : fault;
  return implied;
}

/** Declares a route: its contract, how it is guarded and validated, and its handler. */
export function route<const C extends RouteContract>(
  contract: C,
  options: RouteOptions,
  handle: (c: Ctx, input: Input<C>) => Response | Promise<Response>,
): Route {
  const handlers: MiddlewareHandler<AppEnv>[] = [...(options.before ?? [])];
  const tierGuard = contract.tier === 'open' ? undefined : TIER_GUARD[contract.tier];
  const guard = options.guard ?? tierGuard;
  if (options.idempotent) {
    // The key is per user: only a route whose tier names the caller can honour it.
    if (!tierGuard) throw new Error(`${contract.method} ${contract.path}: an open route cannot honour Idempotency-Key`);
    handlers.push(options.guard ? authenticateFirstWithKey(options.guard, tierGuard) : tierGuard, answerOnce);
  } else if (guard) handlers.push(guard);
  const readsJson = contract.json !== undefined && !options.validatesItself;
  // The validators' types carry their input into Hono's; here the handler gets it as `input`.
  if (readsJson) handlers.push(jsonBody(contract.json!, options.rejectJson) as unknown as MiddlewareHandler<AppEnv>);
  if (contract.query) handlers.push(queryParams(contract.query, options.rejectQuery ?? badRequest) as unknown as MiddlewareHandler<AppEnv>);
  handlers.push(async (c) => {
    const input = {
      json: readsJson ? c.req.valid('json' as never) : undefined,
      query: contract.query ? c.req.valid('query' as never) : undefined,
    } as Input<C>;
    return handle(c, input);
  });
  const responses = { ...impliedResponses(contract), ...contract.responses };
  if (!options.idempotent) return { contract: { ...contract, responses }, handlers };
  const headers = { ...contract.headers, [IDEMPOTENCY_KEY]: IDEMPOTENCY_KEY_DESCRIPTION };
  return { contract: { ...contract, headers, responses: withIdempotencyReplies(responses) }, handlers };
}

/** Hono's path of a contract's path, within `prefix`: `/transactions/{id}` → `/:id`. */
function honoPath(path: string, prefix: string): string {
  if (!path.startsWith(prefix)) throw new Error(`${path} is not under ${prefix}`);
  return path.slice(prefix.length).replace(/\{(\w+)\}/g, ':$1') || '/';
}

/**
 * The routes under `prefix` as one group. Where every route of the group has the same tier, an
 * unknown route under the prefix is checked at that tier before its 404, as a group guarded as a
 * whole always did: authentication comes first, then the route is unknown.
 */
export function routeGroup(prefix: string, routes: Route[]): Hono<AppEnv> {
  const group = new Hono<AppEnv>();
  for (const { contract, handlers } of routes) {
    group.on(contract.method.toUpperCase(), honoPath(contract.path, prefix), ...(handlers as [MiddlewareHandler<AppEnv>]));
  }
  const tiers = new Set(routes.map((r) => r.contract.tier));
  const [tier] = tiers;
  if (tiers.size === 1 && tier !== undefined && tier !== 'open') group.all('*', TIER_GUARD[tier], notFoundAnswer);
  return group;
}
