import * as v from 'valibot';
import { whoOwes, WhoOwesQuerySchema } from '../book/people-report';
import {
  BatchRefusal,
  createPeople,
  createPerson,
  deletePerson,
  forgetPerson,
  getPerson,
  listPeople,
  NewPersonSchema,
  PeopleBatchSchema,
  PeopleQuerySchema,
  replacePerson,
} from '../book/people';
import { personStatement, StatementQuerySchema } from '../book/statement';
import { PeopleCreated, Person, PersonStatement, WhoOwes } from '../book/views';
import { responseSchema } from '../shapes';
import { badId, badJson, badQuery, positiveId, refused } from './replies';
import { route } from './route';
import { authorOf } from './tiers';
import { pathId } from './validation';

const personId = (raw: string | undefined) => pathId(raw!, 'person');
const noSuchPerson = refused('`{"error": "no such person"}`.');
const RULES =
  '`name` as an account\'s (1–100 characters, no account of that name: the person\'s own asset account is named as the person); ' +
  '`email` an email address; `iban` checked (country length and ISO 13616 mod-97), stored without spaces in capitals; ' +
  '`member_no` 1–35 characters, unique; `mandate` `{id, signed_on}`, `id` 1–35 of `A–Z a–z 0–9 + ? / - : ( ) . , \'`; ' +
  '`left_on` ≥ `joined_on`; `dues_plan_id` an existing dues plan. Blank text is none. A 400 names the field.';

/** D27: a batch refused, every bad row by its 0-based index. */
const BatchErrors = responseSchema('PeopleBatchErrors', v.strictObject({
  error: v.string(),
  errors: v.pipe(v.array(v.strictObject({ index: v.pipe(v.number(), v.integer()), error: v.string() })), v.description('every bad row, 0-based, in order')),
}));

/** D27: people (full tier). */
export const peopleRoutes = [
  route(
    {
      method: 'get', path: '/people', tier: 'full', summary: 'People (members in a club), by name (D27)', query: PeopleQuerySchema,
      responses: { 200: { description: 'By name.', json: v.array(Person) }, 400: badQuery },
    },
    {},
    async (c, { query }) => c.json(await listPeople(c.var.db, query)),
  ),
  route(
    {
      method: 'post', path: '/people', tier: 'full', summary: 'Adds a person and their own account (D27)', json: NewPersonSchema, description: RULES,
      responses: { 201: { description: 'Added, with the account.', json: Person }, 400: badJson('A bad field (the message names it): nothing is written') },
    },
    {},
    async (c, { json }) => c.json(await createPerson(c.var.db, json, authorOf(c)), 201),
  ),
  route(
    {
      method: 'post', path: '/people/batch', tier: 'full', summary: 'Adds a member list, all or nothing (D27)', json: PeopleBatchSchema,
      description: `Each of \`people\` as POST /people's body. ${RULES} Two rows with one name (ignoring case) or one member number are refused too.`,
      responses: {
        201: { description: 'Every person added.', json: PeopleCreated },
        400: { description: 'Nothing is written: `errors` names every bad row by its 0-based `index` (or, without `errors`, the body is malformed).', json: BatchErrors },
      },
    },
    {},
    async (c, { json }) => {
      try {
        return c.json({ created: await createPeople(c.var.db, json.people, authorOf(c)) }, 201);
      } catch (error) {
        if (error instanceof BatchRefusal) return c.json({ error: error.message, errors: error.rows }, 400);
        throw error;
      }
    },
  ),
  route(
    {
      method: 'get', path: '/people/{id}', tier: 'full', summary: 'One person (D27)', params: { id: positiveId },
      responses: { 200: { description: 'The person.', json: Person }, 400: badId, 404: noSuchPerson },
    },
    {},
    async (c) => c.json(await getPerson(c.var.db, personId(c.req.param('id')))),
  ),
  route(
    {
      method: 'put', path: '/people/{id}', tier: 'full', summary: 'Replaces a person (D27)', params: { id: positiveId }, json: NewPersonSchema,
      description: `${RULES} An absent optional field becomes null. A new name renames the person's account.`,
      responses: { 200: { description: 'Replaced.', json: Person }, 400: badJson('A bad id, or what POST /people refuses'), 404: noSuchPerson },
    },
    {},
    async (c, { json }) => c.json(await replacePerson(c.var.db, personId(c.req.param('id')), json, authorOf(c))),
  ),
  route(
    {
      method: 'delete', path: '/people/{id}', tier: 'full', summary: 'Deletes a person and their account (D27)', params: { id: positiveId },
      responses: { 204: { description: 'Deleted, with the account.' }, 400: badId, 404: noSuchPerson, 409: refused('`{"error": "the account has entries"}`.') },
    },
    {},
    async (c) => {
      await deletePerson(c.var.db, personId(c.req.param('id')), authorOf(c));
      return c.body(null, 204);
    },
  ),
  route(
    {
      method: 'post', path: '/people/{id}/forget', tier: 'full', summary: "Clears a person's personal data (D27)", params: { id: positiveId },
      description: 'Email, IBAN, mandate and note become null; the name stays (the books keep who paid). One change record.',
      responses: { 200: { description: 'Forgotten.', json: Person }, 400: badId, 404: noSuchPerson },
    },
    {},
    async (c) => c.json(await forgetPerson(c.var.db, personId(c.req.param('id')), authorOf(c))),
  ),
  route(
    {
      method: 'get', path: '/people/{id}/statement', tier: 'full', summary: "A person's statement of account (D27)", params: { id: positiveId }, query: StatementQuerySchema,
      description: 'Natural sign: a charge positive, a payment negative; oldest first. `from`/`to` default to the first and last transaction dates (D7).',
      responses: { 200: { description: 'The statement.', json: PersonStatement }, 400: refused('A malformed date or person id.'), 404: noSuchPerson },
    },
    {},
    async (c, { query }) => c.json(await personStatement(c.var.db, personId(c.req.param('id')), query)),
  ),
];

/** D27: who owes (under /reports). */
export const peopleReportRoute = route(
  {
    method: 'get', path: '/reports/people', tier: 'full', summary: 'Who owes, and since when (D27)', query: WhoOwesQuerySchema,
    description:
      'Every person whose balance as of `as_of` (default today, UTC) is not zero, by name. Payments settle the oldest charges first: ' +
      '`overdue_since` is the date of the oldest charge not settled by `as_of`.',
    responses: { 200: { description: 'The report.', json: WhoOwes }, 400: badQuery },
  },
  {},
  async (c, { query }) => c.json(await whoOwes(c.var.db, query)),
);
