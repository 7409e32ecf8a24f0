import { and, eq, sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../db/database';
import { scheduleOccurrences, schedules, users } from '../db/schema';
import { databaseRefusal } from '../db/refusals';
import { todayUtc } from '../text';
import type { Actor, Author } from './changes';
import { addDays } from './occurrences';
import {
  blockedReason,
  createSchedule,
  getSchedule,
  markHandled,
  readBookState,
  refreshNextOn,
  replaceSchedule,
  unhandledThrough,
  type NewSchedule,
  type Schedule,
} from './schedules';
import { insertTransaction } from './transactions';

// D21: the posting job. `ledger serve` runs it once at start and every 10 minutes (src/background.ts):
// every `post` occurrence dated on or before today (UTC) and neither posted nor skipped is posted,
// oldest first, so the days the server was off are caught up. One schedule at a time, at most
// POSTING_BATCH occurrences per database transaction, yielding to the event loop between batches:
// it holds one pool connection at a time and no transaction while idle, so requests go on.

/** At most this many occurrences are posted in one database transaction (D21's catch-up in batches). */
export const POSTING_BATCH = 100;

export interface PostingRun {
  posted: number;
  /** Schedules left for the next run: a refusal met while posting (an account deleted, a period closed meanwhile). */
  refused: number;
}

/**
 * D21: posts what is due of one `post` schedule: every occurrence on or before `today` neither
 * posted nor skipped, oldest first, `POSTING_BATCH` at most per call (call again while it returns
 * that many). The author is the schedule's creator, `via: "schedule"`. Another instance posting
 * the same schedule waits for its row, then finds the dates handled; the (schedule, date) key is
 * the last word. Blocked occurrences stay unhandled (listed as due). Returns how many it posted.
 */
export function postDueOfSchedule(db: Db, id: number, today: string): Promise<number> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(schedules).where(and(eq(schedules.id, id), eq(schedules.mode, 'post'))).for('update');
    if (!row || row.nextOn === null) return 0;
    const state = await readBookState(tx);
    // Occurrences in a closed period wait (D20): look from the day after it, so that a batch is
    // never spent on dates that cannot be posted (D21's bound on the dates one call computes).
    const from = state.closedThrough !== null && row.nextOn <= state.closedThrough ? addDays(state.closedThrough, 1) : row.nextOn;
    const dates = from === null ? [] : await unhandledThrough(tx, row, today, POSTING_BATCH, from);
    if (dates.length === 0) return 0;
    const [creator] = row.createdBy === null ? [] : await tx.select({ email: users.email }).from(users).where(eq(users.id, row.createdBy));
    const author: Author = { userId: creator ? row.createdBy : null, email: creator?.email ?? null, via: 'schedule', clientId: null };
    const entries = row.entries.map((l) => ({ account_id: l.account_id, amount_cents: l.amount_cents }));
    let posted = 0;
    for (const on of dates) {
      if (blockedReason(state, on, row.entries) !== null) continue;
      if (!(await markHandled(tx, id, on, 'posted', null))) continue;
      const transactionId = await insertTransaction(tx, { occurred_on: on, description: row.description, entries }, author, id);
      await tx.execute(sql`update ${scheduleOccurrences} set transaction_id = ${transactionId} where schedule_id = ${id} and occurs_on = ${on}`);
      posted++;
    }
    await refreshNextOn(tx, row);
    return posted;
  });
}

/** The `post` schedules with something on or before `today` not yet handled. */
export async function schedulesDue(db: Db, today: string): Promise<number[]> {
  const rows = rowsOf<{ id: number }>(
    await db.execute(sql`select id from ${schedules} where mode = 'post' and next_on <= ${today} order by next_on, id`),
  );
  return rows.map((r) => Number(r.id));
}

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `stopping` is asked between batches: a server told to stop ends its run at the next one. */
export async function postDueOccurrences(db: Db, today = todayUtc(), stopping: () => boolean = () => false): Promise<PostingRun> {
  const run: PostingRun = { posted: 0, refused: 0 };
  for (const id of await schedulesDue(db, today)) {
    for (;;) {
      if (stopping()) return run;
      let posted: number;
      try {
        posted = await postDueOfSchedule(db, id, today);
      } catch (error) {
        // Its book changed under it: the next run sees the occurrence blocked, or posts it.
        if (databaseRefusal(error) === undefined) throw error;
        run.refused++;
        break;
      }
      run.posted += posted;
      await yieldToRequests();
      if (posted < POSTING_BATCH) break;
    }
  }
  return run;
}

/**
 * Issue 37 item 4 (D21): a `post` schedule just saved posts what is due (dated on or before
 * `today`, neither posted nor skipped) at once, so the form's "all 3 will be posted at once" holds
 * when its 201 arrives instead of at the next background run. The very path of the posting job:
 * postDueOfSchedule in its batches, under the schedule's row lock, the (schedule, date) key the
 * last word against a job running at the same moment; the author is the schedule's creator and
 * the change records say `via: "schedule"`. Blocked occurrences stay due with their reason. A
 * refusal met while posting (an account deleted, a period closed meanwhile) leaves the rest to
 * the job, as the job leaves it to its next run: the schedule is saved either way.
 *
 * Right after the schedule's own transaction, not inside it: the posting is the job's, in the
 * job's batches (at most POSTING_BATCH per database transaction, D21's bound of 1,000 at once
 * making ten at most), and what is saved does not depend on what can be posted. A crash in
 * between leaves the dates due, and the background run posts them (at start, then every 10
 * minutes). With an Idempotency-Key the whole request is one transaction anyway (the key's, see
 * src/http/idempotency.ts): the schedule, its postings and the kept answer commit together, and a
 * replay returns that answer and posts nothing.
 */
export async function postDueOnSave(db: Db, id: number, today: string): Promise<Schedule> {
  for (;;) {
    let posted: number;
    try {
      posted = await postDueOfSchedule(db, id, today);
    } catch (error) {
      if (databaseRefusal(error) === undefined) throw error;
      break;
    }
    if (posted < POSTING_BATCH) break;
  }
  return getSchedule(db, id);
}

/** POST /schedules and MCP `create_schedule` (D21): the schedule made, then what is due posted (issue 37 item 4). */
export async function createScheduleAndPostDue(db: Db, input: NewSchedule, author: Author, today = todayUtc()): Promise<Schedule> {
  const made = await createSchedule(db, input, author, today);
  return made.mode === 'post' ? postDueOnSave(db, made.id, today) : made;
}

/**
 * PUT /schedules/{id} (D21): the schedule replaced, then what falls due posted (issue 37 item 4);
 * never a date before its next_on at the moment of the PUT (replaceSchedule counts those handled).
 */
export async function replaceScheduleAndPostDue(db: Db, id: number, input: NewSchedule, actor: Actor, today = todayUtc()): Promise<Schedule> {
  const saved = await replaceSchedule(db, id, input, actor, today);
  return saved.mode === 'post' ? postDueOnSave(db, id, today) : saved;
}
