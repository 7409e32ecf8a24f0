import type { Db } from '../db/database';
import { databaseRefusal } from '../db/refusals';
import { todayUtc } from '../text';
import { POSTING_BATCH, postDueOfSchedule, schedulesDue } from './schedules';

// D21: the posting job. `ledger serve` runs it once at start and every 10 minutes (src/background.ts):
// every `post` occurrence dated on or before today (UTC) and neither posted nor skipped is posted,
// oldest first, so the days the server was off are caught up. One schedule at a time, at most
// POSTING_BATCH occurrences per database transaction, yielding to the event loop between batches:
// it holds one pool connection at a time and no transaction while idle, so requests go on.

export interface PostingRun {
  posted: number;
  /** Schedules left for the next run: a refusal met while posting (an account deleted, a period closed meanwhile). */
  refused: number;
}

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `stopping` is asked between batches: a server told to stop ends its run at the next one. */
export async function postDueOccurrences(db: Db, today = todayUtc(), stopping: () => boolean = () => false): Promise<PostingRun> {
  const run: PostingRun = { posted: 0, refused: 0 };
  for (const id of await schedulesDue(db, today)) {
    for (;;) {
      if (stopping()) return run;
      let posted: number;
      try {
        posted = await postDueOfSchedule(db, id, today);
      } catch (error) {
        // Its book changed under it: the next run sees the occurrence blocked, or posts it.
        if (databaseRefusal(error) === undefined) throw error;
        run.refused++;
        break;
      }
      run.posted += posted;
      await yieldToRequests();
      if (posted < POSTING_BATCH) break;
    }
  }
  return run;
}
