// Statements per operation on SQLite (issue 12): a server on a fresh database with its worker
// idle, then the SQLite statements (BEGIN/COMMIT included) that one request of each kind runs;
// for a fresh draft, those of the drafting run the request kicks off too.
// `node --import tsx scripts/bench/statements.ts`. Not timed; the counts are exact unless a
// background look at the queue happens to fall inside a request (each is repeated, lowest kept).
// A draft is counted until its run has written the artifact (the run's last statements, after
// that write, may fall outside: the finish and the events' read).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { loadConfig } from '../../server/config.js';
import { start } from '../../server/main.js';
import { sqliteStats } from '../../server/store/kysely.js';
import { seedBench } from './seed.js';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cp-statements-'));
// The worker looks at the queue at most once a minute; nothing else runs meanwhile.
const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', JOB_POLL_MS: '60000', WORKER_CONCURRENCY: '1', DATABASE_URL: '' });
const running = await start(config);
try {
  const token = readFileSync(path.join(dataDir, 'agent-token'), 'utf8').trim();
  const { pipelineId, postIds, artifactId } = await seedBench(running.deps, token, 30);
  const V1 = `${running.url}/api/agent/v1`;
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  const count = async (label: string, req: () => Promise<Response>) => {
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) {
      const before = sqliteStats.statements;
      const res = await req();
      await res.arrayBuffer();
      if (res.status >= 300) throw new Error(`${label}: HTTP ${res.status}`);
      seen.push(sqliteStats.statements - before);
    }
    console.log(`${label}: ${Math.min(...seen)} statements`);
  };
  await count('GET /artifacts/{id}', () => fetch(`${V1}/artifacts/${artifactId}`, { headers }));
  await count('GET /pipelines/{id}', () => fetch(`${V1}/pipelines/${pipelineId}`, { headers }));
  await count('GET /pipelines/{id}/posts?limit=20', () => fetch(`${V1}/pipelines/${pipelineId}/posts?limit=20`, { headers }));
  let n = 0;
  // The request and the drafting run it starts, until the artifact is written: watched through a
  // connection of its own, whose reads are not counted.
  const watcher = new Sqlite(path.join(dataDir, 'content-pipeline.db'), { readonly: true });
  const stateOf = watcher.prepare('SELECT state FROM Artifact WHERE id = ?');
  await count('POST /posts/{id}/draft (fresh key) and its drafting run', async () => {
    const res = await fetch(`${V1}/posts/${postIds[1]}/draft`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ idempotency_key: `statements-${(n++).toString().padStart(8, '0')}` }),
    });
    const { artifact_id } = (await res.clone().json()) as { artifact_id: string };
    while ((stateOf.get(artifact_id) as { state: string }).state === 'draft') await new Promise((r) => setTimeout(r, 5));
    return res;
  });
  watcher.close();
  await count('POST /posts/{id}/draft (replay)', () =>
    fetch(`${V1}/posts/${postIds[1]}/draft`, { method: 'POST', headers, body: JSON.stringify({ idempotency_key: 'statements-00000000' }) }),
  );
} finally {
  await running.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
