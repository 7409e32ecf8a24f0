import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openConnection, rowsOf, type Db } from '../src/db/database';
import * as schema from '../src/db/schema';
import { addAttachment, cleanAttachmentName, RECEIPT_PIECE_BYTES, STORAGE_FULL } from '../src/book/attachments';
import { reconcileAccount } from '../src/book/reconciliation';
import { createApp } from '../src/http/app';
import { RECEIPT_UPLOAD_RETRY_AFTER_SECONDS, RECEIPT_UPLOADS_AT_ONCE, RECEIPT_UPLOADS_BUSY } from '../src/http/receipt-uploads';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';

// D22 over HTTP on both databases: each accepted type (by its bytes) and each refused one, a
// declared type that differs, a polyglot (a PNG header, then HTML) stored and served as PNG only,
// 10 MiB exactly and one byte more (with and without Content-Length), the quotas, every header of
// the download, the names, the change records, delete refused in a closed period and on a
// reconciled transaction, and receipts kept through a transaction's delete and restore.
// Issue 36 items 4 and 5: a deleted transaction's receipts listed and removable, the storage
// figure's deleted part, HEAD and 304 without reading the bytes (every statement the app sends is
// watched), a download in pieces, and a removal racing a reconciliation refused by the database.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const MiB = 1024 * 1024;
/** Change records are dated by the clock (UTC days). */
const TODAY_FOR_CHANGES = new Date().toISOString().slice(0, 10);
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
const pad = (head: Buffer, size = 64) => Buffer.concat([head, Buffer.alloc(Math.max(0, size - head.length), 0x20)]);
const SAMPLES: Record<string, Buffer> = {
  'image/jpeg': pad(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00])),
  'image/png': PNG,
  'image/webp': pad(Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0, 0, 0]), Buffer.from('WEBPVP8 ')])),
  'image/gif': pad(Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1')),
  'image/heic': pad(Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic'), Buffer.from([0, 0, 0, 0]), Buffer.from('mif1heic')])),
  'application/pdf': Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n'),
};
const POLYGLOT = Buffer.concat([PNG, Buffer.from('<html><script>alert(document.domain)</script></html>')]);

/** The entry names of a ZIP as its central directory holds them (UTF-8, yazl sets the flag): what any unzip writes. */
function zipEntryNames(zip: Buffer): string[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  const names: string[] = [];
  for (let at = zip.readUInt32LE(end + 16), i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const [nameLength, extraLength, commentLength] = [zip.readUInt16LE(at + 28), zip.readUInt16LE(at + 30), zip.readUInt16LE(at + 32)];
    names.push(zip.subarray(at + 46, at + 46 + nameLength).toString('utf8'));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return names;
}

describeEachDatabase('receipts (D22)', (h) => {
  let token: string;
  const ids: Record<string, number> = {};
  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);
  const upload = (transactionId: number, bytes: Buffer, type?: string, name?: string, headers: Record<string, string> = {}) =>
    h.request(`/transactions/${transactionId}/attachments${name === undefined ? '' : `?name=${encodeURIComponent(name)}`}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, ...(type ? { 'content-type': type } : {}), ...headers },
      body: new Uint8Array(bytes),
    });
  const newTransaction = async (on = '2026-03-01', description = 'Printer paper') => {
    const res = await api('POST', '/transactions', { occurred_on: on, description, entries: [{ account_id: ids.Office!, amount_cents: 1_999 }, { account_id: ids.Bank!, amount_cents: -1_999 }] });
    expect(res.status).toBe(201);
    return (await json(res)).id as number;
  };
  const attachmentCount = async () => Number(rowsOf<{ n: string }>(await h.db.execute(sql`select count(*)::text as n from attachments`))[0]!.n);

  beforeAll(async () => {
    ({ token } = await h.userWithToken('auditor@receipts.example'));
    for (const [name, kind] of [['Bank', 'asset'], ['Office', 'expense']] as const) {
      ids[name] = (await json(await api('POST', '/accounts', { name, kind }))).id;
    }
  });

  it('each accepted type, judged by its bytes, is stored: 201 with exactly D22\'s metadata; the list; the bytes back with every header', async () => {
    const tx = await newTransaction();
    for (const [type, bytes] of Object.entries(SAMPLES)) {
      const res = await upload(tx, bytes, type, `scan ${type.split('/')[1]}.bin`);
      expect(res.status, `${type}: ${await res.clone().text()}`).toBe(201);
      const made = await json(res);
      expect(made).toStrictEqual({
        id: expect.any(Number), transaction_id: tx, name: `scan ${type.split('/')[1]}.bin`, content_type: type, size: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'), created_at: expect.stringMatching(/Z$/), created_by_email: 'auditor@receipts.example',
      });
      const back = await h.call(token, 'GET', `/attachments/${made.id}`);
      expect(back.status).toBe(200);
      expect(back.headers.get('content-type')).toBe(type);
      expect(back.headers.get('x-content-type-options')).toBe('nosniff');
      expect(back.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
      expect(back.headers.get('etag')).toBe(`"${made.sha256}"`);
      expect(back.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''scan%20${type.split('/')[1]}.bin`);
      expect(Buffer.from(await back.arrayBuffer()).equals(bytes)).toBe(true);
      const inline = await h.call(token, 'GET', `/attachments/${made.id}?inline=1`);
      // Inline for images only: a PDF is always a download.
      expect(inline.headers.get('content-disposition')!.split(';')[0]).toBe(type.startsWith('image/') ? 'inline' : 'attachment');
      const again = await h.request(`/attachments/${made.id}`, { headers: { authorization: `Bearer ${token}`, 'if-none-match': `"${made.sha256}"` } });
      expect(again.status).toBe(304);
    }
    const list = await json(await api('GET', `/transactions/${tx}/attachments`));
    expect(list.map((a: Json) => a.content_type)).toEqual(Object.keys(SAMPLES));
    // Declared as nothing in particular: the bytes decide.
    expect((await upload(tx, SAMPLES['image/png']!, 'application/octet-stream')).status).toBe(201);
    expect((await upload(tx, SAMPLES['image/jpeg']!, 'image/jpg')).status).toBe(201);
  });

  it('415 for anything else (SVG, HTML, text) and for a declared type that differs; nothing stored (an empty body: 400, issue 37 item 13 below)', async () => {
    const tx = await newTransaction();
    const before = await attachmentCount();
    for (const [body, type] of [
      [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'image/svg+xml'],
      [Buffer.from('<!doctype html><script>alert(1)</script>'), 'text/html'],
      [Buffer.from('just a note'), 'text/plain'],
      [SAMPLES['image/png']!, 'application/pdf'],
      [SAMPLES['application/pdf']!, 'image/jpeg'],
    ] as const) {
      const res = await upload(tx, body, type);
      expect(res.status, type).toBe(415);
      expect(Object.keys(await json(res))).toEqual(['error']);
    }
    expect(await attachmentCount()).toBe(before);
  });

  it('a polyglot (a PNG header, then HTML) is stored as PNG and never served as HTML; declared as HTML it is refused', async () => {
    const tx = await newTransaction();
    expect((await upload(tx, POLYGLOT, 'text/html')).status).toBe(415);
    const made = await json(await upload(tx, POLYGLOT, 'image/png', 'evil.html'));
    expect(made.content_type).toBe('image/png');
    const back = await h.call(token, 'GET', `/attachments/${made.id}?inline=1`);
    expect(back.headers.get('content-type')).toBe('image/png');
    expect(back.headers.get('x-content-type-options')).toBe('nosniff');
    expect(back.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
  });

  it('10 MiB exactly is stored; one byte more is 413, with or without Content-Length, and a lying Content-Length is refused before reading', async () => {
    const tx = await newTransaction();
    const exactly = Buffer.concat([SAMPLES['application/pdf']!, Buffer.alloc(10 * MiB - SAMPLES['application/pdf']!.length, 0x20)]);
    expect((await upload(tx, exactly, 'application/pdf')).status).toBe(201);
    const before = await attachmentCount();
    const over = Buffer.concat([exactly, Buffer.from(' ')]);
    const tooBig = await upload(tx, over, 'application/pdf');
    expect(tooBig.status).toBe(413);
    expect(Object.keys(await json(tooBig))).toEqual(['error']);
    // Chunked (no Content-Length): cut while reading.
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let sent = 0; sent < over.length; sent += MiB) controller.enqueue(over.subarray(sent, sent + MiB));
        controller.close();
      },
    });
    const chunked = await h.request(`/transactions/${tx}/attachments`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/pdf' }, body: stream, duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    const lying = await h.request(`/transactions/${tx}/attachments`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/pdf', 'content-length': String(2 * 1024 * MiB) }, body: new Uint8Array(SAMPLES['application/pdf']!),
    });
    expect(lying.status).toBe(413);
    expect(await attachmentCount()).toBe(before);
    // Other routes keep D6's 1 MiB.
    const big = await h.request('/transactions', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: `{"x":"${'a'.repeat(MiB)}"}` });
    expect(big.status).toBe(413);
  });

  it('at most 20 per transaction (409); 404 for no such transaction or attachment; 400 for a bad id', async () => {
    const tx = await newTransaction();
    for (let i = 0; i < 20; i++) expect((await upload(tx, SAMPLES['image/gif']!, 'image/gif')).status).toBe(201);
    const twentyFirst = await upload(tx, SAMPLES['image/gif']!, 'image/gif');
    expect(twentyFirst.status).toBe(409);
    expect((await json(twentyFirst)).error).toMatch(/at most 20/);
    expect((await upload(999_999, SAMPLES['image/gif']!, 'image/gif')).status).toBe(404);
    expect((await api('GET', '/transactions/999999/attachments')).status).toBe(404);
    expect((await api('GET', '/attachments/999999')).status).toBe(404);
    expect((await api('DELETE', '/attachments/999999')).status).toBe(404);
    expect((await api('GET', '/attachments/abc')).status).toBe(400);
  });

  it('D21: an upload retried with the same Idempotency-Key stores one receipt and replays the first answer', async () => {
    const tx = await newTransaction();
    const send = () => upload(tx, SAMPLES['image/png']!, 'image/png', 'retried.png', { 'idempotency-key': '"receipt-retry-1"' });
    const first = await send();
    const again = await send();
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expect((await json(await api('GET', `/transactions/${tx}/attachments`))).filter((a: Json) => a.name === 'retried.png')).toHaveLength(1);
    // The same key with other bytes is refused (422), nothing stored.
    expect((await upload(tx, SAMPLES['image/gif']!, 'image/gif', 'retried.png', { 'idempotency-key': '"receipt-retry-1"' })).status).toBe(422);
  });

  it(`issue 36 item 4: at most ${RECEIPT_UPLOADS_AT_ONCE} uploads in flight; one more answers 503 {error} with Retry-After before its body is read, and stores nothing`, async () => {
    const tx = await newTransaction('2026-03-05', 'Many scans');
    const before = await attachmentCount();
    const finish: (() => void)[] = [];
    const held = Array.from({ length: RECEIPT_UPLOADS_AT_ONCE }, (_, i) => {
      // A body that has sent its first bytes and waits for the rest: its upload holds a place.
      const bytes = SAMPLES['image/png']!;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new Uint8Array(bytes.subarray(0, 8)));
          finish.push(() => {
            controller.enqueue(new Uint8Array(bytes.subarray(8)));
            controller.close();
          });
        },
      });
      return h.request(`/transactions/${tx}/attachments?name=held-${i}.png`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png', 'content-length': String(bytes.length) }, body, duplex: 'half',
      } as RequestInit);
    });
    await new Promise((r) => setTimeout(r, 200));
    let read = false;
    // highWaterMark 0: pulled only when someone reads it.
    const unread = new ReadableStream<Uint8Array>({
      pull(controller) {
        read = true;
        controller.enqueue(new Uint8Array(SAMPLES['image/png']!));
        controller.close();
      },
    }, { highWaterMark: 0 });
    const refused = await h.request(`/transactions/${tx}/attachments?name=one-more.png`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png', 'content-length': String(SAMPLES['image/png']!.length) }, body: unread, duplex: 'half',
    } as RequestInit);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe(String(RECEIPT_UPLOAD_RETRY_AFTER_SECONDS));
    expect(await json(refused)).toEqual({ error: RECEIPT_UPLOADS_BUSY });
    expect(read, 'the refused body was not read').toBe(false);
    for (const send of finish) send();
    expect((await Promise.all(held)).map((r) => r.status)).toEqual(held.map(() => 201));
    expect(await attachmentCount()).toBe(before + RECEIPT_UPLOADS_AT_ONCE);
    // Places are given back: the next upload is taken.
    expect((await upload(tx, SAMPLES['image/png']!, 'image/png', 'after.png')).status).toBe(201);
  });

  it('RECEIPTS_MAX_MB: a receipt that would take the book past its limit is refused (409, the storage is full), nothing stored', async () => {
    const tx = await newTransaction();
    const before = await attachmentCount();
    const [{ used }] = rowsOf<{ used: string }>(await h.db.execute(sql`select coalesce(sum(size), 0)::text as used from attachments`)) as [{ used: string }];
    const author = { userId: null, email: 'auditor@receipts.example', via: 'token' as const, clientId: 'ledger-cli' };
    const limit = Number(used) + SAMPLES['image/png']!.length;
    await addAttachment(h.db, tx, { name: 'fits.png', declaredType: 'image/png', bytes: SAMPLES['image/png']! }, author, limit);
    await expect(addAttachment(h.db, tx, { name: 'full.png', declaredType: 'image/png', bytes: SAMPLES['image/png']! }, author, limit)).rejects.toMatchObject({ reason: 'conflict', message: STORAGE_FULL });
    expect(await attachmentCount()).toBe(before + 1);
  });

  it('names: D13\'s removed characters, slashes, backslashes and leading dots go; 200 characters at most; none: "receipt"', async () => {
    expect(cleanAttachmentName('../../etc/passwd')).toBe('etcpasswd');
    expect(cleanAttachmentName('..\\..\\boot.ini')).toBe('boot.ini');
    expect(cleanAttachmentName('re\u202Egnp.exe')).toBe('regnp.exe');
    expect(cleanAttachmentName('Quittung\u200B März.pdf')).toBe('Quittung März.pdf');
    expect(cleanAttachmentName('a'.repeat(250))).toHaveLength(200);
    // Issue 37 item 3 (D22, names that travel): the cut falls before the extension, never inside a character.
    expect(cleanAttachmentName(`${'a'.repeat(250)}.pdf`)).toBe(`${'a'.repeat(196)}.pdf`);
    expect(cleanAttachmentName(`${'🧾'.repeat(250)}.jpeg`)).toBe(`${'🧾'.repeat(195)}.jpeg`);
    expect(cleanAttachmentName(`${'e\u0301\u0323'.repeat(100)}.pdf`)).toBe(`${'\u1EB9\u0301'.repeat(98)}.pdf`);
    expect(cleanAttachmentName('half \uD83E.pdf').isWellFormed()).toBe(true);
    expect(cleanAttachmentName(`notes v1.2 ${'x'.repeat(250)}`)).toBe(`notes v1.2 ${'x'.repeat(189)}`);
    expect(cleanAttachmentName('...')).toBe('receipt');
    expect(cleanAttachmentName(undefined)).toBe('receipt');
    const tx = await newTransaction();
    const made = await json(await upload(tx, SAMPLES['application/pdf']!, 'application/pdf', 'Rechnung März/2026.pdf'));
    expect(made.name).toBe('Rechnung März2026.pdf');
    const back = await h.call(token, 'GET', `/attachments/${made.id}`);
    expect(back.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''Rechnung%20M%C3%A4rz2026.pdf");
    expect((await json(await upload(tx, SAMPLES['application/pdf']!, 'application/pdf'))).name).toBe('receipt');
  });

  it('change records (subject attachment, metadata only); DELETE → 204; refused in a closed period and on a reconciled transaction', async () => {
    const tx = await newTransaction('2026-02-01', 'Toner');
    const made = await json(await upload(tx, SAMPLES['image/png']!, 'image/png', 'toner.png'));
    const created = (await json(await api('GET', `/changes?subject=attachment&subject_id=${made.id}`))).changes[0];
    expect(created).toMatchObject({ subject: 'attachment', subject_id: made.id, action: 'create', before: null, after: made });
    expect(JSON.stringify(created)).not.toContain(SAMPLES['image/png']!.toString('base64'));

    await api('PUT', '/settings', { closed_through: '2026-02-28' });
    try {
      const refused = await api('DELETE', `/attachments/${made.id}`);
      expect(refused.status).toBe(409);
      expect(await json(refused)).toEqual({ error: 'the books are closed through 2026-02-28' });
    } finally {
      await api('PUT', '/settings', { closed_through: null });
    }
    const reconciledTx = await newTransaction('2026-01-15', 'Reconciled stamp');
    const stamp = await json(await upload(reconciledTx, SAMPLES['image/png']!, 'image/png'));
    const account = await json(await api('POST', '/accounts', { name: 'Receipts reconciled', kind: 'asset' }));
    const rtx = await json(await api('POST', '/transactions', { occurred_on: '2026-01-16', description: 'Stamps', entries: [{ account_id: account.id, amount_cents: -500 }, { account_id: ids.Office, amount_cents: 500 }] }));
    const onIt = await json(await upload(rtx.id, SAMPLES['image/png']!, 'image/png'));
    expect((await api('POST', `/accounts/${account.id}/reconciliations`, { statement_date: '2026-01-31', statement_balance_cents: -500 })).status).toBe(201);
    const locked = await api('DELETE', `/attachments/${onIt.id}`);
    expect(locked.status).toBe(409);
    expect(await json(locked)).toEqual({ error: 'the transaction is reconciled' });

    expect((await api('DELETE', `/attachments/${stamp.id}`)).status).toBe(204);
    expect((await api('GET', `/attachments/${stamp.id}`)).status).toBe(404);
    const deleted = (await json(await api('GET', `/changes?subject=attachment&subject_id=${stamp.id}`))).changes[0];
    expect(deleted).toMatchObject({ action: 'delete', before: stamp, after: null });
  });

  it('a deleted transaction keeps its receipts, listed on it (D15\'s restore path, issue 36 item 4); restored, they are listed again', async () => {
    const tx = await newTransaction('2026-04-01', 'Desk lamp');
    const made = await json(await upload(tx, SAMPLES['image/jpeg']!, 'image/jpeg', 'lamp.jpg'));
    expect((await api('DELETE', `/transactions/${tx}`)).status).toBe(204);
    const kept = await api('GET', `/transactions/${tx}/attachments`);
    expect(kept.status).toBe(200);
    expect(await json(kept)).toEqual([made]);
    expect((await api('POST', `/transactions/${tx}/restore`)).status).toBe(201);
    expect((await json(await api('GET', `/transactions/${tx}/attachments`))).map((a: Json) => a.id)).toEqual([made.id]);
    // A deleted transaction that had none lists none; an id never used is still unknown.
    const bare = await newTransaction('2026-04-02', 'No receipt');
    expect((await api('DELETE', `/transactions/${bare}`)).status).toBe(204);
    expect(await json(await api('GET', `/transactions/${bare}/attachments`))).toEqual([]);
    expect((await api('GET', '/transactions/999998/attachments')).status).toBe(404);
  });

  it('issue 36 item 4: receipts of a deleted transaction are removable, even dated in a closed period; the storage figure says what deleted transactions hold', async () => {
    const usageNow = async () => json(await api('GET', '/attachments/usage'));
    const before = await usageNow();
    const tx = await newTransaction('2026-05-04', 'Shredded invoice');
    const pdf = await json(await upload(tx, SAMPLES['application/pdf']!, 'application/pdf', 'invoice.pdf'));
    const gif = await json(await upload(tx, SAMPLES['image/gif']!, 'image/gif', 'stamp.gif'));
    expect((await api('DELETE', `/transactions/${tx}`)).status).toBe(204);
    const held = await usageNow();
    expect(held).toStrictEqual({
      used_bytes: before.used_bytes + pdf.size + gif.size,
      count: before.count + 2,
      deleted_bytes: before.deleted_bytes + pdf.size + gif.size,
      deleted_count: before.deleted_count + 2,
      limit_bytes: 1024 * MiB,
    });
    await api('PUT', '/settings', { closed_through: '2026-05-31' });
    try {
      // The transaction is gone (its restore would be refused in the closed period): nothing of the book is changed by removing what it left.
      expect((await api('DELETE', `/attachments/${pdf.id}`)).status).toBe(204);
    } finally {
      await api('PUT', '/settings', { closed_through: null });
    }
    expect((await json(await api('GET', `/transactions/${tx}/attachments`))).map((a: Json) => a.id)).toEqual([gif.id]);
    const after = await usageNow();
    expect(after.deleted_bytes).toBe(before.deleted_bytes + gif.size);
    expect(after.deleted_count).toBe(before.deleted_count + 1);
    expect((await json(await api('GET', `/changes?subject=attachment&subject_id=${pdf.id}`))).changes[0]).toMatchObject({ action: 'delete', before: pdf, after: null });
    // Restored, its remaining receipt is the book's again.
    expect((await api('POST', `/transactions/${tx}/restore`)).status).toBe(201);
    expect((await usageNow()).deleted_bytes).toBe(before.deleted_bytes);
  });

  it('GET /attachments/usage: the bytes used, the count, the part of deleted transactions and the limit', async () => {
    const usage = await json(await api('GET', '/attachments/usage'));
    const [row] = rowsOf<{ bytes: string; n: string; gone: string; gone_n: string }>(await h.db.execute(sql`
      select coalesce(sum(size), 0)::text as bytes, count(*)::text as n,
        coalesce(sum(size) filter (where transaction_id not in (select id from transactions)), 0)::text as gone,
        count(*) filter (where transaction_id not in (select id from transactions))::text as gone_n
      from attachments`));
    expect(usage).toStrictEqual({ used_bytes: Number(row!.bytes), count: Number(row!.n), deleted_bytes: Number(row!.gone), deleted_count: Number(row!.gone_n), limit_bytes: 1024 * MiB });
  });

  it('GET /export/receipts.zip: every receipt of the period, named by date, transaction and name (colliding ones numbered), and index.csv; a real unzip reads it', async () => {
    const a = await newTransaction('2025-07-01', 'Hall, "summer" party');
    const b = await newTransaction('2025-07-02', '=SUM(A1)');
    await newTransaction('2025-08-01', 'Out of the period');
    const files = [
      [a, SAMPLES['image/jpeg']!, 'image/jpeg', 'till.jpg'],
      [a, SAMPLES['image/png']!, 'image/png', 'till.jpg'],
      [a, SAMPLES['application/pdf']!, 'application/pdf', 'invoice'],
      [b, SAMPLES['image/gif']!, 'image/gif', 'stamp.gif'],
    ] as const;
    // The JPEG's name is what was sent; the second "till.jpg" (a PNG) collides and gets -2.
    for (const [tx, bytes, type, name] of files) expect((await upload(tx, bytes, type, name)).status).toBe(201);
    const res = await api('GET', '/export/receipts.zip?from=2025-07-01&to=2025-07-31');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="receipts.zip"');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ledger-receipts-'));
    const file = path.join(dir, 'receipts.zip');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    expect(execFileSync('unzip', ['-t', file]).toString()).toMatch(/No errors detected/);
    execFileSync('unzip', ['-q', file, '-d', path.join(dir, 'out')]);
    const names = [`2025-07-01_${a}_till.jpg`, `2025-07-01_${a}_till-2.jpg`, `2025-07-01_${a}_invoice`, `2025-07-02_${b}_stamp.gif`];
    expect(readdirSync(path.join(dir, 'out')).sort()).toEqual([...names, 'index.csv'].sort());
    files.forEach(([, bytes], i) => expect(readFileSync(path.join(dir, 'out', names[i]!)).equals(bytes), names[i]).toBe(true));
    expect(readFileSync(path.join(dir, 'out', 'index.csv'), 'utf8')).toBe(
      [
        'transaction_id,occurred_on,description,amount,file',
        ...names.slice(0, 3).map((n) => `${a},2025-07-01,"Hall, ""summer"" party",19.99,${n}`),
        `${b},2025-07-02,'=SUM(A1),19.99,${names[3]}`,
        '',
      ].join('\r\n'),
    );
    const empty = await api('GET', '/export/receipts.zip?from=1990-01-01&to=1990-01-31');
    const emptyFile = path.join(dir, 'empty.zip');
    writeFileSync(emptyFile, Buffer.from(await empty.arrayBuffer()));
    expect(execFileSync('unzip', ['-l', emptyFile]).toString()).toMatch(/index\.csv/);
  });

  it('GET /export/changes.csv: the change log of the period, oldest first, in History\'s words', async () => {
    const tx = await newTransaction(TODAY_FOR_CHANGES, 'Coffee for the board');
    const made = await json(await upload(tx, SAMPLES['image/png']!, 'image/png', 'coffee.png'));
    const res = await api('GET', `/export/changes.csv?from=${TODAY_FOR_CHANGES}&to=${TODAY_FOR_CHANGES}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = (await res.text()).split('\r\n');
    expect(lines[0]).toBe('id,at,actor_email,via,client_id,subject,subject_id,action,summary');
    const ids = lines.slice(1, -1).map((l) => Number(l.split(',')[0]));
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    const recorded = lines.find((l) => l.includes(`,transaction,${tx},create,`))!;
    expect(recorded).toMatch(/,auditor@receipts\.example,token,ledger-cli,transaction,\d+,create,auditor@receipts\.example recorded “Coffee for the board” \(€19\.99\) with a token\.$/);
    const added = lines.find((l) => l.includes(`,attachment,${made.id},create,`))!;
    // Issue 37 item 6: the transaction by its description and date.
    expect(added).toContain(`added the receipt “coffee.png” to “Coffee for the board” of ${new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', dateStyle: 'medium' }).format(new Date(`${TODAY_FOR_CHANGES}T00:00:00Z`))} with a token.`);
    expect(await (await api('GET', '/export/changes.csv?from=1990-01-01&to=1990-01-01')).text()).toBe('id,at,actor_email,via,client_id,subject,subject_id,action,summary\r\n');
    expect((await api('GET', '/export/changes.csv?from=soon')).status).toBe(400);
  });

  it('the paged list (D15 with limit) says how many receipts each transaction has (the paperclip)', async () => {
    const tx = await newTransaction('2025-09-09', 'Paperclip check');
    await upload(tx, SAMPLES['image/png']!, 'image/png');
    await upload(tx, SAMPLES['image/gif']!, 'image/gif');
    const bare = await newTransaction('2025-09-09', 'No paperclip');
    const page = await json(await api('GET', '/transactions?limit=500&from=2025-09-09&to=2025-09-09'));
    expect(page.find((t: Json) => t.id === tx).attachments).toBe(2);
    expect(page.find((t: Json) => t.id === bare).attachments).toBe(0);
  });

  /** The app over a pool that records every statement it sends: what a request read, seen from outside the code. */
  const statements: string[] = [];
  let watchedConnection: ReturnType<typeof openConnection> | undefined;
  const watchedApp = () => {
    watchedConnection ??= openConnection(h.database.url, { max: 2 }, h.backend);
    const db = drizzle(watchedConnection, { schema, logger: { logQuery: (query) => statements.push(query) } }) as unknown as Db;
    return createApp({ db, config: h.config, log: h.log });
  };
  afterAll(async () => {
    await watchedConnection?.end();
  });
  const readsBytes = () => statements.filter((q) => /"bytes"|substring/i.test(q));

  it('issue 36 items 4 and 5: HEAD and a 304 (If-None-Match: the ETag, W/ or *) never read the bytes; a GET reads them a piece at a time', async () => {
    const tx = await newTransaction('2026-06-01', 'Pieces');
    const bytes = Buffer.concat([PNG, Buffer.alloc(2 * RECEIPT_PIECE_BYTES + 17 - PNG.length, 0x41)]);
    const made = await json(await upload(tx, bytes, 'image/png', 'pieces.png'));
    const app = watchedApp();
    const ask = (method: string, headers: Record<string, string> = {}) =>
      Promise.resolve(app.request(new URL(`/attachments/${made.id}`, h.config.apiOrigin).href, { method, headers: { authorization: `Bearer ${token}`, ...headers } }));

    statements.length = 0;
    const head = await ask('HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bytes.length));
    expect(head.headers.get('etag')).toBe(`"${made.sha256}"`);
    expect(head.headers.get('content-type')).toBe('image/png');
    expect(await head.text()).toBe('');
    expect(statements.length).toBeGreaterThan(0);
    expect(readsBytes(), 'HEAD reads only the metadata').toEqual([]);
    for (const tag of [`"${made.sha256}"`, `W/"${made.sha256}"`, `"elsewhere", "${made.sha256}"`, '*']) {
      const again = await ask('GET', { 'if-none-match': tag });
      expect(again.status, tag).toBe(304);
      expect(again.headers.get('etag')).toBe(`"${made.sha256}"`);
      expect(await again.text()).toBe('');
    }
    expect(readsBytes(), 'a 304 reads only the metadata').toEqual([]);

    const full = await ask('GET', { 'if-none-match': '"another-version"' });
    expect(full.status).toBe(200);
    expect(Buffer.from(await full.arrayBuffer()).equals(bytes)).toBe(true);
    expect(readsBytes()).toHaveLength(3);
    expect(readsBytes().every((q) => /substring/i.test(q))).toBe(true);
  });

  it('issue 36 item 5 (D20, D22): a receipt removal racing a reconciliation waits for it and is refused by the database', async () => {
    const account = await json(await api('POST', '/accounts', { name: 'Receipt race bank', kind: 'asset' }));
    const raced = await json(await api('POST', '/transactions', { occurred_on: '2026-06-10', description: 'Raced receipt', entries: [{ account_id: account.id, amount_cents: -1_999 }, { account_id: ids.Office, amount_cents: 1_999 }] }));
    const receipt = await json(await upload(raced.id, SAMPLES['image/png']!, 'image/png', 'raced.png'));
    const actor = { email: 'auditor@receipts.example', via: 'token' as const, clientId: 'ledger-cli' };
    let commit!: () => void;
    const held = new Promise<void>((resolve) => (commit = resolve));
    let marked!: () => void;
    const reconciled = new Promise<void>((resolve) => (marked = resolve));
    // The real reconciliation, held open after it marked the entries (its row locks held) until the removal waits.
    const reconciliation = h.db.transaction(async (tx) => {
      await reconcileAccount(tx, account.id, { statement_date: '2026-06-30', statement_balance_cents: -1_999 }, actor);
      marked();
      await held;
    });
    await reconciled;
    const removal = api('DELETE', `/attachments/${receipt.id}`);
    const answeredFirst = removal.then(() => 'answered' as const);
    const waiting = async (): Promise<'waiting' | 'answered'> => {
      for (let i = 0; i < 500; i++) {
        const [row] = rowsOf<{ n: string }>(await h.db.execute(sql`
          select count(*)::text as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query ilike '%delete from "attachments"%'`));
        if (Number(row!.n) > 0) return 'waiting';
        if ((await Promise.race([answeredFirst, new Promise((r) => setTimeout(r, 20, 'not yet'))])) === 'answered') return 'answered';
      }
      return 'answered';
    };
    const seen = await waiting();
    commit();
    await reconciliation;
    const answer = await removal;
    expect(seen, 'the removal waits for the reconciliation\'s locks').toBe('waiting');
    expect(answer.status).toBe(409);
    expect(await json(answer)).toEqual({ error: 'the transaction is reconciled' });
    expect((await json(await api('GET', `/transactions/${raced.id}/attachments`))).map((a: Json) => a.id)).toEqual([receipt.id]);
  });

  /** The ZIP's archive: downloaded, tested by `unzip -t`, unpacked by `unzip -d`; its entry names as written (the central directory). */
  const unpackedReceipts = async (from: string, to: string) => {
    const res = await api('GET', `/export/receipts.zip?from=${from}&to=${to}`);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ledger-receipts-names-'));
    const file = path.join(dir, 'receipts.zip');
    writeFileSync(file, bytes);
    const tested = spawnSync('unzip', ['-t', file], { encoding: 'utf8' });
    const unpacked = spawnSync('unzip', ['-q', file, '-d', path.join(dir, 'out')], { encoding: 'utf8' });
    const written = readdirSync(path.join(dir, 'out')).map((n) => n.normalize('NFC'));
    const index = readFileSync(path.join(dir, 'out', 'index.csv'), 'utf8').split('\r\n').slice(1, -1);
    return { entries: zipEntryNames(bytes), tested, unpacked, written, dir, index };
  };

  it('issue 37 item 3 (D22, names that travel): a 295-character Unicode name keeps .pdf within 200 characters, whole graphemes; its ZIP entry is at most 255 bytes and unzips', async () => {
    // 195 characters of letters with accents, CJK and emoji (one code point each), a flag (two code points, one grapheme) across the cut, more, then .pdf: 295 in all.
    const filler = [...'Quittung Straßenfest Müller 領収書 🧾 Café Ñandú 会計監査 💶 Öl '.repeat(12)];
    const stem = `${filler.slice(0, 195).join('')}🇩🇪${filler.slice(195, 289).join('')}`;
    const name = `${stem}.pdf`;
    expect([...name]).toHaveLength(295);
    expect(Buffer.byteLength(name)).toBeGreaterThan(400);
    const tx = await newTransaction('2024-11-05', 'Festival receipts');
    const res = await upload(tx, SAMPLES['application/pdf']!, 'application/pdf', name);
    expect(res.status).toBe(201);
    const stored: string = (await json(res)).name;
    expect(stored.endsWith('.pdf'), stored).toBe(true);
    expect([...stored].length).toBeLessThanOrEqual(200);
    expect(stored.isWellFormed()).toBe(true);
    // Whole graphemes of the name: the flag is either whole or gone, never half of it.
    const graphemes = [...new Intl.Segmenter('und', { granularity: 'grapheme' }).segment(stem)].map((g) => g.segment);
    const kept = stored.slice(0, -'.pdf'.length);
    expect(graphemes.some((_, k) => graphemes.slice(0, k).join('').trimEnd() === kept), kept).toBe(true);
    expect([...kept].length).toBeGreaterThanOrEqual(190);

    const { entries, tested, unpacked, written, index } = await unpackedReceipts('2024-11-05', '2024-11-05');
    const entry = entries.find((e) => e !== 'index.csv')!;
    expect(Buffer.byteLength(entry), entry).toBeLessThanOrEqual(255);
    expect(entry.startsWith(`2024-11-05_${tx}_`) && entry.endsWith('.pdf'), entry).toBe(true);
    const inZip = entry.slice(`2024-11-05_${tx}_`.length, -'.pdf'.length);
    expect(kept.startsWith(inZip) && graphemes.some((_, k) => graphemes.slice(0, k).join('') === inZip), inZip).toBe(true);
    expect(tested.stdout + tested.stderr).toMatch(/No errors detected/);
    expect(unpacked.status, unpacked.stderr).toBe(0);
    expect(written.sort()).toEqual([...entries].sort());
    expect(index).toEqual([`${tx},2024-11-05,Festival receipts,19.99,${entry}`]);
  });

  it('issue 37 item 3 (D22, names that travel): names differing only in case, or in : * ? " < > |, come out unique ignoring case and portable; index.csv names each entry', async () => {
    const tx = await newTransaction('2024-11-06', 'Names that travel');
    const names = ['Invoice.pdf', 'INVOICE.pdf', 'invoice.PDF', 'Bill: "May" <1/2>? a*b|c.pdf', 'Bill_ _May_ _12__ a_b_c.pdf', 'Bill_ _May_ _12__ A_B_C.pdf', 'ends with a dot.', 'ends with a dot'];
    for (const name of names) expect((await upload(tx, SAMPLES['application/pdf']!, 'application/pdf', name)).status, name).toBe(201);
    const { entries, tested, unpacked, written, index } = await unpackedReceipts('2024-11-06', '2024-11-06');
    const receipts = entries.filter((e) => e !== 'index.csv');
    expect(receipts).toHaveLength(names.length);
    for (const entry of entries) {
      expect(entry, entry).not.toMatch(/[:*?"<>|\\/\p{Cc}]/u);
      expect(entry, 'Windows drops a trailing dot or space').not.toMatch(/[. ]$/);
      expect(Buffer.byteLength(entry)).toBeLessThanOrEqual(255);
    }
    expect(new Set(entries.map((e) => e.toLowerCase())).size, entries.join('\n')).toBe(entries.length);
    expect(receipts.slice(0, 3)).toEqual([`2024-11-06_${tx}_Invoice.pdf`, `2024-11-06_${tx}_INVOICE-2.pdf`, `2024-11-06_${tx}_invoice-3.PDF`]);
    expect(receipts[3]).toBe(`2024-11-06_${tx}_Bill_ _May_ _12__ a_b_c.pdf`);
    expect(receipts.slice(4, 6)).toEqual([`2024-11-06_${tx}_Bill_ _May_ _12__ a_b_c-2.pdf`, `2024-11-06_${tx}_Bill_ _May_ _12__ A_B_C-3.pdf`]);
    expect(receipts.slice(6)).toEqual([`2024-11-06_${tx}_ends with a dot`, `2024-11-06_${tx}_ends with a dot-2`]);
    expect(tested.stdout + tested.stderr).toMatch(/No errors detected/);
    expect(unpacked.status, unpacked.stderr).toBe(0);
    expect(written.sort()).toEqual([...entries].sort());
    expect(index.map((row) => row.split(',').at(-1))).toEqual(receipts);
  });

  it('issue 37 item 13 (D22): a 0-byte PDF is refused with 400 {"error": "the file is empty"}, nothing stored', async () => {
    const tx = await newTransaction('2024-11-07', 'Empty scan');
    const before = await attachmentCount();
    for (const type of ['application/pdf', 'image/png', undefined]) {
      const res = await upload(tx, Buffer.alloc(0), type, 'scan.pdf');
      expect(res.status, String(type)).toBe(400);
      expect(await json(res)).toEqual({ error: 'the file is empty' });
    }
    expect(await attachmentCount()).toBe(before);
  });
});
