import * as v from 'valibot';
import { createScheduleAndPostDue, replaceScheduleAndPostDue } from '../book/schedule-posting';
import {
  deleteSchedule,
  getSchedule,
  listDue,
  listSchedules,
  NewScheduleSchema,
  OccurrenceChangesSchema,
  postOccurrence,
  skipOccurrence,
  type OccurrenceChanges,
} from '../book/schedules';
import { DueOccurrence, Schedule, Transaction } from '../book/views';
import { invalid, Refusal } from '../errors';
import { dateString, describeIssues, isCalendarDate, todayUtc } from '../text';
import type { Context } from 'hono';
import type { AppEnv } from './context';
import { badId, badJson, positiveId, refused } from './replies';
import { route } from './route';
import { authorOf } from './tiers';
import { pathId } from './validation';

const scheduleId = (raw: string | undefined) => pathId(raw!, 'schedule');
const noSuchSchedule = refused('`{"error": "no such schedule"}`.');
const occurrenceDate = v.pipe(v.string(), v.isoDate(), v.description('an occurrence of the schedule, YYYY-MM-DD'));

function dateParam(raw: string | undefined): string {
  if (raw === undefined || !isCalendarDate(raw)) throw invalid('the date must be a calendar date YYYY-MM-DD');
  return raw;
}

/**
 * D21: the body of posting an occurrence is optional (what differs this time): none, or a JSON
 * object checked like POST /transactions.
 */
async function occurrenceChanges(c: Context<AppEnv>): Promise<OccurrenceChanges> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  const mediaType = (c.req.header('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') throw new Refusal('unsupported_media_type', 'the request body must be JSON (Content-Type: application/json)');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalid('the request body is not valid JSON');
  }
  const parsed = v.safeParse(OccurrenceChangesSchema, json);
  if (!parsed.success) throw invalid(describeIssues(parsed.issues));
  return parsed.output;
}

const DueQuerySchema = v.object({ through: v.optional(dateString('through')) });

/** D21: schedules and their occurrences (full tier). */
export const scheduleRoutes = [
  route(
    {
      method: 'get', path: '/schedules', tier: 'full', summary: 'Every schedule of the book (D21)',
      responses: { 200: { description: 'By next_on (none left last), then id.', json: v.array(Schedule) } },
    },
    {},
    async (c) => c.json(await listSchedules(c.var.db)),
  ),
  route(
    {
      method: 'post', path: '/schedules', tier: 'full', summary: 'Makes something come back (D21)', json: NewScheduleSchema,
      description:
        'Occurrences: start_on, then every `interval` weeks, months or years; a month or year keeps start_on\'s day, clamped ' +
        'to the month\'s last day; none after until_on. `post` schedules post themselves: what is due (dated through today) ' +
        'at once when saved, so the answer\'s next_on is after it (a blocked date stays due), then at start and every 10 minutes, ' +
        'catching up every missed occurrence; `remind` ones wait on the due list. Dates run from 0001-01-01 to 9999-12-31; ' +
        'a `post` schedule that would post more than 1,000 occurrences at once (dated through today) is refused.',
      responses: {
        201: { description: 'Made, and what was due posted: next_on is the first date not posted (a blocked one, or the next ahead).', json: Schedule },
        400: badJson('A bad field, until_on before start_on, entries POST /transactions would refuse, or more than 1,000 occurrences to post at once (the message says how many)'),
      },
    },
    { idempotent: true },
    async (c, { json }) => c.json(await createScheduleAndPostDue(c.var.db, json, authorOf(c)), 201),
  ),
  route(
    {
      method: 'get', path: '/schedules/due', tier: 'full', summary: 'Occurrences waiting for a decision (D21)', query: DueQuerySchema,
      description:
        '`through` defaults to today (UTC), at most 3 years after today: `remind` occurrences not yet posted or skipped, and `post` ones ' +
        'up to today that are blocked; at most the oldest 1,000 of each schedule.',
      responses: { 200: { description: 'Oldest first.', json: v.array(DueOccurrence) }, 400: refused('A query parameter is malformed or repeated (not a calendar date YYYY-MM-DD), or `through` is more than 3 years after today.') },
    },
    {},
    async (c, { query }) => c.json(await listDue(c.var.db, query.through ?? todayUtc())),
  ),
  route(
    {
      method: 'get', path: '/schedules/{id}', tier: 'full', summary: 'One schedule (D21)', params: { id: positiveId },
      responses: { 200: { description: 'The schedule.', json: Schedule }, 400: badId, 404: noSuchSchedule },
    },
    {},
    async (c) => c.json(await getSchedule(c.var.db, scheduleId(c.req.param('id')))),
  ),
  route(
    {
      method: 'put', path: '/schedules/{id}', tier: 'full', summary: 'Replaces a schedule (D21)', params: { id: positiveId }, json: NewScheduleSchema,
      description:
        'Occurrences dated before its next_on at this moment count as handled: a PUT never posts them; a `post` schedule posts the ' +
        'others that are due (dated through today) at once, as by POST. A `post` schedule left with more ' +
        'than 1,000 occurrences to post at once is refused, as by POST.',
      responses: { 200: { description: 'Replaced.', json: Schedule }, 400: badJson('A bad id, or what POST /schedules refuses'), 404: noSuchSchedule },
    },
    {},
    async (c, { json }) => c.json(await replaceScheduleAndPostDue(c.var.db, scheduleId(c.req.param('id')), json, authorOf(c))),
  ),
  route(
    {
      method: 'delete', path: '/schedules/{id}', tier: 'full', summary: 'Deletes a schedule; what it posted stays (D21)', params: { id: positiveId },
      responses: { 204: { description: 'Deleted.' }, 400: badId, 404: noSuchSchedule },
    },
    {},
    async (c) => {
      await deleteSchedule(c.var.db, scheduleId(c.req.param('id')), authorOf(c));
      return c.body(null, 204);
    },
  ),
  route(
    {
      method: 'post', path: '/schedules/{id}/occurrences/{date}/post', tier: 'full', summary: 'Posts one occurrence now (D21)',
      params: { id: positiveId, date: occurrenceDate }, json: OccurrenceChangesSchema,
      description: 'Any occurrence not yet posted or skipped, past or future. The body is optional: what differs this time (a bill that varies).',
      responses: {
        201: { description: 'Posted; the author is the caller.', json: Transaction },
        400: badJson('A bad id or date, or what POST /transactions refuses in the body'),
        404: refused('No such schedule, or the date is not one of its occurrences.'),
        409: refused('Already posted or skipped, or blocked (a closed period, a deleted account): the reason.'),
      },
    },
    { validatesItself: true },
    async (c) => {
      const id = scheduleId(c.req.param('id'));
      const date = dateParam(c.req.param('date'));
      return c.json(await postOccurrence(c.var.db, id, date, await occurrenceChanges(c), authorOf(c)), 201);
    },
  ),
  route(
    {
      method: 'post', path: '/schedules/{id}/occurrences/{date}/skip', tier: 'full', summary: 'Skips one occurrence (D21)',
      params: { id: positiveId, date: occurrenceDate },
      responses: {
        204: { description: 'Skipped: it is never posted. A change record says so (subject `schedule`, action `update`, `after.skipped_on` the date).' },
        400: badId,
        404: refused('No such schedule, or the date is not one of its occurrences.'),
        409: refused('Already posted or skipped.'),
      },
    },
    {},
    async (c) => {
      await skipOccurrence(c.var.db, scheduleId(c.req.param('id')), dateParam(c.req.param('date')), authorOf(c));
      return c.body(null, 204);
    },
  ),
];
