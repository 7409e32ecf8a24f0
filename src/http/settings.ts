import { getSettings, SettingsPatchSchema, updateSettings } from '../book/settings';
import { Settings } from '../book/views';
import { refused } from './replies';
import { route } from './route';
import { authorOf } from './tiers';

/** Spec: Ledger routes, /settings (full tier). A bad book_style is a plain-text 422 (error rule 6). */
export const settingsRoutes = [
  route(
    {
      method: 'get', path: '/settings', tier: 'full', summary: 'The settings',
      responses: { 200: { description: 'The one settings record.', json: Settings } },
    },
    {},
    async (c) => c.json(await getSettings(c.var.db)),
  ),
  route(
    {
      method: 'put', path: '/settings', tier: 'full', summary: 'Changes the book style, the currency or the closed period (a patch, D20)', json: SettingsPatchSchema,
      responses: {
        200: { description: 'Updated.', json: Settings },
        400: refused('Malformed JSON.'),
        422: { description: 'book_style other than club or personal (error rule 6); a currency that is not an ISO 4217 code with two decimals, closed_through neither a date nor null, or none of the three (D20).', text: 'a plain sentence' },
      },
    },
    { rejectJson: (message, c) => c.text(message, 422) },
    async (c, { json }) => c.json(await updateSettings(c.var.db, json, authorOf(c))),
  ),
];
