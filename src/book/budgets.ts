import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import * as v from 'valibot';
import { rowsOf, type Db } from '../db/database';
import { accountDayTotals, accounts, budgetLines, budgets } from '../db/schema';
import { invalid, notFound } from '../errors';
import { requestSchema } from '../shapes';
import { dateString, requiredText } from '../text';
import { ACCOUNT_NAME_MAX } from './accounts';
import { recordChange, type Actor } from './changes';
import type { Budget as BudgetShape } from './views';

// D26: budgets, the plan beside what happened. A budget is a run of whole months with lines, each
// naming an income or expense account. The lines are rows with a foreign key to their account (an
// account a line names is in use: src/book/accounts.ts says which budget). Every writer reads the
// accounts it names with a key-share lock, so a kind change or a delete of one (which take the
// account's row lock) is wholly before or wholly after it.

export type Budget = v.InferOutput<typeof BudgetShape>;

/** D26: at most 36 months. */
export const BUDGET_MONTHS_MAX = 36;
/** A line's amount: far inside a float's exact range even × 36 months. */
export const BUDGET_AMOUNT_MAX = 10 ** 13;
export const NO_SUCH_BUDGET = 'no such budget';

/** A month `YYYY-MM` (years 0001–9999), checked by the field's name. */
export function monthString(field: string) {
  return v.pipe(v.string(`${field} must be a month YYYY-MM`), v.regex(/^(?!0000)\d{4}-(0[1-9]|1[0-2])$/, `${field} must be a month YYYY-MM`));
}

/** The number of months from `from` through `to` (both `YYYY-MM`): 1 when equal. */
export function monthCount(from: string, to: string): number {
  const index = (m: string) => Number(m.slice(0, 4)) * 12 + Number(m.slice(5, 7)) - 1;
  return index(to) - index(from) + 1;
}

/** The month `k` months after `m` (`YYYY-MM`; k may be negative). */
export function addMonths(m: string, k: number): string {
  const i = Number(m.slice(0, 4)) * 12 + Number(m.slice(5, 7)) - 1 + k;
  return `${String(Math.floor(i / 12)).padStart(4, '0')}-${String((i % 12) + 1).padStart(2, '0')}`;
}

/** The last day of month `m` (`YYYY-MM`), `YYYY-MM-DD`. */
export function lastDayOf(m: string): string {
  const [y, mo] = [Number(m.slice(0, 4)), Number(m.slice(5, 7))];
  const d = new Date(0);
  d.setUTCFullYear(y, mo, 0); // day 0 of the next month (months count from 0 here); years below 100 too

  return `${m}-${String(d.getUTCDate()).padStart(2, '0')}`;
}

const monthsChecked = <T extends { from: string; to: string }>() => [
  v.check<T, string>((b) => b.to >= b.from, 'to must not be before from'),
  v.check<T, string>((b) => monthCount(b.from, b.to) <= BUDGET_MONTHS_MAX, `a budget has at most ${BUDGET_MONTHS_MAX} months (from … to)`),
] as const;

const amountMessage = `amount_cents must be an integer from 0 to ${BUDGET_AMOUNT_MAX}`;

export const BudgetLineInput = v.pipe(
  v.object(
    {
      account_id: v.pipe(v.number('account_id must be a positive integer'), v.integer('account_id must be a positive integer'), v.minValue(1, 'account_id must be a positive integer')),
      amount_cents: v.pipe(v.number(amountMessage), v.integer(amountMessage), v.minValue(0, amountMessage), v.maxValue(BUDGET_AMOUNT_MAX, amountMessage)),
      per: v.picklist(['month', 'period'], 'per must be month or period'),
      rollover: v.optional(v.boolean('rollover must be true or false')),
    },
    'a line must be an object with account_id, amount_cents and per',
  ),
  v.check((l) => !(l.rollover === true && l.per !== 'month'), 'rollover is only for a line per month'),
);

/** POST and PUT /budgets (D26). */
export const NewBudgetSchema = requestSchema('NewBudget', v.pipe(
  v.object(
    {
      name: requiredText('name', ACCOUNT_NAME_MAX),
      from: monthString('from'),
      to: monthString('to'),
      lines: v.array(BudgetLineInput, 'lines must be an array'),
    },
    'the request body must be a JSON object',
  ),
  ...monthsChecked<{ from: string; to: string; name: string; lines: v.InferOutput<typeof BudgetLineInput>[] }>(),
));
export type NewBudget = v.InferOutput<typeof NewBudgetSchema>;

/** GET /budgets/draft's query (D26). */
export const DraftQuerySchema = v.pipe(
  v.object({
    from: monthString('from'),
    to: monthString('to'),
    basis_from: v.optional(dateString('basis_from')),
    basis_to: v.optional(dateString('basis_to')),
  }),
  ...monthsChecked<{ from: string; to: string; basis_from?: string; basis_to?: string }>(),
  v.check((q) => q.basis_from === undefined || q.basis_to === undefined || q.basis_to >= q.basis_from, 'basis_to must not be before basis_from'),
);
export type DraftQuery = v.InferOutput<typeof DraftQuerySchema>;

const firstDay = (m: string) => `${m}-01`;
const monthOf = (day: string) => day.slice(0, 7);

/** The read shape of every budget (or of `id`): by `from`, then id; lines in their order, named by their account now. */
async function readBudgets(db: Db, id?: number): Promise<Budget[]> {
  const heads = await db
    .select({ id: budgets.id, name: budgets.name, from: budgets.fromMonth, to: budgets.toMonth })
    .from(budgets)
    .where(id === undefined ? undefined : eq(budgets.id, id))
    .orderBy(asc(budgets.fromMonth), asc(budgets.id));
  if (heads.length === 0) return [];
  const lines = await db
    .select({
      budgetId: budgetLines.budgetId,
      account_id: budgetLines.accountId,
      account_name: accounts.name,
      kind: accounts.kind,
      amount_cents: budgetLines.amountCents,
      per: budgetLines.per,
      rollover: budgetLines.rollover,
    })
    .from(budgetLines)
    .innerJoin(accounts, eq(accounts.id, budgetLines.accountId))
    .where(id === undefined ? undefined : eq(budgetLines.budgetId, id))
    .orderBy(asc(budgetLines.budgetId), asc(budgetLines.position));
  return heads.map((h) => ({
    id: h.id,
    name: h.name,
    from: monthOf(h.from),
    to: monthOf(h.to),
    lines: lines
      .filter((l) => l.budgetId === h.id)
      // A line's account is income or expense: a kind change away is refused while it is named.
      .map(({ budgetId: _, ...l }) => ({ ...l, kind: l.kind as 'income' | 'expense' })),
  }));
}

export function listBudgets(db: Db): Promise<Budget[]> {
  return readBudgets(db);
}

export async function getBudget(db: Db, id: number): Promise<Budget> {
  const [found] = await readBudgets(db, id);
  if (!found) throw notFound(NO_SUCH_BUDGET);
  return found;
}

/**
 * D26's rules on the lines that need the book: each names an income or expense account, at most
 * once. The accounts are read with a key-share lock (held to the end of the transaction).
 */
async function checkLines(db: Db, input: NewBudget): Promise<void> {
  const seen = new Set<number>();
  input.lines.forEach((l, i) => {
    if (seen.has(l.account_id)) throw invalid(`line ${i + 1}: account_id names an account another line names already`);
    seen.add(l.account_id);
  });
  if (seen.size === 0) return;
  const found = await db
    .select({ id: accounts.id, name: accounts.name, kind: accounts.kind })
    .from(accounts)
    .where(inArray(accounts.id, [...seen]))
    .for('key share');
  const byId = new Map(found.map((a) => [a.id, a]));
  input.lines.forEach((l, i) => {
    const account = byId.get(l.account_id);
    if (!account) throw invalid(`line ${i + 1}: account_id names no account`);
    if (account.kind !== 'income' && account.kind !== 'expense') {
      throw invalid(`line ${i + 1}: account_id names "${account.name}", an ${account.kind} account; a budget line names an income or expense account`);
    }
  });
}

/** A budget's name is taken when another budget has it, ignoring case (D26, as accounts' names). */
async function checkNameFree(db: Db, name: string, except?: number): Promise<void> {
  const [taken] = await db
    .select({ id: budgets.id })
    .from(budgets)
    .where(and(sql`lower(${budgets.name}) = lower(${name})`, except === undefined ? undefined : sql`${budgets.id} <> ${except}`))
    .limit(1);
  if (taken) throw invalid('a budget with that name already exists');
}

async function insertLines(db: Db, budgetId: number, input: NewBudget): Promise<void> {
  if (input.lines.length === 0) return;
  await db.insert(budgetLines).values(input.lines.map((l, i) => ({
    budgetId,
    position: i + 1,
    accountId: l.account_id,
    amountCents: l.amount_cents,
    per: l.per,
    rollover: l.rollover ?? false,
  })));
}

/** POST /budgets (D26), with its change record. */
export function createBudget(db: Db, input: NewBudget, actor: Actor): Promise<Budget> {
  return db.transaction(async (tx) => {
    await checkLines(tx, input);
    await checkNameFree(tx, input.name);
    const [row] = await tx
      .insert(budgets)
      .values({ name: input.name, fromMonth: firstDay(input.from), toMonth: firstDay(input.to) })
      .returning({ id: budgets.id });
    await insertLines(tx, row!.id, input);
    const made = await getBudget(tx, row!.id);
    await recordChange(tx, actor, { subject: 'budget', subjectId: made.id, action: 'create', before: null, after: made });
    return made;
  });
}

/** The budget's row, locked until the transaction ends; 404 when there is none. */
async function lockBudget(db: Db, id: number): Promise<void> {
  const [row] = await db.select({ id: budgets.id }).from(budgets).where(eq(budgets.id, id)).for('update');
  if (!row) throw notFound(NO_SUCH_BUDGET);
}

/** PUT /budgets/{id} (D26): the whole budget again, by POST's rules. */
export function replaceBudget(db: Db, id: number, input: NewBudget, actor: Actor): Promise<Budget> {
  return db.transaction(async (tx) => {
    await lockBudget(tx, id);
    const before = await getBudget(tx, id);
    await checkLines(tx, input);
    await checkNameFree(tx, input.name, id);
    await tx.update(budgets).set({ name: input.name, fromMonth: firstDay(input.from), toMonth: firstDay(input.to) }).where(eq(budgets.id, id));
    await tx.delete(budgetLines).where(eq(budgetLines.budgetId, id));
    await insertLines(tx, id, input);
    const after = await getBudget(tx, id);
    await recordChange(tx, actor, { subject: 'budget', subjectId: id, action: 'update', before, after });
    return after;
  });
}

/** DELETE /budgets/{id} (D26): its lines go with it. */
export function deleteBudget(db: Db, id: number, actor: Actor): Promise<void> {
  return db.transaction(async (tx) => {
    await lockBudget(tx, id);
    const before = await getBudget(tx, id);
    await tx.delete(budgets).where(eq(budgets.id, id));
    await recordChange(tx, actor, { subject: 'budget', subjectId: id, action: 'delete', before, after: null });
  });
}

/**
 * GET /budgets/draft (D26): "start from last year". One `period` line per income or expense
 * account (GET /accounts order) whose natural-sign total over the basis dates is above zero, read
 * in one statement from account_day_totals.
 */
export async function draftBudget(db: Db, query: DraftQuery): Promise<Budget> {
  const basisFrom = query.basis_from ?? firstDay(addMonths(query.from, -12));
  const basisTo = query.basis_to ?? lastDayOf(addMonths(query.from, -1));
  if (basisTo < basisFrom) throw invalid('basis_to must not be before basis_from');
  const rows = rowsOf<{ id: number; name: string; kind: 'income' | 'expense'; total: string }>(await db.execute(sql`
    select a.id, a.name, a.kind, s.total::text as total
    from ${accounts} a
    join (
      select d.account_id, sum(d.total_cents) * -1 as total
      from ${accountDayTotals} d
      where d.account_id = any(array(select id from ${accounts} where kind = 'income'))
        and d.occurred_on between ${basisFrom}::date and ${basisTo}::date
      group by d.account_id
      union all
      select d.account_id, sum(d.total_cents) as total
      from ${accountDayTotals} d
      where d.account_id = any(array(select id from ${accounts} where kind = 'expense'))
        and d.occurred_on between ${basisFrom}::date and ${basisTo}::date
      group by d.account_id
    ) s on s.account_id = a.id
    where s.total > 0
    order by a.kind, lower(a.name) collate "C", a.name collate "C"`));
  return {
    id: null,
    name: '',
    from: query.from,
    to: query.to,
    lines: rows.map((r) => {
      const total = BigInt(r.total);
      if (total > BigInt(BUDGET_AMOUNT_MAX)) throw invalid('a total of the basis is larger than a budget line holds');
      return { account_id: r.id, account_name: r.name, kind: r.kind, amount_cents: Number(total), per: 'period' as const, rollover: false };
    }),
  };
}
