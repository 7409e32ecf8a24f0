import * as v from 'valibot';
import { stringify } from 'csv-stringify/sync';
import { createDirectDebit, deleteDirectDebit, DirectDebitDraftQuerySchema, draftDirectDebit, getDirectDebit, listDirectDebits, NewDirectDebitSchema, preNotifications } from '../book/direct-debits';
import { decimal } from '../book/exports';
import { guardFormula } from '../book/exports-csv';
import { pain008File, Pain008QuerySchema } from '../book/pain008';
import { DirectDebit, DirectDebitDraft, PreNotification } from '../book/views';
import { badId, badJson, badQuery, positiveId, refused } from './replies';
import { route } from './route';
import { authorOf } from './tiers';
import { pathId } from './validation';

const directDebitId = (raw: string | undefined) => pathId(raw!, 'direct debit');
const noSuchDirectDebit = refused('`{"error": "no such direct debit"}`.');
const RULES =
  'Every person (or those listed in `people`) whose balance is above zero, with an IBAN and a mandate signed on or before ' +
  '`collect_on`, is collected for that balance: one transaction per person dated `collect_on` moves it from their account to ' +
  '"Direct debits in transit" (an asset account, made when missing), all in one database transaction, so the same dues are ' +
  'never collected twice. People owing nothing are left out; those without IBAN or mandate are `skipped` with the reason.';

/** D27: collections by SEPA direct debit, and the bank file of each (full tier). */
export const directDebitRoutes = [
  route(
    {
      method: 'post', path: '/direct-debits', tier: 'full', summary: 'Collects what people owe by SEPA direct debit (D27)', json: NewDirectDebitSchema, description: RULES,
      responses: {
        201: { description: 'Collected.', json: DirectDebit },
        400: badJson('`collect_on` not a date or before today, or `people` naming no person'),
        409: refused('No creditor details in Settings (`sepa`), a book whose currency is not EUR, nobody to collect, or the collection date in a closed period (D20).'),
      },
    },
    {},
    async (c, { json }) => c.json(await createDirectDebit(c.var.db, json, authorOf(c)), 201),
  ),
  route(
    {
      method: 'get', path: '/direct-debits', tier: 'full', summary: 'Every collection by direct debit (D27)',
      responses: { 200: { description: 'Newest first.', json: v.array(DirectDebit) } },
    },
    {},
    async (c) => c.json(await listDirectDebits(c.var.db)),
  ),
  route(
    {
      method: 'get', path: '/direct-debits/draft', tier: 'full', summary: 'What a collection on a date would take, nothing written (D27)', query: DirectDebitDraftQuerySchema,
      responses: { 200: { description: 'The people to collect (by name) and the amounts, and who is skipped and why.', json: DirectDebitDraft }, 400: badQuery },
    },
    {},
    async (c, { query }) => c.json(await draftDirectDebit(c.var.db, query.collect_on)),
  ),
  route(
    {
      method: 'get', path: '/direct-debits/{id}/pre-notifications', tier: 'full', summary: 'What each person collected is told before the debit (D27)', params: { id: positiveId },
      responses: { 200: { description: 'One per person collected, by name.', json: v.array(PreNotification) }, 400: badId, 404: noSuchDirectDebit },
    },
    {},
    async (c) => c.json(await preNotifications(c.var.db, directDebitId(c.req.param('id')))),
  ),
  route(
    {
      method: 'get', path: '/direct-debits/{id}/pre-notifications.csv', tier: 'full', summary: 'The pre-notifications as CSV, for a mail merge (D27)', params: { id: positiveId },
      responses: {
        200: { description: 'RFC 4180, header `name,email,amount,collect_on,mandate_id,creditor_name,creditor_id,remittance`; a text cell a spreadsheet would read as a formula is prefixed with `\'`.', text: 'CSV', media: 'text/csv' },
        400: badId,
        404: noSuchDirectDebit,
      },
    },
    {},
    async (c) => {
      const id = directDebitId(c.req.param('id'));
      const rows = (await preNotifications(c.var.db, id)).map((n) => [
        guardFormula(n.name), guardFormula(n.email ?? ''), decimal(BigInt(n.amount_cents)), n.collect_on, guardFormula(n.mandate_id ?? ''),
        guardFormula(n.creditor_name ?? ''), n.creditor_id ?? '', guardFormula(n.remittance),
      ]);
      const csv = stringify([['name', 'email', 'amount', 'collect_on', 'mandate_id', 'creditor_name', 'creditor_id', 'remittance'], ...rows], { record_delimiter: 'windows', quoted_match: /[\r\n]/ });
      return c.body(csv, 200, { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="pre-notifications-${id}.csv"` });
    },
  ),
  route(
    {
      method: 'get', path: '/direct-debits/{id}', tier: 'full', summary: 'One collection by direct debit (D27)', params: { id: positiveId },
      responses: { 200: { description: 'The collection.', json: DirectDebit }, 400: badId, 404: noSuchDirectDebit },
    },
    {},
    async (c) => c.json(await getDirectDebit(c.var.db, directDebitId(c.req.param('id')))),
  ),
  route(
    {
      method: 'get', path: '/direct-debits/{id}/pain.008.xml', tier: 'full', summary: 'The bank file of a collection, ISO 20022 pain.008 (D27)', params: { id: positiveId }, query: Pain008QuerySchema,
      description:
        'pain.008.001.08 (`?version=001.02` for a bank that still asks for the older message): one PmtInf (DD, SEPA, CORE, RCUR, ' +
        'the collection date, the creditor and its identifier), one DrctDbtTxInf per person collected; only the EPC\'s Latin ' +
        'characters; every id at most 35 characters; no BIC inside the EEA.',
      responses: {
        200: { description: 'The file, to upload to the bank.', text: 'ISO 20022 XML', media: 'application/xml', headers: { 'Content-Disposition': 'attachment; filename="<message id>.xml"' } },
        400: badQuery,
        404: noSuchDirectDebit,
        409: refused('The creditor details were removed from Settings, the book\'s currency is not EUR, or a person\'s IBAN and mandate were forgotten since.'),
      },
    },
    {},
    async (c, { query }) => {
      const id = directDebitId(c.req.param('id'));
      const xml = await pain008File(c.var.db, id, query.version);
      const { message_id } = await getDirectDebit(c.var.db, id);
      return c.body(xml, 200, { 'Content-Type': 'application/xml; charset=utf-8', 'Content-Disposition': `attachment; filename="${message_id}.xml"` });
    },
  ),
  route(
    {
      method: 'delete', path: '/direct-debits/{id}', tier: 'full', summary: 'Deletes a collection: the people owe again (D27)', params: { id: positiveId },
      responses: {
        204: { description: 'Deleted, with its transactions.' },
        400: badId,
        404: noSuchDirectDebit,
        409: refused('A transaction of the collection is reconciled or in a closed period (D20); nothing is deleted.'),
      },
    },
    {},
    async (c) => {
      await deleteDirectDebit(c.var.db, directDebitId(c.req.param('id')), authorOf(c));
      return c.body(null, 204);
    },
  ),
];
