import { causeChain } from './errors';

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

/**
 * The detail of an unexpected fault, for the server log only (error rule 3, D10).
 *
 * A fault that involves the database (issue 1/7) logs what names the failure and nothing that
 * can hold a value: the SQLSTATE, the constraint, table and column the driver names, its routine
 * and severity, the error classes, the operation and tables (read from the query text with every
 * literal removed) and the stack's frames. Never a message nor a driver field like `detail`
 * or `where`: drizzle's message carries the query's parameters (session digests, emails, user
 * codes) and PostgreSQL's quote values (`Key (email)=(x@y) already exists`,
 * `invalid input syntax for type integer: "…"`). That holds for every error in the chain, a plain
 * Error wrapping a database error included: its message may well repeat its cause's.
 *
 * Any other fault (a bug in our code) keeps name, message, code and stack, which carry no parameters.
 */
export function describeFault(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { fault: String(error) };
  const chain = causeChain(error);
  return chain.some(isDatabaseError) ? describeDatabaseFault(chain) : describeCodeFault(chain);
}

/** A query failed: drizzle's DrizzleQueryError and both drivers' errors carry the query text. */
function isDatabaseError(error: Error): boolean {
  const fields = error as { query?: unknown; code?: unknown; severity?: unknown };
  return typeof fields.query === 'string' || (isSqlState(fields.code) && typeof fields.severity === 'string');
}

const isSqlState = (code: unknown): code is string => typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);

/** The name of the class: drizzle's DrizzleQueryError leaves `name` at "Error". */
function className(error: Error): string {
  const constructorName = Object.getPrototypeOf(error)?.constructor?.name;
  return error.name === 'Error' && typeof constructorName === 'string' && constructorName ? constructorName : error.name;
}

/** Driver fields that name the failure, never a value (postgres.js's names first). */
const NAMING_FIELDS = {
  constraint: ['constraint_name'],
  table: ['table_name'],
  column: ['column_name'],
  routine: ['routine'],
  severity: ['severity'],
} as const;

/** A (schema-qualified) identifier, a routine or a severity: word characters only, so no value. */
const NAME = /^[A-Za-z_][A-Za-z0-9_$.]{0,127}$/;

function describeDatabaseFault(chain: Error[]): Record<string, unknown> {
  const described: Record<string, unknown> = { fault: className(chain[0]!) };
  if (chain.length > 1) described.causes = chain.slice(1).map(className);
  // The SQLSTATE, or a driver's own code (postgres.js: CONNECTION_CLOSED) when the server sent none.
  const codes = chain.map((e) => (e as { code?: unknown }).code).filter((c): c is string => typeof c === 'string');
  const code = codes.find(isSqlState) ?? codes.find((c) => /^[A-Z0-9_]{2,40}$/.test(c));
  if (code) described.code = code;
  for (const [field, names] of Object.entries(NAMING_FIELDS)) {
    const value = firstField(chain, names);
    if (value !== undefined) described[field] = value;
  }
  const query = chain.map((e) => (e as { query?: unknown }).query).find((q): q is string => typeof q === 'string');
  if (query !== undefined) Object.assign(described, describeQuery(query));
  const frames = stackFrames(chain[0]!);
  if (frames) described.stack = frames;
  return described;
}

function firstField(chain: Error[], names: readonly string[]): string | undefined {
  for (const error of chain) {
    for (const name of names) {
      const value = (error as unknown as Record<string, unknown>)[name];
      if (typeof value === 'string' && NAME.test(value)) return value;
    }
  }
  return undefined;
}

/** A table name as drizzle writes it, quoted or not, with an optional schema; never a function call. */
const TABLE = String.raw`((?:"[^"]+"|\w+)(?:\.(?:"[^"]+"|\w+))?)(?![\w".(])`;
const OPERATIONS: Record<string, { words: string; table: RegExp }> = {
  insert: { words: 'insert into', table: new RegExp(String.raw`^insert\s+into\s+${TABLE}`, 'i') },
  update: { words: 'update', table: new RegExp(String.raw`^update\s+${TABLE}`, 'i') },
  delete: { words: 'delete from', table: new RegExp(String.raw`^delete\s+from\s+${TABLE}`, 'i') },
  select: { words: 'select from', table: new RegExp(String.raw`^select\b[\s\S]*?\bfrom\s+${TABLE}`, 'i') },
};
/** Every relation a statement names (`on conflict … do update set` names none). */
const RELATIONS = new RegExp(String.raw`\b(?:from|join|into|update)\s+(?!set\b)${TABLE}`, 'gi');
const MAX_TABLES = 10;

/**
 * What a query did, from its text alone: the operation ("insert into sessions", "update users",
 * "delete from tokens", "select from settings", else the first keyword: "with", "commit") and
 * every table it names — PostgreSQL names a missing relation (42P01) only in its message. Literals
 * (quoted, dollar-quoted) and comments go first, so that nothing inlined can pass for a name.
 */
export function describeQuery(query: string): { operation?: string; tables?: string[] } {
  const text = withoutLiterals(query);
  const verb = /^[A-Za-z]+/.exec(text)?.[0].toLowerCase();
  if (!verb) return {};
  const operation = OPERATIONS[verb];
  const table = operation ? tableName(operation.table.exec(text)?.[1]) : undefined;
  const tables = [...new Set([...text.matchAll(RELATIONS)].map((m) => tableName(m[1])).filter((t) => t !== undefined))];
  return {
    operation: operation && table ? `${operation.words} ${table}` : verb,
    ...(tables.length ? { tables: tables.slice(0, MAX_TABLES) } : {}),
  };
}

function withoutLiterals(query: string): string {
  return query
    .replace(/\$(\w*)\$[\s\S]*?\$\1\$/g, ' ')
    .replace(/'(?:[^']|'')*'?/g, ' ')
    .replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, ' ')
    .trim();
}

function tableName(raw: string | undefined): string | undefined {
  const name = raw?.replace(/"/g, '');
  return name && NAME.test(name) ? name : undefined;
}

/**
 * The stack's frames without its first line(s), which repeat the message. When the message is
 * not where it should be (changed after the error was made), no stack at all: the old one may
 * still hold the value.
 */
function stackFrames(error: Error): string | undefined {
  const stack = typeof error.stack === 'string' ? error.stack : '';
  const end = stack.indexOf(error.message);
  if (end < 0) return undefined;
  const rest = stack.slice(end + error.message.length);
  const first = rest.indexOf('\n    at ');
  return first < 0 ? undefined : rest.slice(first + 1);
}

/**
 * A fault of our own code: no query, so no parameter; its message and stack are what is needed,
 * with its causes nested (`cause`) as the chain goes.
 */
function describeCodeFault(chain: Error[]): Record<string, unknown> {
  let described: Record<string, unknown> | undefined;
  for (const error of [...chain].reverse()) {
    described = {
      fault: error.name,
      message: error.message,
      code: (error as { code?: unknown }).code,
      stack: error.stack,
      ...(described ? { cause: described } : {}),
    };
  }
  return described!;
}
