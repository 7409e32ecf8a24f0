import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';
import { CHROMIUM, STRICT_BROWSER } from './support/web-session';

// Issue 42 (D28, D29, D12), part 2: GET /export/audit.zip over HTTP, on both databases. A small
// club book made through the API (a receipt, a reconciliation, a budget, a description that tries
// to be markup); the pack unzipped by the real `unzip`, checked by the real `sha256sum -c` and
// `hledger`; the fingerprint on signature.html; index.html with no script, no reference outside
// the pack, every link resolving inside it; the German pages; every bad query a 400 {error}.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const FROM = '2025-01-01';
const TO = '2025-12-31';
const MARKUP = '<script>alert("pack")</script> & Co';

const run = (cmd: string, args: string[], cwd: string) => spawnSync(cmd, args, { cwd, encoding: 'utf8' });

/** Every file under `dir`, as paths relative to it with `/`. */
function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((d) => d.isFile())
    .map((d) => path.relative(dir, path.join(d.parentPath, d.name)).split(path.sep).join('/'))
    .sort();
}

describeEachDatabase("issue 42: the auditors' pack, GET /export/audit.zip (D28)", (h) => {
  let token: string;
  const ids: Record<string, number> = {};
  const tx: Record<string, number> = {};
  const dirs: string[] = [];
  const api = (method: string, p: string, body?: unknown) => h.call(token, method, p, body);
  const expectStatus = async (res: Response, status: number) => {
    expect(res.status, await res.clone().text()).toBe(status);
    return res.status === 204 ? undefined : json(res);
  };
  const post = async (name: string, occurred_on: string, description: string, account: string, amount: number, counter = 'Bank') => {
    tx[name] = (await expectStatus(
      await api('POST', '/transactions', {
        occurred_on,
        description,
        entries: [{ account_id: ids[account], amount_cents: amount }, { account_id: ids[counter], amount_cents: -amount }],
      }),
      201,
    )).id;
  };

  /** Downloads the pack and unzips it with the real unzip; answers the folder. */
  const unpacked = async (query: string): Promise<{ dir: string; res: Response }> => {
    const res = await api('GET', `/export/audit.zip?${query}`);
    expect(res.status, res.status === 200 ? '' : await res.clone().text()).toBe(200);
    const dir = mkdtempSync(path.join(tmpdir(), 'audit-pack-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'pack.zip'), Buffer.from(await res.arrayBuffer()));
    const unzip = run('unzip', ['-q', 'pack.zip', '-d', 'pack'], dir);
    expect(unzip.status, unzip.stderr).toBe(0);
    return { dir: path.join(dir, 'pack'), res };
  };

  let en: string;
  let de: string;

  beforeAll(async () => {
    ({ token } = await h.userWithToken('treasurer@audit-pack.example'));
    await expectStatus(await api('PUT', '/settings', { book_style: 'club' }), 200);
    const kinds = [['Bank', 'asset'], ['Cash box', 'asset'], ['Reserves', 'equity'], ['Dues', 'income'], ['Venue', 'expense'], ['Kit', 'expense']] as const;
    for (const [name, kind] of kinds) ids[name] = (await expectStatus(await api('POST', '/accounts', { name, kind }), 201)).id;
    await post('opening', '2024-12-15', 'Opening balance', 'Bank', 100_000, 'Reserves');
    await post('dues', '2025-01-10', 'Dues January', 'Bank', 20_000, 'Dues');
    await post('venue', '2025-02-01', 'Hall rent', 'Venue', 12_000);
    await post('kit', '2025-03-05', MARKUP, 'Kit', 8_000);
    await post('float', '2025-03-06', 'Cash float', 'Cash box', 5_000);
    const receipt = await h.request(`/transactions/${tx.venue}/attachments?name=${encodeURIComponent('Hall rent 2025.pdf')}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/pdf' },
      body: new Uint8Array(PDF),
    });
    await expectStatus(receipt, 201);
    // The bank's statement of March: 100,000 + 20,000 − 12,000 − 8,000 − 5,000.
    await expectStatus(await api('POST', `/accounts/${ids.Bank}/reconciliations`, { statement_date: '2025-03-31', statement_balance_cents: 95_000 }), 201);
    await expectStatus(await api('POST', '/budgets', {
      name: 'Plan 2025', from: '2025-01', to: '2025-12',
      lines: [{ account_id: ids.Venue, amount_cents: 1_000, per: 'month' }, { account_id: ids.Dues, amount_cents: 24_000, per: 'period' }],
    }), 201);
    en = (await unpacked(`from=${FROM}&to=${TO}`)).dir;
    de = (await unpacked(`from=${FROM}&to=${TO}&lang=de`)).dir;
  });

  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('D28: 200 application/zip, attachment named audit-<from>-<to>.zip', async () => {
    const res = await api('GET', `/export/audit.zip?from=${FROM}&to=${TO}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="audit-${FROM}-${TO}.zip"`);
    await res.arrayBuffer();
  });

  it('D28: the files at the root; `sha256sum -c MANIFEST.sha256` passes, and it lists every file but itself and signature.html, once', () => {
    const files = filesUnder(en);
    const receiptsIndex = parse(readFileSync(path.join(en, 'receipts/index.csv')), { columns: true }) as { transaction_id: string; file: string }[];
    expect(receiptsIndex.map((r) => Number(r.transaction_id))).toEqual([tx.venue]);
    expect(files).toEqual(
      ['MANIFEST.sha256', 'changes.csv', 'index.html', 'ledger.journal', 'receipts/index.csv', `receipts/${receiptsIndex[0]!.file}`, 'signature.html', 'summary.json', 'transactions.csv'].sort(),
    );
    expect(readFileSync(path.join(en, `receipts/${receiptsIndex[0]!.file}`)).equals(PDF)).toBe(true);
    const check = run('sha256sum', ['-c', '--strict', 'MANIFEST.sha256'], en);
    expect(check.status, check.stdout + check.stderr).toBe(0);
    const listed = readFileSync(path.join(en, 'MANIFEST.sha256'), 'utf8').trimEnd().split('\n').map((l) => {
      expect(l).toMatch(/^[0-9a-f]{64} {2}\S/);
      return l.slice(66);
    });
    expect([...listed].sort()).toEqual(files.filter((f) => f !== 'MANIFEST.sha256' && f !== 'signature.html'));
    // A changed file is caught: the manifest is what sha256sum reads, not a formality.
    writeFileSync(path.join(en, 'changes.csv'), `${readFileSync(path.join(en, 'changes.csv'), 'utf8')}x`);
    const tampered = run('sha256sum', ['-c', '--quiet', 'MANIFEST.sha256'], en);
    expect(tampered.status).not.toBe(0);
    expect(tampered.stdout).toContain('changes.csv: FAILED');
  });

  it('D28: signature.html carries the fingerprint, the SHA-256 of MANIFEST.sha256, and the period', () => {
    const manifest = readFileSync(path.join(en, 'MANIFEST.sha256'));
    const page = readFileSync(path.join(en, 'signature.html'), 'utf8');
    const fingerprint = createHash('sha256').update(manifest).digest('hex');
    expect(page.match(/<code id="fingerprint">([0-9a-f]{64})<\/code>/)?.[1]).toBe(fingerprint);
    expect(page).toContain('Jan 1, 2025');
    expect(page).toContain('Dec 31, 2025');
    expect(page).toContain('Signature');
  });

  it("D28/D17: the real hledger reads ledger.journal; its balances equal summary.json's closing balance sheet", async () => {
    const summary = JSON.parse(readFileSync(path.join(en, 'summary.json'), 'utf8')) as Json;
    const bal = run('hledger', ['-f', 'ledger.journal', 'balance', '-O', 'csv', '--flat', '--no-total'], en);
    expect(bal.status, bal.stderr).toBe(0);
    const rows = new Map((parse(bal.stdout, { columns: true }) as { account: string; balance: string }[]).map((r) => [r.account, r.balance]));
    const cents = (figure: string | undefined) => Math.round(Number((figure ?? '0').split(' ')[0]) * 100);
    const closing = (section: string, name: string) => summary.balance_sheet_closing[section].lines.find((l: Json) => l.name === name).balance_cents;
    expect(cents(rows.get('assets:Bank'))).toBe(closing('assets', 'Bank'));
    expect(cents(rows.get('assets:Cash box'))).toBe(closing('assets', 'Cash box'));
    expect(closing('assets', 'Bank')).toBe(95_000);
    // Natural sign: equity is a credit.
    expect(-cents(rows.get('equity:Reserves'))).toBe(closing('equity', 'Reserves'));
    // summary.json is the routes' answer for the same dates (issue 42).
    expect(summary.balance_sheet_closing).toEqual(await json(await api('GET', `/reports/balance-sheet?as_of=${TO}`)));
  });

  it('D28: index.html has no script and no reference outside the pack; every link resolves inside it', () => {
    const page = readFileSync(path.join(en, 'index.html'), 'utf8');
    expect(page).not.toMatch(/<script/i);
    expect(page).not.toMatch(/https?:\/\//i);
    expect(page).not.toMatch(/\b(src|srcset)=/i);
    // The description that tried to be markup is shown as text (escaping by construction).
    expect(page).toContain('&lt;script&gt;alert(&quot;pack&quot;)&lt;/script&gt; &amp; Co');
    const ids = new Set([...page.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1]));
    const hrefs = [...page.matchAll(/\bhref="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    expect(hrefs).toContain('signature.html');
    expect(hrefs.some((href) => href.startsWith('receipts/'))).toBe(true);
    for (const href of hrefs) {
      if (href.startsWith('#')) expect(ids.has(href.slice(1)), href).toBe(true);
      else expect(existsSync(path.join(en, decodeURIComponent(href))), href).toBe(true);
    }
  });

  it('D28/D12: index.html shows the club wording, both balance sheets, plan and reality, the reconciliation and the checklist', () => {
    const page = readFileSync(path.join(en, 'index.html'), 'utf8');
    const summary = JSON.parse(readFileSync(path.join(en, 'summary.json'), 'utf8')) as Json;
    expect(page).toContain("Auditors&#x27; pack");
    expect(page).toContain('Statement of funds, as of Dec 31, 2024');
    expect(page).toContain('Statement of funds, as of Dec 31, 2025');
    expect(page).toContain('Income and expenditure');
    expect(page).toContain('Plan 2025');
    expect(page).toContain('Reconciled against the statement of Mar 31, 2025: statement balance €950.00');
    expect(page).toContain('Not reconciled in the period (never reconciled)');
    // The checklist: Kit (80.00 > 50.00, no receipt) and the cash box (entries, no reconciliation).
    expect(summary.checklist.missing_receipts).toEqual([tx.kit]);
    expect(summary.checklist.unreconciled_accounts).toEqual([ids['Cash box']]);
    expect(page).toContain(`href="#t${tx.kit}"`);
    expect(page).toMatch(/without a receipt<\/h3><ul><li><a href="#t\d+">Transaction \d+<\/a><\/li><\/ul>/);
    expect(page).toMatch(/no reconciliation in it<\/h3><ul><li>Cash box<\/li><\/ul>/);
  });

  it('D28/D29: lang=de writes both pages in German, in the club wording (Kassenprüfung)', () => {
    const page = readFileSync(path.join(de, 'index.html'), 'utf8');
    expect(page).toContain('<html lang="de">');
    expect(page).toContain('Unterlagen für die Kassenprüfung');
    expect(page).toContain('Vermögensübersicht');
    expect(page).toContain('Buchungen des Zeitraums');
    expect(page).toContain('950,00');
    expect(page).not.toContain('Statement of funds');
    expect(page).not.toContain('Transactions of the period');
    const signature = readFileSync(path.join(de, 'signature.html'), 'utf8');
    expect(signature).toContain('Fingerabdruck');
    expect(signature).toContain('Unterschrift');
    const check = run('sha256sum', ['-c', '--strict', 'MANIFEST.sha256'], de);
    expect(check.status, check.stdout + check.stderr).toBe(0);
  });

  it.skipIf(!existsSync(CHROMIUM) && !STRICT_BROWSER)('D28: Chromium opens index.html from file:// with the network off, requests nothing outside the pack, prints it to PDF (two pages or more, no navigation)', async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
    try {
      const context = await browser.newContext({ offline: true });
      const page = await context.newPage();
      const requested: string[] = [];
      page.on('request', (request) => requested.push(request.url()));
      const index = `file://${path.join(en, 'index.html')}`;
      await page.goto(index, { waitUntil: 'load' });
      expect(await page.title()).toContain("Auditors' pack");
      expect(await page.locator('#t' + tx.kit).textContent()).toContain('<script>alert("pack")</script> & Co');
      expect(requested.filter((url) => !url.startsWith(`file://${en}/`))).toEqual([]);
      await page.emulateMedia({ media: 'print' });
      expect(await page.locator('nav').isVisible()).toBe(false);
      const pdf = (await page.pdf({ format: 'A4' })).toString('latin1');
      const pages = pdf.match(/\/Type\s*\/Page(?!s)/g) ?? [];
      expect(pages.length).toBeGreaterThanOrEqual(2);
      // The receipt link opens the receipt inside the pack.
      const receipt = await page.locator('a[href^="receipts/"]').first().getAttribute('href');
      expect(existsSync(path.join(en, decodeURIComponent(receipt!)))).toBe(true);
      await context.close();
    } finally {
      await browser.close();
    }
  }, 120_000);

  it('D28: a missing or wrong query is 400 {error} naming the field, never a 500', async () => {
    const cases: [string, RegExp][] = [
      [`to=${TO}`, /from/],
      [`from=${FROM}`, /to/],
      [`from=2025-13-01&to=${TO}`, /from/],
      [`from=${FROM}&to=2024-12-31`, /to/],
      [`from=${FROM}&to=${TO}&lang=fr`, /lang/],
      [`from=${FROM}&to=${TO}&receipts_over=-1`, /receipts_over/],
      [`from=${FROM}&to=${TO}&receipts_over=50,00`, /receipts_over/],
    ];
    for (const [query, field] of cases) {
      const res = await api('GET', `/export/audit.zip?${query}`);
      expect(res.status, query).toBe(400);
      const body = await json(res);
      expect(Object.keys(body), query).toEqual(['error']);
      expect(body.error, query).toMatch(field);
    }
  });
});
