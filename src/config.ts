import path from 'node:path';
import * as v from 'valibot';

/** Where the ledger's data lives: the embedded cluster's directory (D2) or a PostgreSQL server. */
export type DatabaseTarget =
  | { kind: 'embedded'; dir: string }
  | { kind: 'postgres'; url: string };

export interface ListenAddress {
  host: string;
  port: number;
}

export interface Config {
  database: DatabaseTarget;
  bind: ListenAddress;
  /** D2: `off` disables the web app listener. */
  webBind: ListenAddress | null;
  /** Lower-cased, no trailing slash (spec: Configuration). */
  apiOrigin: string;
  webOrigin: string;
  sessionTtlDays: number;
  /**
   * D18, tests only: `CIMD_ALLOW_PRIVATE_ADDRESSES=1` lets the fetch of a client's metadata
   * document reach loopback, private and link-local addresses (a test's local https server).
   */
  cimdAllowPrivateAddresses: boolean;
  /** D22: how many bytes of receipts the whole book may hold (`RECEIPTS_MAX_MB`, default 1024). */
  receiptsMaxBytes: number;
}

/** A malformed environment variable; the message is the one line printed before exit 1 (D2). */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`${variable} is malformed: ${detail}`);
    this.name = 'ConfigError';
  }
}

const DEFAULTS = {
  DATABASE_URL: 'file:./data',
  BIND_ADDR: '0.0.0.0:38081',
  WEB_BIND_ADDR: '0.0.0.0:38080',
  API_ORIGIN: 'http://localhost:38081',
  WEB_ORIGIN: 'http://localhost:38080',
  SESSION_TTL_DAYS: '30',
  CIMD_ALLOW_PRIVATE_ADDRESSES: '0',
  RECEIPTS_MAX_MB: '1024',
} as const;

type Variable = keyof typeof DEFAULTS;

const DatabaseUrl = v.pipe(
  v.string(),
  v.check(
    (s) => /^postgres(ql)?:\/\/.+/.test(s) || /^file:.+/.test(s),
    'expected postgres://…, postgresql://… or file:<directory>',
  ),
  v.transform((s): DatabaseTarget =>
    s.startsWith('file:')
      ? { kind: 'embedded', dir: path.resolve(s.slice('file:'.length)) }
      : { kind: 'postgres', url: s },
  ),
);

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

const ListenAddressSchema = v.pipe(
  v.string(),
  v.regex(HOST_PORT, 'expected host:port, e.g. 0.0.0.0:38081 or [::]:38081'),
  v.transform((s): ListenAddress => {
    const [, host = '', port = ''] = HOST_PORT.exec(s) ?? [];
    return { host: host.replace(/^\[(.*)\]$/, '$1'), port: Number(port) };
  }),
  v.check((a) => a.port <= 65535, 'the port must be between 0 and 65535'),
);

/**
 * An origin: scheme http or https, a host, an optional port, nothing else. Lower-cased with no
 * trailing slash, because API_ORIGIN is compared character for character as issuer and audience.
 */
const OriginSchema = v.pipe(
  v.string(),
  v.check((s) => {
    try {
      const u = new URL(s);
      return (
        (u.protocol === 'http:' || u.protocol === 'https:') &&
        u.username === '' &&
        u.password === '' &&
        (u.pathname === '/' || u.pathname === '') &&
        u.search === '' &&
        u.hash === '' &&
        !s.endsWith('//')
      );
    } catch {
      return false;
    }
  }, 'expected an origin such as http://localhost:38081 (scheme, host, optional port; no path)'),
  v.transform((s) => new URL(s).origin.toLowerCase()),
);

const SessionTtlDays = v.pipe(
  v.string(),
  v.regex(/^\d{1,5}$/, 'expected a whole number of days'),
  v.transform(Number),
  v.minValue(1, 'expected at least 1 day'),
  v.maxValue(3650, 'expected at most 3650 days'),
);

/** D18: `1` switches the address check of metadata-document fetches off (tests only); `0` or unset keeps it. */
const Switch = v.pipe(
  v.string(),
  v.picklist(['0', '1'], 'expected 1 (tests only) or 0'),
  v.transform((s) => s === '1'),
);

/** D22: megabytes (MiB) of receipts for the whole book. */
const ReceiptsMaxMb = v.pipe(
  v.string(),
  v.regex(/^\d{1,7}$/, 'expected a whole number of megabytes'),
  v.transform(Number),
  v.minValue(1, 'expected at least 1 megabyte'),
  v.transform((mb) => mb * 1024 * 1024),
);

function read<TOut>(
  env: Record<string, string | undefined>,
  name: Variable,
  schema: v.GenericSchema<string, TOut>,
): TOut {
  const raw = env[name];
  const value = raw === undefined || raw === '' ? DEFAULTS[name] : raw.trim();
  const result = v.safeParse(schema, value);
  if (!result.success) throw new ConfigError(name, result.issues[0].message);
  return result.output;
}

/** Reads the spec's configuration table plus D2 from the environment; throws ConfigError. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const webBindRaw = (env.WEB_BIND_ADDR ?? '').trim();
  return {
    database: read(env, 'DATABASE_URL', DatabaseUrl),
    bind: read(env, 'BIND_ADDR', ListenAddressSchema),
    webBind: webBindRaw === 'off' ? null : read(env, 'WEB_BIND_ADDR', ListenAddressSchema),
    apiOrigin: read(env, 'API_ORIGIN', OriginSchema),
    webOrigin: read(env, 'WEB_ORIGIN', OriginSchema),
    sessionTtlDays: read(env, 'SESSION_TTL_DAYS', SessionTtlDays),
    cimdAllowPrivateAddresses: read(env, 'CIMD_ALLOW_PRIVATE_ADDRESSES', Switch),
    receiptsMaxBytes: read(env, 'RECEIPTS_MAX_MB', ReceiptsMaxMb),
  };
}
