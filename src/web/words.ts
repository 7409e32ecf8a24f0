import { naturalBalance } from '../book/rules';
import { VOCABULARY, type Words } from '../book/vocabulary';

/** D12: the words that follow book_style (src/book/vocabulary.ts, shared with the MCP tools). */
export const WORDS = VOCABULARY;
export type { Words };

/** D6: natural balance (src/book/rules.ts). */
export const natural = naturalBalance;
