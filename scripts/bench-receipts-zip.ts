/**
 * npm run bench:receipts-zip — D22 (issue "5/8 Receipts on every transaction"): a year of 2,000
 * photos downloads as one ZIP with the server's memory flat.
 *
 * A fresh embedded book gets a user, a token, 2,000 transactions of one year and one receipt of
 * RECEIPT_KIB (default 256 KiB of random bytes behind a JPEG header) on each, written straight into
 * the table. Then the built `ledger serve` starts; its resident memory (VmRSS of the process and
 * the PostgreSQL cluster is its own: only the Node process is measured) is sampled every 50 ms
 * while GET /export/receipts.zip of that year is read to the end at full speed, and the archive's
 * size and entry count are checked. Prints the RSS before, the peak during and the growth, with
 * the archive's size: flat means the growth stays near one receipt, however many there are.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openConnection } from '../src/db/database';
import { freePort, openEmbedded } from '../src/db/embedded';
import { openPostgres } from '../src/db/database';
import { mintToken } from '../src/identity/tokens';
import { addUser } from '../src/identity/users';
import { startServe } from './bench-serve';

const RECEIPTS = Number(process.env.BENCH_RECEIPTS ?? 2_000);
const RECEIPT_KIB = Number(process.env.BENCH_RECEIPT_KIB ?? 256);

const rssOf = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.replace(/\D+/g, '')) / 1024;
};


async function main(): Promise<void> {
  mkdirSync('bench-results', { recursive: true });
  const dir = path.resolve('bench-results', 'receipts-zip-data');
  rmSync(dir, { recursive: true, force: true });
  const seeding = await openEmbedded(dir, 'admin');
  const port = await freePort();
  const database = await openPostgres(seeding.url);
  const user = await addUser(database.db, 'bench@receipts.example', 'a bench password');
  const token = await mintToken(database.db, { userId: user.id, label: 'bench', days: 1, audience: `http://localhost:${port}` });
  const sql = openConnection(seeding.url, { max: 1 });
  const [bank] = await sql<{ id: number }[]>`insert into accounts (name, kind) values ('Bank', 'asset') returning id`;
  const [spent] = await sql<{ id: number }[]>`insert into accounts (name, kind) values ('Supplies', 'expense') returning id`;
  const jpegHeader = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]);
  for (let i = 0; i < RECEIPTS; i++) {
    const on = new Date(Date.UTC(2025, 0, 1) + (i % 365) * 86_400_000).toISOString().slice(0, 10);
    const bytes = Buffer.concat([jpegHeader, randomBytes(RECEIPT_KIB * 1024 - jpegHeader.length)]);
    await sql.begin(async (tx) => {
      const [t] = await tx<{ id: number }[]>`insert into transactions (occurred_on, description, created_by) values (${on}, ${`Receipt ${i}`}, ${user.id}) returning id`;
      await tx`insert into entries (transaction_id, occurred_on, account_id, amount_cents) values (${t!.id}, ${on}, ${spent!.id}, 100), (${t!.id}, ${on}, ${bank!.id}, -100)`;
      await tx`insert into attachments (transaction_id, name, content_type, size, sha256, bytes, created_by_email)
        values (${t!.id}, ${`receipt-${i}.jpg`}, 'image/jpeg', ${bytes.length}, encode(sha256(${bytes}::bytea), 'hex'), ${bytes}, ${user.email})`;
    });
  }
  await sql.end();
  await database.close();
  await seeding.release();

  const { child } = await startServe(port, `file:${dir}`, path.resolve('bench-results', 'receipts-zip-serve.log'));
  await new Promise((r) => setTimeout(r, 1_000));
  const before = rssOf(child.pid!);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(child.pid!))), 50);
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/export/receipts.zip?from=2025-01-01&to=2025-12-31`, { headers: { authorization: `Bearer ${token}` } });
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) size += chunk.length;
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const result = {
    receipts: RECEIPTS,
    receipt_kib: RECEIPT_KIB,
    status: res.status,
    archive_mib: Number((size / 1024 / 1024).toFixed(1)),
    seconds: Number(seconds.toFixed(1)),
    rss_before_mib: Number(before.toFixed(1)),
    rss_peak_mib: Number(peak.toFixed(1)),
    growth_mib: Number((peak - before).toFixed(1)),
  };
  console.log(result);
  writeFileSync(path.resolve('bench-results', 'receipts-zip.json'), `${JSON.stringify(result, null, 2)}\n`);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
  if (res.status !== 200 || size < RECEIPTS * RECEIPT_KIB * 1024) throw new Error('the archive is short');
}

await main();
