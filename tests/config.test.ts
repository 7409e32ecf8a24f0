import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config';
import { freePort, isListening, runLedger } from './support/processes';

// Spec: Configuration; D2 (DATABASE_URL, WEB_BIND_ADDR, defaults, a malformed variable stops
// start-up before binding with one line naming it and exit 1). README: Configuration.

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig: defaults (spec: Configuration; D2)', () => {
  it('with nothing set: embedded database in ./data, API on 0.0.0.0:38081, web app on 0.0.0.0:38080, localhost origins, 30-day sessions', () => {
    expect(loadConfig({})).toEqual({
      database: { kind: 'embedded', dir: path.resolve('data') },
      bind: { host: '0.0.0.0', port: 38081 },
      webBind: { host: '0.0.0.0', port: 38080 },
      apiOrigin: 'http://localhost:38081',
      webOrigin: 'http://localhost:38080',
      sessionTtlDays: 30,
      cimdAllowPrivateAddresses: false,
      receiptsMaxBytes: 1024 * 1024 * 1024,
    });
  });

  it('D22: RECEIPTS_MAX_MB is a whole number of MiB, at least 1', () => {
    expect(loadConfig({ RECEIPTS_MAX_MB: '5' }).receiptsMaxBytes).toBe(5 * 1024 * 1024);
  });

  it('D2: DATABASE_URL postgres:// and postgresql:// select PostgreSQL; file:<dir> the embedded database in that directory, resolved', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@db.example:5432/ledger' }).database).toEqual({
      kind: 'postgres',
      url: 'postgres://u:p@db.example:5432/ledger',
    });
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@h/db' }).database).toEqual({ kind: 'postgres', url: 'postgresql://u@h/db' });
    expect(loadConfig({ DATABASE_URL: 'file:./books' }).database).toEqual({ kind: 'embedded', dir: path.resolve('books') });
    expect(loadConfig({ DATABASE_URL: 'file:/srv/ledger/data' }).database).toEqual({ kind: 'embedded', dir: '/srv/ledger/data' });
  });

  it('spec: API_ORIGIN is lower-cased with no trailing slash; WEB_ORIGIN alike', () => {
    const config = loadConfig({ API_ORIGIN: 'HTTP://LocalHost:38081/', WEB_ORIGIN: 'https://Books.Example.ORG/' });
    expect(config.apiOrigin).toBe('http://localhost:38081');
    expect(config.webOrigin).toBe('https://books.example.org');
    expect(loadConfig({ API_ORIGIN: 'https://api.example.com:8443' }).apiOrigin).toBe('https://api.example.com:8443');
  });

  it('BIND_ADDR and WEB_BIND_ADDR take host:port, IPv6 in brackets; WEB_BIND_ADDR off disables the web app (D2)', () => {
    const config = loadConfig({ BIND_ADDR: '127.0.0.1:9000', WEB_BIND_ADDR: '[::]:9001' });
    expect(config.bind).toEqual({ host: '127.0.0.1', port: 9000 });
    expect(config.webBind).toEqual({ host: '::', port: 9001 });
    expect(loadConfig({ WEB_BIND_ADDR: 'off' }).webBind).toBeNull();
  });

  it('SESSION_TTL_DAYS takes 1 to 3650 days', () => {
    expect(loadConfig({ SESSION_TTL_DAYS: '1' }).sessionTtlDays).toBe(1);
    expect(loadConfig({ SESSION_TTL_DAYS: '3650' }).sessionTtlDays).toBe(3650);
    expect(refusal({ SESSION_TTL_DAYS: '3651' }).variable).toBe('SESSION_TTL_DAYS');
  });

  it('D18: CIMD_ALLOW_PRIVATE_ADDRESSES=1 (tests only) lets metadata-document fetches reach private addresses; 0 or unset does not', () => {
    expect(loadConfig({ CIMD_ALLOW_PRIVATE_ADDRESSES: '1' }).cimdAllowPrivateAddresses).toBe(true);
    expect(loadConfig({ CIMD_ALLOW_PRIVATE_ADDRESSES: '0' }).cimdAllowPrivateAddresses).toBe(false);
    expect(loadConfig({ CIMD_ALLOW_PRIVATE_ADDRESSES: '' }).cimdAllowPrivateAddresses).toBe(false);
  });
});

describe('loadConfig: a malformed variable is a ConfigError whose message starts with its name (D2)', () => {
  it.each([
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'file:'],
    ['DATABASE_URL', 'postgres://'],
    ['BIND_ADDR', 'nope'],
    ['BIND_ADDR', ':99999'],
    ['BIND_ADDR', '127.0.0.1:99999'],
    ['BIND_ADDR', '127.0.0.1'],
    ['WEB_BIND_ADDR', 'x'],
    ['WEB_BIND_ADDR', '0.0.0.0:65536'],
    ['API_ORIGIN', 'localhost:38081'],
    ['API_ORIGIN', 'http://x/path'],
    ['API_ORIGIN', 'http://u@x'],
    ['API_ORIGIN', 'http://u:p@x'],
    ['API_ORIGIN', 'http://x?q=1'],
    ['API_ORIGIN', 'http://x#top'],
    ['API_ORIGIN', 'ftp://x'],
    ['API_ORIGIN', 'not a url'],
    ['WEB_ORIGIN', 'localhost:38080'],
    ['WEB_ORIGIN', 'http://x/path'],
    ['WEB_ORIGIN', 'http://u@x'],
    ['SESSION_TTL_DAYS', '0'],
    ['SESSION_TTL_DAYS', 'abc'],
    ['SESSION_TTL_DAYS', '-1'],
    ['SESSION_TTL_DAYS', '1.5'],
    ['RECEIPTS_MAX_MB', '0'],
    ['RECEIPTS_MAX_MB', '1.5'],
    ['RECEIPTS_MAX_MB', 'lots'],
    ['CIMD_ALLOW_PRIVATE_ADDRESSES', 'yes'],
    ['CIMD_ALLOW_PRIVATE_ADDRESSES', 'true'],
  ])('%s=%j', (name, value) => {
    const error = refusal({ [name]: value });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.variable).toBe(name);
    expect(error.message.startsWith(`${name} `)).toBe(true);
    expect(error.message).toMatch(new RegExp(`^${name} is malformed: \\S`));
    // One line, as it is printed as is (D2).
    expect(error.message).not.toContain('\n');
  });

  it('a malformed variable is refused even when every other one is fine', () => {
    const error = refusal({
      DATABASE_URL: 'file:/tmp/x',
      BIND_ADDR: '127.0.0.1:1',
      WEB_BIND_ADDR: 'off',
      API_ORIGIN: 'http://localhost:38081',
      WEB_ORIGIN: 'http://localhost:38080/path',
      SESSION_TTL_DAYS: '30',
    });
    expect(error.variable).toBe('WEB_ORIGIN');
  });
});

describe('ledger with a malformed variable, as a process (D2: one line naming it, exit 1, nothing listening)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'ledger-config-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serve stops before opening the database or binding, for each malformed variable', async () => {
    const cases: [string, string][] = [
      ['DATABASE_URL', 'mysql://x'],
      ['BIND_ADDR', 'nope'],
      ['WEB_BIND_ADDR', 'x'],
      ['API_ORIGIN', 'http://x/path'],
      ['WEB_ORIGIN', 'localhost:38080'],
      ['SESSION_TTL_DAYS', '0'],
    ];
    const runs = await Promise.all(
      cases.map(async ([name, value]) => {
        const [apiPort, webPort] = [await freePort(), await freePort()];
        const dataDir = path.join(dir, name);
        const env: Record<string, string> = {
          DATABASE_URL: `file:${dataDir}`,
          BIND_ADDR: `127.0.0.1:${apiPort}`,
          WEB_BIND_ADDR: `127.0.0.1:${webPort}`,
          [name]: value,
        };
        const result = await runLedger(['serve'], { env, cwd: dir });
        return { name, result, dataDir, ports: [apiPort, webPort] };
      }),
    );
    for (const { name, result, dataDir, ports } of runs) {
      expect(result.code, name).toBe(1);
      // No `listening` log line, nothing else on stdout.
      expect(result.stdout, name).toBe('');
      const lines = result.stderr.split('\n');
      expect(lines, name).toHaveLength(2);
      expect(lines[1], name).toBe('');
      expect(lines[0], name).toMatch(new RegExp(`^ledger: ${name} is malformed: \\S`));
      // Refused before anything was opened: the data directory was never created.
      expect(existsSync(dataDir), `${name}: ${dataDir} created`).toBe(false);
      for (const port of ports) expect(await isListening(port), `${name}: port ${port}`).toBe(false);
    }
    expect(existsSync(path.join(dir, 'data')), 'the default ./data was never touched').toBe(false);
  }, 60_000);

  it('serve with two malformed variables still prints exactly one line', async () => {
    const result = await runLedger(['serve'], {
      env: { DATABASE_URL: `file:${path.join(dir, 'two')}`, API_ORIGIN: 'http://u@x', SESSION_TTL_DAYS: 'abc', WEB_BIND_ADDR: 'off' },
      cwd: dir,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^ledger: (API_ORIGIN|SESSION_TTL_DAYS) is malformed: [^\n]+\n$/);
  });

  it('an admin command with a malformed variable is refused the same way, changing nothing', async () => {
    const dataDir = path.join(dir, 'admin');
    // mint-token audiences its token to API_ORIGIN (D5), so a malformed one must stop it.
    const result = await runLedger(['mint-token', 'config@example.com'], {
      env: { DATABASE_URL: `file:${dataDir}`, API_ORIGIN: 'localhost:38081' },
      cwd: dir,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^ledger: API_ORIGIN is malformed: [^\n]+\n$/);
    expect(existsSync(dataDir)).toBe(false);
  });
});
