// Where a store read's CPU goes (issue 12, part 3): the floor's `findArtifact` taken apart, in
// process, on a fresh seeded SQLite database (or PostgreSQL with `--db postgresql`): the same
// row read through Kysely (build, compile, execute), through the cached prepared statement
// alone, and the driver alone; then the JSON of the row. CPU µs per operation, medians of rounds.
//   node --import tsx scripts/bench/store-read.ts [--db postgresql]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../server/config.js';
import { start } from '../../server/main.js';
import { findArtifact } from '../../server/store/artifacts.js';
import { createPgDatabase } from '../../test/support/database.js';
import { seedBench } from './seed.js';

const pgKind = process.argv.includes('postgresql');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cp-store-read-'));
const pgDb = pgKind ? await createPgDatabase() : null;
const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', JOB_POLL_MS: '60000', DATABASE_URL: pgDb?.url ?? '' });
const running = await start(config);
const { db } = running.deps;
const token = readFileSync(path.join(dataDir, 'agent-token'), 'utf8').trim();
const { workspaceId, artifactId } = await seedBench(running.deps, token, 30);

async function cpuPer(label: string, n: number, op: () => unknown): Promise<void> {
  const rounds: number[] = [];
  for (let r = 0; r < 7; r++) {
    const t = process.cpuUsage();
    for (let i = 0; i < n; i++) await op();
    const d = process.cpuUsage(t);
    rounds.push((d.user + d.system) / n);
  }
  rounds.sort((a, b) => a - b);
  console.log(`${label.padEnd(58)} ${rounds[3]!.toFixed(1).padStart(7)} µs`);
}

const N = pgKind ? 2000 : 5000;
const query = () => db.selectFrom('Artifact').selectAll().where('id', '=', artifactId).where('workspaceId', '=', workspaceId);
const compiled = query().compile();
const row = await findArtifact(db, workspaceId, artifactId);
await cpuPer('findArtifact (Kysely: build, compile, execute)', N, () => findArtifact(db, workspaceId, artifactId));
await cpuPer('the query built and compiled only', N, () => query().compile());
await cpuPer('the compiled query executed (db.executeQuery)', N, () => db.executeQuery(compiled));
await cpuPer('JSON.stringify of the row', N, () => JSON.stringify(row));
await running.stop();
await pgDb?.drop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
