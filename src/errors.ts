/**
 * A refusal the caller can act on. Domain modules throw it; the HTTP layer maps `reason` to a
 * status in one place (src/http/errors.ts) and the CLI prints `message` as its one stderr line.
 */
export type RefusalReason = 'invalid' | 'forbidden' | 'not_found' | 'conflict' | 'unsupported_media_type';

export class Refusal extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
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

/** A start-up failure the operator can fix (a busy port, a busy data directory); printed as one line before exit 1. */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}
