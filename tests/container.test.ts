import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConnection } from '../src/db/database';
import { newDataRoot } from './support/embedded';
import { freePort } from './support/processes';

// D23, issue 6/8: where self-hosters run things. The image from the repository's Dockerfile, built
// and run with podman (the local stand-in for node:20-bookworm-slim: ../shared/tools/container-base.sh;
// --format docker keeps HEALTHCHECK), compose.yaml as Debian's podman-compose reads it, the image
// against a PostgreSQL server as compose.yaml wires it (the system PostgreSQL of TEST_DATABASE_URL:
// the official postgres image cannot be pulled here), and the systemd units as systemd-analyze
// verifies them (no systemd runs here to start them). Skipped, with the reason, where a tool is
// missing; with CI=true nothing is skipped.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CI = process.env.CI === 'true';
const BASE = 'docker.io/library/node:20-bookworm-slim';
const IMAGE = 'localhost/ledger:test';
const run = `ledger-test-${process.pid}`;

const has = (command: string, args: string[]) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;
const PODMAN = has('podman', ['--version']);
const BASE_PRESENT = PODMAN && has('podman', ['image', 'exists', BASE]);
const PODMAN_COMPOSE = has('podman-compose', ['version']);
const SYSTEMD_ANALYZE = has('systemd-analyze', ['--version']);

function skipUnlessCi(ok: boolean, reason: string): boolean {
  if (ok) return false;
  if (CI) return false; // CI runs it, and fails where the tool is missing
  console.warn(`tests/container.test.ts: skipped: ${reason}`);
  return true;
}
const SKIP_IMAGE = skipUnlessCi(PODMAN && BASE_PRESENT, PODMAN ? `no ${BASE}: run bash ../shared/tools/container-base.sh` : 'podman is not installed (bash ../shared/tools/container-base.sh installs it)');

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (never through a shell). */
function sh(command: string, args: string[], options: { timeout?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<Result> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: options.cwd ?? ROOT, env: options.env ?? process.env, timeout: options.timeout ?? 120_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

async function ok(command: string, args: string[], options?: Parameters<typeof sh>[2]): Promise<string> {
  const result = await sh(command, args, options);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.code}): ${result.stderr.slice(-3000)}`);
  return result.stdout;
}

/** podman build as the README says: the npm set-up as a secret (never copied), the CA store read-only. */
function buildArgs(extra: string[] = []): string[] {
  const args = ['build', '--network=host', '--format', 'docker', ...extra];
  const userconfig = spawnSync('npm', ['config', 'get', 'userconfig'], { encoding: 'utf8' }).stdout.trim();
  const globalconfig = spawnSync('npm', ['config', 'get', 'globalconfig'], { encoding: 'utf8' }).stdout.trim();
  if (userconfig && existsSync(userconfig)) args.push('--secret', `id=npmrc,src=${userconfig}`);
  if (existsSync('/etc/ssl/certs')) args.push('-v', '/etc/ssl/certs:/etc/ssl/certs:ro');
  if (globalconfig && existsSync(globalconfig)) args.push('-v', `${globalconfig}:/usr/local/etc/npmrc:ro`);
  return [...args, '-t', IMAGE, '.'];
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const start = performance.now();
  const value = await work();
  return { value, seconds: (performance.now() - start) / 1000 };
}

async function untilHealthy(url: string, container: string, ms = 90_000): Promise<number> {
  const start = performance.now();
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      if (res.ok && (await res.text()) === 'ok') return (performance.now() - start) / 1000;
    } catch {
      // not listening yet
    }
    const state = (await sh('podman', ['inspect', '--format', '{{.State.Running}}', container])).stdout.trim();
    if (state === 'false') break;
  }
  const logs = await sh('podman', ['logs', container]);
  throw new Error(`${container} did not answer /health: ${logs.stdout.slice(-2000)} ${logs.stderr.slice(-2000)}`);
}

describe.skipIf(SKIP_IMAGE)('the container image (D23)', () => {
  const volume = `${run}-data`;
  const containers: string[] = [];
  let api = '';
  let web = '';
  let ports: string[] = [];
  let token = '';
  let accounts: { bank: number; food: number };
  const posted: number[] = [];

  /** Ledger in a container as the README runs it: read-only, a tmpfs /tmp, the volume at /data, no DATABASE_URL. */
  async function start(name: string): Promise<string> {
    const container = `${run}-${name}`;
    containers.push(container);
    await ok('podman', ['run', '-d', '--name', container, '--read-only', '--tmpfs', '/tmp', '-v', `${volume}:/data`, ...ports, IMAGE]);
    return container;
  }
  const call = (method: string, route: string, body?: unknown) =>
    fetch(`${api}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(10_000),
    });
  const transaction = (n: number) => ({
    occurred_on: '2026-03-01',
    description: `Groceries ${n}`,
    entries: [
      { account_id: accounts.food, amount_cents: 100 + n },
      { account_id: accounts.bank, amount_cents: -(100 + n) },
    ],
  });

  beforeAll(async () => {
    // The layer cache as this machine has it (the dependencies' layer is reused while
    // package-lock.json is unchanged), then again with nothing changed.
    if (process.env.LEDGER_CONTAINER_UNCACHED === '1') {
      const uncached = await timed(() => ok('podman', buildArgs(['--no-cache']), { timeout: 900_000 }));
      console.log(`container: image built without the layer cache in ${uncached.seconds.toFixed(1)} s`);
    }
    const first = await timed(() => ok('podman', buildArgs(), { timeout: 900_000 }));
    const again = await timed(() => ok('podman', buildArgs(), { timeout: 300_000 }));
    const size = Number((await ok('podman', ['image', 'inspect', '--format', '{{.Size}}', IMAGE])).trim());
    console.log(
      `container: image ${IMAGE} built in ${first.seconds.toFixed(1)} s (with this machine's layer cache), ${again.seconds.toFixed(1)} s with nothing changed; ${(size / 1e6).toFixed(0)} MB`,
    );
    // The target on the stand-in base (the base alone is some 293 MB).
    expect(size).toBeLessThanOrEqual(400e6);
    const [apiPort, webPort] = [await freePort(), await freePort()];
    api = `http://127.0.0.1:${apiPort}`;
    web = `http://127.0.0.1:${webPort}`;
    ports = ['-p', `127.0.0.1:${apiPort}:38081`, '-p', `127.0.0.1:${webPort}:38080`];
  }, 1_200_000);

  afterAll(async () => {
    for (const container of containers) await sh('podman', ['rm', '-f', '-v', container]);
    await sh('podman', ['volume', 'rm', '-f', volume]);
  }, 120_000);

  it('runs as an unprivileged user on a read-only root with a volume at /data and no DATABASE_URL: /health, its HEALTHCHECK, the web app, `ledger user add` inside', async () => {
    const container = await start('first');
    const seconds = await untilHealthy(api, container);
    console.log(`container: /health answered ${seconds.toFixed(1)} s after podman run (a new cluster made in the volume)`);
    expect((await ok('podman', ['exec', container, 'id', '-u'])).trim()).not.toBe('0');
    expect((await ok('podman', ['inspect', '--format', '{{.Config.User}}', container])).trim()).toBe('node');
    expect((await ok('podman', ['exec', container, 'printenv', 'DATABASE_URL'])).trim()).toBe('file:/data');
    // The cluster is in the volume, 0700; nothing else is writable.
    expect((await ok('podman', ['exec', container, 'stat', '-c', '%a %U', '/data'])).trim()).toBe('700 node');
    expect((await ok('podman', ['exec', container, 'ls', '/data'])).split('\n')).toContain('PG_VERSION');
    expect((await sh('podman', ['exec', container, 'touch', '/app/x'])).code).not.toBe(0);
    // PID 1 is tini, which passes signals on.
    expect((await ok('podman', ['exec', container, 'cat', '/proc/1/comm'])).trim()).toBe('tini');
    // The image's HEALTHCHECK (kept by --format docker) passes.
    expect((await sh('podman', ['healthcheck', 'run', container])).code).toBe(0);
    const home = await fetch(`${web}/`, { redirect: 'manual' });
    expect([200, 308]).toContain(home.status); // another Host than WEB_ORIGIN's is redirected there

    const added = (await ok('podman', ['exec', container, 'ledger', 'user', 'add', 'me@example.com'])).trim().split('\n');
    expect(added.at(-1)).toMatch(/^[A-HJ-NP-Za-km-z2-9]{20}$/);
    token = (await ok('podman', ['exec', container, 'ledger', 'mint-token', 'me@example.com'])).trim().split('\n').at(-1)!;
    expect(token).toMatch(/^lg_/);
    const made: Record<string, number> = {};
    for (const [key, name, kind] of [['bank', 'Bank', 'asset'], ['food', 'Food', 'expense']] as const) {
      const res = await call('POST', '/accounts', { name, kind });
      expect(res.status, await res.clone().text()).toBe(201);
      made[key] = ((await res.json()) as { id: number }).id;
    }
    accounts = made as typeof accounts;
    const res = await call('POST', '/transactions', transaction(0));
    expect(res.status, await res.clone().text()).toBe(201);
    posted.push(((await res.json()) as { id: number }).id);
  }, 180_000);

  it('SIGTERM (podman stop) stops it cleanly within 10 s', async () => {
    const container = containers.at(-1)!;
    const stop = await timed(() => ok('podman', ['stop', '-t', '10', container], { timeout: 30_000 }));
    console.log(`container: podman stop took ${stop.seconds.toFixed(1)} s`);
    expect(stop.seconds).toBeLessThan(10);
    expect((await ok('podman', ['inspect', '--format', '{{.State.ExitCode}}', container])).trim()).toBe('0');
    expect((await ok('podman', ['logs', container])).split('\n').some((line) => line.includes('"event":"stopped"'))).toBe(true);
  }, 60_000);

  it('a new container on the same volume has the user and the transaction', async () => {
    const container = await start('second');
    await untilHealthy(api, container);
    expect(await ok('podman', ['exec', container, 'ledger', 'user', 'list'])).toContain('me@example.com');
    const res = await call('GET', `/transactions/${posted[0]}`);
    expect(res.status).toBe(200);
  }, 120_000);

  it('kill -9 of the container while transactions are posted, then a new one: every acknowledged transaction is there', async () => {
    const container = containers.at(-1)!;
    let acknowledged = 0;
    let killing: Promise<unknown> | undefined;
    const worker = async (w: number) => {
      for (let n = 1; ; n++) {
        try {
          const res = await call('POST', '/transactions', transaction(w * 10_000 + n));
          if (res.status !== 201) return;
          posted.push(((await res.json()) as { id: number }).id);
        } catch {
          return; // the container is gone
        }
        // SIGKILL right after the first acknowledgements, with posts in flight.
        if (++acknowledged === 40) killing = sh('podman', ['kill', '--signal', 'KILL', container]);
      }
    };
    await Promise.all([1, 2, 3, 4].map(worker));
    await killing;
    expect(acknowledged).toBeGreaterThanOrEqual(40);
    await sh('podman', ['wait', container]);
    const next = await start('after-kill');
    await untilHealthy(api, next);
    const missing: number[] = [];
    for (const id of posted) if ((await call('GET', `/transactions/${id}`)).status !== 200) missing.push(id);
    console.log(`container: ${posted.length} acknowledged transactions before and around the SIGKILL, ${missing.length} missing after the restart`);
    expect(missing).toEqual([]);
    const stop = await timed(() => ok('podman', ['stop', '-t', '10', next], { timeout: 30_000 }));
    expect(stop.seconds).toBeLessThan(10);
  }, 180_000);
});

const SKIP_POSTGRES = SKIP_IMAGE || skipUnlessCi(Boolean(process.env.TEST_DATABASE_URL), 'TEST_DATABASE_URL is not set (the PostgreSQL server the image is run against)');

describe.skipIf(SKIP_POSTGRES)('the image against a PostgreSQL server, as compose.yaml wires it (D23)', () => {
  const name = `ledger_t_container_${process.pid}`;
  const container = `${run}-postgres`;
  const server = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const maintenance = new URL(server.href);
  maintenance.pathname = '/postgres';

  beforeAll(async () => {
    if (!(await sh('podman', ['image', 'exists', IMAGE])).code) return;
    await ok('podman', buildArgs(), { timeout: 900_000 });
  }, 1_200_000);

  afterAll(async () => {
    await sh('podman', ['rm', '-f', '-v', container]);
    const admin = openConnection(maintenance.href);
    await admin.unsafe(`drop database if exists "${name}" with (force)`).catch(() => {});
    await admin.end();
  }, 60_000);

  it('an empty database: Ledger migrates it, answers /health, takes `ledger user add` inside, and stops within 10 s', async () => {
    const admin = openConnection(maintenance.href);
    try {
      await admin.unsafe(`create database "${name}"`);
    } finally {
      await admin.end();
    }
    const url = new URL(server.href);
    url.pathname = `/${name}`;
    const [apiPort, webPort] = [await freePort(), await freePort()];
    // compose.yaml: DATABASE_URL=postgres://…@postgres:5432/ledger on the compose network; here the
    // server on this machine through the host's network.
    await ok('podman', [
      'run', '-d', '--name', container, '--network=host', '--read-only', '--tmpfs', '/tmp',
      '-e', `DATABASE_URL=${url.href}`, '-e', `BIND_ADDR=127.0.0.1:${apiPort}`, '-e', `WEB_BIND_ADDR=127.0.0.1:${webPort}`,
      IMAGE,
    ]);
    await untilHealthy(`http://127.0.0.1:${apiPort}`, container);
    const logs = await ok('podman', ['logs', container]);
    expect(logs).toMatch(/"event":"listening".*"database":"postgres"/);
    const added = (await ok('podman', ['exec', container, 'ledger', 'user', 'add', 'me@example.com'])).trim().split('\n');
    expect(added.at(-1)).toMatch(/^[A-HJ-NP-Za-km-z2-9]{20}$/);
    const stop = await timed(() => ok('podman', ['stop', '-t', '10', container], { timeout: 30_000 }));
    expect(stop.seconds).toBeLessThan(10);
    expect((await ok('podman', ['inspect', '--format', '{{.State.ExitCode}}', container])).trim()).toBe('0');
  }, 180_000);
});

describe.skipIf(skipUnlessCi(PODMAN_COMPOSE, 'podman-compose is not installed (apt-get install podman-compose)'))('compose.yaml (D23)', () => {
  it('Debian\'s podman-compose reads it: ledger and the official postgres image, each with its named volume, DATABASE_URL pointing at postgres, read-only with a tmpfs /tmp, ports 38080 and 38081', async () => {
    // podman-compose 1.0.3 has no `config`: a dry run through a podman that does nothing prints
    // the commands `up` would run, as read from the file.
    const project = `lc${process.pid}`;
    const out = await ok('podman-compose', ['--podman-path', '/bin/true', '--dry-run', '-p', project, '-f', 'compose.yaml', 'up', '-d', '--no-build'], {
      env: { ...process.env, POSTGRES_PASSWORD: 'from-the-env-file' },
    });
    const runs = out.split('\n').filter((line) => / run --name=/.test(line));
    const postgres = runs.find((line) => line.includes(`--name=${project}_postgres_1`));
    const ledger = runs.find((line) => line.includes(`--name=${project}_ledger_1`));
    expect(postgres, out).toBeDefined();
    expect(ledger, out).toBeDefined();
    expect(postgres).toContain(`-v ${project}_postgres-data:/var/lib/postgresql`);
    expect(postgres).toContain('-e POSTGRES_PASSWORD=from-the-env-file');
    expect(postgres).toMatch(/--healthcheck-command .*pg_isready/);
    expect(postgres).toMatch(/docker\.io\/library\/postgres:18$/);
    expect(ledger).toContain('-e DATABASE_URL=postgres://ledger:from-the-env-file@postgres:5432/ledger');
    expect(ledger).toContain(`-v ${project}_ledger-data:/data`);
    expect(ledger).toContain('--read-only');
    expect(ledger).toContain('--tmpfs /tmp');
    expect(ledger).toContain('-p 38080:38080');
    expect(ledger).toContain('-p 38081:38081');
    expect(ledger).toMatch(/localhost\/ledger:latest$/);
    // What podman-compose 1.0.3 does not act on, read from the file itself (Docker Compose does):
    // Ledger waits until PostgreSQL's health check passes.
    const yaml = await ok('python3', ['-c', 'import json, sys, yaml; print(json.dumps(yaml.safe_load(open("compose.yaml"))))']);
    const compose = JSON.parse(yaml) as { services: Record<string, { depends_on?: Record<string, { condition: string }>; build?: string }>; volumes: Record<string, unknown> };
    expect(compose.services.ledger!.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(compose.services.ledger!.build).toBe('.');
    expect(Object.keys(compose.volumes).sort()).toEqual(['ledger-data', 'postgres-data']);
  }, 60_000);
});

const UNITS = ['deploy/ledger.service', 'deploy/ledger-backup.service', 'deploy/ledger-backup.timer'];

describe.skipIf(skipUnlessCi(SYSTEMD_ANALYZE, 'systemd-analyze is not installed'))('the systemd units (D23)', () => {
  it('systemd-analyze verify passes for the service, the backup service and its timer', async () => {
    const result = await sh('systemd-analyze', ['verify', ...UNITS]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split('\n').filter((line) => /ledger/.test(line)), result.stderr).toEqual([]);
  });

  it('systemd-analyze security: the exposure the README states', async () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    for (const unit of ['ledger.service', 'ledger-backup.service']) {
      const result = await sh('systemd-analyze', ['security', '--offline=true', '--no-pager', `deploy/${unit}`]);
      const level = /Overall exposure level for \S+: ([\d.]+)/.exec(result.stdout)?.[1];
      console.log(`systemd-analyze security: ${unit} ${level}`);
      expect(level, result.stdout + result.stderr).toBeDefined();
      expect(Number(level)).toBeLessThan(2);
      expect(readme).toContain(`\`${unit}\` ${level}`);
    }
  });

  it('the units: their own user, the state directory, the sandbox, the passphrase as a credential and never in the environment', () => {
    const service = readFileSync(path.join(ROOT, 'deploy/ledger.service'), 'utf8');
    for (const line of ['User=ledger', 'StateDirectory=ledger', 'Environment=DATABASE_URL=file:/var/lib/ledger', 'WorkingDirectory=/opt/ledger', 'Restart=on-failure', 'ProtectSystem=strict', 'ProtectHome=yes', 'NoNewPrivileges=yes', 'PrivateTmp=yes', 'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6', 'KillMode=mixed']) {
      expect(service.split('\n')).toContain(line);
    }
    const backup = readFileSync(path.join(ROOT, 'deploy/ledger-backup.service'), 'utf8');
    expect(backup.split('\n')).toContain('LoadCredential=backup-passphrase:/etc/ledger/backup-passphrase');
    expect(backup).not.toMatch(/^Environment=.*PASSPHRASE/m);
    expect(readFileSync(path.join(ROOT, 'deploy/ledger-backup.timer'), 'utf8').split('\n')).toContain('OnCalendar=daily');
  });
});

describe('deploy/ledger-backup.sh, as ledger-backup.service runs it (D23)', () => {
  let root: string;
  beforeAll(() => {
    root = newDataRoot('ledger-backup-unit-');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const backupOnce = (env: Record<string, string>) =>
    sh('sh', [path.join(ROOT, 'deploy/ledger-backup.sh')], {
      env: { ...process.env, DATABASE_URL: `file:${path.join(root, 'data')}`, LEDGER_BACKUP_DIR: path.join(root, 'backups'), LEDGER_BACKUP_KEEP: '2', ...env },
      cwd: root,
      timeout: 60_000,
    });

  it('encrypts with the passphrase of the credential and keeps only the newest LEDGER_BACKUP_KEEP; without the credential it fails and writes nothing (issue 36 item 3)', async () => {
    const credentials = path.join(root, 'credentials');
    mkdirSync(credentials, { mode: 0o700 });
    mkdirSync(path.join(root, 'backups'), { mode: 0o700 });
    writeFileSync(path.join(credentials, 'backup-passphrase'), `${randomBytes(18).toString('base64')}\n`, { mode: 0o600 });
    // Something else in the directory is never touched.
    writeFileSync(path.join(root, 'backups', 'notes.txt'), 'mine\n');
    for (let i = 0; i < 3; i++) {
      const result = await backupOnce({ CREDENTIALS_DIRECTORY: credentials });
      expect(result.code, result.stderr).toBe(0);
      await new Promise((r) => setTimeout(r, 1100)); // names are by the second
    }
    const kept = readdirSync(path.join(root, 'backups')).filter((name) => name.endsWith('.ledger-backup')).sort();
    expect(kept).toHaveLength(2);
    for (const name of kept) expect(readFileSync(path.join(root, 'backups', name), 'utf8').split('\n')[0]).toBe('age-encryption.org/v1');
    expect(readdirSync(path.join(root, 'backups'))).toContain('notes.txt');

    // Never a plain backup made silently: one anyone who can write there could swap (tests/backup.test.ts has the other cases).
    const plain = await backupOnce({ CREDENTIALS_DIRECTORY: '' });
    expect(plain.code).not.toBe(0);
    expect(plain.stderr).toMatch(/^ledger-backup: no credential backup-passphrase/);
    expect(readdirSync(path.join(root, 'backups')).filter((name) => name.endsWith('.ledger-backup')).sort()).toEqual(kept);
  }, 120_000);
});
