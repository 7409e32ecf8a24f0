import { readFileSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';
import { defineCommand, runCommand, runMain } from 'citty';
import type { AdminRequest } from '../admin/commands';
import { ConfigError, loadConfig, type Config } from '../config';
import { Refusal, StartupError } from '../errors';
import { describeFault, jsonLogger } from '../log';
import type { RunningServer } from '../server';
import { MINTED_TOKEN_DEFAULT_DAYS } from '../identity/tokens';
import { executeAdminRequest } from './execute';

/** Every failure of an admin command is one line on stderr and exit 1 (D1). */
function fail(message: string): void {
  process.stderr.write(`ledger: ${message}\n`);
  process.exitCode = 1;
}

function explain(error: unknown): string {
  if (error instanceof Refusal || error instanceof ConfigError || error instanceof StartupError) return error.message;
  return `unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
}

/** `--password -`: one line from stdin; without the flag, the command generates a password. */
function passwordFromArgs(flag: string | undefined): string | null {
  if (flag === undefined) return null;
  if (flag !== '-') throw new Refusal('invalid', 'use --password - and type the password on stdin');
  let input: string;
  try {
    input = readFileSync(0, 'utf8');
  } catch {
    input = '';
  }
  const line = input.split(/\r?\n/)[0] ?? '';
  if (line === '') throw new Refusal('invalid', 'no password on stdin (expected one line)');
  return line;
}

async function admin(build: () => AdminRequest): Promise<void> {
  try {
    const config = loadConfig();
    const lines = await executeAdminRequest(config, build());
    for (const line of lines) process.stdout.write(`${line}\n`);
  } catch (error) {
    fail(explain(error));
  }
}

const email = { type: 'positional', required: true, description: 'the user\'s email address' } as const;
const password = {
  type: 'string',
  description: 'read the password from stdin (`--password -`) instead of generating one',
  valueHint: '-',
} as const;

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
      fail(explain(error));
      if (!(error instanceof ConfigError || error instanceof StartupError)) log.error('startup.fault', describeFault(error));
      process.exit(1);
    }
  },
});

const userCommand = defineCommand({
  meta: { name: 'user', description: 'manage users' },
  subCommands: {
    add: defineCommand({
      meta: { name: 'add', description: 'create a user and print a generated password once' },
      args: { email, password },
      run: ({ args }) => admin(() => ({ op: 'user.add', email: args.email, password: passwordFromArgs(args.password) })),
    }),
    list: defineCommand({
      meta: { name: 'list', description: 'print email, passkey count, last seen (tab-separated)' },
      run: () => admin(() => ({ op: 'user.list' })),
    }),
    passwd: defineCommand({
      meta: { name: 'passwd', description: 'reset a password; ends every session and revokes every token' },
      args: { email, password },
      run: ({ args }) =>
        admin(() => ({ op: 'user.passwd', email: args.email, password: passwordFromArgs(args.password) })),
    }),
    rm: defineCommand({
      meta: { name: 'rm', description: 'delete a user; their transactions stay without an author' },
      args: { email },
      run: ({ args }) => admin(() => ({ op: 'user.rm', email: args.email })),
    }),
  },
});

function parseDays(raw: string | undefined): number {
  if (raw === undefined) return MINTED_TOKEN_DEFAULT_DAYS;
  if (!/^\d{1,6}$/.test(raw)) throw new Refusal('invalid', '--days must be a whole number of days');
  return Number(raw);
}

const mintTokenCommand = defineCommand({
  meta: { name: 'mint-token', description: 'create a bearer token for scripts and clients; printed once' },
  args: {
    email,
    label: { type: 'string', description: 'a name for the token, shown in the list of connections' },
    days: { type: 'string', description: `lifetime in days (default ${MINTED_TOKEN_DEFAULT_DAYS})` },
  },
  run: ({ args }) =>
    admin(() => ({ op: 'mint-token', email: args.email, label: args.label ?? null, days: parseDays(args.days) })),
});

const file = { type: 'positional', required: true, description: 'the backup file' } as const;

const backupCommand = defineCommand({
  meta: { name: 'backup', description: 'write a consistent backup of the whole instance to a file (0600), also while serve runs' },
  args: { file },
  run: ({ args }) => admin(() => ({ op: 'backup', file: args.file })),
});

const restoreCommand = defineCommand({
  meta: { name: 'restore', description: 'load a backup into an empty database (nothing changes if anything is wrong)' },
  args: { file },
  run: ({ args }) => admin(() => ({ op: 'restore', file: args.file })),
});

const main = defineCommand({
  meta: { name: 'ledger', description: 'Ledger: double-entry bookkeeping for a family or a club' },
  subCommands: { serve: serveCommand, user: userCommand, 'mint-token': mintTokenCommand, backup: backupCommand, restore: restoreCommand },
});

// citty's runMain answers a usage mistake with the whole usage text; D1 wants one line on stderr.
const rawArgs = process.argv.slice(2);
if (rawArgs.some((arg) => arg === '--help' || arg === '-h')) {
  await runMain(main, { rawArgs });
} else {
  try {
    await runCommand(main, { rawArgs });
  } catch (error) {
    const message = error instanceof Error ? stripVTControlCharacters(error.message) : String(error);
    fail(`${message.replace(/\.$/, '')} (see ledger --help)`);
  }
}
