import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, ApiError, apiBlob, download, upload, type Attachment } from '../api';
import { ErrorNote } from '../components';
import { locale, t } from '../i18n';

// D22 in the web app: receipts on a transaction. A photo from the phone's camera (the file input
// asks for it with `capture`) or a file, sent as it is with its progress shown; a thumbnail made
// here in the browser (a canvas: the server never makes one), the image full size in a dialog, a
// PDF in the browser's own viewer through a download; removed after asking. The page's
// Content-Security-Policy lets images come from the page itself and `data:` only, so the bytes
// are fetched with the session and shown as `data:` URLs.

/** What the file chooser offers; on a phone, `capture="environment"` opens the back camera. */
export const RECEIPT_ACCEPT = 'image/*,application/pdf';
/** D22's limits, said before anything is sent. */
const MAX_BYTES = 10 * 1024 * 1024;
export const RECEIPTS_PER_TRANSACTION = 20;
const KEPT_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/heic', 'image/heif', 'application/pdf'];
/** A browser that does not know HEIC gives it no type: its name then says what it is. */
const KEPT_NAMES = /\.(jpe?g|png|webp|gif|heic|heif|pdf)$/i;
/** Thumbnails fit a square of this many pixels (twice what the page shows, for sharp screens). */
const THUMBNAIL_PX = 160;

const UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB'] as const;

/** A size as people read it: "850 KB", "12.3 MB", "1 GB" (units of 1,024, as the limits are set); "12,3 MB" in German. */
export function sizeInWords(bytes: number): string {
  let unit = 0;
  let value = bytes;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return t(`receipts.size.${UNITS[unit]}`, { size: new Intl.NumberFormat(locale(), { maximumFractionDigits: 1 }).format(value) });
}

/** "1 receipt", "3 receipts" ("1 Beleg", "3 Belege"). */
export const receiptsInWords = (n: number) => t('receipts.count', { count: n });

/** What the book keeps, in words (D22). */
const keptKinds = () => t('receipts.refusal.keptKinds');

const tooLarge = (name: string) => t('receipts.refusal.tooLarge', { name, max: sizeInWords(MAX_BYTES) });

/** Issue 37 item 13: a file of 0 bytes (a scan or a download that failed) is empty, whatever its name says. */
const empty = (name: string) => t('receipts.refusal.empty', { name });

/** Why a chosen file cannot be a receipt, said before anything is sent (D22's type and size); null when it may be. */
export function receiptProblem(file: File): string | null {
  if (file.size === 0) return empty(file.name);
  if (file.size > MAX_BYTES) return tooLarge(file.name);
  if (!KEPT_TYPES.includes(file.type) && !KEPT_NAMES.test(file.name)) return t('receipts.refusal.notKind', { name: file.name, kinds: keptKinds() });
  return null;
}

/** D22: the API's refusal of a receipt (413, 415, 409…) in plain words, naming the file. */
export function refusalInWords(name: string, error: unknown): string {
  if (!(error instanceof ApiError)) return t('receipts.refusal.other', { name, reason: error instanceof Error ? error.message : String(error) });
  if (error.status === 413) return tooLarge(name);
  if (error.status === 400 && /the file is empty/.test(error.message)) return empty(name);
  if (error.status === 415) {
    const declared = /^the file is (\S+), not/.exec(error.message);
    return declared
      ? t('receipts.refusal.misnamed', { name, type: declared[1]!.replace(/^\w+\//, '').toUpperCase() })
      : t('receipts.refusal.notKeepable', { name, kinds: keptKinds() });
  }
  if (error.status === 409 && /storage is full/.test(error.message)) return t('receipts.refusal.storageFull', { name });
  if (error.status === 409) return t('receipts.refusal.tooMany', { name, max: RECEIPTS_PER_TRANSACTION });
  if (error.status === 404) return t('receipts.refusal.gone', { name });
  return t('receipts.refusal.other', { name, reason: error.message });
}

/** D22: the paperclip beside a transaction with receipts (drawn, not an emoji: every device shows it). */
export function Paperclip() {
  return (
    <svg className="paperclip-icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
      <path
        d="M16.5 6.5v10a4.5 4.5 0 0 1-9 0V5a3 3 0 0 1 6 0v10.5a1.5 1.5 0 0 1-3 0V6.5"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.8"
        strokeLinecap="round"
      />
    </svg>
  );
}

/** A file on its way: its name and how much of it has been sent. */
export interface Sending {
  name: string;
  sent: number;
  total: number;
}

/** D22: `file` added to transaction `id`, its progress reported to `onProgress`; a refusal is thrown in plain words. */
export async function sendReceipt(transactionId: number, file: File, onProgress: (sending: Sending) => void): Promise<Attachment> {
  onProgress({ name: file.name, sent: 0, total: file.size });
  try {
    return await upload<Attachment>(`/transactions/${transactionId}/attachments?name=${encodeURIComponent(file.name)}`, file, (sent, total) =>
      onProgress({ name: file.name, sent, total }),
    );
  } catch (error) {
    throw new Error(refusalInWords(file.name, error));
  }
}

/** The progress of a file being sent: a bar for the eye, its words for screen readers. */
export function SendingProgress({ sending }: { sending: Sending | null }) {
  if (!sending) return null;
  const percent = sending.total ? Math.round((sending.sent / sending.total) * 100) : 0;
  return (
    <label className="sending">
      {t('receipts.sending', { name: sending.name, size: sizeInWords(sending.total) })}
      <progress max={100} value={percent}>
        {percent}%
      </progress>
    </label>
  );
}

/**
 * "Add receipt": a button that opens the file chooser (on a phone, the camera: `capture`), for
 * one file or several; `onChosen` gets what was chosen.
 */
export function AddReceiptButton({ disabled, onChosen, label: asked }: { disabled?: boolean; onChosen(files: File[]): void; label?: string }) {
  const { t } = useTranslation();
  const label = asked ?? t('receipts.add');
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" className="secondary" disabled={disabled} onClick={() => input.current?.click()}>
        {label}
      </button>
      <input
        ref={input}
        type="file"
        accept={RECEIPT_ACCEPT}
        capture="environment"
        multiple
        hidden
        aria-label={label}
        onChange={(event) => {
          const files = Array.from(event.target.files ?? []);
          // The same file may be chosen again (after a refusal, or to add it twice).
          event.target.value = '';
          if (files.length) onChosen(files);
        }}
      />
    </>
  );
}

/** A thumbnail of an image, drawn on a canvas in the browser: a `data:` JPEG at most THUMBNAIL_PX a side. */
async function thumbnailOf(blob: Blob): Promise<string> {
  const bitmap = await createImageBitmap(blob);
  const scale = Math.min(1, THUMBNAIL_PX / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  const context = canvas.getContext('2d')!;
  // A transparent PNG on white, as on paper (JPEG has no transparency).
  context.fillStyle = '#fff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  return canvas.toDataURL('image/jpeg', 0.85);
}

function dataUrlOf(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}

const isImage = (a: Attachment) => a.content_type.startsWith('image/');
/** What a receipt is, as its tile says when it shows no picture: "PDF", "HEIC". */
const typeLabel = (a: Attachment) => a.content_type.replace(/^\w+\//, '').toUpperCase();

/**
 * One receipt's tile: the thumbnail (an image this browser can draw) or its type (a PDF, a HEIC
 * photo the browser cannot show), as a button that opens it: the image full size, anything else
 * through a download, which the browser opens in its viewer.
 */
function ReceiptTile({ attachment, onOpen }: { attachment: Attachment; onOpen(drawable: boolean): void }) {
  const { t } = useTranslation();
  const [thumbnail, setThumbnail] = useState<string | null>(null);
  const [undrawable, setUndrawable] = useState(!isImage(attachment));
  useEffect(() => {
    if (!isImage(attachment)) return;
    let shown = true;
    apiBlob(`/attachments/${attachment.id}?inline=1`)
      .then(thumbnailOf)
      .then(
        (url) => shown && setThumbnail(url),
        () => shown && setUndrawable(true),
      );
    return () => {
      shown = false;
    };
  }, [attachment]);
  const label = undrawable ? t('receipts.openDownloads', { name: attachment.name, type: typeLabel(attachment) }) : t('receipts.showFullSize', { name: attachment.name });
  return (
    <button type="button" className="receipt-tile" aria-label={label} onClick={() => onOpen(!undrawable)}>
      {thumbnail ? <img src={thumbnail} alt="" /> : <span className="receipt-type">{undrawable ? typeLabel(attachment) : '…'}</span>}
    </button>
  );
}

/** An image receipt full size, in a modal dialog (Escape or Close ends it), with its download. */
function FullSize({ attachment, onClose }: { attachment: Attachment; onClose(): void }) {
  const { t } = useTranslation();
  const dialog = useRef<HTMLDialogElement>(null);
  const heading = useId();
  const [source, setSource] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    dialog.current?.showModal();
    apiBlob(`/attachments/${attachment.id}?inline=1`)
      .then(dataUrlOf)
      .then(setSource, (e: Error) => setError(e.message));
  }, [attachment]);
  return (
    <dialog ref={dialog} className="receipt-full" aria-labelledby={heading} onClose={onClose}>
      <div className="row receipt-full-bar">
        <h3 id={heading}>{attachment.name}</h3>
        <button type="button" className="secondary" onClick={() => void download(`/attachments/${attachment.id}`, attachment.name).catch((e: Error) => setError(e.message))}>
          {t('receipts.download')}
        </button>
        <button type="button" onClick={() => dialog.current?.close()}>
          {t('receipts.close')}
        </button>
      </div>
      <ErrorNote error={error} />
      {source ? <img src={source} alt={t('receipts.imageAlt', { name: attachment.name })} /> : !error && <p className="loading">{t('receipts.loading')}</p>}
    </dialog>
  );
}

/**
 * D22: the receipts of a transaction opened for correction: thumbnails, "Add receipt" (the camera
 * on a phone), each opened or removed (asked first). `removalRefusal` (D20: a reconciled
 * transaction, or one in the closed period, keeps its receipts) is said before anything is sent.
 */
export function Receipts({ transaction, removalRefusal, onChange }: { transaction: { id: number; description: string }; removalRefusal: string | null; onChange?(count: number): void }) {
  const { t } = useTranslation();
  const [list, setList] = useState<Attachment[] | null>(null);
  const [sending, setSending] = useState<Sending | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [said, setSaid] = useState<string | null>(null);
  const [open, setOpen] = useState<Attachment | null>(null);
  const heading = useId();

  const load = useCallback(async () => {
    const found = await api<Attachment[]>('GET', `/transactions/${transaction.id}/attachments`);
    setList(found);
  }, [transaction.id]);
  useEffect(() => {
    load().catch((e: Error) => setErrors([e.message]));
  }, [load]);
  // The list's paperclip follows what is shown here.
  useEffect(() => {
    if (list) onChange?.(list.length);
  }, [list]);

  const add = async (files: File[]) => {
    setErrors([]);
    setSaid(null);
    const refused: string[] = [];
    const added: string[] = [];
    for (const file of files) {
      const problem = receiptProblem(file);
      if (problem) {
        refused.push(problem);
        continue;
      }
      try {
        const made = await sendReceipt(transaction.id, file, setSending);
        added.push(made.name);
        setList((shown) => [...(shown ?? []), made]);
      } catch (e) {
        refused.push((e as Error).message);
      }
    }
    setSending(null);
    setErrors(refused);
    if (added.length) setSaid(t('receipts.added', { names: added.map((name) => t('receipts.quoted', { name })).join(', ') }));
    await load().catch(() => undefined);
  };

  const remove = async (attachment: Attachment) => {
    setSaid(null);
    if (removalRefusal) return setErrors([removalRefusal]);
    setErrors([]);
    if (!window.confirm(t('receipts.confirmRemove', { name: attachment.name, description: transaction.description }))) return;
    try {
      await api('DELETE', `/attachments/${attachment.id}`);
      setSaid(t('receipts.removed', { name: attachment.name }));
      await load();
    } catch (e) {
      setErrors([(e as Error).message]);
    }
  };

  const openReceipt = (attachment: Attachment, drawable: boolean) => {
    if (drawable) return setOpen(attachment);
    download(`/attachments/${attachment.id}`, attachment.name).catch((e: Error) => setErrors([e.message]));
  };

  return (
    <section aria-labelledby={heading} className="receipts">
      <h4 id={heading}>{t('receipts.heading', { description: transaction.description })}</h4>
      {list === null ? (
        errors.length === 0 && <p className="loading">{t('receipts.loading')}</p>
      ) : list.length === 0 ? (
        <p className="muted">{t('receipts.none')}</p>
      ) : (
        <ul className="plain receipt-list">
          {list.map((a) => (
            <li key={a.id}>
              <ReceiptTile attachment={a} onOpen={(drawable) => openReceipt(a, drawable)} />
              <span className="receipt-name">
                {a.name} <span className="muted small">{sizeInWords(a.size)}</span>
              </span>
              <button type="button" className="secondary" aria-label={t('receipts.removeLabel', { name: a.name })} onClick={() => void remove(a)}>
                {t('receipts.remove')}
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="row">
        <AddReceiptButton disabled={sending !== null || (list?.length ?? 0) >= RECEIPTS_PER_TRANSACTION} onChosen={(files) => void add(files)} />
      </div>
      <p className="muted small">{t('receipts.keptAtOnce')}</p>
      {(list?.length ?? 0) >= RECEIPTS_PER_TRANSACTION && <p className="muted small">{t('receipts.atMost', { max: RECEIPTS_PER_TRANSACTION })}</p>}
      <SendingProgress sending={sending} />
      <div role="status">{said}</div>
      {errors.map((error) => (
        <ErrorNote key={error} error={error} />
      ))}
      {open && <FullSize attachment={open} onClose={() => setOpen(null)} />}
    </section>
  );
}

/**
 * Issue 36 item 4: the receipts a deleted transaction keeps for its restore (D15), shown beside
 * its Undo in History, so that what they hold is seen and can be removed (asked first; nothing
 * of the book changes, the transaction is gone). Nothing is shown when it kept none.
 */
export function KeptReceipts({ transaction }: { transaction: { id: number; description: string } }) {
  const { t } = useTranslation();
  const [list, setList] = useState<Attachment[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const load = useCallback(async () => setList(await api<Attachment[]>('GET', `/transactions/${transaction.id}/attachments`)), [transaction.id]);
  useEffect(() => {
    load().catch((e: Error) => setError(e.message));
  }, [load]);

  const remove = async (attachment: Attachment) => {
    setSaid(null);
    setError(null);
    if (!window.confirm(t('receipts.confirmRemoveKept', { name: attachment.name, description: transaction.description }))) return;
    try {
      await api('DELETE', `/attachments/${attachment.id}`);
      setSaid(t('receipts.removed', { name: attachment.name }));
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  if (!list?.length && !said) return <ErrorNote error={error} />;
  const held = (list ?? []).reduce((sum, a) => sum + a.size, 0);
  return (
    <div className="kept-receipts">
      {list && list.length > 0 && (
        <>
          <p className="muted small">
            {t('receipts.keptForUndo', { receipts: receiptsInWords(list.length), size: sizeInWords(held) })}
          </p>
          <ul className="plain">
            {list.map((a) => (
              <li key={a.id} className="row">
                <span className="receipt-name">
                  {a.name} <span className="muted small">{sizeInWords(a.size)}</span>
                </span>
                <button type="button" className="secondary" aria-label={t('receipts.downloadLabel', { name: a.name })} onClick={() => void download(`/attachments/${a.id}`, a.name).catch((e: Error) => setError(e.message))}>
                  {t('receipts.download')}
                </button>
                <button type="button" className="secondary" aria-label={t('receipts.removeLabel', { name: a.name })} onClick={() => void remove(a)}>
                  {t('receipts.remove')}
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      <div role="status">{said}</div>
      <ErrorNote error={error} />
    </div>
  );
}
