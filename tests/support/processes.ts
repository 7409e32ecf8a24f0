import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { runLedger as runLedgerCommand } from '../../src/cli/commands';

// `ledger` as an operator runs it: real processes of the package's bin (D1), with an environment
// the test controls. Used by tests/config.test.ts, tests/cli.test.ts and tests/embedded.test.ts.

/** `ledger` as a user runs it: the package's bin through node (it runs src/cli/main.ts with tsx). */
export const LEDGER_BIN = fileURLToPath(new URL('../../bin/ledger.js', import.meta.url));

/** The variables Ledger reads (spec: Configuration; D2). None of the developer's leak into a test. */
const LEDGER_VARIABLES = ['DATABASE_URL', 'BIND_ADDR', 'WEB_BIND_ADDR', 'API_ORIGIN', 'WEB_ORIGIN', 'SESSION_TTL_DAYS', 'CIMD_ALLOW_PRIVATE_ADDRESSES', 'RECEIPTS_MAX_MB', 'LEDGER_BACKUP_PASSPHRASE'];

/** A process that has not finished by then is killed: a hung command fails its test, not the run. */
const PROCESS_TIMEOUT_MS = 60_000;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Ledger's variables for this process; DATABASE_URL is required so no test touches `./data`. */
  env: Record<string, string>;
  /** Written to stdin, which is then closed (closed without input when omitted). */
  stdin?: string;
  cwd?: string;
}

/** process.env minus every Ledger variable, plus the test's own. */
function environment(env: Record<string, string>): NodeJS.ProcessEnv {
  if (!env.DATABASE_URL) throw new Error('give the ledger process a DATABASE_URL of the test');
  const base = { ...process.env };
  for (const name of LEDGER_VARIABLES) delete base[name];
  return { ...base, ...env };
}

/** Runs one `ledger …` command to its end and collects its exit code, stdout and stderr. */
export function runLedger(args: string[], options: RunOptions): Promise<CliResult> {
  const child = spawn(process.execPath, [LEDGER_BIN, ...args], {
    env: environment(options.env),
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.on('error', () => {}); // a command that exits before reading its stdin
  child.stdin.end(options.stdin ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), PROCESS_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The same command in this process, through the command layer (src/cli/commands.ts) with its
 * input and output in strings: for tables of cases, where a process per case only repeats what
 * the process tests already show (exit status, the one-line contract).
 */
export async function runLedgerInProcess(args: string[], options: RunOptions): Promise<CliResult> {
  if (!options.env.DATABASE_URL) throw new Error('give the ledger command a DATABASE_URL of the test');
  let stdout = '';
  let stderr = '';
  const code = await runLedgerCommand(args, {
    env: options.env,
    readStdin: () => options.stdin ?? '',
    out: (text) => (stdout += text),
    err: (text) => (stderr += text),
  });
  return { code, stdout, stderr };
}

/** D1: a refusal is exactly one line on stderr starting `ledger:`, exit 1, nothing on stdout. */
export function expectOneLineRefusal(result: CliResult, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^ledger: [^\n]+\n$/);
  expect(result.stderr).toMatch(pattern);
}

/** The last line of stdout, where D1 puts a generated password and a minted token. */
export function lastLine(result: CliResult): string {
  return result.stdout.replace(/\n$/, '').split('\n').at(-1) ?? '';
}

/** One JSON log line of `serve` (D10). */
export interface LogRecord {
  event: string;
  level: string;
  [field: string]: unknown;
}

export interface ServeProcess {
  child: ChildProcess;
  pid: number;
  /** From the `listening` log line. */
  url: string;
  listening: LogRecord;
  /** Every JSON line of stdout so far. */
  logs: LogRecord[];
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` (SIGTERM by default) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** For cleanup after a failed test: SIGKILL unless it already exited. */
  kill(): Promise<void>;
}

/** Starts `ledger serve` and resolves once its `{"event":"listening","url":…}` line is out. */
export async function startServe(options: Omit<RunOptions, 'stdin'>): Promise<ServeProcess> {
  const child = spawn(process.execPath, [LEDGER_BIN, 'serve'], {
    env: environment(options.env),
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let exitedCode: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    // `close`, not `exit`: by then every line the process wrote has been read.
    child.once('close', (code, signal) => resolve((exitedCode = { code, signal }))),
  );
  const logs: LogRecord[] = [];
  let stderr = '';
  let pending = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const listening = await new Promise<LogRecord>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not log "listening" within ${PROCESS_TIMEOUT_MS} ms: ${stderr}`));
    }, PROCESS_TIMEOUT_MS);
    child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        let record: LogRecord;
        try {
          record = JSON.parse(line) as LogRecord;
        } catch {
          record = { level: 'unknown', event: 'not-json', line }; // D10 wants JSON lines only: tests see it
        }
        logs.push(record);
        if (record.event === 'listening') {
          clearTimeout(timer);
          resolve(record);
        }
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before listening: ${stderr}`));
    });
  });
  return {
    child,
    pid: child.pid!,
    url: listening.url as string,
    listening,
    logs,
    stderr: () => stderr,
    exited,
    stop(signal = 'SIGTERM') {
      if (!exitedCode) child.kill(signal);
      return exited;
    },
    async kill() {
      if (exitedCode) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A TCP port nobody listens on right now (for BIND_ADDR): the one the embedded cluster uses too. */
export { freePort } from '../../src/db/embedded';

/** True when something accepts TCP connections on 127.0.0.1:`port`. */
export function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The pid of a process that has exited: what a crashed holder leaves in a lock file. */
export function deadPid(): number {
  const { pid } = spawnSync(process.execPath, ['-e', '']);
  if (pid === undefined) throw new Error('could not start a short-lived process');
  try {
    process.kill(pid, 0);
  } catch {
    return pid;
  }
  throw new Error(`pid ${pid} was reused already`);
}
