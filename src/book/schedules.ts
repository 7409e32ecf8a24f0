import { and, asc, eq, gte, inArray, lte, sql } from 'drizzle-orm';
import * as v from 'valibot';
import type { Db } from '../db/database';
import { accounts, scheduleOccurrences, schedules, settings, users, type ScheduleLine } from '../db/schema';
import { conflict, invalid, notFound } from '../errors';
import { requestSchema } from '../shapes';
import { dateString, requiredText } from '../text';
import { recordChange, type Actor, type Author } from './changes';
import { getTransaction } from './corrections';
import { todayUtc } from '../text';
import { addDays, firstUnhandled, isOccurrence, LAST_DATE, unhandledBetween } from './occurrences';
import { checkDueThrough, checkPostedAtOnce, floorOf, recurrenceOf } from './schedule-dates';
import { checkBalanced, DESCRIPTION_MAX, EntriesSchema, insertTransaction, type NewTransaction, type TransactionView } from './transactions';
import type { DueOccurrence, Schedule as ScheduleShape } from './views';

// D21: schedules — what comes back (rent, dues, the phone bill) — and their occurrences. The
// database decides what must never break: one row per (schedule, date) handled, so an occurrence
// is posted or skipped at most once whatever the number of instances or restarts. Every writer
// (a person posting or skipping, the posting job, a PUT) takes the schedule's row first, so
// `next_on` (the first occurrence neither posted nor skipped) stays true. The date rules live in
// occurrences.ts (the calendar) and schedule-dates.ts (a schedule's floor and bounds); the
// posting job in schedule-posting.ts.

export type Schedule = v.InferOutput<typeof ScheduleShape>;
export type Due = v.InferOutput<typeof DueOccurrence>;

export const INTERVAL_MAX = 99;

export const NewScheduleSchema = requestSchema('NewSchedule', v.pipe(
  v.object(
    {
      description: requiredText('description', DESCRIPTION_MAX),
      entries: EntriesSchema,
      start_on: dateString('start_on'),
      every: v.picklist(['week', 'month', 'year'], 'every must be week, month or year'),
      interval: v.optional(v.pipe(
        v.number('interval must be an integer from 1 to 99'),
        v.integer('interval must be an integer from 1 to 99'),
        v.minValue(1, 'interval must be an integer from 1 to 99'),
        v.maxValue(INTERVAL_MAX, 'interval must be an integer from 1 to 99'),
      )),
      until_on: v.optional(v.nullable(dateString('until_on'))),
      mode: v.picklist(['post', 'remind'], 'mode must be post or remind'),
    },
    'the request body must be a JSON object',
  ),
  v.check((s) => s.until_on == null || s.until_on >= s.start_on, 'until_on must not be before start_on'),
));
export type NewSchedule = v.InferOutput<typeof NewScheduleSchema>;

/** D21: what differs this time when an occurrence is posted by hand (a bill that varies). */
export const OccurrenceChangesSchema = requestSchema('OccurrenceChanges', v.object(
  {
    occurred_on: v.optional(dateString('occurred_on')),
    description: v.optional(requiredText('description', DESCRIPTION_MAX)),
    entries: v.optional(EntriesSchema),
  },
  'the request body must be a JSON object',
));
export type OccurrenceChanges = v.InferOutput<typeof OccurrenceChangesSchema>;

type Row = typeof schedules.$inferSelect;

export const NO_SUCH_SCHEDULE = 'no such schedule';
export const NO_SUCH_OCCURRENCE = 'that date is not an occurrence of the schedule';
export const ALREADY_HANDLED = 'that occurrence was already posted or skipped';

/** The handled dates of a schedule from `from` (through `through` when given). */
export async function handledBetween(db: Db, scheduleId: number, from: string, through?: string): Promise<Set<string>> {
  const rows = await db
    .select({ on: scheduleOccurrences.occursOn })
    .from(scheduleOccurrences)
    .where(and(
      eq(scheduleOccurrences.scheduleId, scheduleId),
      gte(scheduleOccurrences.occursOn, from),
      through === undefined ? undefined : lte(scheduleOccurrences.occursOn, through),
    ));
  return new Set(rows.map((r) => r.on));
}

/**
 * Recomputes and stores `next_on` of a schedule whose row the caller holds: it steps over the
 * handled dates from the old next_on, at most one per handled row.
 */
export async function refreshNextOn(db: Db, row: Row): Promise<string | null> {
  const from = row.nextOn !== null && row.nextOn > floorOf(row) ? row.nextOn : floorOf(row);
  const next = firstUnhandled(recurrenceOf(row), from, await handledBetween(db, row.id, from));
  await db.update(schedules).set({ nextOn: next }).where(eq(schedules.id, row.id));
  return next;
}

/** The schedule's row, locked until the transaction ends; 404 when there is none. */
async function lockSchedule(db: Db, id: number): Promise<Row> {
  const [row] = await db.select().from(schedules).where(eq(schedules.id, id)).for('update');
  if (!row) throw notFound(NO_SUCH_SCHEDULE);
  return row;
}

/** The read shape of every schedule (or of `id`), entries named by their account's current name. */
async function readSchedules(db: Db, id?: number): Promise<Schedule[]> {
  const rows = await db
    .select({ row: schedules, email: users.email })
    .from(schedules)
    .leftJoin(users, eq(users.id, schedules.createdBy))
    .where(id === undefined ? undefined : eq(schedules.id, id))
    .orderBy(sql`${schedules.nextOn} asc nulls last`, asc(schedules.id));
  const names = await accountNames(db, rows.flatMap((r) => r.row.entries.map((e) => e.account_id)));
  return rows.map(({ row, email }) => ({
    id: row.id,
    description: row.description,
    entries: row.entries.map((e) => ({ account_id: e.account_id, account_name: names.get(e.account_id) ?? e.account_name, amount_cents: e.amount_cents })),
    start_on: row.startOn,
    every: row.every,
    interval: row.interval,
    until_on: row.untilOn,
    mode: row.mode,
    next_on: row.nextOn,
    created_by_email: email,
  }));
}

async function accountNames(db: Db, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select({ id: accounts.id, name: accounts.name }).from(accounts).where(inArray(accounts.id, [...new Set(ids)]));
  return new Map(rows.map((r) => [r.id, r.name]));
}

export async function listSchedules(db: Db): Promise<Schedule[]> {
  return readSchedules(db);
}

export async function getSchedule(db: Db, id: number): Promise<Schedule> {
  const [found] = await readSchedules(db, id);
  if (!found) throw notFound(NO_SUCH_SCHEDULE);
  return found;
}

/**
 * The lines as saved, each with its account's name then; every account must exist now, as for
 * POST /transactions (same message), and the entries balance.
 */
async function savedLines(db: Db, input: NewSchedule): Promise<ScheduleLine[]> {
  checkBalanced(input);
  const names = await accountNames(db, input.entries.map((e) => e.account_id));
  if (input.entries.some((e) => !names.has(e.account_id))) throw invalid('an entry names an account that does not exist');
  return input.entries.map((e) => ({ account_id: e.account_id, account_name: names.get(e.account_id)!, amount_cents: e.amount_cents }));
}

function rowValues(input: NewSchedule, lines: ScheduleLine[]) {
  return {
    description: input.description,
    entries: lines,
    startOn: input.start_on,
    every: input.every,
    interval: input.interval ?? 1,
    untilOn: input.until_on ?? null,
    mode: input.mode,
  };
}

/**
 * POST /schedules: its first occurrence is start_on; the posting job catches up what is past, so a
 * `post` schedule with more than 1,000 occurrences through today is refused (D21's bounds).
 */
export function createSchedule(db: Db, input: NewSchedule, author: Author, today = todayUtc()): Promise<Schedule> {
  return db.transaction(async (tx) => {
    const lines = await savedLines(tx, input);
    const values = rowValues(input, lines);
    if (values.mode === 'post') checkPostedAtOnce(recurrenceOf(values), values.startOn, today, []);
    const [row] = await tx
      .insert(schedules)
      // start_on is always the first occurrence (until_on is never before it).
      .values({ ...values, createdBy: author.userId, nextOn: input.start_on })
      .returning({ id: schedules.id });
    const made = await getSchedule(tx, row!.id);
    await recordChange(tx, author, { subject: 'schedule', subjectId: made.id, action: 'create', before: null, after: made });
    return made;
  });
}

/**
 * PUT /schedules/{id}: replaces it. D21: occurrences dated before its next_on at this moment count
 * as handled, so a new start_on in the past posts nothing already past; a schedule with nothing
 * left (next_on null) counts everything through today as handled. A `post` schedule left with more
 * than 1,000 occurrences to post at once is refused (D21's bounds).
 */
export function replaceSchedule(db: Db, id: number, input: NewSchedule, actor: Actor, today = todayUtc()): Promise<Schedule> {
  return db.transaction(async (tx) => {
    const row = await lockSchedule(tx, id);
    const before = await getSchedule(tx, id);
    const lines = await savedLines(tx, input);
    const floor = row.nextOn ?? addDays(today, 1) ?? LAST_DATE;
    const handledBefore = row.handledBefore !== null && row.handledBefore > floor ? row.handledBefore : floor;
    const values = rowValues(input, lines);
    if (values.mode === 'post') {
      const from = floorOf({ startOn: values.startOn, handledBefore });
      checkPostedAtOnce(recurrenceOf(values), from, today, await handledBetween(tx, id, from, today));
    }
    const [updated] = await tx
      .update(schedules)
      .set({ ...values, handledBefore, nextOn: null })
      .where(eq(schedules.id, id))
      .returning();
    await refreshNextOn(tx, updated!);
    const after = await getSchedule(tx, id);
    await recordChange(tx, actor, { subject: 'schedule', subjectId: id, action: 'update', before, after });
    return after;
  });
}

/** DELETE /schedules/{id}: what it posted stays. */
export function deleteSchedule(db: Db, id: number, actor: Actor): Promise<void> {
  return db.transaction(async (tx) => {
    await lockSchedule(tx, id);
    const before = await getSchedule(tx, id);
    await tx.delete(schedules).where(eq(schedules.id, id));
    await recordChange(tx, actor, { subject: 'schedule', subjectId: id, action: 'delete', before, after: null });
  });
}

/** What the book's state says against posting `lines` on `on`: D20's closed period, or an account deleted since. */
export interface BookState {
  closedThrough: string | null;
  accountIds: ReadonlySet<number>;
}

export async function readBookState(db: Db): Promise<BookState> {
  const [row] = await db.select({ closedThrough: settings.closedThrough }).from(settings);
  const ids = await db.select({ id: accounts.id }).from(accounts);
  return { closedThrough: row?.closedThrough ?? null, accountIds: new Set(ids.map((a) => a.id)) };
}

export function blockedReason(state: BookState, on: string, lines: readonly ScheduleLine[]): string | null {
  if (state.closedThrough !== null && on <= state.closedThrough) return `the books are closed through ${state.closedThrough}`;
  const gone = lines.find((l) => !state.accountIds.has(l.account_id));
  if (gone) return `the account "${gone.account_name}" no longer exists`;
  return null;
}

/** The occurrence `date` of a locked schedule: 404 when it is none, 409 when it was handled. */
async function unhandledOccurrence(db: Db, row: Row, date: string): Promise<void> {
  if (!isOccurrence(recurrenceOf(row), date)) throw notFound(NO_SUCH_OCCURRENCE);
  if (date < floorOf(row) || (await handledBetween(db, row.id, date, date)).has(date)) throw conflict(ALREADY_HANDLED);
}

export async function markHandled(db: Db, scheduleId: number, date: string, outcome: 'posted' | 'skipped', transactionId: number | null): Promise<boolean> {
  const inserted = await db
    .insert(scheduleOccurrences)
    .values({ scheduleId, occursOn: date, outcome, transactionId })
    .onConflictDoNothing()
    .returning({ on: scheduleOccurrences.occursOn });
  return inserted.length === 1;
}

/**
 * POST /schedules/{id}/occurrences/{date}/post: posts one occurrence now, past or future, with what
 * differs this time; the author and `via` are the caller's (D21). Blocked: 409 with the reason.
 */
export function postOccurrence(db: Db, id: number, date: string, changes: OccurrenceChanges, author: Author): Promise<TransactionView> {
  return db.transaction(async (tx) => {
    const row = await lockSchedule(tx, id);
    await unhandledOccurrence(tx, row, date);
    const state = await readBookState(tx);
    // Other entries this time name accounts that exist now, as POST /transactions requires.
    if (changes.entries?.some((e) => !state.accountIds.has(e.account_id))) throw invalid('an entry names an account that does not exist');
    const lines: ScheduleLine[] = changes.entries ? changes.entries.map((e) => ({ ...e, account_name: '' })) : row.entries;
    const input: NewTransaction = {
      occurred_on: changes.occurred_on ?? date,
      description: changes.description ?? row.description,
      entries: lines.map((l) => ({ account_id: l.account_id, amount_cents: l.amount_cents })),
    };
    checkBalanced(input);
    const blocked = blockedReason(state, input.occurred_on, lines);
    if (blocked) throw conflict(blocked);
    const transactionId = await insertTransaction(tx, input, author, id);
    if (!(await markHandled(tx, id, date, 'posted', transactionId))) throw conflict(ALREADY_HANDLED);
    await refreshNextOn(tx, row);
    return getTransaction(tx, transactionId);
  });
}

/**
 * POST /schedules/{id}/occurrences/{date}/skip. Issue 37 item 6 (D15): a skip is a step of the
 * book's history, so it writes a change record — subject `schedule`, action `update` (D15 allows
 * no other action), `after` the schedule with `skipped_on` the date skipped.
 */
export function skipOccurrence(db: Db, id: number, date: string, actor: Actor): Promise<void> {
  return db.transaction(async (tx) => {
    const row = await lockSchedule(tx, id);
    await unhandledOccurrence(tx, row, date);
    const before = await getSchedule(tx, id);
    if (!(await markHandled(tx, id, date, 'skipped', null))) throw conflict(ALREADY_HANDLED);
    await refreshNextOn(tx, row);
    const after = { ...(await getSchedule(tx, id)), skipped_on: date };
    await recordChange(tx, actor, { subject: 'schedule', subjectId: id, action: 'update', before, after });
  });
}

/** The unhandled occurrences of `row` from `from` (default its next_on) through `through`, oldest first, at most `limit`. */
export async function unhandledThrough(db: Db, row: Row, through: string, limit?: number, from = row.nextOn): Promise<string[]> {
  if (from === null || from > through) return [];
  return unhandledBetween(recurrenceOf(row), from, through, await handledBetween(db, row.id, from, through), limit);
}

/**
 * GET /schedules/due?through= (D21): remind occurrences not yet posted or skipped through
 * `through`, and post occurrences up to today that the posting job could not post (blocked),
 * oldest first. D21's bounds: `through` at most 3 years after today, and at most the oldest 1,000
 * of each schedule (a reminder started in year 0001 is not 105,000 dates in one answer).
 */
export async function listDue(db: Db, through: string, today = todayUtc()): Promise<Due[]> {
  checkDueThrough(through, today);
  const rows = await db.select().from(schedules).where(sql`${schedules.nextOn} <= ${through}`).orderBy(asc(schedules.id));
  const state = await readBookState(db);
  const shapes = new Map((await readSchedules(db)).map((s) => [s.id, s]));
  const due: Due[] = [];
  for (const row of rows) {
    const last = row.mode === 'remind' ? through : through < today ? through : today;
    for (const on of await unhandledThrough(db, row, last)) {
      const blocked = blockedReason(state, on, row.entries);
      if (row.mode === 'post' && blocked === null) continue;
      due.push({ schedule_id: row.id, occurs_on: on, description: row.description, entries: shapes.get(row.id)!.entries, blocked });
    }
  }
  return due.sort((a, b) => (a.occurs_on === b.occurs_on ? a.schedule_id - b.schedule_id : a.occurs_on < b.occurs_on ? -1 : 1));
}
