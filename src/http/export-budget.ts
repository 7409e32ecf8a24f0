import type { Context } from 'hono';
import { describeFault } from '../log';
import type { AppEnv } from './context';

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

/**
 * The body of a long answer held by `slot`: `ready` first (parts already read, so that a failure
 * at once was the route's to answer), then the rest of `parts` as the client takes them. The slot
 * and the parts' connection are given back when the last part is sent, when the client goes, or
 * when it takes nothing for EXPORT_IDLE_MS (then the response is cut: served by
 * @hono/node-server, the response waits for the socket to drain and would not see an error of the
 * stream, so the socket is ended; under app.request, the stream is errored). Log events are
 * `<what>.stalled` and `<what>.fault`.
 */
export function streamHoldingSlot(
  c: Context<AppEnv>,
  what: string,
  slot: { release: () => void },
  parts: AsyncGenerator<string | Uint8Array>,
  ready: (string | Uint8Array)[],
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const waiting = [...ready];
  let idle: NodeJS.Timeout | undefined;
  let ended = false;
  const end = async () => {
    if (ended) return;
    ended = true;
    clearTimeout(idle);
    try {
      await parts.return(undefined);
    } finally {
      slot.release();
    }
  };
  const stalled = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (ended) return;
    c.var.log.info(`${what}.stalled`, { path: c.req.path, idle_ms: EXPORT_IDLE_MS });
    void end().catch((error: unknown) => c.var.log.error(`${what}.fault`, { path: c.req.path, ...describeFault(error) }));
    const outgoing = (c.env as { outgoing?: { destroy?: () => void } } | undefined)?.outgoing;
    if (outgoing?.destroy) outgoing.destroy();
    else controller.error(new Error('the client stopped reading'));
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      clearTimeout(idle);
      if (ended) return;
      try {
        // A pull must enqueue something or end the stream: an empty part is skipped.
        let part = waiting.shift();
        while (part === undefined || part.length === 0) {
          const next = await parts.next();
          if (ended) return;
          if (next.done) {
            controller.close();
            await end();
            return;
          }
          part = next.value;
        }
        controller.enqueue(typeof part === 'string' ? encoder.encode(part) : part);
        idle = setTimeout(() => stalled(controller), EXPORT_IDLE_MS);
      } catch (error) {
        c.var.log.error(`${what}.fault`, { path: c.req.path, ...describeFault(error) });
        controller.error(error);
        await end().catch(() => {});
      }
    },
    async cancel() {
      await end();
    },
  });
}
