import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { namedRequestSchemas, namedResponseSchemas } from '../shapes';
import { isCalendarDate } from '../text';
import type { Reply } from './replies';
import type { RouteContract, Tier } from './route';
import { ROUTE_GROUPS } from './routes';

// The API description (OpenAPI 3.1, JSON Schema 2020-12), generated from the routes' own
// declarations (src/http/route.ts): each route group's file says, once, every operation's tier,
// request schemas and replies. Here is only the document's frame: security schemes, tags, the
// overview, and the conversion of valibot schemas by @valibot/to-json-schema; shapes with a name
// (src/shapes.ts) go under components.schemas. tests/openapi.test.ts checks that the operations
// are exactly the routes the app serves, that each names its tier, and that real answers of the
// app validate against the schemas documented here.

type Schema = v.GenericSchema;
type Operation = RouteContract;

const OPERATIONS: Operation[] = ROUTE_GROUPS.flatMap(([, routes]) => routes.map((r) => r.contract));

/** The method and path of every documented operation, for the drift test. */
export function documentedOperations(): { method: string; path: string; tier: Tier }[] {
  return OPERATIONS.map(({ method, path, tier }) => ({ method, path, tier }));
}

// ---------------------------------------------------------------------------------------------
// Conversion

/** Spec: Authentication. One security scheme per credential and tier; OR between the entries of a list. */
const SECURITY_SCHEMES = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'Full tier. `Authorization: Bearer lg_…`: a token from `ledger mint-token`, or an OAuth access token audienced to this API.',
  },
  fullSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'lg_session',
    description: 'Full tier. The session cookie once `mfa_complete` is true: POST /auth/login, then a passkey (WebAuthn finish).',
  },
  halfSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'lg_session',
    description: 'Half tier. The session cookie at any `mfa_complete`: POST /auth/login alone suffices (10 minutes).',
  },
} as const;

const SECURITY: Record<Tier, Partial<Record<keyof typeof SECURITY_SCHEMES, string[]>>[]> = {
  open: [],
  half: [{ halfSession: [] }],
  full: [{ bearer: [] }, { fullSession: [] }],
  'session-only': [{ fullSession: [] }],
};

const TIER_NOTES: Record<Tier, string> = {
  open: 'Tier: open (no credential).',
  half: 'Tier: half (a cookie session at any `mfa_complete`).',
  full: 'Tier: full (a bearer token, or a cookie session with `mfa_complete` true).',
  'session-only': 'Tier: session-only (a full cookie session; a valid bearer token is refused with 403).',
};

type Json = Record<string, unknown>;

/** D13 dates: a `check(isCalendarDate)` is the JSON Schema format `date`. */
const overrideAction: ConversionConfig['overrideAction'] = ({ valibotAction, jsonSchema }) =>
  valibotAction.type === 'check' && (valibotAction as { requirement?: unknown }).requirement === isCalendarDate
    ? { ...jsonSchema, format: 'date' }
    : undefined;

/** Checks and transforms without a JSON Schema form are left out; the types and constraints that have one are kept. */
const configFor = (typeMode: 'input' | 'output', definitions: Record<string, Schema>): ConversionConfig => ({
  target: 'draft-2020-12',
  typeMode,
  errorMode: 'ignore',
  definitions,
  overrideAction,
  overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
});


/** Built on first use, once every module has named its shapes. */
let configs: { request: ConversionConfig; response: ConversionConfig } | undefined;
function conversion(): { request: ConversionConfig; response: ConversionConfig } {
  configs ??= { request: configFor('input', namedRequestSchemas()), response: configFor('output', namedResponseSchemas()) };
  return configs;
}

function convert(schema: Schema, config: ConversionConfig): Json {
  const { $schema: _schema, $defs: _defs, ...rest } = toJsonSchema(schema, config) as Json;
  return rest;
}

function componentSchemas(): Record<string, Json> {
  const withoutDefinitions = ({ definitions: _, ...config }: ConversionConfig) => config;
  const { request, response } = conversion();
  return {
    ...(toJsonSchemaDefs(namedRequestSchemas(), withoutDefinitions(request)) as unknown as Record<string, Json>),
    ...(toJsonSchemaDefs(namedResponseSchemas(), withoutDefinitions(response)) as unknown as Record<string, Json>),
  };
}

function tagOf(path: string): string {
  if (path === '/health') return 'Health';
  if (path.startsWith('/auth/webauthn') || path.startsWith('/auth/passkeys')) return 'Passkeys';
  if (path.startsWith('/auth/tokens') || path.startsWith('/auth/grants')) return 'Connections';
  if (path.startsWith('/auth')) return 'Session';
  if (path.startsWith('/.well-known')) return 'Discovery';
  if (path.startsWith('/oauth')) return 'OAuth';
  if (path.startsWith('/reports')) return 'Reports';
  if (path.startsWith('/mcp')) return 'MCP';
  return 'Ledger';
}

function describeReply(op: Operation, status: number, reply: Reply): Json {
  const always: Record<string, string> = { ...reply.headers };
  // Error rule 7 and D13: nothing answered in error under /oauth/ may be stored; nothing the token endpoint answers either.
  if ((op.path.startsWith('/oauth/') && status >= 400) || op.path === '/oauth/token') always['Cache-Control'] = 'no-store';
  const header = (required: boolean) => ([name, description]: [string, string]) => [name, { description, required, schema: { type: 'string' } }];
  const headers = Object.fromEntries([
    ...Object.entries(always).map(header(true)),
    ...Object.entries(reply.sometimes ?? {}).map(header(false)),
  ]);
  const content: Json = {};
  if (reply.json) content['application/json'] = { schema: convert(reply.json, conversion().response) };
  if (reply.text) content[reply.media ?? 'text/plain'] = { schema: { type: 'string', description: reply.text } };
  for (const type of reply.binary ?? []) content[type] = { schema: { type: 'string', format: 'binary' } };
  return {
    description: reply.description,
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(Object.keys(content).length ? { content } : {}),
  };
}

function describeOperation(op: Operation): Json {
  const parameters: Json[] = [];
  for (const [, name] of op.path.matchAll(/\{(\w+)\}/g)) {
    const schema = op.params?.[name!];
    if (!schema) throw new Error(`${op.method} ${op.path}: no schema for the path parameter ${name}`);
    parameters.push({ name, in: 'path', required: true, schema: convert(schema, conversion().request) });
  }
  if (op.query) {
    const schema = convert(op.query, conversion().request) as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      parameters.push({ name, in: 'query', required: schema.required?.includes(name) ?? false, schema: property });
    }
  }
  for (const [name, description] of Object.entries(op.headers ?? {})) {
    parameters.push({ name, in: 'header', required: false, description, schema: { type: 'string' } });
  }
  let requestBody: Json | undefined;
  if (op.json) requestBody = { required: true, content: { 'application/json': { schema: convert(op.json, conversion().request) } } };
  if (op.form) requestBody = { required: true, content: { 'application/x-www-form-urlencoded': { schema: convert(op.form, conversion().request) } } };
  if (op.bytes) requestBody = { required: true, content: Object.fromEntries(op.bytes.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])) };
  const responses = Object.fromEntries(Object.entries(op.responses).map(([status, reply]) => [status, describeReply(op, Number(status), reply)]));
  return {
    operationId: `${op.method}${op.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    tags: [tagOf(op.path)],
    summary: op.summary,
    description: [TIER_NOTES[op.tier], op.description].filter(Boolean).join('\n\n'),
    'x-tier': op.tier,
    security: SECURITY[op.tier],
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

const OVERVIEW = `Double-entry bookkeeping for a family or a club. Amounts are integer cents; the entries of a transaction sum to zero.

**Tiers** (each operation names its own in \`x-tier\` and \`security\`):
- **open**: no credential.
- **half**: the \`lg_session\` cookie at any \`mfa_complete\` (scheme \`halfSession\`): the four WebAuthn routes.
- **full**: a bearer token (\`bearer\`) or a cookie session with \`mfa_complete\` true (\`fullSession\`).
- **session-only**: the full tier, but a valid bearer token is refused with 403 (\`fullSession\` only).

**Errors**: \`{error}\` on ledger routes and the authentication middleware; \`{error, error_description}\` with \`Cache-Control: no-store\` on OAuth routes; plain text for framework-level rejections.`;

/** GET /openapi.json: OpenAPI 3.1 for this instance (servers = API_ORIGIN). */
export function openApiDocument(apiOrigin: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = describeOperation(op);
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: { title: 'Ledger', version: '0.1.0', description: OVERVIEW },
    servers: [{ url: apiOrigin }],
    tags: ['Health', 'Session', 'Passkeys', 'Connections', 'Discovery', 'OAuth', 'Ledger', 'Reports', 'MCP'].map((name) => ({ name })),
    components: { securitySchemes: SECURITY_SCHEMES, schemas: componentSchemas() },
    paths,
  };
}
