import { serveStatic } from '@hono/node-server/serve-static';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import type { Config } from '../config';

/** Where `npm ci` (the prepare script) builds the web app. */
export const WEB_DIST = fileURLToPath(new URL('../../dist/web', import.meta.url));

/**
 * Headers on every web-app response. The consent (/authorize) and /device pages must never be
 * framed (clickjacking: both the old X-Frame-Options and CSP frame-ancestors); the app loads only
 * its own files and talks only to itself (/config.json) and the API; the consent page's URL
 * carries the OAuth request's state, so no Referer leaves the app.
 */
function webSecurityHeaders(apiOrigin: string): Record<string, string> {
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${apiOrigin}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    'Content-Security-Policy': csp,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };
}

/**
 * Whether the Host header names WEB_ORIGIN's host (case-insensitive; the scheme's default port,
 * which a proxy may write out, dropped). A request without one is judged by its URL.
 */
function isWebOriginHost(host: string, webOrigin: URL): boolean {
  const defaultPort = webOrigin.protocol === 'https:' ? ':443' : ':80';
  const asked = host.toLowerCase();
  return (asked.endsWith(defaultPort) ? asked.slice(0, -defaultPort.length) : asked) === webOrigin.host;
}

/**
 * D2/D9: the web app on WEB_BIND_ADDR: the built files, `/config.json` (the API's origin, from
 * the same configuration), and index.html for every other path outside /assets so that the app's
 * own routes (/authorize, /device…) load on a fresh visit.
 *
 * Issue 6/7 finding 10: the app works only on WEB_ORIGIN (CORS and passkeys accept that origin
 * alone; elsewhere sign-in answered "Failed to fetch"), so a request for any other host (such as
 * http://127.0.0.1:38080 for http://localhost:38080) is sent to the same path and query there;
 * 308 keeps the method.
 */
export function createWebApp(config: Config) {
  const indexFile = path.join(WEB_DIST, 'index.html');
  const index = existsSync(indexFile)
    ? readFileSync(indexFile, 'utf8')
    : '<!doctype html><title>Ledger</title><p>The web app is not built: run <code>npm ci</code> or <code>npm run build:web</code>.</p>';
  const root = path.relative(process.cwd(), WEB_DIST) || '.';
  const headers = Object.entries(webSecurityHeaders(config.apiOrigin));
  const webOrigin = new URL(config.webOrigin);
  return new Hono()
    .use('*', async (c, next) => {
      await next();
      for (const [name, value] of headers) c.res.headers.set(name, value);
    })
    .use('*', async (c, next) => {
      const url = new URL(c.req.url);
      if (isWebOriginHost(c.req.header('host') ?? url.host, webOrigin)) return next();
      return c.redirect(`${config.webOrigin}${url.pathname}${url.search}`, 308);
    })
    .get('/config.json', (c) => c.json({ apiOrigin: config.apiOrigin }))
    .use('/assets/*', serveStatic({ root }))
    // A missing asset is a 404, not the app's page: a stale or mistyped script URL must fail
    // loudly instead of being answered with HTML (which a browser then refuses to run as script).
    .all('/assets/*', (c) => c.text('not found', 404))
    .get('*', (c) => c.html(index));
}
