import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import type { Config } from '../config';
import type { Db } from '../db/database';
import type { Logger } from '../log';
import { accountRoutes } from './accounts';
import type { AppEnv } from './context';
import { answerError } from './errors';
import { settingsRoutes } from './settings';
import { transactionRoutes } from './transactions';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface AppDeps {
  db: Db;
  config: Config;
  log: Logger;
}

/** The API: stateless route groups over repository functions, with dependencies from context. */
export function createApp(deps: AppDeps) {
  const app = new Hono<AppEnv>();

  app.use(async (c, next) => {
    c.set('db', deps.db);
    c.set('config', deps.config);
    c.set('log', deps.log);
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

  // Spec: CORS rules 1–3. Other origins get no Access-Control-Allow-Origin at all.
  app.use(
    cors({
      origin: deps.config.webOrigin,
      credentials: true,
      allowMethods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
      allowHeaders: ['Content-Type', 'Authorization'],
    }),
  );

  app.use(
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => c.json({ error: 'the request body is larger than 1 MiB' }, 413),
    }),
  );

  app.get('/health', (c) => c.text('ok'));
  app.route('/accounts', accountRoutes);
  app.route('/settings', settingsRoutes);
  app.route('/transactions', transactionRoutes);

  app.notFound((c) => c.json({ error: 'not found' }, 404));
  app.onError(answerError);
  return app;
}

export type App = ReturnType<typeof createApp>;
