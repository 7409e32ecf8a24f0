/**
 * Issue 2/7 item 7: what the embedded default costs a Raspberry Pi or a 1 GB VPS. `ledger serve`
 * on a new data directory: first start (initdb included) and restart to GET /health, idle memory
 * of the service plus its cluster, and how long an admin command takes with and without `serve`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const BIN = path.resolve('bin/ledger.js');

async function serveUntilHealthy(env: NodeJS.ProcessEnv, port: number): Promise<{ child: ChildProcess; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve'], { env, stdio: 'ignore' });
  for (;;) {
    if (child.exitCode !== null) throw new Error('serve exited before it answered GET /health');
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return { child, ms: Math.round(performance.now() - started) };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Proportional set size in MiB (shared pages split between the processes that share them). */
function pssMiB(pid: number): number {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) / 1024;
}

/** The postmaster (postmaster.pid's first line) and its children. */
function clusterPids(dir: string): number[] {
  const postmaster = Number(readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

function commandMs(env: NodeJS.ProcessEnv): number {
  const runs = [0, 1, 2].map(() => {
    const started = performance.now();
    const result = spawnSync(process.execPath, [BIN, 'user', 'list'], { env, stdio: 'ignore' });
    if (result.status !== 0) throw new Error('ledger user list failed');
    return performance.now() - started;
  });
  return Math.round(runs.sort((a, b) => a - b)[1]!);
}

export async function measureEmbedded(port: number): Promise<Record<string, number>> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'ledger-bench-embedded-'));
  chmodSync(root, 0o711); // as root the cluster runs as postgres, which must reach its directory
  const dir = path.join(root, 'data');
  const env = { ...process.env, DATABASE_URL: `file:${dir}`, BIND_ADDR: `127.0.0.1:${port}`, WEB_BIND_ADDR: 'off' };
  try {
    const first = await serveUntilHealthy(env, port);
    await stop(first.child);
    const again = await serveUntilHealthy(env, port);
    await new Promise((r) => setTimeout(r, 2000));
    const service = pssMiB(again.child.pid!);
    const cluster = clusterPids(dir).reduce((sum, pid) => sum + pssMiB(pid), 0);
    const whileServing = commandMs(env);
    await stop(again.child);
    const standalone = commandMs(env);
    if (existsSync(path.join(dir, 'postmaster.pid'))) throw new Error('the cluster was left running');
    return {
      first_start_to_health_ms: first.ms,
      restart_to_health_ms: again.ms,
      idle_service_pss_mib: Math.round(service),
      idle_cluster_pss_mib: Math.round(cluster),
      idle_total_pss_mib: Math.round(service + cluster),
      admin_command_while_serving_ms: whileServing,
      admin_command_alone_ms: standalone,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
