import * as v from 'valibot';

// The building blocks of the shapes the API answers, and the names under which shapes appear in
// the API description (`components.schemas` of
// /openapi.json), registered where each shape is written (the views modules, the route groups'
// request schemas), so that the document's frame (src/http/openapi.ts) lists none of them itself.
// A request schema is described as input, a response shape as output, so each has its own list.

const requests = new Map<string, v.GenericSchema>();
const responses = new Map<string, v.GenericSchema>();

function register<S extends v.GenericSchema>(names: Map<string, v.GenericSchema>, name: string, schema: S): S {
  const taken = names.get(name);
  if (taken && taken !== schema) throw new Error(`two schemas are named ${name}`);
  names.set(name, schema);
  return schema;
}

/** A request body or form, named in the API description. */
export const requestSchema = <S extends v.GenericSchema>(name: string, schema: S): S => register(requests, name, schema);

/** A response shape, named in the API description. */
export const responseSchema = <S extends v.GenericSchema>(name: string, schema: S): S => register(responses, name, schema);

export const namedRequestSchemas = (): Record<string, v.GenericSchema> => Object.fromEntries(requests);
export const namedResponseSchemas = (): Record<string, v.GenericSchema> => Object.fromEntries(responses);

export const int = v.pipe(v.number(), v.integer());
export const timestamp = v.pipe(v.string(), v.isoTimestamp(), v.description('ISO 8601, UTC'));
export const url = v.pipe(v.string(), v.url());

/** A JSON object body that refuses a key it does not know, naming it; `what` is said otherwise. */
export function strictBody<const E extends v.ObjectEntries>(entries: E, what: string) {
  return v.strictObject(entries, (issue) => (issue.expected === 'never' ? `unknown field ${String(issue.input)}` : what));
}
