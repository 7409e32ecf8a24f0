// D14: the service and the CLI run compiled JavaScript, built here by `npm ci` (the prepare
// script) and again by the test suite's global setup, so that `npx ledger` and `npm start` never
// compile TypeScript at run time. Plain JavaScript so that it runs before anything is built.
//
// One bundle of our own code; packages stay in node_modules (--packages=external). The bundle
// sits two directories below the checkout (dist/cli/), the depth of the source files that find
// drizzle/ and dist/web/ relative to their own URL (src/db/database.ts, src/http/web-app.ts), so
// those paths hold in both.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

export const SERVER_BUNDLE = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

export async function buildServer() {
  await build({
    entryPoints: [fileURLToPath(new URL('../src/cli/main.ts', import.meta.url))],
    outdir: fileURLToPath(new URL('../dist/cli', import.meta.url)),
    // Split chunks, so that an admin command loads none of the server's modules (`serve` imports
    // them when it runs); chunks stay beside the entry, at the same depth.
    splitting: true,
    chunkNames: '[name]-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildServer();
