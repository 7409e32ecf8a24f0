import { and, gt, gte, lte, sql } from 'drizzle-orm';
import * as v from 'valibot';
import type { Db } from '../db/database';
import { entries, scheduleOccurrences, schedules } from '../db/schema';
import { invalid } from '../errors';
import { dateString, todayUtc } from '../text';
import { occurrencesBetween, yearsAfter } from './occurrences';
import { balancesReport, exactCents } from './reports';
import { recurrenceOf } from './schedule-dates';
import type { Forecast } from './views';

// D21: GET /reports/forecast — where the bank, cash and card accounts are heading: today's balance
// of every asset and liability account, then the balance after each future date on which a
// schedule's occurrence not yet posted or skipped touches it (both modes: a reminder is money
// expected too), or a transaction already recorded with that later date, natural sign (D6).

export const FORECAST_MAX_YEARS = 3;
export const ForecastQuerySchema = v.object({ to: v.optional(dateString('to')) });

export async function forecastReport(db: Db, query: v.InferOutput<typeof ForecastQuerySchema>, today = todayUtc()): Promise<v.InferOutput<typeof Forecast>> {
  const latest = yearsAfter(today, FORECAST_MAX_YEARS);
  const to = query.to ?? yearsAfter(today, 1);
  if (to < today) throw invalid('to must not be before today');
  if (to > latest) throw invalid(`to must be at most ${FORECAST_MAX_YEARS} years ahead (${latest})`);

  const { accounts } = await balancesReport(db, { as_of: today });
  const tracked = accounts.filter((a) => a.kind === 'asset' || a.kind === 'liability');
  const sign = new Map(tracked.map((a) => [a.id, a.kind === 'liability' ? -1n : 1n]));
  // Per account, per date: the sum of the entries of that date (occurrences and later transactions), natural sign.
  const moves = new Map<number, Map<string, bigint>>();
  const move = (accountId: number, on: string, cents: bigint) => {
    const factor = sign.get(accountId);
    if (factor === undefined) return;
    const byDate = moves.get(accountId) ?? new Map<string, bigint>();
    byDate.set(on, (byDate.get(on) ?? 0n) + cents * factor);
    moves.set(accountId, byDate);
  };
  const handled = new Set(
    (await db.select({ id: scheduleOccurrences.scheduleId, on: scheduleOccurrences.occursOn }).from(scheduleOccurrences).where(gte(scheduleOccurrences.occursOn, today))).map((h) => `${h.id} ${h.on}`),
  );
  // Transactions already recorded with a later date (a bill posted ahead of its day) are money
  // expected too: their entries move the line on their own dates, as occurrences do.
  const later = await db
    .select({ accountId: entries.accountId, on: entries.occurredOn, cents: sql<string>`sum(${entries.amountCents})::text` })
    .from(entries)
    .where(and(gt(entries.occurredOn, today), lte(entries.occurredOn, to)))
    .groupBy(entries.accountId, entries.occurredOn);
  for (const l of later) move(l.accountId, l.on, BigInt(l.cents));
  for (const row of await db.select().from(schedules)) {
    if (row.nextOn === null) continue;
    const from = row.nextOn > today ? row.nextOn : today;
    for (const on of occurrencesBetween(recurrenceOf(row), from, to)) {
      if (handled.has(`${row.id} ${on}`)) continue;
      for (const line of row.entries) move(line.account_id, on, BigInt(line.amount_cents));
    }
  }
  return {
    from: today,
    to,
    accounts: tracked.map((a) => {
      let balance = BigInt(a.balance_cents);
      const dates = [...(moves.get(a.id) ?? new Map<string, bigint>()).entries()].sort(([x], [y]) => (x < y ? -1 : 1));
      return {
        id: a.id,
        name: a.name,
        kind: a.kind as 'asset' | 'liability',
        balance_cents: a.balance_cents,
        points: dates.map(([on, change]) => ({ on, balance_cents: exactCents((balance += change)) })),
      };
    }),
  };
}
