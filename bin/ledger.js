#!/usr/bin/env node
// Runs the TypeScript sources directly (tsx), so `npx ledger …` works right after `npm ci`.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
