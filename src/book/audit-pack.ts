import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { asc, inArray } from 'drizzle-orm';
import { ZipFile } from 'yazl';
import type { Db } from '../db/database';
import { changes } from '../db/schema';
import { renderIndexPage, renderSignaturePage, type PageTransaction } from './audit-pages';
import { auditSummary, type AuditQuery, type AuditSummary } from './audit-summary';
import { describeChange } from './change-words';
import { withContext } from './changes';
import { readBook, type Period } from './exports';
import { changesCsv, exportWording } from './exports-changes';
import { transactionsCsv } from './exports-csv';
import { hledgerJournal } from './exports-hledger';
import { bytesWhenRead, listReceipts } from './exports-receipts';
import { listReconciliations } from './reconciliation';
import { getSettings } from './settings';

// D28: GET /export/audit.zip, the auditors' pack: one ZIP the auditors open anywhere. The two
// pages, summary.json and the receipts' list are made first (metadata only); the files that can be
// large (the CSVs, the journal, the receipts' bytes) are read only when the archive reaches them,
// one at a time, as receiptsZip does (D22's memory bound). Each file is hashed as it goes into the
// archive, so MANIFEST.sha256, and signature.html with its fingerprint, come last.

export const MANIFEST = 'MANIFEST.sha256';
export const SIGNATURE = 'signature.html';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A file of the pack read when the archive reaches it, hashed on the way: its digest once read to the end. */
function hashedWhenRead(open: () => AsyncIterable<string | Uint8Array>): { stream: Readable; digest: Promise<string> } {
  const hash = createHash('sha256');
  let settle!: { resolve: (hex: string) => void; reject: (error: Error) => void };
  const digest = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  // Read by the archive only: a failure also reaches the archive through the stream.
  digest.catch(() => {});
  let parts: AsyncIterator<string | Uint8Array> | undefined;
  const stream = new Readable({
    read() {
      parts ??= open()[Symbol.asyncIterator]();
      const next = (): void => {
        parts!.next().then(
          ({ value, done }) => {
            if (done) {
              settle.resolve(hash.digest('hex'));
              this.push(null);
              return;
            }
            const bytes = typeof value === 'string' ? Buffer.from(value) : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
            // An empty part would end this read without data: take the next one.
            if (bytes.length === 0) return next();
            hash.update(bytes);
            this.push(bytes);
          },
          (error: unknown) => {
            settle.reject(error as Error);
            this.destroy(error as Error);
          },
        );
      };
      next();
    },
    // A download cut short (the client gone, the idle cut): a file half read gives its cursor's
    // connection back (readBook's cursor is released by return()).
    destroy(error, callback) {
      Promise.resolve(parts?.return?.()).then(() => callback(error), () => callback(error));
    },
  });
  return { stream, digest };
}

/** The period's transactions with their entries and their receipts' names in `receipts/`. */
async function pageTransactions(db: Db, period: Period, receiptsOf: ReadonlyMap<number, string[]>): Promise<PageTransaction[]> {
  const listed: PageTransaction[] = [];
  for await (const part of readBook(db, period)) {
    if (!('transactions' in part)) continue;
    for (const t of part.transactions) {
      listed.push({
        id: t.id,
        occurredOn: t.occurredOn,
        description: t.description,
        entries: t.entries.map((e) => ({ accountName: e.account.name, amountCents: Number(e.amountCents) })),
        receipts: receiptsOf.get(t.id) ?? [],
      });
    }
  }
  return listed;
}

/** The checklist's late changes in the words History uses (D28: "each also shown in index.html in words"). */
async function changesInWords(db: Db, ids: readonly number[]): Promise<{ id: number; at: string; words: string }[]> {
  if (ids.length === 0) return [];
  const rows = await db.select().from(changes).where(inArray(changes.id, [...ids])).orderBy(asc(changes.id));
  const words = await exportWording(db);
  const records = await withContext(
    db,
    rows.map((r) => ({
      id: r.id, at: r.at.toISOString(), actor_email: r.actorEmail, via: r.via, client_id: r.clientId, subject: r.subject,
      subject_id: r.subjectId, action: r.action, schedule_id: r.scheduleId, before: r.before, after: r.after,
    })),
  );
  return records.map((r) => ({ id: r.id, at: r.at, words: describeChange(r, words) }));
}

/** Accounts not reconciled in the period: the last statement date before it, where there is one. */
async function lastReconciledBefore(db: Db, summary: AuditSummary): Promise<Map<number, string>> {
  const last = new Map<number, string>();
  for (const a of summary.accounts) {
    if (a.reconciliations.length > 0) continue;
    const before = (await listReconciliations(db, a.id)).map((r) => r.statement_date).filter((d) => d < summary.from).sort();
    if (before.length > 0) last.set(a.id, before.at(-1)!);
  }
  return last;
}

/** D28: the pack's bytes, streamed. */
export async function* auditPack(db: Db, query: AuditQuery): AsyncGenerator<Uint8Array> {
  const period: Period = { from: query.from, to: query.to };
  const summary = await auditSummary(db, query);
  const settings = await getSettings(db);
  const receipts = await listReceipts(db, period);
  const receiptsOf = new Map<number, string[]>();
  receipts.receipts.forEach((r, i) => {
    const id = Number(r.transaction_id);
    receiptsOf.set(id, [...(receiptsOf.get(id) ?? []), receipts.names[i]!]);
  });
  const indexHtml = renderIndexPage({
    lang: query.lang,
    bookStyle: settings.book_style,
    currency: settings.currency,
    summary,
    closedThrough: settings.closed_through,
    receiptsOverCents: query.receipts_over,
    transactions: await pageTransactions(db, period, receiptsOf),
    changes: await changesInWords(db, summary.checklist.changed_after),
    lastReconciled: await lastReconciledBefore(db, summary),
  });

  const zip = new ZipFile();
  const made = new Date();
  const listed: { path: string; digest: Promise<string> }[] = [];
  const streams: Readable[] = [];
  const addText = (path: string, text: string) => {
    const bytes = Buffer.from(text);
    listed.push({ path, digest: Promise.resolve(sha256(bytes)) });
    zip.addBuffer(bytes, path, { compress: true, mtime: made });
  };
  const addRead = (path: string, open: () => AsyncIterable<string | Uint8Array>, options: { compress: boolean; mtime: Date }) => {
    const { stream, digest } = hashedWhenRead(open);
    listed.push({ path, digest });
    streams.push(stream);
    zip.addReadStream(stream, path, options);
  };

  addText('index.html', indexHtml);
  addText('summary.json', `${JSON.stringify(summary, null, 2)}\n`);
  addRead('transactions.csv', () => transactionsCsv(db, period), { compress: true, mtime: made });
  addRead('changes.csv', () => changesCsv(db, period), { compress: true, mtime: made });
  addRead('ledger.journal', () => hledgerJournal(db, { to: query.to }), { compress: true, mtime: made });
  addText('receipts/index.csv', receipts.index);
  // Photos and PDFs are already compressed: stored as they are (as in receipts.zip).
  receipts.receipts.forEach((r, i) =>
    addRead(`receipts/${receipts.names[i]!}`, () => bytesWhenRead(db, Number(r.id)), { compress: false, mtime: new Date(r.created_at) }),
  );

  // Once every file above has gone through the archive, its digests are known: the manifest, then
  // the sign-off page carrying the manifest's own digest, close the archive.
  const closing = Promise.all(listed.map((f) => f.digest)).then((digests) => {
    const manifest = Buffer.from(listed.map((f, i) => `${digests[i]!}  ${f.path}\n`).join(''));
    zip.addBuffer(manifest, MANIFEST, { compress: true, mtime: made });
    const signature = renderSignaturePage({ lang: query.lang, bookStyle: settings.book_style, from: query.from, to: query.to, fingerprint: sha256(manifest) });
    zip.addBuffer(Buffer.from(signature), SIGNATURE, { compress: true, mtime: made });
    zip.end();
  });
  const output = zip.outputStream as unknown as Readable;
  closing.catch((error: unknown) => output.destroy(error as Error));
  try {
    for await (const chunk of output) yield chunk as Buffer;
  } finally {
    // Ended early or failed: no file stays open on a connection.
    for (const stream of streams) stream.destroy();
  }
}
