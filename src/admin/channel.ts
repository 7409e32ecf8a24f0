import { chmodSync, unlinkSync } from 'node:fs';
import net from 'node:net';

/**
 * The admin socket of a running `serve` on the embedded database (D2): a Unix socket inside the
 * data directory (mode 0600, in a 0700 directory), one JSON request and one JSON answer per
 * connection. Admin commands run in the server's process, on its one PGlite session, instead of
 * interleaving a second client's statements with the server's own (which a protocol-level
 * multiplexer such as pglite-socket would do).
 */
export type AdminAnswer = { ok: true; lines: string[] } | { ok: false; message: string };

const MAX_REQUEST_BYTES = 64 * 1024;

export async function listenAdminSocket(
  socketPath: string,
  handle: (request: unknown) => Promise<AdminAnswer>,
): Promise<net.Server> {
  try {
    unlinkSync(socketPath); // left behind by a process that was killed
  } catch {
    // none
  }
  const server = net.createServer((connection) => {
    let buffer = '';
    connection.setEncoding('utf8');
    connection.on('error', () => connection.destroy());
    connection.on('data', (chunk: string) => {
      buffer += chunk;
      if (buffer.length > MAX_REQUEST_BYTES) return connection.destroy();
      const end = buffer.indexOf('\n');
      if (end === -1) return;
      connection.pause();
      let request: unknown;
      try {
        request = JSON.parse(buffer.slice(0, end));
      } catch {
        request = undefined;
      }
      void handle(request).then((answer) => connection.end(`${JSON.stringify(answer)}\n`));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(socketPath, 0o600);
  return server;
}

/** Sends one request; rejects with the socket error when nobody listens (ENOENT, ECONNREFUSED). */
export function sendAdminRequest(socketPath: string, request: unknown): Promise<AdminAnswer> {
  return new Promise((resolve, reject) => {
    const connection = net.createConnection(socketPath);
    let buffer = '';
    connection.setEncoding('utf8');
    connection.on('connect', () => connection.write(`${JSON.stringify(request)}\n`));
    connection.on('data', (chunk: string) => (buffer += chunk));
    connection.on('error', reject);
    connection.on('end', () => {
      try {
        resolve(JSON.parse(buffer) as AdminAnswer);
      } catch {
        reject(new Error('the server closed the admin connection without an answer'));
      }
    });
  });
}
