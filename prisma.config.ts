// Read by the Prisma CLI (`prisma generate`). Migrations do not go through the CLI:
// scripts/db.ts drives the WebAssembly schema engine (see docs/database.md).
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma',
  migrations: { path: 'prisma/migrations' },
});
