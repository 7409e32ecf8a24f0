import { and, asc, gt, sql } from 'drizzle-orm';
import { stringify } from 'csv-stringify/sync';
import type { Db } from '../db/database';
import { accounts, changes, schedules } from '../db/schema';
import { describeChange, type ChangeRecord, type Wording } from './change-words';
import { withContext } from './changes';
import { guardFormula } from './exports-csv';
import type { Period } from './exports';
import { getSettings } from './settings';

// D22: GET /export/changes.csv — the change log of a period for the club's auditors, who check who
// changed what: D17's CSV rules, oldest first, `summary` the change in the words History uses.

export const CHANGES_CSV_HEADER = ['id', 'at', 'actor_email', 'via', 'client_id', 'subject', 'subject_id', 'action', 'summary'];
const BATCH = 500;

/** Plain English for a file read anywhere: the book's currency, dates as "Mar 1, 2026", no time (its own column). */
export async function exportWording(db: Db): Promise<Wording> {
  const { currency, book_style } = await getSettings(db);
  const money = new Intl.NumberFormat('en-US', { style: 'currency', currency });
  const dates = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', dateStyle: 'medium' });
  const known = await db.select({ id: accounts.id, name: accounts.name, kind: accounts.kind }).from(accounts);
  const names = new Map(known.map((a) => [a.id, a.name]));
  const kinds = new Map(known.map((a) => [a.id, a.kind]));
  const plans = new Map((await db.select({ id: schedules.id, description: schedules.description }).from(schedules)).map((s) => [s.id, s.description]));
  return {
    money: (cents) => money.format(cents / 100),
    date: (iso) => dates.format(new Date(`${iso}T00:00:00Z`)),
    accountName: (id) => names.get(id),
    scheduleName: (id) => plans.get(id),
    accountKind: (id) => kinds.get(id),
    bookStyle: book_style,
  };
}

/** `from` and `to` are days (UTC) of `at`, both included; written a batch at a time. */
export async function* changesCsv(db: Db, period: Period): AsyncGenerator<string> {
  const options = { record_delimiter: 'windows', quoted_match: /[\r\n]/ } as const;
  const words = await exportWording(db);
  yield stringify([CHANGES_CSV_HEADER], options);
  let after = 0;
  for (;;) {
    const rows = await db
      .select()
      .from(changes)
      .where(
        and(
          gt(changes.id, after),
          period.from === undefined ? undefined : sql`${changes.at} >= (${period.from}::date)::timestamp at time zone 'UTC'`,
          period.to === undefined ? undefined : sql`${changes.at} < (${period.to}::date + 1)::timestamp at time zone 'UTC'`,
        ),
      )
      .orderBy(asc(changes.id))
      .limit(BATCH);
    if (rows.length === 0) return;
    after = rows.at(-1)!.id;
    // Issue 37 item 6: each record with what History reads beside it (the statement line, the receipt's transaction).
    const records = await withContext(
      db,
      rows.map((r) => ({
        id: r.id, at: r.at.toISOString(), actor_email: r.actorEmail, via: r.via, client_id: r.clientId, subject: r.subject,
        subject_id: r.subjectId, action: r.action, schedule_id: r.scheduleId, before: r.before, after: r.after,
      })),
    );
    yield stringify(
      records.map((r: ChangeRecord & { id: number }) => [
        String(r.id), r.at, guardFormula(r.actor_email ?? ''), r.via, guardFormula(r.client_id ?? ''), r.subject,
        r.subject_id === null ? '' : String(r.subject_id), r.action, guardFormula(describeChange(r, words)),
      ]),
      options,
    );
    if (rows.length < BATCH) return;
  }
}
