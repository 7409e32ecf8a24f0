import { afterAll, beforeAll, describe } from 'vitest';
import { loadConfig, type Config } from '../../src/config';
import { createApp, type App } from '../../src/http/app';
import type { Logger } from '../../src/log';
import { mintToken } from '../../src/identity/tokens';
import { addUser } from '../../src/identity/users';
import { BACKENDS, openTestDatabase, postgresAvailable, type Backend, type TestDatabase } from './databases';

export interface LogLine {
  level: 'info' | 'error';
  event: string;
  fields: Record<string, unknown>;
}

export const TEST_ENV = {
  API_ORIGIN: 'http://localhost:38081',
  WEB_ORIGIN: 'http://localhost:38080',
} as const;

/** One database and one app per backend and test file; tests share them and use distinct names. */
export class Harness {
  #database?: TestDatabase;
  #app?: App;
  readonly config: Config = loadConfig(TEST_ENV);
  readonly logs: LogLine[] = [];
  readonly log: Logger = {
    info: (event, fields = {}) => this.logs.push({ level: 'info', event, fields }),
    error: (event, fields = {}) => this.logs.push({ level: 'error', event, fields }),
  };

  /** The login throttle's clock (D4); `undefined` means real time. Tests move it to check the delays. */
  clock: Date | undefined;

  constructor(readonly backend: Backend) {}

  async open(): Promise<void> {
    this.#database = await openTestDatabase(this.backend);
    this.#app = createApp({
      db: this.#database.db,
      config: this.config,
      log: this.log,
      now: () => this.clock ?? new Date(),
    });
  }

  async close(): Promise<void> {
    await this.#database?.close();
  }

  get database(): TestDatabase {
    if (!this.#database) throw new Error('the harness is not open');
    return this.#database;
  }

  get db() {
    return this.database.db;
  }

  get app(): App {
    if (!this.#app) throw new Error('the harness is not open');
    return this.#app;
  }

  /** `app.request` against the API origin, so paths read like the spec's. */
  request(path: string, init: RequestInit = {}): Promise<Response> {
    return Promise.resolve(this.app.request(new URL(path, this.config.apiOrigin).href, init));
  }

  /** A request with a bearer token and, when `body` is given, a JSON body. */
  call(token: string, method: string, path: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return this.request(path, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  }

  /** A POST of a form body (OAuth routes), with another Content-Type when a test needs one. */
  postForm(path: string, fields: Record<string, string>, contentType = 'application/x-www-form-urlencoded'): Promise<Response> {
    return this.request(path, { method: 'POST', headers: { 'content-type': contentType }, body: new URLSearchParams(fields).toString() });
  }

  /** A user (real argon2id) holding a freshly minted token. */
  async userWithToken(email: string, password = 'correct horse battery staple'): Promise<{ userId: number; token: string }> {
    const user = await addUser(this.db, email, password);
    const token = await mintToken(this.db, { userId: user.id, label: null, days: 1, audience: this.config.apiOrigin });
    return { userId: user.id, token };
  }
}

/**
 * Runs `body` once per backend: the embedded cluster always, PostgreSQL when TEST_DATABASE_URL is set (skipped,
 * and reported as skipped, otherwise).
 */
export function describeEachDatabase(title: string, body: (harness: Harness) => void): void {
  for (const backend of BACKENDS) {
    describe.skipIf(backend === 'postgres' && !postgresAvailable())(`${title} [${backend}]`, () => {
      const harness = new Harness(backend);
      beforeAll(() => harness.open());
      afterAll(() => harness.close());
      body(harness);
    });
  }
}
