import * as v from 'valibot';
import { addAttachment, ATTACHMENT_MAX_BYTES, attachmentBytes, attachmentMetadata, deleteAttachment, isImage, listAttachments, receiptsUsage } from '../book/attachments';
import { Attachment } from '../book/views';
import { responseSchema } from '../shapes';
import { EXPORT_IDLE_MS, streamHoldingSlot } from './export-budget';
import { RECEIPT_UPLOAD_RETRY_AFTER_SECONDS, RECEIPT_UPLOADS_AT_ONCE } from './receipt-uploads';
import { badId, ErrorBody, positiveId, refused, type Reply } from './replies';
import { route } from './route';
import { authorOf } from './tiers';
import { pathId } from './validation';

const transactionId = (raw: string | undefined) => pathId(raw!, 'transaction');
const attachmentId = (raw: string | undefined) => pathId(raw!, 'attachment');
const noSuchAttachment = refused('`{"error": "no such attachment"}`.');
const RECEIPT_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/heic', 'image/heif', 'application/pdf'] as const;
const UploadQuery = v.object({ name: v.optional(v.pipe(v.string(), v.description("the file's name (cleaned; default `receipt`)"))) });
const InlineQuery = v.object({ inline: v.optional(v.pipe(v.picklist(['0', '1']), v.description('1: shown in the browser (images only)'))) });
const ReceiptsUsage = responseSchema('ReceiptsUsage', v.strictObject({
  used_bytes: v.pipe(v.number(), v.integer()),
  count: v.pipe(v.number(), v.integer()),
  deleted_bytes: v.pipe(v.number(), v.integer(), v.description('of used_bytes, what receipts of deleted transactions hold (kept for D15\'s restore)')),
  deleted_count: v.pipe(v.number(), v.integer(), v.description('of count, the receipts of deleted transactions')),
  limit_bytes: v.pipe(v.number(), v.integer(), v.description('RECEIPTS_MAX_MB')),
}));
/** Issue 36 item 4: the documented 503 of an upload beyond the process's places. */
const uploadsBusy: Reply = {
  description: `${RECEIPT_UPLOADS_AT_ONCE} receipts are already being uploaded to this process: \`{"error": …}\`, try again after Retry-After. Nothing is read or stored.`,
  json: ErrorBody,
  headers: { 'Retry-After': `seconds to wait (${RECEIPT_UPLOAD_RETRY_AFTER_SECONDS})` },
};
/** A receipt download holds no connection between its pieces, so it takes none of the exports' slots; it keeps their idle cut. */
const NO_SLOT = { release: () => {} };

/**
 * RFC 9110 §13.1.2: If-None-Match matches when it is `*` or lists our entity tag, compared weakly
 * (`W/"…"` matches `"…"`).
 */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}

/** RFC 6266 / RFC 8187: the name as `filename*=UTF-8''…`, every byte outside the attr-chars percent-encoded. */
function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const encoded = Array.from(new TextEncoder().encode(name), (b) =>
    /[A-Za-z0-9!#$&+\-.^_`|~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
  ).join('');
  return `${kind}; filename*=UTF-8''${encoded}`;
}

/** D22: receipts (full tier). */
export const transactionAttachmentRoutes = [
  route(
    {
      method: 'post', path: '/transactions/{id}/attachments', tier: 'full', summary: 'Adds a receipt to a transaction (D22)', params: { id: positiveId },
      query: UploadQuery, bytes: RECEIPT_TYPES, maxBodyBytes: ATTACHMENT_MAX_BYTES,
      description:
        'The file\'s bytes as the body. Its type is judged by its own bytes (JPEG, PNG, WebP, GIF, HEIC/HEIF, PDF); a declared ' +
        '`Content-Type` that differs is refused. At most 10 MiB, 20 per transaction, and RECEIPTS_MAX_MB for the book.',
      responses: {
        201: { description: 'Stored.', json: Attachment },
        400: refused('The path id is not a positive integer, or the body has 0 bytes: `{"error": "the file is empty"}` (issue 37 item 13), whatever its type.'),
        404: refused('`{"error": "no such transaction"}`.'),
        409: refused('20 receipts already, or `{"error": "the receipts storage is full"}`.'),
        413: refused('More than 10 MiB.'),
        415: refused('Not a JPEG, PNG, WebP, GIF, HEIC/HEIF or PDF file, or not the type declared.'),
        503: uploadsBusy,
      },
    },
    { idempotent: true },
    async (c, { query }) => {
      const id = transactionId(c.req.param('id'));
      const bytes = Buffer.from(await c.req.arrayBuffer());
      const made = await addAttachment(c.var.db, id, { name: query.name, declaredType: c.req.header('Content-Type'), bytes }, authorOf(c), c.var.config.receiptsMaxBytes);
      return c.json(made, 201);
    },
  ),
  route(
    {
      method: 'get', path: '/transactions/{id}/attachments', tier: 'full', summary: "A transaction's receipts (D22)", params: { id: positiveId },
      description: "A deleted transaction's receipts too: kept for its restore (D15), removable.",
      responses: {
        200: { description: 'Oldest first; metadata only.', json: v.array(Attachment) },
        400: badId,
        404: refused('`{"error": "no such transaction"}`: none with this id exists or was ever deleted.'),
      },
    },
    {},
    async (c) => c.json(await listAttachments(c.var.db, transactionId(c.req.param('id')))),
  ),
];

export const attachmentRoutes = [
  route(
    {
      method: 'get', path: '/attachments/usage', tier: 'full', summary: 'How much of the receipts storage is used (D22)',
      responses: { 200: { description: 'Bytes used, how many receipts, the part of deleted transactions, and the limit.', json: ReceiptsUsage } },
    },
    {},
    async (c) => c.json({ ...(await receiptsUsage(c.var.db)), limit_bytes: c.var.config.receiptsMaxBytes }),
  ),
  route(
    {
      method: 'get', path: '/attachments/{id}', tier: 'full', summary: 'A receipt\'s bytes (D22)', params: { id: positiveId }, query: InlineQuery,
      description:
        'With the type judged at upload, `Content-Disposition: attachment` (`?inline=1`: inline, images only), ' +
        '`X-Content-Type-Options: nosniff`, `Content-Security-Policy: sandbox; default-src \'none\'` and `ETag: "<sha256>"`. ' +
        `HEAD answers the headers without reading the bytes. Sent as the client takes it; a client that takes nothing for ${EXPORT_IDLE_MS / 1000} s is cut off.`,
      responses: {
        200: {
          description: 'The bytes.',
          binary: RECEIPT_TYPES,
          headers: { 'Content-Disposition': "attachment; filename*=UTF-8''…", ETag: '"<sha256>"', 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "sandbox; default-src 'none'" },
        },
        304: { description: 'If-None-Match named its ETag (or `*`): not modified; the bytes are not read.' },
        400: badId,
        404: noSuchAttachment,
      },
    },
    {},
    async (c, { query }) => {
      const id = attachmentId(c.req.param('id'));
      // Issue 36 items 4 and 5: the metadata decides the headers, a 304 and a HEAD; the bytes are
      // read only for a body, a piece at a time as the client takes them.
      const found = await attachmentMetadata(c.var.db, id);
      const etag = `"${found.sha256}"`;
      const headers = {
        ETag: etag,
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "sandbox; default-src 'none'",
        'Cache-Control': 'private, no-cache',
      };
      if (noneMatch(c.req.header('If-None-Match'), etag)) return c.body(null, 304, headers);
      const inline = query.inline === '1' && isImage(found.content_type);
      const described = {
        ...headers,
        'Content-Type': found.content_type,
        'Content-Length': String(found.size),
        'Content-Disposition': contentDisposition(inline ? 'inline' : 'attachment', found.name),
      };
      if (c.req.method === 'HEAD') return c.body(null, 200, described);
      const pieces = attachmentBytes(c.var.db, id, found.size);
      // The first piece before answering: a receipt removed meanwhile is still this route's 404.
      const first = await pieces.next();
      return c.body(streamHoldingSlot(c, 'receipt', NO_SLOT, pieces, first.done ? [] : [first.value]), 200, described);
    },
  ),
  route(
    {
      method: 'delete', path: '/attachments/{id}', tier: 'full', summary: 'Removes a receipt (D22)', params: { id: positiveId },
      responses: {
        204: { description: 'Removed.' },
        400: badId,
        404: noSuchAttachment,
        409: refused('Its transaction is dated in a closed period, or reconciled (D20\'s messages).'),
      },
    },
    {},
    async (c) => {
      await deleteAttachment(c.var.db, attachmentId(c.req.param('id')), authorOf(c));
      return c.body(null, 204);
    },
  ),
];
