import { eq, sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../db/database';
import { duesOccurrences, duesPlans, people, settings, users } from '../db/schema';
import { databaseRefusal } from '../db/refusals';
import { todayUtc } from '../text';
import type { Actor, Author } from './changes';
import { createDuesPlan, getDuesPlan, recurrenceOfPlan, replaceDuesPlan, type DuesPlan, type NewDuesPlan } from './dues-plans';
import { addDays, MAX_DATES_AT_ONCE, occurrencesBetween } from './occurrences';
import { insertTransaction } from './transactions';

// D27: dues that post themselves. On each occurrence date d of a plan (D21's date rules, through
// today UTC), every person following it who is a member on d — joined_on null or ≤ d, left_on null
// or ≥ d, and d ≥ dues_from when set (a change of plan charges no past) — is charged once: +amount
// on the person's account, −amount on the plan's income account, "<plan> <YYYY-MM>" (<YYYY> for a
// yearly plan), dated d, authored by the plan's creator, its change record `via: "dues"`.
//
// Exactly once whatever the instances, restarts or retries: the (plan, person, date) row of
// dues_occurrences is inserted in the same database transaction as the charge, and its primary
// key (`on conflict do nothing`) decides who posts; a deleted charge leaves its row, so it is
// never posted again. An occurrence in a closed period (D20) gets no row: it waits, and the first
// run after the period reopens posts it. Oldest first, at most DUES_BATCH charges per database
// transaction under the plan's row lock (a PUT of the plan is wholly before or after a batch, and
// each charge takes the amount the plan has when it is posted). Run at `serve`'s start and every
// 10 minutes (src/background.ts), and when a plan or a person is saved (postDuesFor).

/** At most this many charges are posted in one database transaction (the catch-up in batches, as D21's). */
export const DUES_BATCH = 100;

export interface DuesRun {
  posted: number;
  /** Plans left for the next run: a refusal met while posting (a period closed meanwhile). */
  refused: number;
}

/** Which dues to post: those of one plan, of one person (their current plan), of both, or (neither) every plan's. */
export interface DuesScope {
  planId?: number;
  personId?: number;
}

/** D27: "Membership 2027-03", or "Youth 2027" for a yearly plan. */
export function duesDescription(plan: { name: string; every: string }, on: string): string {
  return `${plan.name} ${plan.every === 'year' ? on.slice(0, 4) : on.slice(0, 7)}`;
}

interface Due {
  person_id: number;
  account_id: number;
  occurs_on: string;
}

/**
 * One batch of a plan's charges due on or before `today` (for `personId` only, when given), oldest
 * first (by date, then person), at most DUES_BATCH, in one database transaction. Returns how many
 * it posted: call again while that is DUES_BATCH.
 */
export function postDuesBatch(db: Db, planId: number, today: string, personId?: number): Promise<number> {
  return db.transaction(async (tx) => {
    // The plan's row, as a PUT of it takes it (no key update): a PUT is wholly before or after the
    // batch, while a person saved meanwhile (whose foreign key takes a key-share lock) never waits.
    const [plan] = await tx.select().from(duesPlans).where(eq(duesPlans.id, planId)).for('no key update');
    if (!plan) return 0;
    const [book] = await tx.select({ closedThrough: settings.closedThrough }).from(settings);
    const closed = book?.closedThrough ?? null;
    // The earliest day any follower (in scope) can be charged: nobody follows, nothing to do.
    const [floor] = rowsOf<{ first_day: string | null }>(await tx.execute(sql`
      select min(greatest(coalesce(joined_on, ${plan.startOn}::date), coalesce(dues_from, ${plan.startOn}::date)))::text as first_day
      from ${people} where dues_plan_id = ${planId} ${personId === undefined ? sql`` : sql`and id = ${personId}`}`));
    if (!floor?.first_day) return 0;
    // Occurrences in a closed period wait (D20): look from the day after it, and from the first
    // day a follower can be charged, so that D21's bound on the dates computed at once (1,000) is
    // never spent on dates that cannot be posted.
    const afterClosed = closed === null ? null : addDays(closed, 1);
    if (closed !== null && afterClosed === null) return 0;
    const from = [plan.startOn, floor.first_day, afterClosed ?? plan.startOn].reduce((a, b) => (a > b ? a : b));
    const dates = occurrencesBetween(recurrenceOfPlan(plan), from, today, MAX_DATES_AT_ONCE);
    if (dates.length === 0) return 0;
    const due = rowsOf<Due>(await tx.execute(sql`
      select p.id::int as person_id, p.account_id::int as account_id, d.occurs_on::text as occurs_on
      from ${people} p cross join unnest(${`{${dates.join(',')}}`}::date[]) as d(occurs_on)
      where p.dues_plan_id = ${planId}
        ${personId === undefined ? sql`` : sql`and p.id = ${personId}`}
        and (p.joined_on is null or p.joined_on <= d.occurs_on)
        and (p.left_on is null or p.left_on >= d.occurs_on)
        and (p.dues_from is null or p.dues_from <= d.occurs_on)
        and not exists (
          select 1 from ${duesOccurrences} o
          where o.plan_id = ${planId} and o.person_id = p.id and o.occurs_on = d.occurs_on
        )
      order by d.occurs_on, p.id
      limit ${DUES_BATCH}`));
    if (due.length === 0) return 0;
    // The keys first: another instance's uncommitted key makes this insert wait, then skip it.
    const claimed = await tx
      .insert(duesOccurrences)
      .values(due.map((d) => ({ planId, personId: d.person_id, occursOn: d.occurs_on })))
      .onConflictDoNothing()
      .returning({ personId: duesOccurrences.personId, occursOn: duesOccurrences.occursOn });
    if (claimed.length === 0) return 0;
    const ours = new Set(claimed.map((c) => `${c.personId} ${c.occursOn}`));
    const [creator] = plan.createdBy === null ? [] : await tx.select({ email: users.email }).from(users).where(eq(users.id, plan.createdBy));
    const author: Author = { userId: creator ? plan.createdBy : null, email: creator?.email ?? null, via: 'dues', clientId: null };
    const amount = Number(plan.amountCents);
    const posted: { personId: number; on: string; transactionId: number }[] = [];
    for (const d of due) {
      if (!ours.has(`${d.person_id} ${d.occurs_on}`)) continue;
      const transactionId = await insertTransaction(
        tx,
        {
          occurred_on: d.occurs_on,
          description: duesDescription(plan, d.occurs_on),
          entries: [
            { account_id: d.account_id, amount_cents: amount },
            { account_id: plan.incomeAccountId, amount_cents: -amount },
          ],
        },
        author,
      );
      posted.push({ personId: d.person_id, on: d.occurs_on, transactionId });
    }
    await tx.execute(sql`
      update ${duesOccurrences} o set transaction_id = v.transaction_id
      from unnest(${`{${posted.map((p) => p.personId).join(',')}}`}::integer[], ${`{${posted.map((p) => p.on).join(',')}}`}::date[],
        ${`{${posted.map((p) => p.transactionId).join(',')}}`}::integer[]) as v(person_id, occurs_on, transaction_id)
      where o.plan_id = ${planId} and o.person_id = v.person_id and o.occurs_on = v.occurs_on`);
    return posted.length;
  });
}

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The plans the scope names: one, the person's current one, or every plan (by id). */
async function plansOf(db: Db, scope: DuesScope): Promise<number[]> {
  if (scope.personId !== undefined) {
    const [person] = await db.select({ planId: people.duesPlanId }).from(people).where(eq(people.id, scope.personId));
    const planId = person?.planId ?? null;
    return planId === null || (scope.planId !== undefined && scope.planId !== planId) ? [] : [planId];
  }
  if (scope.planId !== undefined) return [scope.planId];
  return (await db.select({ id: duesPlans.id }).from(duesPlans).orderBy(duesPlans.id)).map((p) => p.id);
}

/**
 * D27: posts every charge due on or before `today` in the scope, plan by plan, in batches, yielding
 * to requests between them. What a person's or a plan's save calls (after its own transaction: a
 * crash in between leaves the charges due, and the next background run posts them), and what the
 * background run calls with no scope. A refusal met while posting (a period closed meanwhile)
 * leaves that plan to the next run. `stopping` is asked between batches.
 */
export async function postDuesFor(db: Db, scope: DuesScope = {}, today = todayUtc(), stopping: () => boolean = () => false): Promise<DuesRun> {
  const run: DuesRun = { posted: 0, refused: 0 };
  for (const planId of await plansOf(db, scope)) {
    for (;;) {
      if (stopping()) return run;
      let posted: number;
      try {
        posted = await postDuesBatch(db, planId, today, scope.personId);
      } catch (error) {
        if (databaseRefusal(error) === undefined) throw error;
        run.refused++;
        break;
      }
      run.posted += posted;
      if (posted < DUES_BATCH) break;
      await yieldToRequests();
    }
  }
  return run;
}

/** POST /dues-plans (D27): the plan made, then what is due posted (none yet: nobody follows a new plan). */
export async function createDuesPlanAndPostDue(db: Db, input: NewDuesPlan, author: Author, today = todayUtc()): Promise<DuesPlan> {
  const made = await createDuesPlan(db, input, author, today);
  await postDuesFor(db, { planId: made.id }, today);
  return getDuesPlan(db, made.id);
}

/**
 * PUT /dues-plans/{id} (D27): what fell due under the plan as it was is posted first (at its
 * amount then), then the plan replaced (its new dates before today count as handled), then what is
 * due under the new plan posted.
 */
export async function replaceDuesPlanAndPostDue(db: Db, id: number, input: NewDuesPlan, actor: Actor, today = todayUtc()): Promise<DuesPlan> {
  await getDuesPlan(db, id);
  await postDuesFor(db, { planId: id }, today);
  await replaceDuesPlan(db, id, input, actor, today);
  await postDuesFor(db, { planId: id }, today);
  return getDuesPlan(db, id);
}
