import { invalid } from '../errors';

/**
 * D22 (issue 5/8): the passphrase of an encrypted backup comes from `LEDGER_BACKUP_PASSPHRASE`,
 * else from the terminal, typed without echo; never from the command line, where `ps` and the
 * shell's history would show it. Without a terminal (a script, cron) the variable is the only way.
 */
export const PASSPHRASE_VARIABLE = 'LEDGER_BACKUP_PASSPHRASE';

/**
 * Issue 36 item 3: the shortest passphrase a new encrypted backup takes, in characters (not bytes).
 * Whoever holds a copy of the file can guess offline for as long as they like: scrypt makes each
 * guess dear, but only length makes the guesses many. Restoring takes whatever an older backup was
 * made with.
 */
export const MIN_PASSPHRASE_CHARACTERS = 12;

/** Refuses a passphrase too short to encrypt a new backup with. */
export function refuseShortPassphrase(passphrase: string): void {
  if (Array.from(passphrase).length < MIN_PASSPHRASE_CHARACTERS) {
    throw invalid(`the passphrase must have at least ${MIN_PASSPHRASE_CHARACTERS} characters (several random words are best)`);
  }
}

export interface PassphraseSource {
  env: Record<string, string | undefined>;
  /** Asks on the terminal; undefined when there is none. */
  ask?: (prompt: string) => Promise<string>;
}

/** The passphrase for `ledger backup --encrypt` (typed twice on a terminal) or `ledger restore`. */
export async function passphraseFor(purpose: 'encrypt' | 'decrypt', source: PassphraseSource): Promise<string> {
  const given = source.env[PASSPHRASE_VARIABLE];
  if (given !== undefined) {
    if (given === '') throw invalid(`${PASSPHRASE_VARIABLE} is empty`);
    if (purpose === 'encrypt') refuseShortPassphrase(given);
    return given;
  }
  if (!source.ask) throw invalid(`set ${PASSPHRASE_VARIABLE} (there is no terminal to type the passphrase on)`);
  const first = await source.ask('passphrase: ');
  if (first === '') throw invalid('no passphrase typed');
  if (purpose === 'encrypt') {
    refuseShortPassphrase(first);
    if ((await source.ask('the same passphrase again: ')) !== first) throw invalid('the two passphrases differ');
  }
  return first;
}

/** This process's terminal, if stdin is one: a line read in raw mode, echoing nothing. */
export function terminalAsk(): PassphraseSource['ask'] {
  const input = process.stdin;
  if (!input.isTTY) return undefined;
  return (prompt) =>
    new Promise((resolve, reject) => {
      let typed = '';
      const finish = (error?: Error) => {
        input.off('data', onData);
        input.setRawMode(false);
        input.pause();
        process.stderr.write('\n');
        if (error) reject(error);
        else resolve(typed);
      };
      const onData = (chunk: string) => {
        for (const character of chunk) {
          if (character === '\r' || character === '\n') return finish();
          if (character === '\u0003' || character === '\u0004') return finish(invalid('no passphrase typed'));
          if (character === '\u007f' || character === '\b') typed = Array.from(typed).slice(0, -1).join('');
          else if (character >= ' ') typed += character;
        }
      };
      process.stderr.write(prompt);
      input.setEncoding('utf8');
      input.setRawMode(true);
      input.resume();
      input.on('data', onData);
    });
}
