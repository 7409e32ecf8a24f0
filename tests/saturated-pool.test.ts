import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { openPostgres, type Database } from '../src/db/database';
import { createApp } from '../src/http/app';
import type { Logger } from '../src/log';
import { mintToken } from '../src/identity/tokens';
import { addUser } from '../src/identity/users';
import { openTestDatabase, postgresAvailable, type TestDatabase } from './support/databases';
import { TEST_ENV } from './support/harness';
import { freePort, startServe, type ServeProcess } from './support/processes';
import { prepareStormUsers, stormAndCheck, type StormUsers } from './support/storm';

// Issue 1/7, item 1 (stack notes: the postgres.js pipelining trap): a database transaction never
// shares a connection with other queries, so a saturated pool loses no confirmed write. Run in
// one process on a pool of 3 connections, and across two `ledger serve` processes.

const STORM_MS = 120_000;

async function usersOf(database: Database, apiOrigin: string): Promise<StormUsers> {
  return prepareStormUsers(async (email, password) => {
    const user = await addUser(database.db, email, password);
    return { token: await mintToken(database.db, { userId: user.id, label: null, days: 1, audience: apiOrigin }) };
  });
}

describe.skipIf(!postgresAvailable())('a saturated pool loses no confirmed write (issue 1/7) [postgres]', () => {
  let test: TestDatabase;
  let small: Database;
  const faults: unknown[] = [];

  beforeAll(async () => {
    test = await openTestDatabase('postgres');
    small = await openPostgres(test.url!, { max: 3 });
  });

  afterAll(async () => {
    await small?.close();
    await test?.close();
  });

  it('over 200 parallel requests on 3 connections: no 500, every confirmed write stored, no connection left in a transaction', async () => {
    const config = loadConfig(TEST_ENV);
    const log: Logger = { info: () => {}, error: (event, fields) => faults.push({ event, fields }) };
    const app = createApp({ db: small.db, config, log });
    const request = (path: string, init?: RequestInit) => Promise.resolve(app.request(new URL(path, config.apiOrigin).href, init));
    const { requests } = await stormAndCheck(request, await usersOf(small, config.apiOrigin), test.url!);
    expect(requests).toBeGreaterThanOrEqual(200);
    expect(faults).toEqual([]);
  }, STORM_MS);
});

describe.skipIf(!postgresAvailable())('two ledger serve instances under a storm lose no confirmed write (issue 1/7) [postgres]', () => {
  let test: TestDatabase;
  let instances: ServeProcess[] = [];

  beforeAll(async () => {
    test = await openTestDatabase('postgres');
    instances = await Promise.all(
      [0, 1].map(async () =>
        startServe({
          env: {
            DATABASE_URL: test.url!,
            BIND_ADDR: `127.0.0.1:${await freePort()}`,
            WEB_BIND_ADDR: 'off',
            API_ORIGIN: TEST_ENV.API_ORIGIN,
            WEB_ORIGIN: TEST_ENV.WEB_ORIGIN,
          },
        }),
      ),
    );
  }, 90_000);

  afterAll(async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await test?.close();
  });

  it('over 200 parallel requests spread over both: no 500, every confirmed write stored, no connection left in a transaction', async () => {
    let turn = 0;
    const request = (path: string, init?: RequestInit) => fetch(`${instances[turn++ % 2]!.url}${path}`, init);
    const { requests } = await stormAndCheck(request, await usersOf(test, TEST_ENV.API_ORIGIN), test.url!);
    expect(requests).toBeGreaterThanOrEqual(200);
    for (const instance of instances) {
      expect(instance.logs.filter((l) => l.level === 'error'), 'no fault logged').toEqual([]);
      expect(instance.logs.some((l) => l.event === 'request' && l.path === '/oauth/token'), 'each instance answered').toBe(true);
    }
  }, STORM_MS);
});
