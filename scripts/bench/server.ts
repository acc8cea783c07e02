// The server under test, as a benchmark child: the real `start()` of server/main.ts with the
// configuration from the environment (like `npm start`), seeded through the store with what the
// scenarios read: a pipeline, 300 source posts, one artifact in review. It then answers the
// parent's commands: `emit` (record one event as the domain does, then wake the streams),
// `subscribers` (open streams), `queued` (runs waiting), `commits` (group commit's counters), `statements` (sent to the database), `mem`, `stop`. Beside it, on a port of
// its own, the "floor": a bare Express route that does nothing but the same store read as GET
// /artifacts/{id} (no auth, limiter, validation or logging), to tell the database layer's cost
// from the request pipeline's.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import { loadConfig } from '../../server/config.js';
import { start } from '../../server/main.js';
import { findArtifact } from '../../server/store/artifacts.js';
import { groupCommitStats } from '../../server/store/group-commit.js';
import { pgStats, sqliteStats } from '../../server/store/kysely.js';
import { recordEvents } from '../../test/support/stream-reader.js';
import { serveCommands } from './child-ipc.js';
import { seedBench } from './seed.js';

export interface Seeded {
  url: string;
  /** The floor route: GET <floorUrl> reads the seeded artifact and answers it as JSON. */
  floorUrl: string;
  token: string;
  workspaceId: string;
  pipelineId: string;
  postIds: string[];
  artifactId: string;
  /** A pipeline with 1,000 drafts in review (scenario 10, the inbox's first page). */
  inboxPipelineId: string;
}

const config = loadConfig(process.env);
const running = await start(config);
const token = readFileSync(path.join(config.dataDir, 'agent-token'), 'utf8').trim();
const seeded = await seedBench(running.deps, token);
const floor = express();
// As the baseline and the server: no X-Powered-By, no ETag (Express's default ETag hashes every
// body: ~15 µs of the floor's CPU per request, which the server does not pay).
floor.disable('x-powered-by');
floor.set('etag', false);
floor.get('/floor', (_req, res, next) => {
  findArtifact(running.deps.db, seeded.workspaceId, seeded.artifactId).then((a) => res.json(a), next);
});
const floorServer = await new Promise<import('node:http').Server>((resolve) => {
  const srv = floor.listen(0, '127.0.0.1', () => resolve(srv));
});
const ready: Seeded = { url: running.url, floorUrl: `http://127.0.0.1:${(floorServer.address() as AddressInfo).port}/floor`, token, ...seeded };

serveCommands(
  ready as unknown as Record<string, unknown>,
  {
    emit: async (args) => {
      const [ev] = await recordEvents(running.deps, seeded.workspaceId, 'riff.ready', [{ riff_id: String(args.marker), source_post_id: seeded.postIds[0] }]);
      return { id: ev!.id };
    },
    subscribers: () => running.hub.subscriberCount,
    /** RSS as it is (no forced GC): sampled while an import runs. */
    rss: () => ({ rss: process.memoryUsage().rss }),
    /** Blobs in storage and blobs a row refers to (Import, MediaUpload): the upload soak's leak check. */
    blobs: async () => {
      const dir = path.join(config.dataDir, 'blobs');
      const stored =
        running.deps.provider === 'postgresql'
          ? (await running.deps.db.selectFrom('BlobChunk').select('blobId').distinct().execute()).map((r) => r.blobId)
          : existsSync(dir)
            ? readdirSync(dir)
            : [];
      const imports = await running.deps.db.selectFrom('Import').select('blobId').execute();
      const media = await running.deps.db.selectFrom('MediaUpload').select('blobId').execute();
      return { stored, referenced: [...imports, ...media].map((r) => r.blobId).filter(Boolean) };
    },
    /** Group commit's counters (batches, changes, fallbacks) so far. */
    commits: () => ({ ...groupCommitStats }),
    /** Statements sent to the database so far (BEGIN and COMMIT included). */
    statements: () => pgStats.statements + sqliteStats.statements,
    queued: () =>
      running.deps.db
        .selectFrom('Run')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('status', 'in', ['queued', 'running'])
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n)),
  },
  async () => {
    floorServer.close();
    await running.stop();
  },
);
