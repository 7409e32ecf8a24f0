import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { addAttachment } from '../src/book/attachments';
import { EXPORT_IDLE_MS } from '../src/http/export-budget';
import { RECEIPT_UPLOAD_RETRY_AFTER_SECONDS, RECEIPT_UPLOADS_AT_ONCE } from '../src/http/receipt-uploads';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';
import { freePort, startServe, type ServeProcess } from './support/processes';

// Issue 36 item 4 (D22): receipts hold bounded memory in a real `ledger serve` (the built server),
// its resident memory read from /proc/<pid>/status. 60 clients ask for a 10 MiB receipt and never
// read it: the server keeps a few pieces of each, not the file (before the fix: 162 → 1,074 MiB
// here), and cuts them after the exports' idle time (before: never). 30 uploads of 10 MiB at once:
// RECEIPT_UPLOADS_AT_ONCE are taken, the others answer 503 with Retry-After before their bodies
// are read (before: all taken, 153 → 688 MiB here). The bounds are generous, not tight:
// a quarter of a receipt per stalled download, 7.5 times its size per admitted upload.

const MiB = 1024 * 1024;
const RECEIPT_BYTES = 10 * MiB;
const DOWNLOADS = 60;
const UPLOADS = 30;
/** What 60 stalled downloads may add to the server's memory (the whole file each: 600 MiB; about 65 measured). */
const DOWNLOADS_GROWTH_MIB = 150;
/** What 30 uploads at once may add: those admitted, each under 7.5 times its size (about 4.5 measured: hex to the driver). */
const UPLOADS_GROWTH_MIB = RECEIPT_UPLOADS_AT_ONCE * 75;
const WAIT_MS = 60_000;

const JPEG_HEADER = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]);
/** A photo's worth of bytes that do not compress (photos never do). */
const photo = () => Buffer.concat([JPEG_HEADER, randomBytes(RECEIPT_BYTES - JPEG_HEADER.length)]);

/** The resident memory of process `pid`, in MiB. */
function rssMib(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.replace(/\D+/g, '')) / 1024;
}

/** The sampler running, stopped after each test whatever its outcome. */
let sampler: NodeJS.Timeout | undefined;

/** Samples `pid`'s memory every 50 ms until `stop`, and returns the highest seen. */
function peakOf(pid: number): { stop(): number } {
  let peak = rssMib(pid);
  sampler = setInterval(() => (peak = Math.max(peak, rssMib(pid))), 50);
  return {
    stop() {
      clearInterval(sampler);
      return Math.max(peak, rssMib(pid));
    },
  };
}

/** Resolves when `condition` holds (checked every 50 ms), or rejects naming `what` after WAIT_MS. */
async function until(what: string, condition: () => boolean, ms = WAIT_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A raw HTTP/1.1 client on its own socket: what the server answered first (its status line and headers), and whether it closed. */
interface Client {
  socket: net.Socket;
  head: string | null;
  /** Bytes read, head included. */
  received: number;
  closed: boolean;
}

async function connect(port: number): Promise<Client> {
  // A small read buffer, paused: the client takes the answer's head and nothing more.
  const socket = net.connect({ host: '127.0.0.1', port, readableHighWaterMark: 1024 } as net.NetConnectOpts);
  const client: Client = { socket, head: null, received: 0, closed: false };
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.on('error', () => {});
  socket.once('close', () => (client.closed = true));
  socket.pause();
  let seen = '';
  const readHead = () => {
    const chunk = socket.read() as Buffer | null;
    if (chunk) {
      client.received += chunk.length;
      seen += chunk.toString('latin1');
    }
    const end = seen.indexOf('\r\n\r\n');
    if (end >= 0) {
      client.head = seen.slice(0, end);
      socket.off('readable', readHead);
      socket.pause();
    }
  };
  socket.on('readable', readHead);
  return client;
}

const statusOf = (client: Client) => Number(client.head?.split(' ')[1]);
const headerOf = (client: Client, name: string) =>
  client.head?.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`))?.split(':')[1]!.trim();

describeEachDatabase('receipts hold bounded memory in a real serve (issue 36 item 4, D22)', (h) => {
  let token: string;
  let server: ServeProcess;
  let port: number;
  let transactionId: number;
  let receiptId: number;
  const clients: Client[] = [];

  beforeAll(async () => {
    let userId: number;
    ({ token, userId } = await h.userWithToken('memory@receipts.example'));
    const ids: number[] = [];
    for (const [name, kind] of [['Bank', 'asset'], ['Office', 'expense']] as const) ids.push((await json(await h.call(token, 'POST', '/accounts', { name, kind }))).id);
    transactionId = (await json(await h.call(token, 'POST', '/transactions', {
      occurred_on: '2026-03-01', description: 'Big scan', entries: [{ account_id: ids[1], amount_cents: 500 }, { account_id: ids[0], amount_cents: -500 }],
    }))).id;
    const author = { userId, email: 'memory@receipts.example', via: 'token' as const, clientId: 'ledger-cli' };
    receiptId = (await addAttachment(h.db, transactionId, { name: 'scan.jpg', declaredType: 'image/jpeg', bytes: photo() }, author, 1024 * MiB)).id;
    port = await freePort();
    server = await startServe({ env: { DATABASE_URL: h.database.url, BIND_ADDR: `127.0.0.1:${port}`, WEB_BIND_ADDR: 'off', API_ORIGIN: h.config.apiOrigin } });
    // Warm: one download read to its end, so the baseline has the route's code and the pool's connections.
    const res = await fetch(`http://127.0.0.1:${port}/attachments/${receiptId}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBe(RECEIPT_BYTES);
  }, 120_000);

  afterEach(() => clearInterval(sampler));

  afterAll(async () => {
    for (const client of clients) client.socket.destroy();
    await server?.stop();
  });

  it(`${DOWNLOADS} downloads of a 10 MiB receipt that are never read keep the server's memory flat, and are cut after the exports' idle time`, async () => {
    const before = rssMib(server.pid);
    const sampling = peakOf(server.pid);
    const stalled: Client[] = [];
    for (let i = 0; i < DOWNLOADS; i++) {
      const client = await connect(port);
      stalled.push(client);
      clients.push(client);
      client.socket.write(`GET /attachments/${receiptId} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    }
    await until('every download answered', () => stalled.every((c) => c.head !== null));
    expect(stalled.map(statusOf)).toEqual(stalled.map(() => 200));
    // Let every answer run into its socket's back-pressure.
    await new Promise((r) => setTimeout(r, 3_000));
    const peak = sampling.stop();
    const growth = peak - before;
    console.info(`issue 36 item 4 [${h.backend}]: ${DOWNLOADS} unread downloads of a 10 MiB receipt: RSS ${before.toFixed(0)} → peak ${peak.toFixed(0)} MiB (+${growth.toFixed(0)})`);
    expect(growth, `RSS ${before.toFixed(0)} → ${peak.toFixed(0)} MiB`).toBeLessThan(DOWNLOADS_GROWTH_MIB);
    // The exports' idle cut: a download whose client takes nothing is ended by the server, which
    // says so; read now, each stops short of the receipt and closes.
    const cuts = () => server.logs.filter((l) => l.event === 'receipt.stalled').length;
    await until(`${DOWNLOADS} downloads cut by the server`, () => cuts() >= DOWNLOADS, EXPORT_IDLE_MS + 30_000);
    for (const client of stalled) {
      client.socket.on('data', (chunk: Buffer) => (client.received += chunk.length));
      client.socket.resume();
    }
    await until('every stalled download closed', () => stalled.every((c) => c.closed));
    expect(stalled.filter((c) => c.received >= RECEIPT_BYTES)).toEqual([]);
    // And the server still answers.
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
  }, 120_000);

  it(`${UPLOADS} uploads of 10 MiB at once: ${RECEIPT_UPLOADS_AT_ONCE} are taken, the others answer 503 with Retry-After before their bodies are read; memory stays bounded`, async () => {
    const body = photo();
    const half = RECEIPT_BYTES / 2;
    const before = rssMib(server.pid);
    const sampling = peakOf(server.pid);
    const uploads: Client[] = [];
    for (let i = 0; i < UPLOADS; i++) {
      const client = await connect(port);
      uploads.push(client);
      clients.push(client);
      client.socket.write(
        `POST /transactions/${transactionId}/attachments?name=upload-${i}.jpg HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n` +
          `Content-Type: image/jpeg\r\nContent-Length: ${RECEIPT_BYTES}\r\n\r\n`,
      );
      client.socket.write(body.subarray(0, half));
    }
    // Those beyond the cap are answered while the admitted ones still wait for the rest of their bodies.
    await until(`${UPLOADS - RECEIPT_UPLOADS_AT_ONCE} uploads refused`, () => uploads.filter((c) => c.head !== null).length >= UPLOADS - RECEIPT_UPLOADS_AT_ONCE, 20_000);
    await new Promise((r) => setTimeout(r, 500));
    const refused = uploads.filter((c) => c.head !== null);
    const admitted = uploads.filter((c) => c.head === null);
    expect(refused.map(statusOf)).toEqual(refused.map(() => 503));
    expect(admitted).toHaveLength(RECEIPT_UPLOADS_AT_ONCE);
    for (const client of refused) {
      expect(headerOf(client, 'Retry-After')).toBe(String(RECEIPT_UPLOAD_RETRY_AFTER_SECONDS));
    }
    for (const client of admitted) client.socket.write(body.subarray(half));
    await until('the admitted uploads answered', () => admitted.every((c) => c.head !== null));
    const peak = sampling.stop();
    expect(admitted.map(statusOf)).toEqual(admitted.map(() => 201));
    const growth = peak - before;
    console.info(`issue 36 item 4 [${h.backend}]: ${UPLOADS} uploads of 10 MiB at once: RSS ${before.toFixed(0)} → peak ${peak.toFixed(0)} MiB (+${growth.toFixed(0)})`);
    expect(growth, `RSS ${before.toFixed(0)} → ${peak.toFixed(0)} MiB`).toBeLessThan(UPLOADS_GROWTH_MIB);
    // Only the admitted ones were stored.
    const usage = await fetch(`http://127.0.0.1:${port}/attachments/usage`, { headers: { authorization: `Bearer ${token}` } });
    expect((await usage.json()).count).toBe(1 + RECEIPT_UPLOADS_AT_ONCE);
  }, 120_000);
});
