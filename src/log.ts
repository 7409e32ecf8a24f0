/**
 * One JSON object per line on stdout (D10). Callers pass only what is safe to keep: never a token,
 * cookie, password, code or verifier.
 */
export interface Logger {
  info(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
}

export function jsonLogger(write: (line: string) => void = (line) => process.stdout.write(line)): Logger {
  const emit = (level: string, event: string, fields: Record<string, unknown> = {}) =>
    write(`${JSON.stringify({ time: new Date().toISOString(), level, event, ...fields })}\n`);
  return {
    info: (event, fields) => emit('info', event, fields),
    error: (event, fields) => emit('error', event, fields),
  };
}

/** The detail of an unexpected fault for the server log only: its name, message, SQLSTATE and stack. */
export function describeFault(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { fault: String(error) };
  const cause = error.cause instanceof Error ? describeFault(error.cause) : undefined;
  return {
    fault: error.name,
    message: error.message,
    code: (error as { code?: unknown }).code,
    stack: error.stack,
    ...(cause ? { cause } : {}),
  };
}
