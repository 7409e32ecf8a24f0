import { createHash } from 'node:crypto';
import { asc, count, eq, sql } from 'drizzle-orm';
import { fileTypeFromBuffer } from 'file-type';
import type * as v from 'valibot';
import { rowsOf, type Db } from '../db/database';
import { ATTACHMENTS_LOCK } from '../db/locks';
import { attachments, transactions } from '../db/schema';
import { conflict, invalid, notFound, Refusal } from '../errors';
import { storedText } from '../text';
import { lastDeleted, recordChange, type Actor, type Author } from './changes';
import { codePoints, shortenedName } from './receipt-names';
import type { Attachment as AttachmentShape } from './views';

// D22: receipts. The bytes are judged by their own magic numbers (file-type), never by a name or
// a declared type, and kept in the database with the book: in every backup, restored with it. A
// receipt outlives its transaction's deletion (D15's restore brings both back), and is listed on
// the deleted transaction and counted apart in the storage figure, so it can be seen and removed.

export type Attachment = v.InferOutput<typeof AttachmentShape>;

export const ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;
export const ATTACHMENTS_PER_TRANSACTION = 20;
export const ATTACHMENT_NAME_MAX = 200;
export const STORAGE_FULL = 'the receipts storage is full';
/** Issue 37 item 13: a file of 0 bytes is no receipt of any type; said as such, not as a wrong type. */
export const FILE_EMPTY = 'the file is empty';

/** What may be stored, as file-type names it: photos (HEIC/HEIF from phones too) and PDF. */
const ACCEPTED = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/heic', 'image/heif', 'application/pdf']);
const ACCEPTED_IN_WORDS = 'JPEG, PNG, WebP, GIF, HEIC/HEIF or PDF';
/** Declared types that say nothing (a client that does not know), and spellings of the accepted ones. */
const UNDECLARED = new Set(['', 'application/octet-stream']);
const ALIASES: Record<string, string> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg', 'image/heic-sequence': 'image/heic', 'image/heif-sequence': 'image/heif' };

/** Images may be shown inline (D22 `?inline=1`); a PDF is always a download. */
export const isImage = (contentType: string) => contentType.startsWith('image/');

/**
 * D22: D13's removed characters (control and bidi/format characters, D25's invisible ones, and a
 * lone surrogate, which is no character) go, then `/`, `\` and leading dots; at most 200
 * characters, the cut falling before the extension and between graphemes (names that travel,
 * issue 37 item 3); nothing left: `receipt`.
 */
export function cleanAttachmentName(raw: string | undefined): string {
  const cleaned = storedText((raw ?? '').replace(/[\p{Cc}\p{Cs}\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u2028\u2029]/gu, ''))
    .replace(/[/\\]/g, '')
    .trim()
    .replace(/^\.+/, '')
    .trim();
  return cleaned ? shortenedName(cleaned, ATTACHMENT_NAME_MAX, codePoints) : 'receipt';
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

async function requireTransaction(db: Db, id: number): Promise<void> {
  const [found] = await db.select({ id: transactions.id }).from(transactions).where(eq(transactions.id, id));
  if (!found) throw notFound('no such transaction');
}

/**
 * POST /transactions/{id}/attachments: 201 metadata; 400 (0 bytes), 404, 409 (quotas), 415 (type).
 * D22's quotas are checked and the row written under one book-wide lock, so two uploads cannot both pass.
 */
export async function addAttachment(
  db: Db,
  transactionId: number,
  file: { name: string | undefined; declaredType: string | undefined; bytes: Buffer },
  author: Author,
  maxBookBytes: number,
): Promise<Attachment> {
  if (file.bytes.length === 0) throw invalid(FILE_EMPTY);
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

/**
 * GET /transactions/{id}/attachments: oldest first. A deleted transaction's receipts are listed
 * too (issue 36 item 4): kept for D15's restore, they must stay visible, and removable; 404 only
 * for a transaction that neither exists nor was ever deleted.
 */
export async function listAttachments(db: Db, transactionId: number): Promise<Attachment[]> {
  const rows = await db.select(metadata).from(attachments).where(eq(attachments.transactionId, transactionId)).orderBy(asc(attachments.id));
  if (rows.length === 0) {
    const [live] = await db.select({ id: transactions.id }).from(transactions).where(eq(transactions.id, transactionId));
    if (!live && (await lastDeleted(db, transactionId)) === undefined) throw notFound('no such transaction');
  }
  return rows.map(shaped);
}

/** GET and HEAD /attachments/{id}: the metadata alone (the ETag, the headers), never the bytes. */
export async function attachmentMetadata(db: Db, id: number): Promise<Attachment> {
  const [row] = await db.select(metadata).from(attachments).where(eq(attachments.id, id));
  if (!row) throw notFound('no such attachment');
  return shaped(row);
}

/** How much of a receipt one statement reads: a download holds about two pieces per client. */
export const RECEIPT_PIECE_BYTES = 256 * 1024;

/**
 * The bytes of receipt `id`, `size` long, a piece at a time as the client takes them (issue 36
 * item 4): one statement a piece, on whichever connection is free, so a download never holds the
 * whole file nor a connection while its client is slow. The row never changes (migration 0015
 * refuses it), so the pieces are one file; a receipt removed meanwhile is a 404 before the first
 * piece and ends the download short after it.
 */
export async function* attachmentBytes(db: Db, id: number, size: number): AsyncGenerator<Buffer> {
  for (let start = 0; start < size; start += RECEIPT_PIECE_BYTES) {
    const [row] = await db
      .select({ piece: sql<Buffer>`substring(${attachments.bytes} from ${start + 1}::integer for ${RECEIPT_PIECE_BYTES}::integer)` })
      .from(attachments)
      .where(eq(attachments.id, id));
    if (!row) throw notFound('no such attachment');
    yield row.piece;
  }
}

/**
 * DELETE /attachments/{id}: D20 holds here too — a receipt of a transaction dated in a closed
 * period, or of a reconciled transaction, stays (409 with D20's messages). The database decides
 * (migration 0015's trigger, beside D20's), so a removal racing a reconciliation or a move of
 * closed_through is refused or wholly before it, whoever removes.
 */
export function deleteAttachment(db: Db, id: number, actor: Actor): Promise<void> {
  return db.transaction(async (tx) => {
    const [row] = await tx.delete(attachments).where(eq(attachments.id, id)).returning(metadata);
    if (!row) throw notFound('no such attachment');
    await recordChange(tx, actor, { subject: 'attachment', subjectId: id, action: 'delete', before: shaped(row), after: null });
  });
}

/** What Settings reports of the storage (D22 quota): every receipt, and of them those of deleted transactions. */
export interface ReceiptsUsage {
  used_bytes: number;
  count: number;
  deleted_bytes: number;
  deleted_count: number;
}

/** Settings' report of the storage: bytes used by every receipt and how many; the part held by deleted transactions (issue 36 item 4). */
export async function receiptsUsage(db: Db): Promise<ReceiptsUsage> {
  const [row] = rowsOf<{ bytes: string; n: string; deleted_bytes: string; deleted_n: string }>(
    await db.execute(sql`
      select coalesce(sum(a.size), 0)::text as bytes, count(*)::text as n,
        coalesce(sum(a.size) filter (where t.id is null), 0)::text as deleted_bytes, count(*) filter (where t.id is null)::text as deleted_n
      from ${attachments} a left join ${transactions} t on t.id = a.transaction_id`),
  );
  return { used_bytes: Number(row!.bytes), count: Number(row!.n), deleted_bytes: Number(row!.deleted_bytes), deleted_count: Number(row!.deleted_n) };
}
