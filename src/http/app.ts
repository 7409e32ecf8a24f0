import { Hono } from 'hono';
import { cors } from 'hono/cors';
import type { Config } from '../config';
import type { Db } from '../db/database';
import type { Logger } from '../log';
import { ClientMetadataDocuments } from '../oauth/metadata-documents';
import { docsRoutes } from './docs';
import type { AppEnv } from './context';
import { limitBody } from './body-limit';
import { answerError, notFoundAnswer } from './errors';
import { openApiDocument } from './openapi';
import { admitReceiptUpload } from './receipt-uploads';
import { routeGroup } from './route';
import { ROUTE_GROUPS } from './routes';
import { requireFull } from './tiers';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface AppDeps {
  db: Db;
  config: Config;
  log: Logger;
  /** The clock of the login throttle (tests inject one); the database clock governs everything else. */
  now?: () => Date;
  /** D18: the fetcher and cache of client metadata documents; tests inject one (a test CA, short timeouts, a clock). */
  clientMetadata?: ClientMetadataDocuments;
}

/** The API: stateless route groups over repository functions, with dependencies from context. */
export function createApp(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const clientMetadata =
    deps.clientMetadata ?? new ClientMetadataDocuments({ allowPrivateAddresses: deps.config.cimdAllowPrivateAddresses, log: deps.log });

  app.use(async (c, next) => {
    c.set('db', deps.db);
    c.set('config', deps.config);
    c.set('log', deps.log);
    c.set('now', deps.now ?? (() => new Date()));
    c.set('clientMetadata', clientMetadata);
    const started = performance.now();
    await next();
    // D10: one line per request; the path only, never the query string (it can carry codes).
    deps.log.info('request', {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
  });

  // Spec: CORS rules 1–3. Other origins get no Access-Control-Allow-Origin at all; a request
  // without an Origin header is not a CORS request and gets no CORS headers (so the 303 of
  // GET /oauth/authorize carries only its Location).
  const corsHeaders = cors({
    origin: deps.config.webOrigin,
    credentials: true,
    allowMethods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
    allowHeaders: ['Content-Type', 'Authorization'],
    // D15: the web app pages through the list; D17: it names a downloaded export as the API does.
    exposeHeaders: ['Next-Cursor', 'Content-Disposition'],
  });
  app.use((c, next) => (c.req.header('Origin') === undefined ? next() : corsHeaders(c, next)));

  // Issue 36 item 4: a receipt upload takes one of the process's places before its body is read.
  app.post('/transactions/:id/attachments', admitReceiptUpload);
  // D6's 1 MiB, or a route's own limit (D22: a receipt's 10 MiB), before anything reads the body.
  const ownLimits = ROUTE_GROUPS.flatMap(([, routes]) => routes)
    .filter(({ contract }) => contract.maxBodyBytes !== undefined)
    .map(({ contract }) => ({
      method: contract.method.toUpperCase(),
      path: new RegExp(`^${contract.path.replace(/\{\w+\}/g, '[^/]+')}$`),
      limit: limitBody(contract.maxBodyBytes!, `the request body is larger than ${contract.maxBodyBytes! / 1024 / 1024} MiB`),
    }));
  const defaultLimit = limitBody(MAX_BODY_BYTES, 'the request body is larger than 1 MiB');
  app.use((c, next) => (ownLimits.find((l) => l.method === c.req.method && l.path.test(c.req.path))?.limit ?? defaultLimit)(c, next));

  // Spec: Authentication — every route not listed as open requires the full tier; the API's
  // description is not listed, so a developer reads it with a token or a signed-in session.
  // Built on first request: every app (each start, each test) would otherwise pay for it.
  let document: ReturnType<typeof openApiDocument> | undefined;
  app.get('/openapi.json', requireFull, (c) => c.json((document ??= openApiDocument(deps.config.apiOrigin))));
  app.route('/docs', docsRoutes);
  for (const [prefix, routes] of ROUTE_GROUPS) app.route(prefix || '/', routeGroup(prefix, routes));

  app.notFound(notFoundAnswer);
  app.onError(answerError);
  return app;
}

export type App = ReturnType<typeof createApp>;
