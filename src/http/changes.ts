import { ChangesQuerySchema, listChanges } from '../book/changes';
import { ChangePage } from '../book/views';
import { badQuery } from './replies';
import { route } from './route';

/** D15: the change log, read-only (no route changes or deletes a record). */
export const changeRoutes = [
  route(
    {
      method: 'get', path: '/changes', tier: 'full', summary: 'The change log, newest first (D15)', query: ChangesQuerySchema,
      description: '`subject` and `subject_id` narrow it to one kind of thing or one of them; `from` and `to` (dates YYYY-MM-DD, inclusive) to the records whose `at` falls on those days in UTC; `limit` 1–500 (default 50); `before` an id (exclusive) from `next_before`.',
      responses: { 200: { description: 'A page of change records.', json: ChangePage }, 400: badQuery },
    },
    {},
    async (c, { query }) => c.json(await listChanges(c.var.db, query)),
  ),
];
