import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Hono, type Context } from 'hono';
import type { AppEnv } from './context';
import { requireFull } from './tiers';

// Issue 1/7 (trust first): /docs renders the API reference on the API origin, where a signed-in
// session is valid, so every script it runs is ours: the standalone build of @scalar/api-reference,
// pinned exactly in package.json and served from here, never a floating CDN copy. Pinned at 1.46.4,
// the last release whose @scalar/* packages (all exact pins) declare Node >= 20: from 1.47 on they
// want Node 22, and `npm ci` printed 225 EBADENGINE warnings (D1: Node 20; issue 25 item 13,
// tests/engines.test.ts).

/** Where the reference UI's script and its start-up script are served (relative to the API origin). */
const DOCS_SCRIPT = '/docs/scalar.js';
const DOCS_INIT = '/docs/init.js';

const JAVASCRIPT = 'text/javascript; charset=utf-8';
/** Behind the full tier, so private: no shared cache may keep it. An hour bounds a stale copy after an upgrade. */
const SCRIPT_CACHE = 'private, max-age=3600';

/**
 * The reference's options: our document, and nothing that reaches outside. The default fonts,
 * the telemetry, the AI agent, the MCP and the developer-tools panels all talk to scalar.com;
 * the policy below would block them anyway, this keeps them from trying.
 */
const REFERENCE_OPTIONS = {
  url: '/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: 'never',
  mcp: { disabled: true },
  agent: { disabled: true },
};

/** In a file of its own rather than inline, so that script-src needs no 'unsafe-inline' nor hash. */
const INIT_SCRIPT = `Scalar.createApiReference('#app', ${JSON.stringify(REFERENCE_OPTIONS)});\n`;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Ledger API</title>
  </head>
  <body>
    <div id="app"></div>
    <script src="${DOCS_SCRIPT}"></script>
    <script src="${DOCS_INIT}"></script>
  </body>
</html>
`;

/**
 * The page's policy: scripts from this origin only (the bundle needs no eval), requests to this
 * origin only (the document, and "try it" calls to the API itself), never framed, no plugins, no
 * <base> rewriting. Styles stay inline: the bundle writes <style> elements (its theme, its toasts)
 * and style attributes at run time that no nonce reaches, and its theme is blank without them; a
 * style runs no code.
 */
const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const require = createRequire(import.meta.url);

/** Read once, on first request: most processes never serve /docs, and the bundle is 4 MB. */
let bundle: Promise<Uint8Array<ArrayBuffer>> | undefined;
function standaloneBundle(): Promise<Uint8Array<ArrayBuffer>> {
  bundle ??= readBundle().catch((error: unknown) => {
    bundle = undefined; // a failed read is tried again on the next request, not kept
    throw error;
  });
  return bundle;
}

/** The package's single-file browser build, beside its entry point (its exports map hides the file). */
async function readBundle(): Promise<Uint8Array<ArrayBuffer>> {
  const entry = require.resolve('@scalar/api-reference');
  return new Uint8Array(await readFile(path.join(path.dirname(entry), 'browser', 'standalone.js')));
}

function javascript(c: Context<AppEnv>, body: string | Uint8Array<ArrayBuffer>): Response {
  c.header('Content-Type', JAVASCRIPT);
  c.header('Cache-Control', SCRIPT_CACHE);
  c.header('X-Content-Type-Options', 'nosniff');
  return c.body(body);
}

/**
 * GET /docs and its two scripts. All three stay at the full tier (spec: Authentication — every
 * route not listed as open needs it): the scripts hold no secret, but opening them would add open
 * routes to the spec and let anyone pull 4 MB from the API; whoever can read /docs sends the same
 * credential for its scripts (the session cookie goes with same-origin script loads).
 */
export const docsRoutes = new Hono<AppEnv>()
  .use(requireFull)
  .get('/', (c) => {
    c.header('Content-Security-Policy', DOCS_CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    return c.html(PAGE);
  })
  .get('/scalar.js', async (c) => javascript(c, await standaloneBundle()))
  .get('/init.js', (c) => javascript(c, INIT_SCRIPT));
