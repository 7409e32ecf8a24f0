import { stripVTControlCharacters } from 'node:util';
import { defineCommand, runCommand, type CommandDef } from 'citty';
import { isEncryptedBackup } from '../admin/backup';
import type { AdminRequest } from '../admin/commands';
import { PASSPHRASE_VARIABLE, passphraseFor, terminalAsk } from '../admin/passphrase';
import { ConfigError, loadConfig } from '../config';
import { Refusal, StartupError } from '../errors';
import { MINTED_TOKEN_DEFAULT_DAYS } from '../identity/tokens';
import { executeAdminRequest } from './execute';

// The `ledger` admin commands (D1): arguments to an admin request, its lines to stdout, every
// failure one line on stderr and exit 1. What they read and write goes through `CliIo`, so the
// same commands run as a process (src/cli/main.ts) and in a test's own process.

/** Where a command reads and writes: the process's own, or a test's. */
export interface CliIo {
  env: Record<string, string | undefined>;
  /** All of stdin (only `--password -` reads it). */
  readStdin(): string;
  out(text: string): void;
  err(text: string): void;
}

/** Every failure of an admin command is one line on stderr and exit 1 (D1). */
export function explain(error: unknown): string {
  if (error instanceof Refusal || error instanceof ConfigError || error instanceof StartupError) return error.message;
  return `unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
}

const email = { type: 'positional', required: true, description: 'the user\'s email address' } as const;
const password = {
  type: 'string',
  description: 'read the password from stdin (`--password -`) instead of generating one',
  valueHint: '-',
} as const;
const file = { type: 'positional', required: true, description: 'the backup file' } as const;

function parseDays(raw: string | undefined): number {
  if (raw === undefined) return MINTED_TOKEN_DEFAULT_DAYS;
  if (!/^\d{1,6}$/.test(raw)) throw new Refusal('invalid', '--days must be a whole number of days');
  return Number(raw);
}

/** The command tree; `serve` is given by the process that can serve (src/cli/main.ts). */
export function ledgerCommand(io: CliIo, state: { failed: boolean }, serve?: CommandDef) {
  const fail = (message: string) => {
    io.err(`ledger: ${message}\n`);
    state.failed = true;
  };

  /** `--password -`: one line from stdin; without the flag, the command generates a password. */
  const passwordFromArgs = (flag: string | undefined): string | null => {
    if (flag === undefined) return null;
    if (flag !== '-') throw new Refusal('invalid', 'use --password - and type the password on stdin');
    const line = io.readStdin().split(/\r?\n/)[0] ?? '';
    if (line === '') throw new Refusal('invalid', 'no password on stdin (expected one line)');
    return line;
  };

  const admin = async (build: () => AdminRequest): Promise<void> => {
    try {
      const lines = await executeAdminRequest(loadConfig(io.env), build(), (line) => io.err(`ledger: ${line}\n`));
      for (const line of lines) io.out(`${line}\n`);
    } catch (error) {
      fail(explain(error));
    }
  };

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

  // D22: the passphrase from LEDGER_BACKUP_PASSPHRASE or the terminal, asked before the database opens.
  const passphrases = { env: io.env, ask: terminalAsk() };

  const backupCommand = defineCommand({
    meta: { name: 'backup', description: 'write a consistent backup of the whole instance to a file (0600), also while serve runs' },
    args: {
      file,
      encrypt: { type: 'boolean', description: `encrypt and authenticate it (age); the passphrase from ${PASSPHRASE_VARIABLE} or typed on the terminal` },
    },
    run: async ({ args }) => {
      let passphrase: string | null = null;
      try {
        if (args.encrypt) passphrase = await passphraseFor('encrypt', passphrases);
      } catch (error) {
        return fail(explain(error));
      }
      await admin(() => ({ op: 'backup', file: args.file, passphrase }));
    },
  });

  const restoreCommand = defineCommand({
    meta: { name: 'restore', description: 'load a backup into an empty database (nothing changes if anything is wrong); asks for the passphrase of an encrypted one' },
    args: {
      file,
      'allow-plain': { type: 'boolean', description: `restore a plain (unencrypted, unauthenticated) backup although ${PASSPHRASE_VARIABLE} is set` },
    },
    run: async ({ args }) => {
      let passphrase: string | null = null;
      try {
        // Issue 36 item 3: a passphrase set means encrypted backups are expected; the restore refuses a plain one.
        if (io.env[PASSPHRASE_VARIABLE] !== undefined || (await isEncryptedBackup(args.file))) passphrase = await passphraseFor('decrypt', passphrases);
      } catch (error) {
        return fail(explain(error));
      }
      await admin(() => ({ op: 'restore', file: args.file, passphrase, allow_plain: args['allow-plain'] === true }));
    },
  });

  return defineCommand({
    meta: { name: 'ledger', description: 'Ledger: double-entry bookkeeping for a family or a club' },
    subCommands: {
      ...(serve ? { serve } : {}),
      user: userCommand,
      'mint-token': mintTokenCommand,
      backup: backupCommand,
      restore: restoreCommand,
    },
  });
}

/**
 * Runs `ledger <rawArgs>` (not `--help`, which citty prints in full); the exit status. citty's
 * own runMain answers a usage mistake with the whole usage text; D1 wants one line on stderr.
 */
export async function runLedger(rawArgs: string[], io: CliIo, serve?: CommandDef): Promise<number> {
  const state = { failed: false };
  try {
    await runCommand(ledgerCommand(io, state, serve), { rawArgs });
  } catch (error) {
    const message = error instanceof Error ? stripVTControlCharacters(error.message) : String(error);
    io.err(`ledger: ${message.replace(/\.$/, '')} (see ledger --help)\n`);
    state.failed = true;
  }
  return state.failed ? 1 : 0;
}
