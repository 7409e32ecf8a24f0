import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../src/book/accounts';
import { postDueOccurrences } from '../src/book/schedule-posting';
import { rowsOf } from '../src/db/database';
import { mintToken } from '../src/identity/tokens';
import { addUser } from '../src/identity/users';
import { BACKENDS, openTestDatabase, postgresAvailable, type TestDatabase } from './support/databases';
import { freePort, startServe, type ServeProcess } from './support/processes';

// Issue 36 item 1 (D21's bounds, 2026-11-27), against a real `ledger serve` on both databases, so
// that a request that never ends fails its test (every request has a timeout) instead of hanging
// the test run: a schedule dated 9999-12-31 is posted and skipped (HTTP and MCP `post_due`) and
// `/health` answers within a second after; `through` is at most 3 years after today (400 beyond,
// HTTP and MCP `list_due`); years below 1000 are those years (a weekly schedule from 0001-01-01
// posts in year 0001, not 1901); a `post` schedule that would post more than 1,000 occurrences at
// once is refused, saying how many, on POST and on PUT; the due list gives at most 1,000 dates of
// one schedule.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const API = 'http://localhost:38081';
const DAY_MS = 86_400_000;
/** Longer than any bounded answer takes on a loaded machine; shorter than the test's own timeout. */
const REQUEST_MS = 10_000;

// Expected values are computed here with Date on ISO strings of years 0001–9999 (which Date.parse
// and toISOString handle exactly), independently of src/book/occurrences.ts.
const TODAY = new Date().toISOString().slice(0, 10);
const daysFrom = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
const yearsFromToday = (years: number, days = 0) => {
  const d = new Date(`${TODAY}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  // 29 February plus years lands on 1 March in Date: D21 clamps to 28 February.
  if (d.toISOString().slice(5, 10) !== TODAY.slice(5, 10)) d.setUTCDate(0);
  return daysFrom(d.toISOString().slice(0, 10), days);
};
/** Weekly occurrences from `start` through today. */
const weeksThroughToday = (start: string) => Math.floor((Date.parse(`${TODAY}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / (7 * DAY_MS)) + 1;

type ToolResult = CallToolResult & { structuredContent?: Record<string, any> };

for (const backend of BACKENDS) {
  describe.skipIf(backend === 'postgres' && !postgresAvailable())(`D21 bounds in \`ledger serve\` (issue 36 item 1) [${backend}]`, () => {
    let database: TestDatabase;
    let server: ServeProcess;
    let token: string;
    let mcp: Client;
    const ids: Record<string, number> = {};

    const api = async (method: string, path: string, body?: unknown, ms = REQUEST_MS): Promise<{ status: number; body: Json }> => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(ms),
      });
      const text = await res.text();
      return { status: res.status, body: text === '' ? null : JSON.parse(text) };
    };
    const expectStatus = async (method: string, path: string, status: number, body?: unknown): Promise<Json> => {
      const answer = await api(method, path, body);
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)?.slice(0, 500)}`).toBe(status);
      return answer.body;
    };
    /** The instance still serves: /health answers within a second. */
    const healthy = async () => {
      const res = await fetch(`${server.url}/health`, { signal: AbortSignal.timeout(1_000) });
      expect(res.status).toBe(200);
    };
    const tool = async (name: string, args: Record<string, unknown>) =>
      (await mcp.callTool({ name, arguments: args }, undefined, { timeout: REQUEST_MS })) as ToolResult;
    const schedule = (over: Record<string, unknown>) => ({
      description: 'Bounds',
      entries: [
        { account_id: ids.Rent, amount_cents: 1_000 },
        { account_id: ids.Bank, amount_cents: -1_000 },
      ],
      every: 'week',
      mode: 'remind',
      ...over,
    });
    const postedDates = async (description: string) =>
      rowsOf<{ on: string }>(await database.db.execute(sql`select occurred_on::text as on from transactions where description = ${description} order by occurred_on`)).map((r) => r.on);

    beforeAll(async () => {
      database = await openTestDatabase(backend);
      const user = await addUser(database.db, 'treasurer@bounds.example', 'a password for the bounds');
      token = await mintToken(database.db, { userId: user.id, label: null, days: 1, audience: API });
      for (const [name, kind] of [['Bank', 'asset'], ['Rent', 'expense']] as const) {
        ids[name] = (await createAccount(database.db, { name, kind }, { email: null, via: 'cli', clientId: null })).id;
      }
      server = await startServe({ env: { DATABASE_URL: database.url, BIND_ADDR: `127.0.0.1:${await freePort()}`, WEB_BIND_ADDR: 'off', API_ORIGIN: API } });
      mcp = new Client({ name: 'ledger-bounds-tests', version: '1.0.0' });
      await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    }, 90_000);

    afterAll(async () => {
      await mcp?.close().catch(() => {});
      await server?.kill();
      await database?.close();
    });

    it('a weekly post schedule from 0001-01-01 until 0001-03-31 posts its 13 dates in year 0001, not 1901 (D21 bounds: years below 1000 are those years)', async () => {
      // Posted when saved (issue 37 item 4): nothing is left, and the job finds nothing more.
      const made = await expectStatus('POST', '/schedules', 201, schedule({ description: 'Year one', start_on: '0001-01-01', until_on: '0001-03-31', mode: 'post' }));
      expect(made.next_on).toBeNull();
      const expected = Array.from({ length: 13 }, (_, i) => daysFrom('0001-01-01', 7 * i));
      expect(expected.at(-1)).toBe('0001-03-26');
      expect(await postedDates('Year one')).toEqual(expected);
      await postDueOccurrences(database.db);
      expect(await postedDates('Year one')).toEqual(expected);
      expect((await expectStatus('GET', `/schedules/${made.id}`, 200)).next_on).toBeNull();
    });

    it('a schedule dated 9999-12-31: posting and skipping that occurrence answer, next_on becomes null, /health answers within a second after (issue 36 item 1)', async () => {
      const posted = await expectStatus('POST', '/schedules', 201, schedule({ description: 'Last day posted', start_on: '9999-12-31' }));
      const transaction = await expectStatus('POST', `/schedules/${posted.id}/occurrences/9999-12-31/post`, 201);
      expect(transaction).toMatchObject({ occurred_on: '9999-12-31', description: 'Last day posted' });
      await healthy();
      expect((await expectStatus('GET', `/schedules/${posted.id}`, 200)).next_on).toBeNull();

      const skipped = await expectStatus('POST', '/schedules', 201, schedule({ description: 'Last day skipped', start_on: '9999-12-31', every: 'month' }));
      await expectStatus('POST', `/schedules/${skipped.id}/occurrences/9999-12-31/skip`, 204);
      await healthy();
      expect((await expectStatus('GET', `/schedules/${skipped.id}`, 200)).next_on).toBeNull();
      await expectStatus('POST', `/schedules/${skipped.id}/occurrences/9999-12-31/post`, 409);

      // A post schedule on the last day, posted ahead by hand, then replaced (its next_on is null).
      const ahead = await expectStatus('POST', '/schedules', 201, schedule({ description: 'Last day ahead', start_on: '9999-12-24', mode: 'post', every: 'year' }));
      await expectStatus('POST', `/schedules/${ahead.id}/occurrences/9999-12-24/post`, 201);
      expect((await expectStatus('PUT', `/schedules/${ahead.id}`, 200, schedule({ description: 'Last day ahead', start_on: '9999-12-31', mode: 'post' }))).next_on).toBe('9999-12-31');
      await expectStatus('POST', `/schedules/${ahead.id}/occurrences/9999-12-31/skip`, 204);
      await healthy();
    });

    it('MCP post_due on a 9999-12-31 occurrence answers with the transaction; /health answers within a second after', async () => {
      const made = await expectStatus('POST', '/schedules', 201, schedule({ description: 'Last day by MCP', start_on: '9999-12-31', every: 'year' }));
      const result = await tool('post_due', { schedule_id: made.id, occurs_on: '9999-12-31' });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ occurred_on: '9999-12-31', description: 'Last day by MCP' });
      await healthy();
      expect((await expectStatus('GET', `/schedules/${made.id}`, 200)).next_on).toBeNull();
    });

    it('GET /schedules/due?through= at most 3 years after today: 9999-12-31 and the day after the limit → 400 {error}; the limit itself → 200 (HTTP and MCP list_due)', async () => {
      await expectStatus('POST', '/schedules', 201, schedule({ description: 'Weekly reminder', start_on: TODAY }));
      const latest = yearsFromToday(3);
      for (const through of ['9999-12-31', yearsFromToday(3, 1)]) {
        const refused = await api('GET', `/schedules/due?through=${through}`);
        expect(refused, through).toEqual({ status: 400, body: { error: `through must be at most 3 years after today (${latest})` } });
        const byTool = await tool('list_due', { through });
        expect(byTool.isError).toBe(true);
        expect((byTool.content[0] as { text: string }).text).toBe(`through must be at most 3 years after today (${latest})`);
      }
      await healthy();
      const due = await expectStatus('GET', `/schedules/due?through=${latest}`, 200);
      expect(due.filter((d: Json) => d.description === 'Weekly reminder').at(-1).occurs_on <= latest).toBe(true);
      expect((await tool('list_due', { through: latest })).structuredContent!.due).toEqual(due);
    });

    it('a post schedule that would post more than 1,000 occurrences at once → 400 {error} saying how many, nothing made; 1,000 exactly is accepted', async () => {
      const before = (await expectStatus('GET', '/schedules', 200)).length;
      const count = weeksThroughToday('0001-01-01');
      expect(count).toBeGreaterThan(105_000);
      const refused = await api('POST', '/schedules', schedule({ description: 'From year one', start_on: '0001-01-01', mode: 'post' }));
      expect(refused).toEqual({
        status: 400,
        body: { error: `this schedule would post ${count} occurrences at once (dated through today); a post schedule may post at most 1000 at once: start it later, end it with until_on, or make it remind` },
      });
      const justOver = await api('POST', '/schedules', schedule({ description: 'Just over', start_on: daysFrom(TODAY, -7 * 1000), mode: 'post' }));
      expect(justOver.status).toBe(400);
      expect(justOver.body.error).toMatch(/^this schedule would post 1001 occurrences at once/);
      expect((await expectStatus('GET', '/schedules', 200)).length).toBe(before);

      // Accepted, its 1,000 dates are posted before the answer (issue 37 item 4), in the job's batches.
      const started = performance.now();
      // 1,000 transactions written: some seconds on a loaded machine, so a longer wait than REQUEST_MS.
      const limitAnswer = await api('POST', '/schedules', schedule({ description: 'At the limit', start_on: daysFrom(TODAY, -7 * 999), mode: 'post' }), 60_000);
      expect(limitAnswer.status, JSON.stringify(limitAnswer.body)).toBe(201);
      const atTheLimit = limitAnswer.body;
      console.log(`[${backend}] a post schedule with 1,000 due dates saved and posted in ${Math.round(performance.now() - started)} ms`);
      expect(atTheLimit.next_on).toBe(daysFrom(TODAY, 7));
      expect(await postedDates('At the limit')).toHaveLength(1000);
      await expectStatus('DELETE', `/schedules/${atTheLimit.id}`, 204);
      await healthy();
    });

    it('PUT: turning a reminder from 0001-01-01 into a post schedule → 400 with how many, nothing changes; a post schedule moved back is accepted (a PUT never posts before next_on)', async () => {
      const reminder = await expectStatus('POST', '/schedules', 201, schedule({ description: 'Old reminder', start_on: '0001-01-01' }));
      const refused = await api('PUT', `/schedules/${reminder.id}`, schedule({ description: 'Old reminder', start_on: '0001-01-01', mode: 'post' }));
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatch(new RegExp(`^this schedule would post ${weeksThroughToday('0001-01-01')} occurrences at once`));
      expect(await expectStatus('GET', `/schedules/${reminder.id}`, 200)).toEqual(reminder);

      const upcoming = await expectStatus('POST', '/schedules', 201, schedule({ description: 'Moved back', start_on: daysFrom(TODAY, 7), mode: 'post' }));
      const moved = await expectStatus('PUT', `/schedules/${upcoming.id}`, 200, schedule({ description: 'Moved back', start_on: '0001-01-01', mode: 'post' }));
      expect(moved.next_on > TODAY).toBe(true);
      await healthy();
    });

    it('the due list gives at most the oldest 1,000 dates of one schedule (a reminder from 0001-01-01)', async () => {
      const made = await expectStatus('POST', '/schedules', 201, schedule({ description: 'Reminder from year one', start_on: '0001-01-01' }));
      const due = (await expectStatus('GET', '/schedules/due', 200)).filter((d: Json) => d.schedule_id === made.id).map((d: Json) => d.occurs_on);
      expect(due).toHaveLength(1000);
      expect(due[0]).toBe('0001-01-01');
      expect(due.at(-1)).toBe(daysFrom('0001-01-01', 7 * 999));
      await healthy();
    });
  });
}
