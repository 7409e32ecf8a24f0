import { eq, sql } from 'drizzle-orm';
import * as v from 'valibot';
import type { Db } from '../db/database';
import { CLOSED_THROUGH_LOCK } from '../db/locks';
import { bookStyle, settings } from '../db/schema';
import { requestSchema } from '../shapes';
import { dateString } from '../text';
import { recordChange, type Actor } from './changes';
import { SepaCreditorSchema } from './sepa';
import type { Settings } from './views';

type SettingsView = v.InferOutput<typeof Settings>;

/**
 * D20: the ISO 4217 codes whose minor unit is two decimals, as the runtime's ICU data knows them
 * (EUR, USD, CHF…; not JPY with none or BHD with three): every figure is kept in cents.
 */
export const CURRENCIES: readonly string[] = Intl.supportedValuesOf('currency').filter(
  (code) => new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits === 2,
);

/**
 * Update body `SettingsPatch`: any non-empty subset of book_style, currency, closed_through and
 * sepa (D20, D27: a patch; what is absent stays; `"sepa": null` removes the creditor). Any other
 * value, or nothing to change, is a 422 (spec error rule 6, as for book_style).
 */
export const SettingsPatchSchema = requestSchema('SettingsPatch', v.pipe(
  v.object(
    {
      book_style: v.optional(v.picklist(bookStyle.enumValues, 'book_style must be "club" or "personal"')),
      currency: v.optional(v.picklist(CURRENCIES, 'currency must be an ISO 4217 code with two decimals, like EUR, USD or CHF')),
      closed_through: v.optional(v.nullable(dateString('closed_through'))),
      sepa: v.optional(v.nullable(SepaCreditorSchema)),
    },
    'give book_style, currency, closed_through or sepa',
  ),
  v.check(
    (patch) => patch.book_style !== undefined || patch.currency !== undefined || patch.closed_through !== undefined || patch.sepa !== undefined,
    'give book_style, currency, closed_through or sepa',
  ),
));
export type SettingsPatch = v.InferOutput<typeof SettingsPatchSchema>;

// The single row (id 1) is seeded by migration 0001 and pinned by a check constraint.
const SETTINGS_ID = 1;

const columns = { book_style: settings.bookStyle, currency: settings.currency, closed_through: settings.closedThrough, sepa: settings.sepa };

/** D27: `sepa` is absent from Settings until set (opt-in: a book without it answers as before). */
function settingsView({ sepa, ...rest }: { sepa: SettingsView['sepa'] | null } & Omit<SettingsView, 'sepa'>): SettingsView {
  return sepa ? { ...rest, sepa } : rest;
}

export async function getSettings(db: Db): Promise<SettingsView> {
  const [row] = await db.select(columns).from(settings).where(eq(settings.id, SETTINGS_ID));
  return settingsView(row!);
}

/** A settings change, with its change record (D15), in one database transaction. */
export async function updateSettings(db: Db, patch: SettingsPatch, actor: Actor): Promise<SettingsView> {
  return db.transaction(async (tx) => {
    if (patch.closed_through !== undefined) await tx.execute(sql`select pg_advisory_xact_lock(${CLOSED_THROUGH_LOCK})`);
    const [before] = await tx.select(columns).from(settings).where(eq(settings.id, SETTINGS_ID)).for('update');
    const [after] = await tx
      .update(settings)
      .set({ bookStyle: patch.book_style, currency: patch.currency, closedThrough: patch.closed_through, sepa: patch.sepa })
      .where(eq(settings.id, SETTINGS_ID))
      .returning(columns);
    await recordChange(tx, actor, { subject: 'settings', subjectId: null, action: 'update', before: settingsView(before!), after: settingsView(after!) });
    return settingsView(after!);
  });
}
