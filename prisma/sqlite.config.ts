// Prisma CLI configuration for the embedded SQLite database. The JS engine with a driver adapter
// is used because these machines cannot download Prisma's native engines (see docs/decisions.md).
import path from 'node:path';
import { defineConfig } from 'prisma/config';
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';

// `prisma generate` reads the schema's url line although it never connects: give it a value.
process.env.PRISMA_SQLITE_URL ??= 'file:./data/content-pipeline.db';
// No Prisma Client is generated (the store queries through Kysely; the schema's only generator is
// prisma-kysely): without a `prisma-client` generator saying `engineType = "client"`, the 6.19 CLI
// would otherwise download the query engine library for `generate`, which fails offline.
process.env.PRISMA_CLIENT_ENGINE_TYPE ??= 'client';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: path.join(import.meta.dirname, 'sqlite', 'schema.prisma'),
  migrations: { path: path.join(import.meta.dirname, 'sqlite', 'migrations') },
  async adapter() {
    const url = process.env.PRISMA_SQLITE_URL!;
    return new PrismaBetterSQLite3({ url });
  },
});
