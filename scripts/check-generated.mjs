// Fails when the committed generated files (generated/, prisma/*/schema.prisma, the store's Kysely
// table types in server/store/tables.ts) differ from what
// the generators produce now: they are never edited by hand, and never stale.
import { execSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const files = [
  'generated/openapi.json',
  'generated/openapi.public.json',
  'generated/api.ts',
  'generated/operations.ts',
  'prisma/sqlite/schema.prisma',
  'prisma/postgresql/schema.prisma',
  'server/store/tables.ts',
];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'cp-generated-'));
const before = Object.fromEntries(files.map((f) => [f, readFileSync(f, 'utf8')]));
for (const f of files) cpSync(f, path.join(tmp, f.replace(/\//g, '__')));
try {
  execSync('npm run --silent generate:openapi && node scripts/prisma-schemas.mjs && npm run --silent generate:prisma', {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stale = files.filter((f) => readFileSync(f, 'utf8') !== before[f]);
  if (stale.length) {
    console.error(`Generated files are stale or were edited by hand: ${stale.join(', ')}\nRun \`npm run generate\` and commit the result.`);
    process.exitCode = 1;
  } else {
    console.log('generated files are up to date');
  }
} finally {
  // leave the tree as it was found
  for (const f of files) cpSync(path.join(tmp, f.replace(/\//g, '__')), f);
  rmSync(tmp, { recursive: true, force: true });
}
