import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, openTestDatabase, postgresAvailable, type TestDatabase } from './support/databases';
import { newDataRoot, stopEmbedded } from './support/embedded';
import { freePort } from './support/processes';

// Issue 6/6: crash safety. `ledger serve` is killed with SIGKILL in the middle of a stream of
// POST /transactions and started again: every transaction that got a 201 is there and balanced,
// and nothing is half-written. SIGTERM lets requests in flight finish.

const BIN = path.resolve('bin/ledger.js');

interface Serve {
  child: ChildProcess;
  base: string;
  exited: Promise<number | null>;
}

async function serve(env: Record<string, string>): Promise<Serve> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, ...env, BIND_ADDR: `127.0.0.1:${port}`, WEB_BIND_ADDR: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('"event":"listening"')) resolve();
    });
    void exited.then((code) => reject(new Error(`serve exited early with ${code}`)));
  });
  return { child, base, exited };
}

async function run(args: string[], env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code, `ledger ${args.join(' ')}`).toBe(0);
  return out.trim().split('\n').at(-1)!;
}

for (const backend of BACKENDS) {
  describe.skipIf(backend === 'postgres' && !postgresAvailable())(`crash safety [${backend}]`, () => {
    let database: TestDatabase | undefined;
    let dir: string | undefined;
    let env: Record<string, string>;
    let token: string;
    let accounts: number[];

    beforeAll(async () => {
      if (backend === 'postgres') {
        database = await openTestDatabase('postgres');
        env = { DATABASE_URL: database.url!, API_ORIGIN: 'http://localhost:38081' };
      } else {
        dir = newDataRoot('ledger-crash-');
        env = { DATABASE_URL: `file:${path.join(dir, 'data')}`, API_ORIGIN: 'http://localhost:38081' };
      }
      // Minted tokens are audienced to API_ORIGIN, so the CLI and every `serve` share one.
      await run(['user', 'add', 'crash@example.com'], env);
      token = await run(['mint-token', 'crash@example.com'], env);
    }, 60_000);

    afterAll(async () => {
      await database?.close();
      if (dir) await stopEmbedded(path.join(dir, 'data'));
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const auth = () => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

    /** Posts balanced transactions from `workers` loops until `stop()`; returns the ids that got 201. */
    function stream(base: string, workers: number) {
      const created: number[] = [];
      let stopped = false;
      const loops = Array.from({ length: workers }, async (_, w) => {
        for (let i = 0; !stopped; i++) {
          const n = 2 + ((w + i) % 5);
          const lines = Array.from({ length: n }, (_, k) => ({
            account_id: accounts[k % accounts.length]!,
            amount_cents: k === n - 1 ? -(n - 1) * 100 : 100,
          }));
          try {
            const res = await fetch(`${base}/transactions`, {
              method: 'POST',
              headers: auth(),
              body: JSON.stringify({ occurred_on: '2026-05-01', description: `w${w} #${i}`, entries: lines }),
            });
            if (res.status === 201) created.push(((await res.json()) as { id: number }).id);
          } catch {
            return; // the server is gone
          }
        }
      });
      return {
        created,
        async stop() {
          stopped = true;
          await Promise.all(loops);
        },
      };
    }

    async function checkBook(base: string, created: number[]) {
      const list = (await (await fetch(`${base}/transactions`, { headers: auth() })).json()) as {
        id: number;
        entries: { amount_cents: number }[];
      }[];
      const stored = new Set(list.map((t) => t.id));
      for (const id of created) expect(stored.has(id), `transaction ${id} got 201 but is missing`).toBe(true);
      for (const t of list) {
        expect(t.entries.length, `transaction ${t.id} has too few entries`).toBeGreaterThanOrEqual(2);
        expect(t.entries.reduce((sum, e) => sum + e.amount_cents, 0), `transaction ${t.id} is unbalanced`).toBe(0);
      }
      return list.length;
    }

    it('after SIGKILL mid-stream, every 201 is stored and balanced, nothing half-written', async () => {
      const first = await serve(env);
      accounts = [];
      for (const [name, kind] of [['Bank', 'asset'], ['Salary', 'income'], ['Food', 'expense']]) {
        const res = await fetch(`${first.base}/accounts`, { method: 'POST', headers: auth(), body: JSON.stringify({ name, kind }) });
        accounts.push(((await res.json()) as { id: number }).id);
      }
      const writes = stream(first.base, 4);
      await new Promise((r) => setTimeout(r, 1500));
      first.child.kill('SIGKILL');
      await first.exited;
      await writes.stop();
      expect(writes.created.length, 'some posts succeeded before the kill').toBeGreaterThan(0);

      const second = await serve(env);
      try {
        const count = await checkBook(second.base, writes.created);
        // A post may have committed without its 201 reaching the client, never the other way round.
        expect(count).toBeGreaterThanOrEqual(writes.created.length);
      } finally {
        second.child.kill('SIGTERM');
        expect(await second.exited).toBe(0);
      }
    });

    it('SIGTERM finishes the requests in flight and exits 0', async () => {
      const server = await serve(env);
      const writes = stream(server.base, 4);
      await new Promise((r) => setTimeout(r, 500));
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      await writes.stop();

      const again = await serve(env);
      try {
        await checkBook(again.base, writes.created);
      } finally {
        again.child.kill('SIGTERM');
        await again.exited;
      }
    });
  });
}
