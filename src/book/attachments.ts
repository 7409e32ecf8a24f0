import { createHash } from 'node:crypto';
import { and, asc, count, eq, sql } from 'drizzle-orm';
import { fileTypeFromBuffer } from 'file-type';
import type * as v from 'valibot';
import { rowsOf, type Db } from '../db/database';
import { TRANSACTION_RECONCILED } from '../db/refusals';
import { attachments, entries, settings, transactions } from '../db/schema';
import { conflict, notFound, Refusal } from '../errors';
import { storedText } from '../text';
import { recordChange, type Actor, type Author } from './changes';
import type { Attachment as AttachmentShape } from './views';

// D22: receipts. The bytes are judged by their own magic numbers (file-type), never by a name or
// a declared type, and kept in the database with the book: in every backup, restored with it. A
// receipt outlives its transaction's deletion (D15's restore brings both back).

export type Attachment = v.InferOutput<typeof AttachmentShape>;

export const ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;
export const ATTACHMENTS_PER_TRANSACTION = 20;
export const ATTACHMENT_NAME_MAX = 200;
export const STORAGE_FULL = 'the receipts storage is full';

/** What may be stored, as file-type names it: photos (HEIC/HEIF from phones too) and PDF. */
const ACCEPTED = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/heic', 'image/heif', 'application/pdf']);
const ACCEPTED_IN_WORDS = 'JPEG, PNG, WebP, GIF, HEIC/HEIF or PDF';
/** Declared types that say nothing (a client that does not know), and spellings of the accepted ones. */
const UNDECLARED = new Set(['', 'application/octet-stream']);
const ALIASES: Record<string, string> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg', 'image/heic-sequence': 'image/heic', 'image/heif-sequence': 'image/heif' };

/** Images may be shown inline (D22 `?inline=1`); a PDF is always a download. */
export const isImage = (contentType: string) => contentType.startsWith('image/');

/**
 * D22: D13's removed characters (control and bidi/format characters, D25's invisible ones) go,
 * then `/`, `\` and leading dots; at most 200 characters; nothing left: `receipt`.
 */
export function cleanAttachmentName(raw: string | undefined): string {
  const cleaned = storedText((raw ?? '').replace(/[\p{Cc}\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u2028\u2029]/gu, ''))
    .replace(/[/\\]/g, '')
    .trim()
    .replace(/^\.+/, '')
    .trim();
  const kept = [...cleaned].slice(0, ATTACHMENT_NAME_MAX).join('').trim();
  return kept || 'receipt';
}

/** The stored type of `bytes`, or 415 when they are none we keep or differ from what was declared. */
async function judgeType(bytes: Buffer, declared: string | undefined): Promise<string> {
  const found = await fileTypeFromBuffer(bytes);
  const detected = found ? (ALIASES[found.mime] ?? found.mime) : undefined;
  if (detected === undefined || !ACCEPTED.has(detected)) {
    throw new Refusal('unsupported_media_type', `a receipt must be a ${ACCEPTED_IN_WORDS} file`);
  }
  const said = (declared ?? '').split(';')[0]!.trim().toLowerCase();
  const claimed = ALIASES[said] ?? said;
  if (!UNDECLARED.has(claimed) && claimed !== detected) {
    throw new Refusal('unsupported_media_type', `the file is ${detected}, not ${claimed} as declared`);
  }
  return detected;
}

const metadata = {
  id: attachments.id,
  transaction_id: attachments.transactionId,
  name: attachments.name,
  content_type: attachments.contentType,
  size: attachments.size,
  sha256: attachments.sha256,
  created_at: attachments.createdAt,
  created_by_email: attachments.createdByEmail,
};

function shaped(row: { created_at: Date } & Omit<Attachment, 'created_at'>): Attachment {
  return { ...row, created_at: row.created_at.toISOString() };
}

async function requireTransaction(db: Db, id: number): Promise<{ occurredOn: string }> {
  const [found] = await db.select({ occurredOn: transactions.occurredOn }).from(transactions).where(eq(transactions.id, id));
  if (!found) throw notFound('no such transaction');
  return found;
}

/** D22's quotas are checked and the row written under one book-wide lock, so two uploads cannot both pass. */
const ATTACHMENTS_LOCK = 20_022;

/** POST /transactions/{id}/attachments: 201 metadata; 404, 409 (quotas), 415 (type). */
export async function addAttachment(
  db: Db,
  transactionId: number,
  file: { name: string | undefined; declaredType: string | undefined; bytes: Buffer },
  author: Author,
  maxBookBytes: number,
): Promise<Attachment> {
  const contentType = await judgeType(file.bytes, file.declaredType);
  const sha256 = createHash('sha256').update(file.bytes).digest('hex');
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${ATTACHMENTS_LOCK})`);
    await requireTransaction(tx, transactionId);
    const [{ n }] = (await tx.select({ n: count() }).from(attachments).where(eq(attachments.transactionId, transactionId))) as [{ n: number }];
    if (n >= ATTACHMENTS_PER_TRANSACTION) throw conflict(`a transaction keeps at most ${ATTACHMENTS_PER_TRANSACTION} receipts`);
    const [used] = rowsOf<{ bytes: string }>(await tx.execute(sql`select coalesce(sum(size), 0)::text as bytes from ${attachments}`));
    if (Number(used!.bytes) + file.bytes.length > maxBookBytes) throw conflict(STORAGE_FULL);
    const [row] = await tx
      .insert(attachments)
      .values({ transactionId, name: cleanAttachmentName(file.name), contentType, size: file.bytes.length, sha256, bytes: file.bytes, createdByEmail: author.email })
      .returning(metadata);
    const made = shaped(row!);
    await recordChange(tx, author, { subject: 'attachment', subjectId: made.id, action: 'create', before: null, after: made });
    return made;
  });
}

/** GET /transactions/{id}/attachments: oldest first; 404 for no such transaction. */
export async function listAttachments(db: Db, transactionId: number): Promise<Attachment[]> {
  await requireTransaction(db, transactionId);
  const rows = await db.select(metadata).from(attachments).where(eq(attachments.transactionId, transactionId)).orderBy(asc(attachments.id));
  return rows.map(shaped);
}

/** GET /attachments/{id}: the metadata and the bytes. */
export async function readAttachment(db: Db, id: number): Promise<Attachment & { bytes: Buffer }> {
  const [row] = await db.select({ ...metadata, bytes: attachments.bytes }).from(attachments).where(eq(attachments.id, id));
  if (!row) throw notFound('no such attachment');
  return { ...shaped(row), bytes: row.bytes };
}

/**
 * DELETE /attachments/{id}: D20 holds here too — a receipt of a transaction dated in a closed
 * period, or of a reconciled transaction, stays (409 with D20's messages). The settings row is
 * read under the lock the closed-period trigger takes, so a period closed meanwhile is seen.
 */
export function deleteAttachment(db: Db, id: number, actor: Actor): Promise<void> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select(metadata).from(attachments).where(eq(attachments.id, id)).for('update');
    if (!row) throw notFound('no such attachment');
    const [txn] = await tx.select({ occurredOn: transactions.occurredOn }).from(transactions).where(eq(transactions.id, row.transaction_id));
    if (txn) {
      await tx.execute(sql`select pg_advisory_xact_lock_shared(20020)`);
      const [book] = await tx.select({ closedThrough: settings.closedThrough }).from(settings);
      if (book?.closedThrough && txn.occurredOn <= book.closedThrough) throw conflict(`the books are closed through ${book.closedThrough}`);
      const [reconciled] = await tx
        .select({ n: count() })
        .from(entries)
        .where(and(eq(entries.transactionId, row.transaction_id), sql`${entries.reconciliationId} is not null`));
      if ((reconciled?.n ?? 0) > 0) throw conflict(TRANSACTION_RECONCILED);
    }
    await tx.delete(attachments).where(eq(attachments.id, id));
    await recordChange(tx, actor, { subject: 'attachment', subjectId: id, action: 'delete', before: shaped(row), after: null });
  });
}

/** Settings' report of the storage (D22 quota): bytes used by every receipt, and how many. */
export async function receiptsUsage(db: Db): Promise<{ used_bytes: number; count: number }> {
  const [row] = rowsOf<{ bytes: string; n: string }>(await db.execute(sql`select coalesce(sum(size), 0)::text as bytes, count(*)::text as n from ${attachments}`));
  return { used_bytes: Number(row!.bytes), count: Number(row!.n) };
}
