import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

// README "Layout": arrows run one way, `http` → domain → `db`. Issue 36 item 7: src/background.ts
// took the idempotency cleanup from src/http/; the store's database part is src/db/idempotency-keys.ts.

const SRC = new URL('../src/', import.meta.url);

/** The modules a file imports, as written. */
async function importsOf(file: string): Promise<string[]> {
  const text = await readFile(new URL(file, SRC), 'utf8');
  return [...text.matchAll(/^(?:import|export)\b[^;]*?from '([^']+)'/gms)].map((m) => m[1]!);
}

describe('layers (issue 36 item 7, README "Layout")', () => {
  it('src/background.ts imports nothing from src/http/', async () => {
    expect((await importsOf('background.ts')).filter((m) => m.includes('http/'))).toEqual([]);
  });

  it('no module outside src/http/ imports from it, but the server that mounts it', async () => {
    const files = (await readdir(SRC, { recursive: true })).filter((f) => /\.tsx?$/.test(f) && !f.startsWith('http/') && f !== 'server.ts');
    const crossings: string[] = [];
    for (const file of files) for (const m of await importsOf(file)) if (/(^|\/)http\//.test(m)) crossings.push(`${file} → ${m}`);
    expect(crossings).toEqual([]);
  });
});
