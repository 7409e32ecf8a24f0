import { compactDayTotals } from './book/day-totals';
import { postDuesFor } from './book/dues-posting';
import { postDueOccurrences } from './book/schedule-posting';
import type { Db } from './db/database';
import { deleteExpiredIdempotencyKeys } from './db/idempotency-keys';
import type { Logger } from './log';

// What `ledger serve` does besides answering requests, once at start (in the background: start-up
// never waits for a catch-up) and every 10 minutes: D21's posting job, the removal of the
// Idempotency-Key answers kept past their 24 hours, and the fold of the reports' day totals
// (issue 31 item 5: each write adds rows of deltas; the fold keeps about one per account and day).
// Runs never overlap in one process; across instances the database's keys and locks decide. Nothing runs while idle, and `stop` waits
// for a run in progress, so the pool is closed after it.

export const BACKGROUND_INTERVAL_MS = 10 * 60_000;

export interface BackgroundJobs {
  /** Resolves when the run in progress (if any) ends. */
  stop(): Promise<void>;
  /** Starts a run now unless one is running; resolves when it ends (tests, and the first run). */
  runNow(): Promise<void>;
}

export function startBackgroundJobs(db: Db, log: Logger, intervalMs = BACKGROUND_INTERVAL_MS): BackgroundJobs {
  let running: Promise<void> | undefined;
  let stopped = false;
  /** One job of a run: its failure is logged under its own name (no driver text, error rule 6) and the others still run. */
  const attempt = async <T>(job: string, work: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await work();
    } catch (error) {
      if (!stopped) log.error(`${job}_failed`, { error: error instanceof Error ? error.name : 'error' });
      return undefined;
    }
  };
  const runNow = () =>
    (running ??= (async () => {
      try {
        const started = Date.now();
        const run = await attempt('schedules', () => postDueOccurrences(db, undefined, () => stopped));
        // D27: dues post themselves in the same runs, exactly once by their (plan, person, date) key.
        const dues = await attempt('dues', () => postDuesFor(db, {}, undefined, () => stopped));
        const expired = await attempt('idempotency_cleanup', () => deleteExpiredIdempotencyKeys(db));
        // After the posting job, so that what it posted is folded in the same run.
        const folded = await attempt('day_totals_compaction', () => compactDayTotals(db));
        // Every run says what it did, nothing included: a start-up catch-up is seen to have ended.
        log.info('background_run', {
          posted: run?.posted ?? 0,
          refused: run?.refused ?? 0,
          dues_posted: dues?.posted ?? 0,
          dues_refused: dues?.refused ?? 0,
          expired_keys: expired ?? 0,
          day_total_rows_folded: folded?.removed ?? 0,
          ms: Date.now() - started,
        });
        if (run && (run.posted > 0 || run.refused > 0)) log.info('schedules_posted', { posted: run.posted, refused: run.refused, ms: Date.now() - started });
      } finally {
        running = undefined;
      }
    })());
  const timer = setInterval(() => void runNow(), intervalMs);
  void runNow();
  return {
    runNow,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
