import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';

/**
 * The built `ledger serve` (`npm run build` first) on 127.0.0.1:`port`, for a bench. Its JSON log
 * goes to `logFile`, never to a pipe of the bench's own: a synchronous write to a full pipe stalls
 * the server. Resolves once GET /health answers, with the moment it did (performance.now()).
 */
export async function startServe(port: number, databaseUrl: string, logFile: string): Promise<{ child: ChildProcess; healthyAt: number }> {
  mkdirSync(path.dirname(logFile), { recursive: true });
  const log = openSync(logFile, 'w');
  const child = spawn(process.execPath, ['bin/ledger.js', 'serve'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, BIND_ADDR: `127.0.0.1:${port}`, WEB_BIND_ADDR: 'off', API_ORIGIN: `http://localhost:${port}` },
    stdio: ['ignore', log, 'inherit'],
  });
  closeSync(log); // the child holds its own copy
  let exited = false;
  child.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error('serve exited before it answered GET /health');
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return { child, healthyAt: performance.now() };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
