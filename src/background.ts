import { postDueOccurrences } from './book/schedule-posting';
import type { Db } from './db/database';
import { deleteExpiredIdempotencyKeys } from './http/idempotency-store';
import type { Logger } from './log';

// What `ledger serve` does besides answering requests, once at start (in the background: start-up
// never waits for a catch-up) and every 10 minutes: D21's posting job, and the removal of the
// Idempotency-Key answers kept past their 24 hours. Runs never overlap in one
// process; across instances the database's keys decide. Nothing runs while idle, and `stop` waits
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
  const runNow = () =>
    (running ??= (async () => {
      try {
        const started = Date.now();
        const run = await postDueOccurrences(db, undefined, () => stopped);
        if (run.posted > 0 || run.refused > 0) log.info('schedules_posted', { posted: run.posted, refused: run.refused, ms: Date.now() - started });
        await deleteExpiredIdempotencyKeys(db);
      } catch (error) {
        // Logged by name only (no driver text, error rule 6); the next run tries again.
        if (!stopped) log.error('schedules_failed', { error: error instanceof Error ? error.name : 'error' });
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
