import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { bindDirectoryLock, BUSY_WAIT_MS, lockAddress, type EmbeddedPaths } from '../db/embedded';
import { Refusal } from '../errors';

/**
 * D2 on the embedded database: the directory's lock (src/db/embedded.ts) is also the admin channel
 * of a running `serve`. Admin commands run in the server's process, on its one PGlite session,
 * instead of interleaving a second client's statements with the server's own (which a
 * protocol-level multiplexer such as pglite-socket would do).
 *
 * One exchange per connection, JSON lines:
 *   command → holder   {nonce}
 *   holder  → command  {pid, serving, proof?}            a holder that is not serving closes here
 *   command → server   {proof, request}                  once the server's proof checked out
 *   server  → command  {ok: true, lines} | {ok: false, message} | {not_run: true}
 * Both proofs are HMAC-SHA256 of the nonce under the key in `admin.key`, which only those who may
 * read the data directory can read: the server never runs a stranger's command, and a command
 * never hands a password to a process squatting the socket's name.
 */
export type AdminAnswer = { ok: true; lines: string[] } | { ok: false; message: string };
export type AdminHandler = (request: unknown) => Promise<AdminAnswer>;

/** Who holds a data directory. `serving`: a server that takes admin requests; otherwise a short-lived holder. */
export interface Holder {
  pid: number;
  serving: boolean;
}

export interface HeldDirectory {
  /** `serve`, once its database is open: run admin requests (those that came earlier waited for this). */
  answerAdminRequests(handle: AdminHandler): void;
  /** `serve`, stopping: new commands wait for the directory; resolves when requests in flight are answered. */
  stopServing(): Promise<void>;
  /** Lets go of the directory. Only after closing the database: the next holder opens it at once. */
  release(): Promise<void>;
}

export type HoldAttempt = { acquired: true; lock: HeldDirectory } | { acquired: false; holder: Holder | undefined };

const MAX_MESSAGE_CHARS = 64 * 1024;
/** How long a connection may stay silent while the other side owes a message. */
const SILENCE_MS = 10_000;

/** Reads newline-terminated JSON messages; `next()` rejects once the connection ends or fails. */
function messages(socket: net.Socket) {
  let buffer = '';
  const lines: string[] = [];
  let waiter: { resolve: (line: string) => void; reject: (error: Error) => void } | undefined;
  let failure: Error | undefined;
  const settle = () => {
    if (!waiter) return;
    const line = lines.shift();
    if (line !== undefined) waiter.resolve(line);
    else if (failure) waiter.reject(failure);
    else return;
    waiter = undefined;
  };
  const fail = (error: Error) => {
    failure ??= error;
    settle();
  };
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
      lines.push(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
    }
    if (buffer.length > MAX_MESSAGE_CHARS) {
      socket.destroy();
      fail(new Error('admin message too long'));
    }
    settle();
  });
  socket.on('error', fail);
  socket.on('close', () => fail(new Error('the admin connection closed')));
  return {
    /** `silenceMs` 0: wait as long as it takes (an admin command waiting for the server's answer). */
    async next(silenceMs = SILENCE_MS): Promise<Record<string, unknown>> {
      if (silenceMs > 0) socket.setTimeout(silenceMs, () => socket.destroy(new Error('the admin connection went silent')));
      try {
        const line = await new Promise<string>((resolve, reject) => {
          waiter = { resolve, reject };
          settle();
        });
        const message: unknown = JSON.parse(line);
        if (typeof message !== 'object' || message === null) throw new Error('not an admin message');
        return message as Record<string, unknown>;
      } finally {
        socket.setTimeout(0);
      }
    },
  };
}

/** The answer of a server that stopped before it could run the request. */
const NOT_RUN = { not_run: true } as const;

const send = (socket: net.Socket, message: unknown) => socket.write(`${JSON.stringify(message)}\n`);

function proof(key: Buffer, side: 'serve' | 'admin', nonce: string): Buffer {
  return createHmac('sha256', key).update(`${side}:${nonce}`).digest();
}

function proves(key: Buffer, side: 'serve' | 'admin', nonce: string, claimed: unknown): boolean {
  if (typeof claimed !== 'string') return false;
  const expected = proof(key, side, nonce);
  const given = Buffer.from(claimed, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * D2: takes the directory's lock, waiting up to BUSY_WAIT_MS while a short-lived process (an admin
 * command, a server on its way out) holds it. While a running server holds it, `whileServed`
 * decides: a value ends the wait with that value, undefined waits on, a throw ends it. At the
 * deadline: the one-line in-use refusal.
 */
export async function waitForDirectory<T>(
  paths: EmbeddedPaths,
  role: 'serve' | 'admin',
  whileServed: (holder: Holder) => Promise<T | undefined>,
): Promise<{ lock: HeldDirectory } | { value: T }> {
  const deadline = Date.now() + BUSY_WAIT_MS;
  for (;;) {
    const attempt = await holdDirectory(paths, role);
    if (attempt.acquired) return { lock: attempt.lock };
    const { holder } = attempt;
    if (holder?.serving) {
      const value = await whileServed(holder);
      if (value !== undefined) return { value };
    }
    if (Date.now() > deadline) {
      throw new Refusal('conflict', `the database in ${paths.dir} is in use by ${holder ? `process ${holder.pid}` : 'another process'}`);
    }
    await sleep(200);
  }
}

/** Takes the directory's lock; `serve` also opens its admin channel on it. */
export async function holdDirectory(paths: EmbeddedPaths, role: 'serve' | 'admin'): Promise<HoldAttempt> {
  const key = role === 'serve' ? randomBytes(32) : undefined;
  let serving = role === 'serve';
  let handler: AdminHandler | undefined;
  const waitingForHandler = new Set<(handle: AdminHandler | undefined) => void>();
  const inFlight = new Set<Promise<void>>();
  const connections = new Set<net.Socket>();

  async function answer(connection: net.Socket): Promise<void> {
    const reader = messages(connection);
    const { nonce } = await reader.next();
    if (typeof nonce !== 'string' || nonce.length > 100) throw new Error('no nonce');
    if (!serving || !key) {
      connection.end(`${JSON.stringify({ pid: process.pid, serving: false } satisfies Holder)}\n`);
      return;
    }
    send(connection, { pid: process.pid, serving: true, proof: proof(key, 'serve', nonce).toString('base64url') });
    const { proof: claimed, request } = await reader.next();
    if (!proves(key, 'admin', nonce, claimed)) {
      connection.end(`${JSON.stringify({ ok: false, message: 'the admin command could not prove it may use this data directory' })}\n`);
      return;
    }
    const handle = handler ?? (await new Promise<AdminHandler | undefined>((resolve) => waitingForHandler.add(resolve)));
    // A server stopping before its database opened never ran the request: the command may send it again.
    const outcome: AdminAnswer | typeof NOT_RUN = handle ? await handle(request) : NOT_RUN;
    connection.end(`${JSON.stringify(outcome)}\n`);
  }

  const server = await bindDirectoryLock(paths, (connection) => {
    connections.add(connection);
    connection.on('close', () => connections.delete(connection));
    connection.on('error', () => connection.destroy());
    // Tracked from the start: a command greeted as served gets its answer before the server stops.
    const done = answer(connection).catch(() => {
      connection.destroy();
    });
    if (serving) {
      inFlight.add(done);
      void done.finally(() => inFlight.delete(done));
    }
  });
  if (!server) return { acquired: false, holder: await whoHolds(paths) };

  if (key) {
    const temporary = `${paths.adminKey}.${process.pid}`;
    writeFileSync(temporary, key, { mode: 0o600 });
    renameSync(temporary, paths.adminKey);
  }
  const stopServing = async () => {
    serving = false;
    for (const resolve of waitingForHandler) resolve(undefined);
    waitingForHandler.clear();
    await Promise.all(inFlight);
  };
  return {
    acquired: true,
    lock: {
      answerAdminRequests(handle) {
        handler = handle;
        for (const resolve of waitingForHandler) resolve(handle);
        waitingForHandler.clear();
      },
      stopServing,
      async release() {
        await stopServing();
        if (key) rmSync(paths.adminKey, { force: true });
        for (const connection of connections) connection.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    },
  };
}

interface Greeting {
  connection: net.Socket;
  reader: ReturnType<typeof messages>;
  nonce: string;
  holder: Holder;
  serverProof: unknown;
}

/** Connects to the directory's lock and reads who holds it; undefined when nobody does (any more). */
async function greet(paths: EmbeddedPaths): Promise<Greeting | undefined> {
  const connection = net.createConnection(lockAddress(paths.dir));
  const reader = messages(connection);
  const nonce = randomBytes(32).toString('base64url');
  send(connection, { nonce });
  try {
    const { pid, serving, proof: serverProof } = await reader.next();
    if (typeof pid !== 'number' || typeof serving !== 'boolean') throw new Error('not a greeting');
    return { connection, reader, nonce, holder: { pid, serving }, serverProof };
  } catch {
    connection.destroy();
    return undefined;
  }
}

/** The holder of the directory, or undefined when nobody holds it. */
export async function whoHolds(paths: EmbeddedPaths): Promise<Holder | undefined> {
  const greeting = await greet(paths);
  greeting?.connection.destroy();
  return greeting?.holder;
}

/**
 * Not delivered: nobody serves the directory right now (the holder is an admin command, a server
 * starting to stop, or gone) and the request never left this process, or the server that took it
 * stopped before opening its database; either way nothing ran, so trying again is safe.
 */
export type Delivery = { delivered: true; answer: AdminAnswer } | { delivered: false; holder: Holder | undefined };

/**
 * Hands one request to the `serve` holding the directory. Once the request is sent it is sent
 * again only if the server says it never ran it: a connection that breaks before the answer is an
 * error (the command may have run).
 */
export async function sendAdminRequest(paths: EmbeddedPaths, request: unknown): Promise<Delivery> {
  const greeting = await greet(paths);
  if (!greeting?.holder.serving) {
    greeting?.connection.destroy();
    return { delivered: false, holder: greeting?.holder };
  }
  const { connection, reader, nonce, holder } = greeting;
  let key: Buffer;
  try {
    key = readFileSync(paths.adminKey);
  } catch (error) {
    connection.destroy();
    throw new Refusal('forbidden', `cannot read ${paths.adminKey}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  if (!proves(key, 'serve', nonce, greeting.serverProof)) {
    connection.destroy();
    throw new Refusal('conflict', `process ${holder.pid} holds ${paths.dir} but cannot prove it is its ledger server`);
  }
  send(connection, { proof: proof(key, 'admin', nonce).toString('base64url'), request });
  let answer: Record<string, unknown>;
  try {
    answer = await reader.next(0);
  } catch {
    connection.destroy();
    throw new Refusal(
      'conflict',
      `the server (process ${holder.pid}) closed the admin connection without an answer; the command may or may not have run`,
    );
  }
  connection.end();
  if (answer.not_run === true) return { delivered: false, holder };
  return { delivered: true, answer: answer as AdminAnswer };
}
