import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { eq, sql } from 'drizzle-orm';
import { ZipFile } from 'yazl';
import { rowsOf, type Db } from '../db/database';
import { attachments } from '../db/schema';
import { decimal, type Period } from './exports';
import { guardFormula } from './exports-csv';
import { cutToGraphemes, splitExtension, utf8Bytes } from './receipt-names';

// D22: GET /export/receipts.zip — every receipt of the transactions in a period, for the auditors,
// with index.csv. Streamed (yazl): the list is read first (metadata only), each file's bytes are
// read from the database only when the archive reaches it, so one receipt at most is in memory.
// Photos and PDFs are already compressed: stored as they are.

export const RECEIPTS_INDEX_HEADER = ['transaction_id', 'occurred_on', 'description', 'amount', 'file'];

export interface Listed {
  id: number;
  transaction_id: number;
  occurred_on: string;
  description: string;
  amount_cents: string;
  name: string;
  created_at: string;
}

/** Issue 37 item 3 (D22, names that travel): the longest name ext4, NTFS, APFS and the rest keep, in bytes of UTF-8. */
export const ENTRY_NAME_MAX_BYTES = 255;
/** What Windows refuses in a name (and control characters, and slashes that would make folders): `_` stands in, so the name still reads. */
const NOT_PORTABLE = /[:*?"<>|\\/\p{Cc}\p{Cs}]/gu;
/** Windows drops a name's trailing dots and spaces, which would make two names one. */
const TRAILING_DOTS_AND_SPACES = /[. ]+$/u;

/** The name a case-insensitive file system (NTFS, APFS, FAT) sees: two entries with one key would be one file there. */
const caseless = (name: string) => name.normalize('NFC').toUpperCase().toLowerCase();

/**
 * `YYYY-MM-DD_<transaction id>_<name>`, made portable (D22, names that travel): none of
 * `: * ? " < > |`, no control character, no trailing dot or space; at most 255 bytes of UTF-8,
 * the part before the extension cut between graphemes; unique ignoring case, with `-2`, `-3` …
 * before the extension, as for names that collide.
 */
export function archiveNames(listed: readonly Pick<Listed, 'occurred_on' | 'transaction_id' | 'name'>[]): string[] {
  const taken = new Set<string>([caseless('index.csv')]);
  return listed.map((l) => {
    const prefix = `${l.occurred_on}_${l.transaction_id}_`;
    const [wholeStem, extension] = splitExtension(l.name.replace(NOT_PORTABLE, '_'));
    const stem = wholeStem.replace(TRAILING_DOTS_AND_SPACES, '');
    for (let n = 1; ; n++) {
      const suffix = n === 1 ? '' : `-${n}`;
      const room = ENTRY_NAME_MAX_BYTES - utf8Bytes(prefix) - utf8Bytes(suffix) - utf8Bytes(extension);
      const name = `${prefix}${cutToGraphemes(stem, room, utf8Bytes).replace(TRAILING_DOTS_AND_SPACES, '')}${suffix}${extension}`;
      if (taken.has(caseless(name))) continue;
      taken.add(caseless(name));
      return name;
    }
  });
}

/** One receipt's bytes, fetched when the archive reads its entry. */
export function bytesWhenRead(db: Db, id: number): Readable {
  let asked = false;
  return new Readable({
    read() {
      if (asked) return;
      asked = true;
      db.select({ bytes: attachments.bytes })
        .from(attachments)
        .where(eq(attachments.id, id))
        .then(
          ([row]) => {
            this.push(row?.bytes ?? Buffer.alloc(0));
            this.push(null);
          },
          (error: unknown) => this.destroy(error as Error),
        );
    },
  });
}

/** D22: the period's receipts (metadata only, oldest transaction first), their names in the archive and index.csv; also the auditors' pack's `receipts/` (D28). */
export async function listReceipts(db: Db, period: Period): Promise<{ receipts: Listed[]; names: string[]; index: string }> {
  const listed = rowsOf<Listed>(
    await db.execute(sql`
      select a.id, a.transaction_id, t.occurred_on::text, t.description, a.name, a.created_at::text,
        (select coalesce(sum(e.amount_cents) filter (where e.amount_cents > 0), 0)::text from entries e where e.transaction_id = t.id) as amount_cents
      from ${attachments} a join transactions t on t.id = a.transaction_id
      where t.occurred_on >= coalesce(${period.from ?? null}::date, '-infinity'::date)
        and t.occurred_on <= coalesce(${period.to ?? null}::date, 'infinity'::date)
      order by t.occurred_on, t.id, a.id`),
  );
  const names = archiveNames(listed);
  const index = stringify(
    [RECEIPTS_INDEX_HEADER, ...listed.map((l, i) => [String(l.transaction_id), l.occurred_on, guardFormula(l.description), decimal(BigInt(l.amount_cents)), guardFormula(names[i]!)])],
    { record_delimiter: 'windows', quoted_match: /[\r\n]/ },
  );
  return { receipts: listed, names, index };
}

export async function* receiptsZip(db: Db, period: Period): AsyncGenerator<Uint8Array> {
  const { receipts: listed, names, index } = await listReceipts(db, period);
  const zip = new ZipFile();
  zip.addBuffer(Buffer.from(index), 'index.csv', { compress: true, mtime: new Date() });
  listed.forEach((l, i) => zip.addReadStream(bytesWhenRead(db, Number(l.id)), names[i]!, { compress: false, mtime: new Date(l.created_at) }));
  zip.end();
  for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) yield chunk;
}
