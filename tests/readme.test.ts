import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Issue 25 item 12: the README's first steps say what a new user does after the two commands, and
// what stands in the way as root, with the fix. Checked against the README itself and against the
// code's own messages, so the two cannot drift apart.

const README = readFileSync('README.md', 'utf8');

/** The text of one `## ` section, up to the next heading of the same level. */
function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no section "## ${title}"`);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

/** GitHub's anchor of a heading: lower-cased, punctuation dropped, spaces as hyphens. */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

const headings = [...README.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1]!.trim()));

describe('README: Quick start (issue 25 item 12)', () => {
  const quickStart = section('Quick start');
  /** The prose right after the block of the two commands, before anything else is explained. */
  const afterCommands = quickStart.split('```').slice(2, 3).join('').split('\n\n').slice(0, 4).join('\n\n');

  it('keeps the two commands of D1 first', () => {
    expect(quickStart.split('```')[1]).toMatch(/npm ci && npm start[^\n]*\nnpm test/);
  });

  it('right after them: create a user, open http://localhost:38080, sign in with the password user add printed, enrol a passkey', () => {
    expect(afterCommands).toMatch(/npx ledger user add [^\n`]+/);
    expect(afterCommands).toContain('http://localhost:38080');
    expect(afterCommands).toMatch(/sign in with [^.]*password[^.]*`?user add`? printed/i);
    expect(afterCommands).toMatch(/enrol a passkey/i);
  });

  it('says phones need a host name with HTTPS, linking the README\'s section on it, which exists', () => {
    const link = /phone[^.]*host name[^.]*HTTPS[^.]*\]\(#([a-z0-9-]+)\)/i.exec(afterCommands);
    expect(link, 'a sentence on phones with a link to a section').not.toBeNull();
    expect(headings).toContain(link![1]);
    expect(section('Running it for real')).toMatch(/host name and HTTPS/);
  });

  it('says in one line that as root the embedded database needs an unprivileged user and a reachable directory, with the fix the code itself gives', () => {
    const line = afterCommands.split('\n\n').find((paragraph) => /as root/i.test(paragraph));
    expect(line, 'a paragraph about running as root').toBeDefined();
    expect(line).toMatch(/system user `postgres`/);
    expect(line).toMatch(/directory/);
    // The fixes the start-up refusals name (src/db/cluster.ts): create the user, or run as a normal user.
    const cluster = readFileSync('src/db/cluster.ts', 'utf8');
    expect(cluster).toContain('useradd --system --user-group postgres');
    expect(line).toContain('useradd --system --user-group postgres');
    expect(line).toMatch(/run (Ledger )?as a normal user/);
  });
});

describe('README: configuration (issue 25 items 14 and 15)', () => {
  const configuration = section('Configuration');

  it('D2: the embedded database ignores libpq\'s variables; with a postgres:// DATABASE_URL they keep their meaning', () => {
    expect(configuration).toMatch(/never change which cluster starts or how\s+Ledger reaches it \(D2\)/);
    for (const name of ['PGPORT', 'PGHOST', 'PGUSER', 'PGDATABASE', 'PGPASSWORD', 'PGSSLMODE']) expect(configuration).toContain(`\`${name}\``);
    expect(configuration).toMatch(/With a `postgres:\/\/` DATABASE_URL, libpq's variables keep their usual meaning \(D2\)/);
    expect(configuration).toMatch(/stops the\s+cluster it started/);
  });

  it('D5: mint-token audiences its token to the API_ORIGIN serve recorded, saying so when its own differs', () => {
    expect(configuration).toMatch(/`serve` records it in the database at each start, and `ledger mint-token` audiences its token to the recorded one/);
  });
});
