import { eq } from 'drizzle-orm';
import * as v from 'valibot';
import type { Db } from '../db/database';
import { bookStyle, settings } from '../db/schema';
import { requestSchema } from '../shapes';
import type { Settings } from './views';

/** Update body `SettingsPatch`; any other book_style is a 422 (spec error rule 6). */
export const SettingsPatchSchema = requestSchema('SettingsPatch', v.object(
  {
    book_style: v.picklist(bookStyle.enumValues, 'book_style must be "club" or "personal"'),
  },
  'book_style must be "club" or "personal"',
));
export type SettingsPatch = v.InferOutput<typeof SettingsPatchSchema>;

// The single row (id 1) is seeded by migration 0001 and pinned by a check constraint.
const SETTINGS_ID = 1;

export async function getSettings(db: Db): Promise<v.InferOutput<typeof Settings>> {
  const [row] = await db
    .select({ book_style: settings.bookStyle })
    .from(settings)
    .where(eq(settings.id, SETTINGS_ID));
  return row!;
}

export async function updateSettings(db: Db, patch: SettingsPatch): Promise<v.InferOutput<typeof Settings>> {
  const [row] = await db
    .update(settings)
    .set({ bookStyle: patch.book_style })
    .where(eq(settings.id, SETTINGS_ID))
    .returning({ book_style: settings.bookStyle });
  return row!;
}
