/**
 * A refusal the caller can act on. Domain modules throw it; the HTTP layer maps `reason` to a
 * status in one place (src/http/errors.ts) and the CLI prints `message` as its one stderr line.
 */
export type RefusalReason = 'invalid' | 'forbidden' | 'not_found' | 'conflict' | 'unsupported_media_type';

/** One line of a file that cannot be taken, by its line number (D16: a statement's line or entry). */
export interface LineError {
  line: number;
  error: string;
}

export class Refusal extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
    /** The lines at fault, answered beside `error` as `errors` (D16). */
    readonly errors?: readonly LineError[],
    /** The readings the caller must choose among, answered beside `error` as `candidates` (D16: a statement's date formats). */
    readonly candidates?: readonly string[],
    /** Other figures answered beside `error` (D20: a reconciliation's `difference_cents`). */
    readonly figures?: Readonly<Record<string, number>>,
  ) {
    super(message);
    this.name = 'Refusal';
  }
}

/**
 * D10: the session a change relied on ended while the request ran (logout, another session's
 * password change); nothing was changed. Answered like no session at all (401, error rule 4).
 */
export class SessionEnded extends Error {
  constructor() {
    super('the session ended');
    this.name = 'SessionEnded';
  }
}

export const invalid = (message: string) => new Refusal('invalid', message);
export const forbidden = (message: string) => new Refusal('forbidden', message);
export const notFound = (message: string) => new Refusal('not_found', message);
export const conflict = (message: string) => new Refusal('conflict', message);
export const invalidLines = (message: string, errors: readonly LineError[]) => new Refusal('invalid', message, errors);
export const invalidChoice = (message: string, candidates: readonly string[]) => new Refusal('invalid', message, undefined, candidates);

/** A start-up failure the operator can fix (a busy port, a busy data directory); printed as one line before exit 1. */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

/** How deep a cause chain is followed: drizzle wraps the driver's error once; more is a loop or noise. */
const MAX_CAUSES = 5;

/**
 * An error and the errors that caused it, outermost first, each once (a loop ends the chain): the
 * one walk over `cause` of the fault log and of the database-error readers.
 */
export function causeChain(error: unknown): Error[] {
  const chain: Error[] = [];
  for (let e = error; e instanceof Error && chain.length <= MAX_CAUSES && !chain.includes(e); e = e.cause) chain.push(e);
  return chain;
}
