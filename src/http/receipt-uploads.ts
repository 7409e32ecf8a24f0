import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './context';

// Issue 36 item 4: a receipt upload is up to 10 MiB read whole (its type is judged and its hash
// taken over the bytes), and about five times that in memory at its peak while the driver sends it
// to the database as hex: 30 at once took `serve` to 596 MiB. So a process takes at most
// RECEIPT_UPLOADS_AT_ONCE at a time, before any body is read (src/http/app.ts mounts this ahead of
// the body limit, which reads a body sent without Content-Length); the others answer 503 with
// Retry-After, as the exports' budget does (src/http/export-budget.ts). The web app sends a
// person's receipts one after the other.

/** Receipt uploads in flight at once in this process. */
export const RECEIPT_UPLOADS_AT_ONCE = 4;
/** Seconds a refused upload is told to wait (Retry-After). */
export const RECEIPT_UPLOAD_RETRY_AFTER_SECONDS = 5;
export const RECEIPT_UPLOADS_BUSY = 'too many receipts are being uploaded; try again shortly';

let uploading = 0;

/** Holds one of the process's upload places for the rest of the request, or answers 503. */
export const admitReceiptUpload = createMiddleware<AppEnv>(async (c, next) => {
  if (uploading >= RECEIPT_UPLOADS_AT_ONCE) {
    c.header('Retry-After', String(RECEIPT_UPLOAD_RETRY_AFTER_SECONDS));
    return c.json({ error: RECEIPT_UPLOADS_BUSY }, 503);
  }
  uploading++;
  try {
    await next();
  } finally {
    uploading--;
  }
});
