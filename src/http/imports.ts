import * as v from 'valibot';
import { importStatement, ImportPreviewRequestSchema, ImportRequestSchema, previewImport } from '../book/imports/booking';
import { createImportRule, deleteImportRule, listImportRules, NewImportRuleSchema } from '../book/imports/rules';
import { ImportLineError, ImportPreview, ImportResult, ImportRule, StatementDateFormat } from '../book/views';
import { responseSchema } from '../shapes';
import { badId, badJson, positiveId, refused } from './replies';
import { route } from './route';
import { authorOf } from './tiers';
import { pathId } from './validation';

/**
 * D16: the 400 of a statement: `errors` names each line at fault when the file itself could be
 * read; `candidates` the date formats to choose among when the dates fit several.
 */
const StatementRefusal = responseSchema('StatementRefusal', v.strictObject({
  error: v.string(),
  errors: v.optional(v.array(ImportLineError)),
  candidates: v.optional(v.pipe(v.array(StatementDateFormat), v.description('csv.date_format auto: the formats that read every date, differently; send one as csv.date_format'))),
}));
const badStatement = (what: string) => ({
  description: `${what}; also malformed JSON. \`errors\` lists the lines at fault ({line, error}) when the file could be read; \`candidates\` the date formats that read the dates differently ("the dates fit several formats: choose one").`,
  json: StatementRefusal,
});
const BAD_REQUEST = 'A bad field, an unknown account, csv options missing for a CSV file, or a file that cannot be read (the message names the line or element)';

/** D16: bank statements in (full tier). */
export const importRoutes = [
  route(
    {
      method: 'post', path: '/imports/preview', tier: 'full', summary: 'How a bank statement would be booked (D16)', json: ImportPreviewRequestSchema,
      responses: {
        200: {
          description: "Every line with its counter account, rule, duplicate and match typed by hand; the lines at fault in `errors`; the statement's balances beside the book's. Nothing is written.",
          json: ImportPreview,
        },
        400: badStatement(BAD_REQUEST),
      },
    },
    {},
    async (c, { json }) => c.json(await previewImport(c.var.db, json)),
  ),
  route(
    {
      method: 'post', path: '/imports', tier: 'full', summary: 'Books a bank statement (D16)', json: ImportRequestSchema,
      responses: {
        201: { description: 'The new transactions, in line order, the lines left out as duplicates and, when `matches` was sent, the transactions linked.', json: ImportResult },
        400: badStatement(`${BAD_REQUEST}, any line at fault (one dated in a closed period, D20) or a pair of \`matches\` that is no match_of of the preview: nothing is written`),
      },
    },
    { idempotent: true },
    async (c, { json }) => c.json(await importStatement(c.var.db, json, authorOf(c)), 201),
  ),
];

export const importRuleRoutes = [
  route(
    {
      method: 'get', path: '/import-rules', tier: 'full', summary: 'Import rules, lowest id (the one that wins) first (D16)',
      responses: { 200: { description: 'Every rule.', json: v.array(ImportRule) } },
    },
    {},
    async (c) => c.json(await listImportRules(c.var.db)),
  ),
  route(
    {
      method: 'post', path: '/import-rules', tier: 'full', summary: 'Adds an import rule (D16)', json: NewImportRuleSchema,
      responses: {
        201: { description: 'Created.', json: ImportRule },
        400: badJson('A blank or too long pattern, or no such account'),
      },
    },
    {},
    async (c, { json }) => c.json(await createImportRule(c.var.db, json), 201),
  ),
  route(
    {
      method: 'delete', path: '/import-rules/{id}', tier: 'full', summary: 'Deletes an import rule (D16)', params: { id: positiveId },
      responses: { 204: { description: 'Deleted.' }, 400: badId, 404: refused('`{"error": "no such import rule"}`.') },
    },
    {},
    async (c) => {
      await deleteImportRule(c.var.db, pathId(c.req.param('id')!, 'import rule'));
      return c.body(null, 204);
    },
  ),
];
