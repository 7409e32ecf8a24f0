import { defineConfig } from 'drizzle-kit';

// The Drizzle schema is the source of every generated migration; triggers and seed rows live in
// custom SQL migrations (drizzle-kit generate --custom) in the same folder.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle',
});
