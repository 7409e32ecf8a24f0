#!/usr/bin/env node
// `ledger`: the compiled CLI that `npm ci` built into dist/ (D14; scripts/build-server.js).
const bundle = new URL('../dist/cli/main.js', import.meta.url);
try {
  await import(bundle.href);
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes(bundle.pathname)) throw error;
  process.stderr.write('ledger: not built yet: run `npm ci` (or `npm run build`) in the checkout first\n');
  process.exitCode = 1;
}
