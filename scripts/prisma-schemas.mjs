// Writes prisma/{sqlite,postgresql}/schema.prisma from one list of models, so that the two
// providers can never drift. Run by `npm run generate`.
import { readFileSync, writeFileSync } from 'node:fs';

const models = readFileSync('prisma/models.prisma.part', 'utf8');
for (const provider of ['sqlite', 'postgresql']) {
  const header = readFileSync(`prisma/header.${provider}.part`, 'utf8');
  writeFileSync(`prisma/${provider}/schema.prisma`, `${header}\n${models}`);
}
