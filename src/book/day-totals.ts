import { sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../db/database';
import { DAY_TOTALS_COMPACTION_LOCK } from '../db/locks';
import { accountDayTotals, entries } from '../db/schema';

// D7, issue 31 item 5: account_day_totals holds, per account and day, rows whose sum is the sum of
// that day's entries (drizzle/0014's triggers add one row of deltas per statement). Nothing here is
// needed for the figures to be right: compaction only keeps the table near one row per account and
// day, so that the reports read as few rows as the book has account-days.

/**
 * The fold, in one statement: every (account, day) with more than one row loses the rows this
 * statement deletes and gains one row of their sum (none when sum and count are both zero: the day
 * has no entries left). Exact whatever runs beside it: rows are never updated, only inserted and
 * deleted, so the rows a DELETE returns are exactly the rows it removed (one removed meanwhile by
 * another compaction is skipped, not returned), and a delta inserted by a post after the
 * statement's snapshot is neither deleted nor counted. `exclusive` adds the advisory lock above.
 */
function foldStatement(exclusive: boolean) {
  const held = exclusive ? sql`(select pg_try_advisory_xact_lock(${DAY_TOTALS_COMPACTION_LOCK}))` : sql`true`;
  return sql`
    with gone as (
      delete from ${accountDayTotals}
      where ${held}
        and (account_id, occurred_on) in (
          select account_id, occurred_on from ${accountDayTotals}
          group by account_id, occurred_on having count(*) > 1)
      returning account_id, occurred_on, total_cents, entry_count
    ), kept as (
      insert into ${accountDayTotals} (account_id, occurred_on, total_cents, entry_count)
      select account_id, occurred_on, sum(total_cents), sum(entry_count)
      from gone
      group by account_id, occurred_on
      having sum(total_cents) <> 0 or sum(entry_count) <> 0
      returning 1
    )
    select (select count(*) from gone)::integer as removed, (select count(*) from kept)::integer as written`;
}

export interface Compaction {
  /** Rows deleted. */
  removed: number;
  /** Rows written in their place (one per account and day that still has entries). */
  written: number;
}

/**
 * Folds the table's deltas (the background run, src/background.ts). Skips, answering zeros, while
 * another compaction holds the lock. `exclusive: false` is for tests of the statement's own safety.
 */
export async function compactDayTotals(db: Db, { exclusive = true }: { exclusive?: boolean } = {}): Promise<Compaction> {
  const [result] = rowsOf<Compaction>(await db.execute(foldStatement(exclusive)));
  return { removed: result?.removed ?? 0, written: result?.written ?? 0 };
}

/**
 * Waits for a compaction under way and keeps the next out until `tx` ends: for DELETE /accounts,
 * before it locks the account. A fold whose snapshot still saw the account's entries (deleted and
 * committed while it ran) writes a row of their sum, whose foreign-key check waits on the
 * account's row lock, while the delete's cascade waits on the rows the fold deleted: a deadlock,
 * and a 500. Deleting an account is rare; a fold that finds the lock taken runs next time.
 */
export async function holdOffCompaction(tx: Db): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${DAY_TOTALS_COMPACTION_LOCK})`);
}

/**
 * The table rebuilt from entries, one row per account and day: what migration 0014 does once, for
 * a book written with the triggers off (scripts/bench-reports.ts writes one with
 * session_replication_role = replica). The share lock keeps writers out until it commits, so the
 * table matches entries exactly even while posts arrive. The compaction's lock, taken first and
 * waited for, keeps a fold out as well: a fold under way when the delete read the table would
 * otherwise commit its rows of sums, which the delete never saw, beside the rebuilt ones (every
 * folded account-day counted twice); one that starts later finds the lock taken and does nothing.
 */
export async function rebuildDayTotals(db: Db): Promise<number> {
  return db.transaction(async (tx) => {
    await holdOffCompaction(tx);
    await tx.execute(sql`lock table ${entries} in share mode`);
    await tx.execute(sql`delete from ${accountDayTotals}`);
    const [result] = rowsOf<{ n: number }>(
      await tx.execute(sql`
        with written as (
          insert into ${accountDayTotals} (account_id, occurred_on, total_cents, entry_count)
          select account_id, occurred_on, sum(amount_cents), count(*) from ${entries} group by account_id, occurred_on
          returning 1)
        select count(*)::integer as n from written`),
    );
    return result?.n ?? 0;
  });
}
