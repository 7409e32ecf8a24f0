import { sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { createAccount } from '../src/book/accounts';
import { describeChange, type ChangeRecord } from '../src/book/change-words';
import { createDuesPlan, type NewDuesPlan } from '../src/book/dues-plans';
import { postDuesFor, replaceDuesPlanAndPostDue } from '../src/book/dues-posting';
import { rowsOf } from '../src/db/database';
import { duesPlans, people } from '../src/db/schema';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';

// Issue 40 item 2 (D27, D21, D20, D15) on both databases: dues plans over HTTP (every status and
// shape, every 400 naming its field, the 409 of a plan a person follows, change records subject
// `dues_plan`), and dues that post themselves: D21's dates (monthly from the 31st, quarterly,
// yearly with `<YYYY>`), members joining and leaving mid-way, a change of plan charging no past
// (dues_from), a changed amount only from the next occurrence, a closed period that waits, a
// deleted charge never posted again, `via: "dues"` change records, and the charges posted when a
// plan or a person is saved. Dated cases call the posting with a fixed "today"; the HTTP ones run
// on the real one.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const DAY_MS = 86_400_000;
const realToday = () => new Date().toISOString().slice(0, 10);
/** The first of the month `n` months before this one (UTC), computed here apart from src/book/occurrences.ts. */
const firstOfMonthsAgo = (n: number) => {
  const d = new Date(`${realToday().slice(0, 7)}-01T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() - n);
  return d.toISOString().slice(0, 10);
};

describeEachDatabase('issue 40 item 2: dues plans and dues that post themselves (D27)', (h) => {
  let token: string;
  let userId: number;
  const email = 'treasurer@dues.example';
  const ids: Record<string, number> = {};
  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);
  const expectStatus = async (res: Response, status: number) => {
    expect(res.status, await res.clone().text()).toBe(status);
    return res.status === 204 ? undefined : json(res);
  };
  const author = () => ({ userId, email, via: 'session' as const, clientId: null });
  let plans = 0;
  /** A plan saved by the book's function (it posts nothing: the cases below post with their own "today"). */
  const plan = async (fields: Partial<NewDuesPlan> = {}) =>
    createDuesPlan(h.db, { name: `Plan ${++plans}`, amount_cents: 500, every: 'month', start_on: '2024-01-01', income_account_id: ids.Dues!, ...fields }, author(), '2024-01-01');
  /**
   * A person following `planId`, written as the people module writes one (their own asset account,
   * named as them), without posting: what is due waits for the next postDuesFor.
   */
  const person = async (name: string, planId: number | null, more: { joinedOn?: string; leftOn?: string; duesFrom?: string } = {}) => {
    const account = await createAccount(h.db, { name, kind: 'asset' }, { email: null, via: 'cli', clientId: null });
    const [row] = await h.db.insert(people).values({ name, accountId: account.id, duesPlanId: planId, ...more }).returning({ id: people.id });
    return { id: row!.id, accountId: account.id };
  };
  /** What a person was charged: (date, description, cents on their account), by date. */
  const charges = async (personId: number) =>
    rowsOf<{ on: string; description: string; cents: number }>(await h.db.execute(sql`
      select t.occurred_on::text as on, t.description, e.amount_cents::int as cents
      from people p join entries e on e.account_id = p.account_id join transactions t on t.id = e.transaction_id
      where p.id = ${personId} order by t.occurred_on, t.id`));
  const datesOf = async (personId: number) => (await charges(personId)).map((c) => c.on);

  beforeAll(async () => {
    ({ token, userId } = await h.userWithToken(email));
    for (const [name, kind] of [['Bank', 'asset'], ['Dues', 'income'], ['Youth dues', 'income'], ['Groceries', 'expense']] as const) {
      ids[name] = (await expectStatus(await api('POST', '/accounts', { name, kind }), 201)).id;
    }
  });

  it('D27: POST /dues-plans → 201 exactly its shape; GET one and the list (by name); PUT replaces (an absent until_on becomes null); DELETE 204, then 404; change records subject dues_plan', async () => {
    const body = { name: '  Membership ', amount_cents: 500, every: 'month', start_on: '2026-01-01', until_on: '2030-12-31', income_account_id: ids.Dues };
    const made = await expectStatus(await api('POST', '/dues-plans', body), 201);
    expect(made).toStrictEqual({ id: made.id, name: 'Membership', amount_cents: 500, every: 'month', start_on: '2026-01-01', until_on: '2030-12-31', income_account_id: ids.Dues, members: 0 });
    expect(await expectStatus(await api('GET', `/dues-plans/${made.id}`), 200)).toStrictEqual(made);
    const other = await expectStatus(await api('POST', '/dues-plans', { ...body, name: 'Associate', every: 'quarter', until_on: undefined }), 201);
    expect(other.until_on).toBeNull();
    const listed = await expectStatus(await api('GET', '/dues-plans'), 200);
    const names = listed.map((p: Json) => p.name);
    expect(names.indexOf('Associate')).toBeLessThan(names.indexOf('Membership'));
    const replaced = await expectStatus(await api('PUT', `/dues-plans/${made.id}`, { name: 'Membership', amount_cents: 600, every: 'year', start_on: '2026-01-01', income_account_id: ids.Dues }), 200);
    expect(replaced).toStrictEqual({ ...made, amount_cents: 600, every: 'year', until_on: null });
    await expectStatus(await api('DELETE', `/dues-plans/${made.id}`), 204);
    await expectStatus(await api('GET', `/dues-plans/${made.id}`), 404);
    expect(await expectStatus(await api('PUT', `/dues-plans/${made.id}`, body), 404)).toEqual({ error: 'no such dues plan' });
    expect(await expectStatus(await api('DELETE', `/dues-plans/${made.id}`), 404)).toEqual({ error: 'no such dues plan' });
    const { changes } = await expectStatus(await api('GET', `/changes?subject=dues_plan&subject_id=${made.id}`), 200);
    expect(changes.map((c: Json) => [c.action, c.via, c.actor_email])).toEqual([
      ['delete', 'token', email],
      ['update', 'token', email],
      ['create', 'token', email],
    ]);
    expect(changes[2]).toMatchObject({ before: null, after: made });
    expect(changes[1]).toMatchObject({ before: made, after: replaced });
    expect(changes[0]).toMatchObject({ before: replaced, after: null });
    // History's words (D15, D29): the plan by its name, amount and rhythm; what the update changed.
    const words = { money: (c: number) => (c / 100).toFixed(2), date: (d: string) => d, accountName: () => 'Dues' };
    expect(describeChange(changes[2] as ChangeRecord, words)).toBe(`${email} made the dues plan “Membership” (5.00, every month) with a token.`);
    expect(describeChange(changes[1] as ChangeRecord, words)).toBe(
      `${email} changed the amount from 5.00 to 6.00, how often from every month to every year, the end from 2030-12-31 to none of the dues plan “Membership” (6.00, every year) with a token.`,
    );
    expect(describeChange(changes[0] as ChangeRecord, words)).toBe(`${email} deleted the dues plan “Membership” (6.00, every year) with a token.`);
  });

  it('D27: every 400 names its field; a name taken ignoring case; the income account must be an income account; no 500 for bad input', async () => {
    const good = { name: 'Checked', amount_cents: 500, every: 'month', start_on: '2026-01-01', income_account_id: ids.Dues };
    await expectStatus(await api('POST', '/dues-plans', good), 201);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: '' }, /name/],
      [{ name: 'checked' }, /name.*already exists/],
      [{ amount_cents: 0 }, /amount_cents/],
      [{ amount_cents: -5 }, /amount_cents/],
      [{ amount_cents: 1.5 }, /amount_cents/],
      [{ every: 'week' }, /every must be month, quarter or year/],
      [{ start_on: '2026-02-30' }, /start_on/],
      [{ until_on: '2025-12-31' }, /until_on must not be before start_on/],
      [{ income_account_id: ids.Groceries }, /income_account_id names "Groceries", an expense account/],
      [{ income_account_id: ids.Bank }, /income_account_id .* income account/],
      [{ income_account_id: 2_000_000 }, /income_account_id names no account/],
      [{ income_account_id: 'x' }, /income_account_id/],
      // D21's bounds: no plan with more than 1,000 occurrences through today (counted, never listed).
      [{ start_on: '1900-01-01' }, /start_on: this plan has \d{4} occurrences through today/],
      [{ start_on: '0001-01-01', every: 'year' }, /start_on: this plan has \d{4} occurrences through today/],
    ];
    for (const [i, [change, message]] of cases.entries()) {
      const res = await api('POST', '/dues-plans', { ...good, name: `Refused ${i}`, ...change });
      const body = await expectStatus(res, 400);
      expect(Object.keys(body)).toEqual(['error']);
      expect(body.error).toMatch(message);
    }
    const id = (await expectStatus(await api('GET', '/dues-plans'), 200)).find((p: Json) => p.name === 'Checked').id;
    expect((await expectStatus(await api('PUT', `/dues-plans/${id}`, { ...good, amount_cents: 0 }), 400)).error).toMatch(/amount_cents/);
    expect((await expectStatus(await api('GET', '/dues-plans/abc'), 400)).error).toMatch(/id/);
  });

  it('D27: DELETE /dues-plans/{id} → 409 naming the plan while a person follows it; members counts them', async () => {
    const followed = await expectStatus(await api('POST', '/dues-plans', { name: 'Followed', amount_cents: 100, every: 'year', start_on: realToday(), income_account_id: ids.Dues }), 201);
    const someone = await person('Frieda Follower', followed.id);
    expect((await expectStatus(await api('GET', `/dues-plans/${followed.id}`), 200)).members).toBe(1);
    expect(await expectStatus(await api('DELETE', `/dues-plans/${followed.id}`), 409)).toEqual({ error: expect.stringMatching(/"Followed" is followed by 1 person/) });
    await h.db.update(people).set({ duesPlanId: null }).where(sql`id = ${someone.id}`);
    await expectStatus(await api('DELETE', `/dues-plans/${followed.id}`), 204);
  });

  it('D21/D27: monthly from the 31st charges Jan 31, Feb 29 (2024) / Feb 28, Mar 31, Apr 30 …: +amount on the person, −amount on the income account, "<plan> <YYYY-MM>"', async () => {
    const made = await plan({ name: 'Month end', start_on: '2024-01-31' });
    const anna = await person('Anna Monthend', made.id);
    expect(await postDuesFor(h.db, { planId: made.id }, '2024-05-15')).toEqual({ posted: 4, refused: 0 });
    expect(await charges(anna.id)).toEqual([
      { on: '2024-01-31', description: 'Month end 2024-01', cents: 500 },
      { on: '2024-02-29', description: 'Month end 2024-02', cents: 500 },
      { on: '2024-03-31', description: 'Month end 2024-03', cents: 500 },
      { on: '2024-04-30', description: 'Month end 2024-04', cents: 500 },
    ]);
    await postDuesFor(h.db, { planId: made.id }, '2025-03-31');
    expect((await datesOf(anna.id)).slice(-3)).toEqual(['2025-01-31', '2025-02-28', '2025-03-31']);
    // Each charge is balanced against the plan's income account.
    const [t] = rowsOf<{ entries: Json }>(await h.db.execute(sql`
      select json_agg(json_build_object('account_id', e.account_id, 'amount_cents', e.amount_cents) order by e.id) as entries
      from transactions t join entries e on e.transaction_id = t.id where t.description = 'Month end 2024-02' group by t.id`));
    expect(t!.entries).toEqual([{ account_id: anna.accountId, amount_cents: 500 }, { account_id: ids.Dues, amount_cents: -500 }]);
  });

  it('D27: quarterly is every 3 months ("<plan> <YYYY-MM>"); yearly says "<plan> <YYYY>"; until_on ends it', async () => {
    const quarterly = await plan({ name: 'Quarterly', every: 'quarter', start_on: '2024-01-15', amount_cents: 1500 });
    const yearly = await plan({ name: 'Youth', every: 'year', start_on: '2020-03-01', until_on: '2023-03-01', amount_cents: 3000, income_account_id: ids['Youth dues']! });
    const q = await person('Quentin Quarterly', quarterly.id);
    const y = await person('Yara Youth', yearly.id);
    await postDuesFor(h.db, {}, '2024-12-31');
    expect(await charges(q.id)).toEqual(
      ['01', '04', '07', '10'].map((m) => ({ on: `2024-${m}-15`, description: `Quarterly 2024-${m}`, cents: 1500 })),
    );
    expect(await charges(y.id)).toEqual([2020, 2021, 2022, 2023].map((year) => ({ on: `${year}-03-01`, description: `Youth ${year}`, cents: 3000 })));
  });

  it('D27: a member joining and leaving mid-way is charged on the dates they are a member only (joined_on ≤ d ≤ left_on)', async () => {
    const made = await plan({ name: 'Mid-way' });
    const mid = await person('Mia Midway', made.id, { joinedOn: '2024-03-10', leftOn: '2024-06-01' });
    const whole = await person('Walter Whole', made.id);
    const sameDay = await person('Sam Sameday', made.id, { joinedOn: '2024-07-01' });
    await postDuesFor(h.db, { planId: made.id }, '2024-08-31');
    expect(await datesOf(mid.id)).toEqual(['2024-04-01', '2024-05-01', '2024-06-01']);
    expect(await datesOf(whole.id)).toEqual(['2024-01-01', '2024-02-01', '2024-03-01', '2024-04-01', '2024-05-01', '2024-06-01', '2024-07-01', '2024-08-01']);
    expect(await datesOf(sameDay.id)).toEqual(['2024-07-01', '2024-08-01']);
    // Oldest first across the plan's members: the transactions' ids follow the dates.
    const order = rowsOf<{ on: string }>(await h.db.execute(sql`select occurred_on::text as on from transactions where description like 'Mid-way %' order by id`));
    expect(order.map((r) => r.on)).toEqual([...order.map((r) => r.on)].sort());
  });

  it('D27: a change of plan charges no past — moved from Youth to Adult on 2024-07-10 (dues_from), the Adult plan charges Aug and Sep only, Youth\'s 2024 once', async () => {
    const youth = await plan({ name: 'Youth (move)', every: 'year', start_on: '2024-01-01', amount_cents: 3000 });
    const adult = await plan({ name: 'Adult (move)', start_on: '2024-01-01', amount_cents: 800 });
    const moving = await person('Max Mover', youth.id);
    // Someone on Adult from its start: the plan's own dates from January are due, but not to Max.
    const always = await person('Ada Always', adult.id);
    await postDuesFor(h.db, { personId: moving.id }, '2024-07-09');
    // The people module saves the move with dues_from the day of the change, then posts for the person.
    await h.db.update(people).set({ duesPlanId: adult.id, duesFrom: '2024-07-10' }).where(sql`id = ${moving.id}`);
    await postDuesFor(h.db, { personId: moving.id }, '2024-09-30');
    await postDuesFor(h.db, {}, '2024-09-30');
    expect(await charges(moving.id)).toEqual([
      { on: '2024-01-01', description: 'Youth (move) 2024', cents: 3000 },
      { on: '2024-08-01', description: 'Adult (move) 2024-08', cents: 800 },
      { on: '2024-09-01', description: 'Adult (move) 2024-09', cents: 800 },
    ]);
    expect((await datesOf(always.id)).length).toBe(9);
  });

  it('D27: a change of plan through PUT /people charges no past of the new plan; the old plan\'s charges stay, once', async () => {
    const youth = await expectStatus(await api('POST', '/dues-plans', { name: 'Youth (PUT)', amount_cents: 3000, every: 'year', start_on: firstOfMonthsAgo(3), income_account_id: ids['Youth dues'] }), 201);
    const adult = await expectStatus(await api('POST', '/dues-plans', { name: 'Adult (PUT)', amount_cents: 800, every: 'month', start_on: firstOfMonthsAgo(3), income_account_id: ids.Dues }), 201);
    const made = await expectStatus(await api('POST', '/people', { name: 'Piet Put', dues_plan_id: youth.id }), 201);
    // Someone on Adult from its start: the plan's past dates are due, but not to Piet.
    const alma = await expectStatus(await api('POST', '/people', { name: 'Alma Adult', dues_plan_id: adult.id }), 201);
    expect(await datesOf(alma.id)).toEqual([firstOfMonthsAgo(3), firstOfMonthsAgo(2), firstOfMonthsAgo(1), firstOfMonthsAgo(0)]);
    expect(await charges(made.id)).toEqual([{ on: firstOfMonthsAgo(3), description: `Youth (PUT) ${firstOfMonthsAgo(3).slice(0, 4)}`, cents: 3000 }]);
    await expectStatus(await api('PUT', `/people/${made.id}`, { name: 'Piet Put', dues_plan_id: adult.id }), 200);
    await postDuesFor(h.db);
    // The Adult plan's occurrences before the day of the change count as handled: at most today's is charged.
    const today = realToday();
    expect(await charges(made.id)).toEqual([
      { on: firstOfMonthsAgo(3), description: `Youth (PUT) ${firstOfMonthsAgo(3).slice(0, 4)}`, cents: 3000 },
      ...(today === firstOfMonthsAgo(0) ? [{ on: today, description: `Adult (PUT) ${today.slice(0, 7)}`, cents: 800 }] : []),
    ]);
  });

  it('D27: a changed amount counts only from the next occurrence; a PUT never re-posts or changes what was posted, and its new dates before today count as handled', async () => {
    const made = await plan({ name: 'Raised', start_on: '2024-01-01' });
    const payer = await person('Paula Payer', made.id);
    await postDuesFor(h.db, { planId: made.id }, '2024-03-15');
    const input = { name: 'Raised', amount_cents: 700, every: 'month' as const, start_on: '2024-01-01', income_account_id: ids.Dues! };
    await replaceDuesPlanAndPostDue(h.db, made.id, input, author(), '2024-03-15');
    await postDuesFor(h.db, {}, '2024-05-15');
    expect((await charges(payer.id)).map((c) => [c.on, c.cents])).toEqual([
      ['2024-01-01', 500], ['2024-02-01', 500], ['2024-03-01', 500], ['2024-04-01', 700], ['2024-05-01', 700],
    ]);
    // Moving the dates (the 15th instead of the 1st) charges none of the new dates in the past.
    await replaceDuesPlanAndPostDue(h.db, made.id, { ...input, start_on: '2024-01-15' }, author(), '2024-05-20');
    expect((await datesOf(payer.id)).slice(-2)).toEqual(['2024-04-01', '2024-05-01']);
    await postDuesFor(h.db, {}, '2024-06-20');
    expect((await datesOf(payer.id)).slice(-2)).toEqual(['2024-05-01', '2024-06-15']);
  });

  it('D20/D27: an occurrence in a closed period waits (no key), and the first run after the period reopens posts it', async () => {
    const made = await plan({ name: 'Closed', start_on: '2024-01-01' });
    const waiting = await person('Wanda Waiting', made.id);
    await expectStatus(await api('PUT', '/settings', { closed_through: '2024-02-29' }), 200);
    try {
      await postDuesFor(h.db, { planId: made.id }, '2024-04-30');
      expect(await datesOf(waiting.id)).toEqual(['2024-03-01', '2024-04-01']);
      const keys = rowsOf<{ on: string }>(await h.db.execute(sql`select occurs_on::text as on from dues_occurrences where person_id = ${waiting.id} order by 1`));
      expect(keys.map((k) => k.on)).toEqual(['2024-03-01', '2024-04-01']);
    } finally {
      await expectStatus(await api('PUT', '/settings', { closed_through: null }), 200);
    }
    expect(await postDuesFor(h.db, { planId: made.id }, '2024-04-30')).toEqual({ posted: 2, refused: 0 });
    expect(await datesOf(waiting.id)).toEqual(['2024-01-01', '2024-02-01', '2024-03-01', '2024-04-01']);
  });

  it('D27/D15: a deleted dues charge is not posted again (its occurrence stays handled); each charge\'s change record says via "dues", the plan\'s creator as actor', async () => {
    const made = await plan({ name: 'Deleted once', start_on: '2024-01-01' });
    const payer = await person('Dora Deleted', made.id);
    await postDuesFor(h.db, { planId: made.id }, '2024-02-15');
    const [jan] = rowsOf<{ id: number }>(await h.db.execute(sql`select id::int from transactions where description = 'Deleted once 2024-01'`));
    const { changes } = await expectStatus(await api('GET', `/changes?subject=transaction&subject_id=${jan!.id}`), 200);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ action: 'create', via: 'dues', actor_email: email, client_id: null, schedule_id: null });
    expect(changes[0].after).toMatchObject({ description: 'Deleted once 2024-01', created_by_email: email });
    const words = { money: (c: number) => (c / 100).toFixed(2), date: (d: string) => d };
    expect(describeChange(changes[0] as ChangeRecord, words)).toBe(`${email} recorded “Deleted once 2024-01” (5.00) posted by a dues plan.`);
    await expectStatus(await api('DELETE', `/transactions/${jan!.id}`), 204);
    expect(await postDuesFor(h.db, { planId: made.id }, '2024-03-15')).toEqual({ posted: 1, refused: 0 });
    expect(await datesOf(payer.id)).toEqual(['2024-02-01', '2024-03-01']);
  });

  it('D21 bounds: a plan from year 0001 (written past the API\'s check) with a member from 2026 is posted at once without walking 2,000 years', async () => {
    const [old] = await h.db
      .insert(duesPlans)
      .values({ name: 'Ancient', amountCents: 100, every: 'year', startOn: '0001-01-01', incomeAccountId: ids.Dues!, createdBy: userId })
      .returning({ id: duesPlans.id });
    const late = await person('Lena Late', old!.id, { duesFrom: '2025-06-01' });
    const started = Date.now();
    expect(await postDuesFor(h.db, { planId: old!.id }, '2026-11-27')).toEqual({ posted: 1, refused: 0 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await charges(late.id)).toEqual([{ on: '2026-01-01', description: 'Ancient 2026', cents: 100 }]);
  });

  it('D27: what is due is charged when the plan is saved (PUT) and when the person is saved, before the answer — not only by the next run', async () => {
    const start = firstOfMonthsAgo(2);
    const made = await expectStatus(await api('POST', '/dues-plans', { name: 'On save', amount_cents: 250, every: 'month', start_on: start, income_account_id: ids.Dues }), 201);
    // A person following it, written while nothing posts: the plan's PUT charges them at once.
    const early = await person('Erik Early', made.id);
    expect(await datesOf(early.id)).toEqual([]);
    const { id: _, members: __, ...body } = made;
    expect((await expectStatus(await api('PUT', `/dues-plans/${made.id}`, body), 200)).members).toBe(1);
    const expected = [firstOfMonthsAgo(2), firstOfMonthsAgo(1), firstOfMonthsAgo(0)];
    expect(await datesOf(early.id)).toEqual(expected);
    // A person saved with the plan (POST /people when it exists; the people module's call otherwise).
    const peopleRoute = await api('POST', '/people', { name: 'Lara Later', dues_plan_id: made.id });
    let laterId: number;
    if (peopleRoute.status === 404) {
      laterId = (await person('Lara Later', made.id)).id;
      await postDuesFor(h.db, { personId: laterId });
    } else {
      laterId = (await expectStatus(peopleRoute, 201)).id;
    }
    expect(await datesOf(laterId)).toEqual(expected);
    // Nothing twice: another save and a run post nothing more.
    await expectStatus(await api('PUT', `/dues-plans/${made.id}`, body), 200);
    expect(await postDuesFor(h.db, { planId: made.id })).toEqual({ posted: 0, refused: 0 });
    expect(await datesOf(early.id)).toEqual(expected);
    expect(new Date(`${expected[0]}T00:00:00Z`).getTime()).toBeLessThanOrEqual(Date.now() + DAY_MS);
  });
});
