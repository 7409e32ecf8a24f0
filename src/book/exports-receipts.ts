import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { eq, sql } from 'drizzle-orm';
import { ZipFile } from 'yazl';
import { rowsOf, type Db } from '../db/database';
import { attachments } from '../db/schema';
import { decimal, type Period } from './exports';
import { guardFormula } from './exports-csv';

// D22: GET /export/receipts.zip — every receipt of the transactions in a period, for the auditors,
// with index.csv. Streamed (yazl): the list is read first (metadata only), each file's bytes are
// read from the database only when the archive reaches it, so one receipt at most is in memory.
// Photos and PDFs are already compressed: stored as they are.

export const RECEIPTS_INDEX_HEADER = ['transaction_id', 'occurred_on', 'description', 'amount', 'file'];

interface Listed {
  id: number;
  transaction_id: number;
  occurred_on: string;
  description: string;
  amount_cents: string;
  name: string;
  created_at: string;
}

/** `YYYY-MM-DD_<transaction id>_<name>`, with `-2`, `-3` … before the extension when two would collide. */
export function archiveNames(listed: readonly Pick<Listed, 'occurred_on' | 'transaction_id' | 'name'>[]): string[] {
  const taken = new Set<string>(['index.csv']);
  return listed.map((l) => {
    const wanted = `${l.occurred_on}_${l.transaction_id}_${l.name}`;
    const dot = wanted.lastIndexOf('.');
    const [stem, extension] = dot > wanted.indexOf('_', 11) ? [wanted.slice(0, dot), wanted.slice(dot)] : [wanted, ''];
    let name = wanted;
    for (let n = 2; taken.has(name); n++) name = `${stem}-${n}${extension}`;
    taken.add(name);
    return name;
  });
}

/** One receipt's bytes, fetched when the archive reads its entry. */
function bytesWhenRead(db: Db, id: number): Readable {
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

export async function* receiptsZip(db: Db, period: Period): AsyncGenerator<Uint8Array> {
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
  const zip = new ZipFile();
  const index = stringify(
    [RECEIPTS_INDEX_HEADER, ...listed.map((l, i) => [String(l.transaction_id), l.occurred_on, guardFormula(l.description), decimal(BigInt(l.amount_cents)), guardFormula(names[i]!)])],
    { record_delimiter: 'windows', quoted_match: /[\r\n]/ },
  );
  zip.addBuffer(Buffer.from(index), 'index.csv', { compress: true, mtime: new Date() });
  listed.forEach((l, i) => zip.addReadStream(bytesWhenRead(db, Number(l.id)), names[i]!, { compress: false, mtime: new Date(l.created_at) }));
  zip.end();
  for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) yield chunk;
}
