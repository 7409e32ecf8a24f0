import * as v from 'valibot';
import { restoreBackup, writeBackup } from './backup';
import type { Config } from '../config';
import type { Db } from '../db/database';
import { invalid } from '../errors';
import { generatePassword } from '../identity/passwords';
import { describeIssues, requiredText } from '../text';
import { recordedServeOrigin } from '../identity/serve-origin';
import { MINTED_TOKEN_MAX_DAYS, mintToken } from '../identity/tokens';
import { addUser, findUserByEmail, listUsers, normaliseEmail, removeUser, resetPassword } from '../identity/users';

/**
 * The admin commands of the spec as data, validated in one place and run by one function over
 * the repository functions the routes use.
 * `password: null` means "generate one and print it once".
 */
export const AdminRequestSchema = v.variant('op', [
  v.object({ op: v.literal('user.add'), email: v.string(), password: v.nullable(v.string()) }),
  v.object({ op: v.literal('user.list') }),
  v.object({ op: v.literal('user.passwd'), email: v.string(), password: v.nullable(v.string()) }),
  v.object({ op: v.literal('user.rm'), email: v.string() }),
  // D22: a passphrase encrypts the backup (and opens an encrypted one); none: a plain backup.
  v.object({ op: v.literal('backup'), file: v.pipe(v.string(), v.minLength(1, 'name the backup file')), passphrase: v.optional(v.nullable(v.string()), null) }),
  // Issue 36 item 3: with a passphrase, a plain file is refused unless `allow_plain` (--allow-plain).
  v.object({
    op: v.literal('restore'),
    file: v.pipe(v.string(), v.minLength(1, 'name the backup file')),
    passphrase: v.optional(v.nullable(v.string()), null),
    allow_plain: v.optional(v.boolean(), false),
  }),
  v.object({
    op: v.literal('mint-token'),
    email: v.string(),
    label: v.nullable(requiredText('label', 100)),
    days: v.pipe(
      v.number(),
      v.integer('--days must be a whole number of days'),
      v.minValue(1, '--days must be at least 1'),
      v.maxValue(MINTED_TOKEN_MAX_DAYS, `--days must be at most ${MINTED_TOKEN_MAX_DAYS}`),
    ),
  }),
]);
export type AdminRequest = v.InferInput<typeof AdminRequestSchema>;

export function parseAdminRequest(input: unknown) {
  const result = v.safeParse(AdminRequestSchema, input);
  if (!result.success) throw invalid(describeIssues(result.issues));
  return result.output;
}

/**
 * Runs one admin command; returns the lines for stdout. Refusals are thrown (one line on stderr);
 * `note` takes a line for stderr about a command that goes on (issue 25 item 14).
 */
export async function runAdminRequest(db: Db, config: Config, input: unknown, note: (line: string) => void = () => {}): Promise<string[]> {
  const request = parseAdminRequest(input);
  switch (request.op) {
    case 'user.add': {
      const password = request.password ?? generatePassword();
      const user = await addUser(db, request.email, password);
      // D1: a generated password stands alone on the last line of stdout.
      return request.password === null
        ? [`created user ${user.email}; this password is shown only now:`, password]
        : [`created user ${user.email}`];
    }
    case 'user.list':
      // D1: email, passkey count, last seen (ISO 8601 or `never`), separated by tabs.
      return (await listUsers(db)).map((u) =>
        [u.email, String(u.passkeyCount), u.lastSeenAt?.toISOString() ?? 'never'].join('\t'),
      );
    case 'user.passwd': {
      const password = request.password ?? generatePassword();
      await resetPassword(db, request.email, password);
      const done = `reset the password of ${normaliseEmail(request.email)}; every session ended and every token revoked`;
      return request.password === null ? [`${done}; the new password is shown only now:`, password] : [done];
    }
    case 'user.rm':
      await removeUser(db, request.email);
      return [`removed user ${normaliseEmail(request.email)}; their transactions stay, without an author`];
    case 'backup':
      return [await writeBackup(db, request.file, request.passphrase)];
    case 'restore':
      return [await restoreBackup(db, request.file, request.passphrase, { allowPlain: request.allow_plain })];
    case 'mint-token': {
      const user = await findUserByEmail(db, request.email);
      if (!user) throw invalid(`no user ${normaliseEmail(request.email)}`);
      const audience = await tokenAudience(db, config, note);
      const token = await mintToken(db, {
        userId: user.id,
        label: request.label,
        days: request.days,
        audience,
      });
      // D1: the token alone on the last line of stdout; it cannot be shown again.
      return [`token for ${user.email}, valid ${request.days} days; it is shown only now:`, token];
    }
  }
}

/**
 * Issue 25 item 14 (D5): the audience of a minted token is the API_ORIGIN of the server that will
 * check it. The one `ledger serve` recorded at its last start wins over this process's own (a shell
 * without the service's environment), and a different one is said in one line; with no server
 * ever started, ours.
 */
async function tokenAudience(db: Db, config: Config, note: (line: string) => void): Promise<string> {
  const served = await recordedServeOrigin(db);
  if (served === undefined || served === config.apiOrigin) return config.apiOrigin;
  note(`API_ORIGIN here is ${config.apiOrigin}, but ledger serve runs with ${served} (recorded at its last start): the token is for ${served}`);
  return served;
}
