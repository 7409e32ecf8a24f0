import { and, asc, eq, sql } from 'drizzle-orm';
import * as v from 'valibot';
import { rowsOf, type Db } from '../db/database';
import { accounts, duesPlans, people } from '../db/schema';
import { conflict, invalid, notFound } from '../errors';
import { requestSchema } from '../shapes';
import { dateString, requiredText, todayUtc } from '../text';
import { ACCOUNT_NAME_MAX } from './accounts';
import { recordChange, type Actor, type Author } from './changes';
import { countOccurrences, MAX_DATES_AT_ONCE, type Recurrence } from './occurrences';
import type { DuesPlan as DuesPlanShape } from './views';

// D27: dues plans ("Membership, 5.00 a month", "Youth, 30.00 a year"). A plan is a recurrence
// (D21's date rules, `quarter` = every 3 months) and an income account; the people following it
// are charged on each occurrence by src/book/dues-posting.ts, exactly once per (plan, person,
// date). This module saves and reads plans; it never posts.

export type DuesPlan = v.InferOutput<typeof DuesPlanShape>;
type Row = typeof duesPlans.$inferSelect;

export const NO_SUCH_DUES_PLAN = 'no such dues plan';
/** Far inside a float's exact range, as budgets' amounts. */
export const DUES_AMOUNT_MAX = 10 ** 13;
const amountMessage = `amount_cents must be an integer from 1 to ${DUES_AMOUNT_MAX}`;

/** POST and PUT /dues-plans (D27); a PUT replaces (an absent until_on becomes null). */
export const NewDuesPlanSchema = requestSchema('NewDuesPlan', v.pipe(
  v.object(
    {
      name: requiredText('name', ACCOUNT_NAME_MAX),
      amount_cents: v.pipe(v.number(amountMessage), v.integer(amountMessage), v.minValue(1, amountMessage), v.maxValue(DUES_AMOUNT_MAX, amountMessage)),
      every: v.picklist(['month', 'quarter', 'year'], 'every must be month, quarter or year'),
      start_on: dateString('start_on'),
      until_on: v.optional(v.nullable(dateString('until_on'))),
      income_account_id: v.pipe(
        v.number('income_account_id must be a positive integer'),
        v.integer('income_account_id must be a positive integer'),
        v.minValue(1, 'income_account_id must be a positive integer'),
      ),
    },
    'the request body must be a JSON object',
  ),
  v.check((p) => p.until_on == null || p.until_on >= p.start_on, 'until_on must not be before start_on'),
));
export type NewDuesPlan = v.InferOutput<typeof NewDuesPlanSchema>;

/** D27: a plan's occurrences are D21's, `quarter` being every 3 months. */
export function recurrenceOfPlan(plan: Pick<Row, 'startOn' | 'every' | 'untilOn'>): Recurrence {
  return plan.every === 'quarter'
    ? { start_on: plan.startOn, every: 'month', interval: 3, until_on: plan.untilOn }
    : { start_on: plan.startOn, every: plan.every, interval: 1, until_on: plan.untilOn };
}

/** The read shape of every plan (or of `id`), by name; `members` counts the people following it. */
async function readPlans(db: Db, id?: number): Promise<DuesPlan[]> {
  const rows = await db
    .select({
      id: duesPlans.id,
      name: duesPlans.name,
      amount_cents: duesPlans.amountCents,
      every: duesPlans.every,
      start_on: duesPlans.startOn,
      until_on: duesPlans.untilOn,
      income_account_id: duesPlans.incomeAccountId,
      members: sql<number>`(select count(*)::int from ${people} p where p.dues_plan_id = "dues_plans"."id")`,
    })
    .from(duesPlans)
    .where(id === undefined ? undefined : eq(duesPlans.id, id))
    .orderBy(sql`lower(${duesPlans.name}) collate "C"`, asc(duesPlans.id));
  return rows.map((r) => ({ ...r, amount_cents: Number(r.amount_cents), members: Number(r.members) }));
}

export function listDuesPlans(db: Db): Promise<DuesPlan[]> {
  return readPlans(db);
}

export async function getDuesPlan(db: Db, id: number): Promise<DuesPlan> {
  const [found] = await readPlans(db, id);
  if (!found) throw notFound(NO_SUCH_DUES_PLAN);
  return found;
}

/**
 * The plan's row, locked until the transaction ends; 404 when there is none. A PUT takes it as the
 * posting does (no key update: a person saved meanwhile, whose foreign key takes a key-share lock,
 * does not wait); a delete takes it whole.
 */
async function lockPlan(db: Db, id: number, mode: 'update' | 'no key update' = 'no key update'): Promise<Row> {
  const [row] = await db.select().from(duesPlans).where(eq(duesPlans.id, id)).for(mode);
  if (!row) throw notFound(NO_SUCH_DUES_PLAN);
  return row;
}

/**
 * D27's rules that need the book: the name free among plans ignoring case (as an account's), and
 * the income account an income account, read with a key-share lock so a kind change or a delete
 * of it is wholly before or after.
 */
async function checkPlan(db: Db, input: NewDuesPlan, today: string, except?: number): Promise<void> {
  const [taken] = await db
    .select({ id: duesPlans.id })
    .from(duesPlans)
    .where(and(sql`lower(${duesPlans.name}) = lower(${input.name})`, except === undefined ? undefined : sql`${duesPlans.id} <> ${except}`));
  if (taken) throw invalid('name: a dues plan with that name already exists');
  const [account] = rowsOf<{ name: string; kind: string }>(
    await db.execute(sql`select name, kind from ${accounts} where id = ${input.income_account_id} for key share`),
  );
  if (!account) throw invalid('income_account_id names no account');
  if (account.kind !== 'income') throw invalid(`income_account_id names "${account.name}", an ${account.kind} account; a dues plan's income account must be an income account`);
  // D21's bound: no request computes more than 1,000 dates of one plan at once; a plan whose
  // occurrences through today are more would charge them all at once to a member joining.
  const count = countOccurrences(recurrenceOfPlan({ startOn: input.start_on, every: input.every, untilOn: input.until_on ?? null }), input.start_on, today);
  if (count > MAX_DATES_AT_ONCE) {
    throw invalid(`start_on: this plan has ${count} occurrences through today; a dues plan may have at most ${MAX_DATES_AT_ONCE} (start it later)`);
  }
}

function rowValues(input: NewDuesPlan) {
  return {
    name: input.name,
    amountCents: input.amount_cents,
    every: input.every,
    startOn: input.start_on,
    untilOn: input.until_on ?? null,
    incomeAccountId: input.income_account_id,
  };
}

/** POST /dues-plans: the author is the author of every charge the plan posts (D27). */
export function createDuesPlan(db: Db, input: NewDuesPlan, author: Author, today = todayUtc()): Promise<DuesPlan> {
  return db.transaction(async (tx) => {
    await checkPlan(tx, input, today);
    const [row] = await tx
      .insert(duesPlans)
      .values({ ...rowValues(input), createdBy: author.userId })
      .returning({ id: duesPlans.id });
    const made = await getDuesPlan(tx, row!.id);
    await recordChange(tx, author, { subject: 'dues_plan', subjectId: made.id, action: 'create', before: null, after: made });
    return made;
  });
}

/**
 * PUT /dues-plans/{id}: replaces it; what was posted stays as posted (D27). A new amount or name
 * counts from the next occurrence posted. When its dates move (start_on, every or until_on), the
 * new dates before today count as handled for the people following it (as D21's PUT: never a
 * charge for the past): each member's `dues_from` becomes today at least. What fell due before
 * the PUT under the old dates is posted first (the caller: src/book/dues-posting.ts).
 */
export function replaceDuesPlan(db: Db, id: number, input: NewDuesPlan, actor: Actor, today = todayUtc()): Promise<DuesPlan> {
  return db.transaction(async (tx) => {
    const row = await lockPlan(tx, id);
    const before = await getDuesPlan(tx, id);
    await checkPlan(tx, input, today, id);
    const values = rowValues(input);
    await tx.update(duesPlans).set(values).where(eq(duesPlans.id, id));
    const datesMoved = row.startOn !== values.startOn || row.every !== values.every || row.untilOn !== values.untilOn;
    if (datesMoved) {
      await tx
        .update(people)
        .set({ duesFrom: sql`greatest(${people.duesFrom}, ${today}::date)` })
        .where(eq(people.duesPlanId, id));
    }
    const after = await getDuesPlan(tx, id);
    await recordChange(tx, actor, { subject: 'dues_plan', subjectId: id, action: 'update', before, after });
    return after;
  });
}

/** DELETE /dues-plans/{id}: 409 while a person follows it; what it posted stays (its handled keys go with it). */
export function deleteDuesPlan(db: Db, id: number, actor: Actor): Promise<void> {
  return db.transaction(async (tx) => {
    await lockPlan(tx, id, 'update');
    const before = await getDuesPlan(tx, id);
    // The people's rows are read with a key-share lock: a person given this plan meanwhile waits, then fails its foreign key.
    const [followed] = rowsOf<{ n: number }>(
      await tx.execute(sql`select count(*)::int as n from (select 1 from ${people} where dues_plan_id = ${id} for key share) p`),
    );
    const n = Number(followed?.n ?? 0);
    if (n > 0) throw conflict(`the dues plan "${before.name}" is followed by ${n === 1 ? '1 person' : `${n} people`}; give them another plan or none first`);
    await tx.delete(duesPlans).where(eq(duesPlans.id, id));
    await recordChange(tx, actor, { subject: 'dues_plan', subjectId: id, action: 'delete', before, after: null });
  });
}
