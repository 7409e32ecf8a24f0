import { sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { rowsOf } from '../src/db/database';
import { postDueOccurrences } from '../src/book/schedule-posting';
import { createSchedule, type NewSchedule } from '../src/book/schedules';
import { addUser, removeUser } from '../src/identity/users';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';

// D21 over HTTP, on both databases: schedules (every status and shape), the posting job (catch-up
// oldest first, once, whoever runs it and however often, the creator as author, `via: "schedule"`),
// remind mode (due → post / skip → 409 again), blocked occurrences (a closed period, a deleted
// account) and their unblocking, a PUT that never posts what was before next_on, a schedule that
// outlives its creator, and the forecast of an asset and a liability. A schedule saved through the
// API posts what is due at once (issue 37 item 4, tests/schedules-on-save.test.ts): the tests of
// the job write theirs with createSchedule, as a schedule saved before the server went off.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const TODAY = new Date().toISOString().slice(0, 10);
/** The first day of the month `k` months from this one (negative: before). */
function firstOfMonth(k: number): string {
  const d = new Date();
  const date = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + k, 1));
  return date.toISOString().slice(0, 10);
}
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

describeEachDatabase('schedules (D21)', (h) => {
  let token: string;
  let email: string;
  let userId: number;
  const ids: Record<string, number> = {};
  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);
  const expectStatus = async (res: Response, status: number) => {
    expect(res.status, await res.clone().text()).toBe(status);
    return res.status === 204 ? undefined : json(res);
  };
  const rent = (over: Record<string, unknown> = {}) => ({
    description: 'Hall rent',
    entries: [
      { account_id: ids.Rent!, amount_cents: 45_000 },
      { account_id: ids.Bank!, amount_cents: -45_000 },
    ],
    start_on: firstOfMonth(-3),
    every: 'month',
    mode: 'post',
    ...over,
  });
  /** A schedule saved while no server ran: nothing of it is posted until the job runs. */
  const savedEarlier = (body: Record<string, unknown>, by: { userId: number | null; email: string | null } = { userId, email }) =>
    createSchedule(h.db, body as NewSchedule, { ...by, via: 'token', clientId: null });
  const transactionsOf = async (description: string) =>
    rowsOf<{ id: number; occurred_on: string; created_by: number | null }>(
      await h.db.execute(sql`select id, occurred_on::text, created_by from transactions where description = ${description} order by id`),
    );

  beforeAll(async () => {
    email = 'treasurer@schedules.example';
    ({ token, userId } = await h.userWithToken(email));
    for (const [name, kind] of [['Bank', 'asset'], ['Card', 'liability'], ['Rent', 'expense'], ['Dues', 'income'], ['Phone', 'expense'], ['Old', 'expense']] as const) {
      ids[name] = (await expectStatus(await api('POST', '/accounts', { name, kind }), 201)).id;
    }
  });

  it('POST /schedules → 201 Schedule, exactly the D21 shape; GET one and the list; a change record (subject schedule)', async () => {
    const made = await expectStatus(await api('POST', '/schedules', rent({ description: 'Shape check', start_on: '2030-01-31', mode: 'remind', interval: 2, until_on: '2031-01-31' })), 201);
    expect(made).toStrictEqual({
      id: expect.any(Number),
      description: 'Shape check',
      entries: [
        { account_id: ids.Rent, account_name: 'Rent', amount_cents: 45_000 },
        { account_id: ids.Bank, account_name: 'Bank', amount_cents: -45_000 },
      ],
      start_on: '2030-01-31',
      every: 'month',
      interval: 2,
      until_on: '2031-01-31',
      mode: 'remind',
      next_on: '2030-01-31',
      created_by_email: email,
    });
    expect(await expectStatus(await api('GET', `/schedules/${made.id}`), 200)).toStrictEqual(made);
    const list = await expectStatus(await api('GET', '/schedules'), 200);
    expect(list.map((s: Json) => s.id)).toContain(made.id);
    const page = await expectStatus(await api('GET', `/changes?subject=schedule&subject_id=${made.id}`), 200);
    expect(page.changes).toHaveLength(1);
    expect(page.changes[0]).toMatchObject({ subject: 'schedule', subject_id: made.id, action: 'create', via: 'token', actor_email: email, before: null, after: made, schedule_id: null });
    expect(page.changes[0].at).toMatch(ISO_UTC);
  });

  it('D21: POST /schedules with Idempotency-Key makes one schedule; the retry replays the first answer', async () => {
    const send = () =>
      h.request('/schedules', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': '"schedule-retry-1"' },
        body: JSON.stringify(rent({ description: 'Retried dues', start_on: '2030-06-01' })),
      });
    const first = await send();
    const again = await send();
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    const all = await expectStatus(await api('GET', '/schedules'), 200);
    expect(all.filter((s: Json) => s.description === 'Retried dues')).toHaveLength(1);
  });

  it('400 {error} for what POST /transactions refuses and for bad schedule fields; nothing is made', async () => {
    const before = (await expectStatus(await api('GET', '/schedules'), 200)).length;
    const cases: [unknown, RegExp][] = [
      [rent({ entries: [{ account_id: ids.Rent, amount_cents: 100 }, { account_id: ids.Bank, amount_cents: -99 }] }), /^entries must sum to zero: 2 entries sum to 1$/],
      [rent({ entries: [{ account_id: ids.Rent, amount_cents: 100 }] }), /at least 2 entries/],
      [rent({ entries: [{ account_id: 2_000_000, amount_cents: 100 }, { account_id: ids.Bank, amount_cents: -100 }] }), /account that does not exist/],
      [rent({ description: '  ' }), /description is required/],
      [rent({ start_on: '2027-02-30' }), /start_on must be a date/],
      [rent({ until_on: firstOfMonth(-4) }), /until_on must not be before start_on/],
      [rent({ every: 'day' }), /every must be week, month or year/],
      [rent({ interval: 0 }), /interval must be an integer from 1 to 99/],
      [rent({ interval: 100 }), /interval must be an integer from 1 to 99/],
      [rent({ interval: 1.5 }), /interval must be an integer/],
      [rent({ mode: 'auto' }), /mode must be post or remind/],
    ];
    for (const [body, message] of cases) {
      const res = await api('POST', '/schedules', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const answer = await json(res);
      expect(Object.keys(answer)).toEqual(['error']);
      expect(answer.error).toMatch(message);
    }
    expect((await expectStatus(await api('GET', '/schedules'), 200)).length).toBe(before);
    for (const path of ['/schedules/999999', '/schedules/2147483648']) expect((await api('GET', path)).status).toBe(404);
    expect((await api('GET', '/schedules/abc')).status).toBe(400);
    expect((await api('PUT', '/schedules/999999', rent())).status).toBe(404);
    expect((await api('DELETE', '/schedules/999999')).status).toBe(404);
  });

  it('the posting job posts every missed occurrence once, oldest first, by the creator, via "schedule"; again and in parallel it posts nothing more', async () => {
    const made = await savedEarlier(rent({ description: 'Catch-up rent' }));
    const expected = [firstOfMonth(-3), firstOfMonth(-2), firstOfMonth(-1), firstOfMonth(0)];
    // Three runs at once (as three instances would): each occurrence once.
    await Promise.all([postDueOccurrences(h.db), postDueOccurrences(h.db), postDueOccurrences(h.db)]);
    const posted = await transactionsOf('Catch-up rent');
    expect(posted.map((t) => t.occurred_on)).toEqual(expected);
    expect([...posted].sort((a, b) => a.id - b.id).map((t) => t.occurred_on)).toEqual(expected);
    await postDueOccurrences(h.db);
    expect(await transactionsOf('Catch-up rent')).toHaveLength(4);
    const now = await expectStatus(await api('GET', `/schedules/${made.id}`), 200);
    expect(now.next_on).toBe(firstOfMonth(1));

    const one = await expectStatus(await api('GET', `/transactions/${posted[0]!.id}`), 200);
    expect(one).toStrictEqual({
      id: posted[0]!.id,
      occurred_on: expected[0],
      description: 'Catch-up rent',
      created_by_email: email,
      entries: [
        { account_id: ids.Rent, account_name: 'Rent', amount_cents: 45_000 },
        { account_id: ids.Bank, account_name: 'Bank', amount_cents: -45_000 },
      ],
    });
    const page = await expectStatus(await api('GET', `/changes?subject=transaction&subject_id=${posted[0]!.id}`), 200);
    expect(page.changes[0]).toMatchObject({ via: 'schedule', actor_email: email, client_id: null, schedule_id: made.id, action: 'create', after: one });
  });

  it('remind: due lists it; post → 201 (the caller is the author), then 409; skip → 204, then 409; another amount this time; 404 for a date that is no occurrence', async () => {
    const made = await expectStatus(
      await api('POST', '/schedules', rent({ description: 'Phone bill', mode: 'remind', start_on: firstOfMonth(-2), entries: [{ account_id: ids.Phone, amount_cents: 3_999 }, { account_id: ids.Card, amount_cents: -3_999 }] })),
      201,
    );
    const due = (await expectStatus(await api('GET', '/schedules/due'), 200)).filter((d: Json) => d.schedule_id === made.id);
    expect(due).toStrictEqual([firstOfMonth(-2), firstOfMonth(-1), firstOfMonth(0)].map((on) => ({
      schedule_id: made.id, occurs_on: on, description: 'Phone bill', entries: made.entries, blocked: null,
    })));
    // The job never posts a reminder.
    await postDueOccurrences(h.db);
    expect(await transactionsOf('Phone bill')).toHaveLength(0);

    const first = await expectStatus(await api('POST', `/schedules/${made.id}/occurrences/${firstOfMonth(-2)}/post`), 201);
    expect(first).toMatchObject({ occurred_on: firstOfMonth(-2), description: 'Phone bill', created_by_email: email });
    await expectStatus(await api('POST', `/schedules/${made.id}/occurrences/${firstOfMonth(-2)}/post`), 409);
    await expectStatus(await api('POST', `/schedules/${made.id}/occurrences/${firstOfMonth(-2)}/skip`), 409);
    await expectStatus(await api('POST', `/schedules/${made.id}/occurrences/${firstOfMonth(-1)}/skip`), 204);
    expect((await json(await api('POST', `/schedules/${made.id}/occurrences/${firstOfMonth(-1)}/post`))).error).toBe('that occurrence was already posted or skipped');
    // A bill that varies: another amount, and a date of its own.
    const varied = await expectStatus(
      await api('POST', `/schedules/${made.id}/occurrences/${firstOfMonth(0)}/post`, {
        occurred_on: TODAY,
        entries: [{ account_id: ids.Phone, amount_cents: 5_210 }, { account_id: ids.Card, amount_cents: -5_210 }],
      }),
      201,
    );
    expect(varied.occurred_on).toBe(TODAY);
    expect(varied.entries.map((e: Json) => e.amount_cents)).toEqual([5_210, -5_210]);
    // A future one may be posted or skipped ahead too.
    await expectStatus(await api('POST', `/schedules/${made.id}/occurrences/${firstOfMonth(2)}/skip`), 204);
    const after = await expectStatus(await api('GET', `/schedules/${made.id}`), 200);
    expect(after.next_on).toBe(firstOfMonth(1));
    expect((await expectStatus(await api('GET', `/schedules/due?through=${firstOfMonth(3)}`), 200)).filter((d: Json) => d.schedule_id === made.id).map((d: Json) => d.occurs_on)).toEqual([
      firstOfMonth(1), firstOfMonth(3),
    ]);

    for (const [path, status] of [
      [`/schedules/${made.id}/occurrences/${firstOfMonth(0).slice(0, 8)}15/post`, 404],
      [`/schedules/${made.id}/occurrences/${firstOfMonth(-3)}/skip`, 404],
      [`/schedules/999999/occurrences/${firstOfMonth(0)}/post`, 404],
      [`/schedules/${made.id}/occurrences/2027-02-30/post`, 400],
    ] as const) {
      expect((await api('POST', path)).status, path).toBe(status);
    }
    // Unbalanced other entries: POST /transactions' message; nothing handled.
    const bad = await api('POST', `/schedules/${made.id}/occurrences/${firstOfMonth(1)}/post`, { entries: [{ account_id: ids.Phone, amount_cents: 1 }, { account_id: ids.Card, amount_cents: -2 }] });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toBe('entries must sum to zero: 2 entries sum to -1');
    expect((await expectStatus(await api('GET', `/schedules/${made.id}`), 200)).next_on).toBe(firstOfMonth(1));
    const change = (await expectStatus(await api('GET', `/changes?subject=transaction&subject_id=${first.id}`), 200)).changes[0];
    expect(change).toMatchObject({ via: 'token', actor_email: email, schedule_id: made.id });
  });

  it('blocked: a closed period and a deleted account are listed as due with the reason, refused with 409 when posted, and posted once unblocked', async () => {
    const closedThrough = firstOfMonth(-1);
    const made = await savedEarlier(rent({ description: 'Blocked rent', start_on: firstOfMonth(-2) }));
    await expectStatus(await api('PUT', '/settings', { closed_through: closedThrough }), 200);
    try {
      await postDueOccurrences(h.db);
      // Only the occurrence after the closed period is posted.
      expect((await transactionsOf('Blocked rent')).map((t) => t.occurred_on)).toEqual([firstOfMonth(0)]);
      const due = (await expectStatus(await api('GET', '/schedules/due'), 200)).filter((d: Json) => d.schedule_id === made.id);
      expect(due.map((d: Json) => [d.occurs_on, d.blocked])).toEqual([
        [firstOfMonth(-2), `the books are closed through ${closedThrough}`],
        [firstOfMonth(-1), `the books are closed through ${closedThrough}`],
      ]);
      const refused = await api('POST', `/schedules/${made.id}/occurrences/${firstOfMonth(-2)}/post`);
      expect(refused.status).toBe(409);
      expect(await json(refused)).toEqual({ error: `the books are closed through ${closedThrough}` });
      expect((await expectStatus(await api('GET', `/schedules/${made.id}`), 200)).next_on).toBe(firstOfMonth(-2));
    } finally {
      await expectStatus(await api('PUT', '/settings', { closed_through: null }), 200);
    }
    await postDueOccurrences(h.db);
    expect((await transactionsOf('Blocked rent')).map((t) => t.occurred_on).sort()).toEqual([firstOfMonth(-2), firstOfMonth(-1), firstOfMonth(0)]);
    expect((await expectStatus(await api('GET', `/schedules/${made.id}`), 200)).next_on).toBe(firstOfMonth(1));

    // A schedule's entries do not hold an account: it can be deleted, and then blocks.
    const gone = await savedEarlier(rent({ description: 'Old fee', start_on: firstOfMonth(0), entries: [{ account_id: ids.Old, amount_cents: 100 }, { account_id: ids.Bank, amount_cents: -100 }] }));
    await expectStatus(await api('DELETE', `/accounts/${ids.Old}`), 204);
    await postDueOccurrences(h.db);
    expect(await transactionsOf('Old fee')).toHaveLength(0);
    const due = (await expectStatus(await api('GET', '/schedules/due'), 200)).filter((d: Json) => d.schedule_id === gone.id);
    expect(due).toEqual([{ schedule_id: gone.id, occurs_on: firstOfMonth(0), description: 'Old fee', entries: gone.entries, blocked: 'the account "Old" no longer exists' }]);
    expect((await expectStatus(await api('GET', `/schedules/${gone.id}`), 200)).entries[0].account_name).toBe('Old');
    // Editing the schedule unblocks it: the PUT posts the occurrences from next_on at once (issue 37
    // item 4), and the next run finds nothing more.
    const edited = await expectStatus(await api('PUT', `/schedules/${gone.id}`, rent({ description: 'Old fee', start_on: firstOfMonth(0), entries: [{ account_id: ids.Rent, amount_cents: 100 }, { account_id: ids.Bank, amount_cents: -100 }] })), 200);
    expect(edited.next_on).toBe(firstOfMonth(1));
    expect((await transactionsOf('Old fee')).map((t) => t.occurred_on)).toEqual([firstOfMonth(0)]);
    await postDueOccurrences(h.db);
    expect((await transactionsOf('Old fee')).map((t) => t.occurred_on)).toEqual([firstOfMonth(0)]);
  });

  it('PUT never posts dates before next_on at that moment; it is recorded (before, after); DELETE keeps what was posted', async () => {
    const made = await expectStatus(await api('POST', '/schedules', rent({ description: 'Moved rent', start_on: firstOfMonth(-1) })), 201);
    // Saved, its two due dates were posted at once (issue 37 item 4); the job finds nothing more.
    expect(await transactionsOf('Moved rent')).toHaveLength(2);
    await postDueOccurrences(h.db);
    expect(await transactionsOf('Moved rent')).toHaveLength(2);
    // Started a year earlier, weekly: everything before next_on counts as handled.
    const replaced = await expectStatus(await api('PUT', `/schedules/${made.id}`, rent({ description: 'Moved rent', start_on: firstOfMonth(-12), every: 'week' })), 200);
    await postDueOccurrences(h.db);
    const posted = await transactionsOf('Moved rent');
    expect(posted.filter((t) => t.occurred_on < firstOfMonth(1)).length).toBe(2);
    expect(replaced.next_on >= firstOfMonth(1)).toBe(true);
    expect(replaced).toMatchObject({ every: 'week', start_on: firstOfMonth(-12) });
    const update = (await expectStatus(await api('GET', `/changes?subject=schedule&subject_id=${made.id}`), 200)).changes[0];
    expect(update).toMatchObject({ action: 'update', before: { every: 'month' }, after: replaced });

    await expectStatus(await api('DELETE', `/schedules/${made.id}`), 204);
    expect((await api('GET', `/schedules/${made.id}`)).status).toBe(404);
    expect(await transactionsOf('Moved rent')).toHaveLength(2);
    const deleted = (await expectStatus(await api('GET', `/changes?subject=schedule&subject_id=${made.id}`), 200)).changes[0];
    expect(deleted).toMatchObject({ action: 'delete', before: replaced, after: null });
  });

  it('a schedule survives its creator: listed with no creator, posting with no author', async () => {
    const owner = await addUser(h.db, 'leaving@schedules.example', 'a password for leaving');
    const made = await savedEarlier(rent({ description: 'Orphan dues', start_on: firstOfMonth(-1) }), { userId: owner.id, email: 'leaving@schedules.example' });
    await removeUser(h.db, 'leaving@schedules.example');
    expect((await expectStatus(await api('GET', `/schedules/${made.id}`), 200)).created_by_email).toBeNull();
    await postDueOccurrences(h.db);
    const posted = await transactionsOf('Orphan dues');
    expect(posted).toHaveLength(2);
    expect(posted.every((t) => t.created_by === null)).toBe(true);
    const change = (await expectStatus(await api('GET', `/changes?subject=transaction&subject_id=${posted[0]!.id}`), 200)).changes[0];
    expect(change).toMatchObject({ via: 'schedule', actor_email: null, client_id: null, schedule_id: made.id });
  });

  it('GET /reports/forecast: an asset and a liability, today\'s balance then one point per date (occurrences, and transactions recorded ahead), natural sign; to bounded', async () => {
    // A book of its own accounts, so that other tests' schedules do not touch it.
    const account = async (name: string, kind: string) => (await expectStatus(await api('POST', '/accounts', { name, kind }), 201)).id as number;
    const savings = await account('Forecast savings', 'asset');
    const visa = await account('Forecast visa', 'liability');
    const salary = await account('Forecast salary', 'income');
    const shop = await account('Forecast shop', 'expense');
    await expectStatus(await api('POST', '/transactions', { occurred_on: TODAY, description: 'Opening', entries: [{ account_id: savings, amount_cents: 100_000 }, { account_id: salary, amount_cents: -100_000 }] }), 201);
    await expectStatus(await api('POST', '/transactions', { occurred_on: TODAY, description: 'Card use', entries: [{ account_id: shop, amount_cents: 2_500 }, { account_id: visa, amount_cents: -2_500 }] }), 201);
    // Salary in on the 1st of next months; the card paid from savings on the 1st too; shopping on the card mid-month (remind).
    await expectStatus(await api('POST', '/schedules', { description: 'Salary', entries: [{ account_id: savings, amount_cents: 300_000 }, { account_id: salary, amount_cents: -300_000 }], start_on: firstOfMonth(1), every: 'month', mode: 'post' }), 201);
    await expectStatus(await api('POST', '/schedules', { description: 'Card paid', entries: [{ account_id: visa, amount_cents: 2_500 }, { account_id: savings, amount_cents: -2_500 }], start_on: firstOfMonth(1), every: 'month', mode: 'post', until_on: firstOfMonth(1) }), 201);
    const shopDay = `${firstOfMonth(1).slice(0, 8)}15`;
    await expectStatus(await api('POST', '/schedules', { description: 'Groceries on card', entries: [{ account_id: shop, amount_cents: 10_000 }, { account_id: visa, amount_cents: -10_000 }], start_on: shopDay, every: 'month', mode: 'remind' }), 201);

    // A bill already recorded for a later day (a reminder posted ahead): money expected too.
    const aheadDay = `${firstOfMonth(1).slice(0, 8)}10`;
    await expectStatus(await api('POST', '/transactions', { occurred_on: aheadDay, description: 'Insurance, paid ahead', entries: [{ account_id: shop, amount_cents: 7_000 }, { account_id: savings, amount_cents: -7_000 }] }), 201);
    const to = `${firstOfMonth(2).slice(0, 8)}20`;
    const forecast = await expectStatus(await api('GET', `/reports/forecast?to=${to}`), 200);
    expect(forecast.from).toBe(TODAY);
    expect(forecast.to).toBe(to);
    expect(forecast.accounts.every((a: Json) => a.kind === 'asset' || a.kind === 'liability')).toBe(true);
    expect(forecast.accounts.find((a: Json) => a.id === savings)).toStrictEqual({
      id: savings, name: 'Forecast savings', kind: 'asset', balance_cents: 100_000,
      points: [
        { on: firstOfMonth(1), balance_cents: 100_000 + 300_000 - 2_500 },
        { on: aheadDay, balance_cents: 100_000 + 300_000 - 2_500 - 7_000 },
        { on: firstOfMonth(2), balance_cents: 100_000 + 300_000 - 2_500 - 7_000 + 300_000 },
      ],
    });
    expect(forecast.accounts.find((a: Json) => a.id === visa)).toStrictEqual({
      id: visa, name: 'Forecast visa', kind: 'liability', balance_cents: 2_500,
      points: [
        { on: firstOfMonth(1), balance_cents: 0 },
        { on: shopDay, balance_cents: 10_000 },
        { on: `${firstOfMonth(2).slice(0, 8)}15`, balance_cents: 20_000 },
      ],
    });
    expect((await api('GET', '/reports/forecast?to=2000-01-01')).status).toBe(400);
    const far = new Date();
    far.setUTCFullYear(far.getUTCFullYear() + 3, far.getUTCMonth(), far.getUTCDate() + 1);
    const tooFar = await api('GET', `/reports/forecast?to=${far.toISOString().slice(0, 10)}`);
    expect(tooFar.status).toBe(400);
    expect((await json(tooFar)).error).toMatch(/at most 3 years ahead/);
    const byDefault = await expectStatus(await api('GET', '/reports/forecast'), 200);
    expect(byDefault.to > TODAY).toBe(true);
  });
});
