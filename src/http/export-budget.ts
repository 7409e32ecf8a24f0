// Issue 26 item 1: no route's slowness may take connections from other routes. A download holds
// a pool connection (its cursor) for as long as it runs, so exports get a budget of their own:
// at most EXPORT_SLOTS at once per process (the pool has 10), the rest answer 503 with
// Retry-After; and a download whose client stops reading for EXPORT_IDLE_MS is cut: its cursor
// closed, its connection given back, its response ended.

/** Downloads running at once in this process. */
export const EXPORT_SLOTS = 2;
/** Seconds a refused download is told to wait (Retry-After). */
export const EXPORT_RETRY_AFTER_SECONDS = 5;
/** How long a download may wait for its client to take the next part before it is cut. */
export const EXPORT_IDLE_MS = 10_000;

let running = 0;

/** A slot for one download, or undefined when all are taken; `release` is idempotent. */
export function takeExportSlot(): { release: () => void } | undefined {
  if (running >= EXPORT_SLOTS) return undefined;
  running++;
  let held = true;
  return {
    release: () => {
      if (!held) return;
      held = false;
      running--;
    },
  };
}
