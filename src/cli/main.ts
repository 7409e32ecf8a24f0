import { readFileSync } from 'node:fs';
import { defineCommand, runMain } from 'citty';
import { ConfigError, loadConfig, type Config } from '../config';
import { StartupError } from '../errors';
import { describeFault, jsonLogger } from '../log';
import type { RunningServer } from '../server';
import { explain, ledgerCommand, runLedger, type CliIo } from './commands';

/** The process's own streams and environment. */
const processIo: CliIo = {
  env: process.env,
  readStdin: () => {
    try {
      return readFileSync(0, 'utf8');
    } catch {
      return '';
    }
  },
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/**
 * D14: the one line for people that `serve` writes on stderr once it listens (the JSON log goes
 * to stdout): where to open the web app and the API, and, while no user exists, the command that
 * creates the first one.
 */
function startupLine(config: Config, server: RunningServer): string {
  const web = server.webUrl ? `web app ${config.webOrigin} (listening on ${server.webUrl})` : 'web app off (WEB_BIND_ADDR=off)';
  const api = `API ${config.apiOrigin} (listening on ${server.url})`;
  const next = server.needsFirstUser ? '; no user yet: create one with npx ledger user add <email>' : '';
  return `ledger: serving the ${web} and the ${api}${next}`;
}

const serveCommand = defineCommand({
  meta: { name: 'serve', description: 'run the server (migrates the database first)' },
  async run() {
    const log = jsonLogger();
    // Listening from the first moment: a SIGTERM that comes while the server starts, or as soon as
    // /health answers (a service manager, a test), must stop it cleanly, not kill it half-started.
    // One that comes while it starts stops it as soon as it is up.
    let server: RunningServer | undefined;
    let signalled = false;
    const shutdown = () => {
      signalled = true;
      void server?.stop().then(
        () => process.exit(0),
        (error: unknown) => {
          log.error('shutdown.fault', describeFault(error));
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', shutdown);
    process.once('SIGINT', shutdown);
    try {
      // Loaded here, not at the top: admin commands never pay for the HTTP server's modules (D14).
      const { startServer } = await import('../server');
      const config = loadConfig();
      server = await startServer(config, log, { overrideGlobalObjects: true });
      process.stderr.write(`${startupLine(config, server)}\n`);
      if (signalled) shutdown();
    } catch (error) {
      process.stderr.write(`ledger: ${explain(error)}\n`);
      if (!(error instanceof ConfigError || error instanceof StartupError)) log.error('startup.fault', describeFault(error));
      process.exit(1);
    }
  },
});

const rawArgs = process.argv.slice(2);
if (rawArgs.some((arg) => arg === '--help' || arg === '-h')) {
  await runMain(ledgerCommand(processIo, { failed: false }, serveCommand), { rawArgs });
} else {
  process.exitCode = await runLedger(rawArgs, processIo, serveCommand);
}
