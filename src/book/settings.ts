import { eq } from 'drizzle-orm';
import * as v from 'valibot';
import type { Db } from '../db/database';
import { bookStyle, settings } from '../db/schema';
import { requestSchema } from '../shapes';
import { recordChange, type Actor } from './changes';
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

/** A settings change, with its change record (D15), in one database transaction. */
export async function updateSettings(db: Db, patch: SettingsPatch, actor: Actor): Promise<v.InferOutput<typeof Settings>> {
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ book_style: settings.bookStyle })
      .from(settings)
      .where(eq(settings.id, SETTINGS_ID))
      .for('update');
    const [after] = await tx
      .update(settings)
      .set({ bookStyle: patch.book_style })
      .where(eq(settings.id, SETTINGS_ID))
      .returning({ book_style: settings.bookStyle });
    await recordChange(tx, actor, { subject: 'settings', subjectId: null, action: 'update', before, after });
    return after!;
  });
}
