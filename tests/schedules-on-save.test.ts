import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { createSchedule } from '../src/book/schedules';
import { postDueOccurrences, postDueOnSave } from '../src/book/schedule-posting';
import { rowsOf } from '../src/db/database';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';

// Issue 37 item 4 (D21): a `post` schedule saved with dates already due posts them when it is
// saved — POST /schedules, PUT /schedules/{id} and MCP create_schedule — through the posting job's
// own exactly-once path, so the web form's "all 3 will be posted at once" holds when the 201
// arrives (it used to wait for the background run, up to 10 minutes later). The background job
// run right after posts nothing more; a PUT never posts dates before the schedule's next_on at
// that moment; a blocked date (closed period) is not posted and stays due with `blocked`, and a PUT that
// corrects the schedule once it is unblocked posts it at once; an
// Idempotency-Key replay posts nothing twice. On both databases.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const TODAY = new Date().toISOString().slice(0, 10);
/** The first day of the month `k` months from this one (negative: before). */
function firstOfMonth(k: number): string {
  const d = new Date();
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + k, 1)).toISOString().slice(0, 10);
}
/** The monthly dates from firstOfMonth(from) through firstOfMonth(to). */
const months = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => firstOfMonth(from + i));

describeEachDatabase('a post schedule posts what is due when it is saved (issue 37 item 4, D21)', (h) => {
  let token: string;
  let email: string;
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
  /** What GET /transactions lists of `description`, oldest first. */
  const listed = async (description: string): Promise<Json[]> =>
    ((await expectStatus(await api('GET', `/transactions?q=${encodeURIComponent(description)}&limit=1000`), 200)) as Json[])
      .filter((t) => t.description === description)
      .sort((a, b) => (a.occurred_on < b.occurred_on ? -1 : a.occurred_on > b.occurred_on ? 1 : a.id - b.id));
  const handled = async (scheduleId: number) =>
    rowsOf<{ on: string; outcome: string; linked: boolean }>(
      await h.db.execute(sql`select occurs_on::text as on, outcome, transaction_id is not null as linked from schedule_occurrences where schedule_id = ${scheduleId} order by occurs_on`),
    );

  beforeAll(async () => {
    email = 'treasurer@on-save.example';
    ({ token } = await h.userWithToken(email));
    for (const [name, kind] of [['Bank', 'asset'], ['Rent', 'expense'], ['Dues', 'income']] as const) {
      ids[name] = (await expectStatus(await api('POST', '/accounts', { name, kind }), 201)).id;
    }
  });

  it('POST /schedules of a post schedule started 3 months ago, monthly: right after the 201 the 4 dates are posted (GET /transactions), next_on is next month, via "schedule"; the background job right after posts nothing more', async () => {
    const made = await expectStatus(await api('POST', '/schedules', rent({ description: 'Rent on save' })), 201);
    const expected = months(-3, 0);
    expect(made).toMatchObject({ description: 'Rent on save', start_on: firstOfMonth(-3), mode: 'post', next_on: firstOfMonth(1), created_by_email: email });
    const posted = await listed('Rent on save');
    expect(posted.map((t) => t.occurred_on)).toEqual(expected);
    // Oldest first, as the job posts them.
    expect([...posted].sort((a, b) => a.id - b.id).map((t) => t.occurred_on)).toEqual(expected);
    for (const t of posted) {
      expect(t).toMatchObject({ created_by_email: email, entries: [{ account_id: ids.Rent, amount_cents: 45_000 }, { account_id: ids.Bank, amount_cents: -45_000 }] });
      const { changes } = await expectStatus(await api('GET', `/changes?subject=transaction&subject_id=${t.id}`), 200);
      expect(changes).toHaveLength(1);
      expect(changes[0]).toMatchObject({ action: 'create', via: 'schedule', actor_email: email, client_id: null, schedule_id: made.id });
    }
    expect(await handled(made.id)).toEqual(expected.map((on) => ({ on, outcome: 'posted', linked: true })));
    expect(await expectStatus(await api('GET', `/schedules/${made.id}`), 200)).toStrictEqual(made);
    // A post date that was posted is never "due".
    expect((await expectStatus(await api('GET', '/schedules/due'), 200)).filter((d: Json) => d.schedule_id === made.id)).toEqual([]);

    // Exactly once: the background run that follows finds nothing of it to post.
    await postDueOccurrences(h.db);
    expect((await listed('Rent on save')).map((t) => t.id)).toEqual(posted.map((t) => t.id));
    expect((await expectStatus(await api('GET', `/schedules/${made.id}`), 200)).next_on).toBe(firstOfMonth(1));
  });

  it('a schedule starting ahead, or a reminder, posts nothing when saved', async () => {
    const ahead = await expectStatus(await api('POST', '/schedules', rent({ description: 'Rent ahead', start_on: firstOfMonth(1) })), 201);
    expect(ahead.next_on).toBe(firstOfMonth(1));
    const reminder = await expectStatus(await api('POST', '/schedules', rent({ description: 'Rent reminded', mode: 'remind' })), 201);
    expect(reminder.next_on).toBe(firstOfMonth(-3));
    expect(await listed('Rent ahead')).toEqual([]);
    expect(await listed('Rent reminded')).toEqual([]);
  });

  it('Idempotency-Key: the retry replays the first answer and posts nothing twice', async () => {
    const send = () =>
      h.request('/schedules', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': '"on-save-1"' },
        body: JSON.stringify(rent({ description: 'Keyed rent', start_on: firstOfMonth(-2) })),
      });
    const first = await send();
    expect(first.status).toBe(201);
    const answer = await first.json();
    expect(answer.next_on).toBe(firstOfMonth(1));
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(answer);
    expect((await listed('Keyed rent')).map((t) => t.occurred_on)).toEqual(months(-2, 0));
    expect((await expectStatus(await api('GET', '/schedules'), 200)).filter((s: Json) => s.description === 'Keyed rent')).toHaveLength(1);
  });

  it('PUT: a reminder turned into a post schedule posts its due dates at once, never those before its next_on at that moment (D21); the job after posts nothing more', async () => {
    const made = await expectStatus(await api('POST', '/schedules', rent({ description: 'Dues turned', mode: 'remind', start_on: firstOfMonth(-3) })), 201);
    // The first date was dealt with by hand: next_on is the second.
    await expectStatus(await api('POST', `/schedules/${made.id}/occurrences/${firstOfMonth(-3)}/skip`), 204);
    expect((await expectStatus(await api('GET', `/schedules/${made.id}`), 200)).next_on).toBe(firstOfMonth(-2));
    // Moved to start six months ago and made to post: the dates before -2 months count as handled.
    const replaced = await expectStatus(await api('PUT', `/schedules/${made.id}`, rent({ description: 'Dues turned', start_on: firstOfMonth(-6) })), 200);
    expect(replaced).toMatchObject({ mode: 'post', start_on: firstOfMonth(-6), next_on: firstOfMonth(1) });
    expect((await listed('Dues turned')).map((t) => t.occurred_on)).toEqual(months(-2, 0));
    const change = (await expectStatus(await api('GET', `/changes?subject=transaction&subject_id=${(await listed('Dues turned'))[0].id}`), 200)).changes[0];
    expect(change).toMatchObject({ via: 'schedule', actor_email: email, schedule_id: made.id });
    await postDueOccurrences(h.db);
    expect((await listed('Dues turned')).map((t) => t.occurred_on)).toEqual(months(-2, 0));
  });

  it('a closed period: the dates in it are not posted on save but listed due with `blocked`; the one after it is posted; reopened, a PUT posts them at once', async () => {
    const closedThrough = firstOfMonth(-1);
    await expectStatus(await api('PUT', '/settings', { closed_through: closedThrough }), 200);
    let made: Json;
    try {
      made = await expectStatus(await api('POST', '/schedules', rent({ description: 'Rent in closed months', start_on: firstOfMonth(-2) })), 201);
      expect(made.next_on).toBe(firstOfMonth(-2));
      expect((await listed('Rent in closed months')).map((t) => t.occurred_on)).toEqual([firstOfMonth(0)]);
      const due = (await expectStatus(await api('GET', '/schedules/due'), 200)).filter((d: Json) => d.schedule_id === made.id);
      expect(due.map((d: Json) => [d.occurs_on, d.blocked])).toEqual([
        [firstOfMonth(-2), `the books are closed through ${closedThrough}`],
        [firstOfMonth(-1), `the books are closed through ${closedThrough}`],
      ]);
    } finally {
      await expectStatus(await api('PUT', '/settings', { closed_through: null }), 200);
    }
    // Reopened, a correction of the schedule (PUT) posts the dates that were blocked at once: they
    // are from its next_on on. The job after it finds nothing more.
    const corrected = await expectStatus(await api('PUT', `/schedules/${made.id}`, rent({ description: 'Rent in closed months', start_on: firstOfMonth(-2), entries: [{ account_id: ids.Rent, amount_cents: 46_000 }, { account_id: ids.Bank, amount_cents: -46_000 }] })), 200);
    expect(corrected.next_on).toBe(firstOfMonth(1));
    const posted = await listed('Rent in closed months');
    expect(posted.map((t) => [t.occurred_on, t.entries[0].amount_cents])).toEqual([[firstOfMonth(-2), 46_000], [firstOfMonth(-1), 46_000], [firstOfMonth(0), 45_000]]);
    await postDueOccurrences(h.db);
    expect((await listed('Rent in closed months')).map((t) => t.id)).toEqual(posted.map((t) => t.id));
  });

  it('posting on save and background runs at the same moment post each date once (the (schedule, date) key)', async () => {
    const { id } = await createSchedule(h.db, rent({ description: 'Raced rent', start_on: firstOfMonth(-5) }) as Json, { userId: null, email: null, via: 'cli', clientId: null });
    const [saved] = await Promise.all([postDueOnSave(h.db, id, TODAY), postDueOccurrences(h.db), postDueOccurrences(h.db), postDueOnSave(h.db, id, TODAY)]);
    expect(saved.next_on).toBe(firstOfMonth(1));
    expect((await listed('Raced rent')).map((t) => t.occurred_on)).toEqual(months(-5, 0));
  });

  it('MCP create_schedule posts what is due at once too, and answers the schedule with its next_on after it', async () => {
    const client = new Client({ name: 'ledger-on-save-tests', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', h.config.apiOrigin), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: (url, init) => Promise.resolve(h.app.request(String(url), init as RequestInit)),
      }),
    );
    try {
      const result = (await client.callTool({ name: 'create_schedule', arguments: rent({ description: 'Rent by MCP', start_on: firstOfMonth(-1) }) })) as CallToolResult & { structuredContent?: Json };
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ description: 'Rent by MCP', next_on: firstOfMonth(1) });
      const posted = await listed('Rent by MCP');
      expect(posted.map((t) => t.occurred_on)).toEqual(months(-1, 0));
      const change = (await expectStatus(await api('GET', `/changes?subject=transaction&subject_id=${posted[0].id}`), 200)).changes[0];
      expect(change).toMatchObject({ via: 'schedule', actor_email: email, schedule_id: result.structuredContent.id });
    } finally {
      await client.close();
    }
  });
});
