// Prisma CLI configuration for PostgreSQL. The CLI's WASM schema engine needs the 7.x pg adapter
// (installed as @prisma/adapter-pg-cli); the runtime client uses @prisma/adapter-pg 6.19.
import path from 'node:path';
import { defineConfig } from 'prisma/config';
import { PrismaPg } from '@prisma/adapter-pg-cli';

// `prisma generate` reads the schema's url line although it never connects: give it a value.
process.env.DATABASE_URL ??= 'postgresql://unset@127.0.0.1/unset';

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
