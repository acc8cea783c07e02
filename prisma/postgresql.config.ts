// Prisma CLI configuration for PostgreSQL. The CLI's WASM schema engine needs the 7.x pg adapter
// (installed as @prisma/adapter-pg-cli). The runtime does not use Prisma (server/store/kysely.ts).
import path from 'node:path';
import { defineConfig } from 'prisma/config';
import { PrismaPg } from '@prisma/adapter-pg-cli';

// `prisma generate` reads the schema's url line although it never connects: give it a value.
process.env.DATABASE_URL ??= 'postgresql://unset@127.0.0.1/unset';
// No Prisma Client is generated (the store queries through Kysely): without a `prisma-client`
// generator saying `engineType = "client"`, the 6.19 CLI would otherwise download the query engine
// library even for `migrate deploy`, which fails offline.
process.env.PRISMA_CLIENT_ENGINE_TYPE ??= 'client';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: path.join(import.meta.dirname, 'postgresql', 'schema.prisma'),
  migrations: { path: path.join(import.meta.dirname, 'postgresql', 'migrations') },
  async adapter() {
    const connectionString = process.env.DATABASE_URL;
    if (!connectionString) throw new Error('DATABASE_URL is not set');
    return new PrismaPg({ connectionString });
  },
});
