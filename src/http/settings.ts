import { Hono } from 'hono';
import { getSettings, SettingsPatchSchema, updateSettings } from '../book/settings';
import type { AppEnv } from './context';
import { requireFull } from './tiers';
import { jsonBody } from './validation';

/** Spec: Ledger routes, /settings (full tier). A bad book_style is a plain-text 422 (error rule 6). */
export const settingsRoutes = new Hono<AppEnv>()
  .use(requireFull)
  .get('/', async (c) => c.json(await getSettings(c.var.db)))
  .put(
    '/',
    jsonBody(SettingsPatchSchema, (message, c) => c.text(message, 422)),
    async (c) => c.json(await updateSettings(c.var.db, c.req.valid('json'))),
  );
