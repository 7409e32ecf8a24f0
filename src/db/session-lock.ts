import { setTimeout as sleep } from 'node:timers/promises';
import type postgres from 'postgres';

// Issue 36 item 2 (D2): a session-level advisory lock lives only as long as the session that took
// it. The embedded cluster's presence locks (src/db/embedded.ts) are held for a process's whole
// life, and a session ends for reasons of its own: a backend SIGKILLed or OOM-killed makes the
// postmaster reset every session, an administrator terminates one. `serve` then held nothing,
// nobody took the lock again, and a second `serve` could start on the same directory. A lock
// kept here is taken again on a new session as soon as its session ends, retried while the
// cluster recovers or is down; should another process have taken it meanwhile, the owner is told
// once and the lock is no longer tried.

/** What one try of the lock found. */
export type TakeResult =
  | { outcome: 'held' }
  /** Held by someone who lets go soon (a last user stopping the cluster): try again. */
  | { outcome: 'busy' }
  /** Taken by another process for good; `holder` is its pid when known. */
  | { outcome: 'taken'; holder?: string };

export interface SessionLockOptions {
  /** Opens a new session; `onEnd` is called each time it ends. */
  open(onEnd: () => void): postgres.Sql;
  /** Tries to take the lock on `session`, without waiting for it. */
  take(session: postgres.Sql): Promise<TakeResult>;
  /** The lock is held again, `lostMs` after its session ended. */
  onRegained?(lostMs: number): void;
  /** Another process took the lock while its session was gone: this one holds it no more. */
  onTaken?(holder: string | undefined): void;
}

/** Tries at once, then every tenth of a second through a crash recovery (about a second), then every second. */
const retryDelayMs = (sinceLostMs: number) => (sinceLostMs < 5000 ? 100 : 1000);

export class SessionLock {
  private current: postgres.Sql | undefined;
  private held = false;
  private stopped = false;
  private retaking: Promise<void> | undefined;
  private lost = false;
  /** Sessions that ended: one that ends between its lock and our noting it must not count as holding. */
  private readonly ended = new WeakSet<postgres.Sql>();

  constructor(private readonly options: SessionLockOptions) {}

  /** A new session whose end, once it holds the lock, sets off taking the lock again. */
  openSession(): postgres.Sql {
    const session: postgres.Sql = this.options.open(() => this.sessionEnded(session));
    return session;
  }

  /** From now on `session`, which holds the lock, is kept holding it. */
  holdOn(session: postgres.Sql): void {
    this.current = session;
    this.held = !this.ended.has(session);
    if (!this.held) this.retake();
  }

  /** True once the lock's session has ended under it (whether or not it was taken again since). */
  get lostOnce(): boolean {
    return this.lost;
  }

  /**
   * Stops keeping the lock. Answers the session that holds it, or none when it is not held (lost
   * and not taken again, or taken by another process). The caller ends the session.
   */
  async stop(): Promise<postgres.Sql | undefined> {
    this.stopped = true;
    await this.retaking;
    return this.held ? this.current : undefined;
  }

  private sessionEnded(session: postgres.Sql): void {
    this.ended.add(session);
    if (this.stopped || session !== this.current || !this.held) return;
    this.held = false;
    this.retake();
  }

  private retake(): void {
    this.lost = true;
    if (this.retaking) return;
    const lost = this.current;
    this.current = undefined;
    void lost?.end({ timeout: 0 }).catch(() => {});
    this.retaking = this.retakeUntilHeld(Date.now()).finally(() => (this.retaking = undefined));
  }

  private async retakeUntilHeld(lostAt: number): Promise<void> {
    while (!this.stopped) {
      let session: postgres.Sql | undefined;
      let result: TakeResult | undefined;
      try {
        session = this.openSession();
        result = await this.options.take(session);
      } catch {
        // Unreachable, recovering or refusing sessions: the cluster is not there yet. Try again.
      }
      if (session && result?.outcome === 'held' && !this.ended.has(session)) {
        this.current = session;
        this.held = true;
        this.options.onRegained?.(Date.now() - lostAt);
        return;
      }
      await session?.end({ timeout: 0 }).catch(() => {});
      if (result?.outcome === 'taken') {
        this.options.onTaken?.(result.holder);
        return;
      }
      if (!this.stopped) await sleep(retryDelayMs(Date.now() - lostAt));
    }
  }
}
