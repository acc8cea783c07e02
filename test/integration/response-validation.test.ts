// Every response is validated against the contract (VALIDATE_RESPONSES, on by default): the app
// with its real pipeline (server/http/validator.ts gives express-openapi-validator the route of
// the route table), one handler replaced by one that answers outside the contract. A body the
// contract does not allow becomes a logged 500 internal_error instead of reaching the caller; the
// same handler's valid answer passes untouched; the route's path parameter still reaches it.
import { createMetrics } from '../../server/services/metrics.js';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.js';
import { buildHandlers } from '../../server/handlers/index.js';
import type { Handlers } from '../../server/http/typed.js';
import { createFromIntent } from '../../server/services/pipelines.js';
import { seedArtifact, seedPosts } from '../support/seed.js';
import { serverSuite } from '../support/suite.js';
import { V1 } from '../support/api.js';
import { SCOPES } from '../../server/services/tokens.js';

const t = serverSuite();
let server: Server;
let url: string;
let answer: 'valid' | 'broken' = 'valid';
const seenIds: string[] = [];

beforeAll(async () => {
  const { deps, config } = t.s.running;
  const logger = pino({ level: 'silent' });
  const real = buildHandlers(deps);
  const handlers: Handlers = {
    ...real,
    getArtifact: async (req) => {
      seenIds.push(req.path.id);
      const ok = await real.getArtifact(req);
      if (answer === 'valid') return ok;
      // `state` outside its enum and `id` missing: the contract does not allow this body.
      const { id: _id, ...rest } = ok.body as unknown as Record<string, unknown>;
      return { ...ok, body: { ...rest, state: 'half-written' } } as unknown as typeof ok;
    },
  };
  const app = createApp({ config, deps, logger, handlers, metrics: createMetrics(deps, { subscribers: () => 0 }) });
  server = await new Promise<Server>((resolve) => {
    const srv = app.listen(0, '127.0.0.1', () => resolve(srv));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
});

describe('response validation', () => {
  it('lets a valid answer through and turns one outside the contract into a 500', async () => {
    const { deps } = t.s.running;
    const { pipeline_id: pipelineId } = await createFromIntent(
      deps,
      { workspaceId: t.ws, tokenId: 'tok_rv', scopes: SCOPES },
      { handle: 'response-validation', intent: 'Notes — 笔记 🧪' },
    );
    const [postId] = await seedPosts(deps, { workspaceId: t.ws, pipelineId, count: 1 });
    const artifact = await seedArtifact(deps, { workspaceId: t.ws, pipelineId, postId: postId!, state: 'review', text: 'Un brouillon — 草稿 — مسودة 👩🏽‍💻' });
    const headers = { Authorization: `Bearer ${t.s.token}` };

    answer = 'valid';
    const ok = await fetch(`${url}${V1}/artifacts/${artifact.id}`, { headers });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { id: string }).id).toBe(artifact.id);

    answer = 'broken';
    const broken = await fetch(`${url}${V1}/artifacts/${artifact.id}`, { headers });
    expect(broken.status).toBe(500);
    expect(((await broken.json()) as { error: { code: string } }).error.code).toBe('internal_error');
    expect(seenIds).toEqual([artifact.id, artifact.id]);
  });
});
