// The OpenAI-compatible writer end to end: a real server whose LLM_BASE_URL points at a local fake
// chat-completions server (plain HTTP, like Ollama or llama.cpp on a laptop). What the service
// sends, how it uses the answer, retries of transient failures, and a failure that discards.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { json, startFake, type Fake } from '../support/https-fake.js';
import { serverSuite } from '../support/suite.js';
import { expectRunSucceeded, waitForRun } from '../support/runs.js';
import { seedPosts } from '../support/seed.js';
import { V1 } from '../support/api.js';

const KEY = 'sk-test-0123456789abcdef';
let fake: Fake;
/** What the fake answers next: a queue of [status, content]; the last one repeats. */
let answers: Array<[number, string]> = [];

beforeAll(async () => {
  fake = await startFake({
    tls: false,
    handler: (_req, res) => {
      const [status, content] = answers.length > 1 ? answers.shift()! : answers[0]!;
      json(
        res,
        status,
        status === 200
          ? { id: 'cmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content } }] }
          : { error: { message: content } },
      );
    },
  });
});
const t = serverSuite(() => ({ ...fake.outboundEnv, LLM_BASE_URL: `${fake.url}/v1`, LLM_API_KEY: KEY, LLM_MODEL: 'llama3.2:3b', JOB_RETRY_BASE_MS: '20' }));
afterAll(async () => {
  await fake?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

async function setup(handle: string) {
  const pl = await unwrap(
    t.s.client().POST(`${V1}/pipelines/from-intent`, {
      body: { handle, intent: 'Release notes for developers', tone: 'dry and precise', idempotency_key: newIdempotencyKey() },
    }),
  );
  const [postId] = await seedPosts(t.s.running.deps, { workspaceId: t.ws, pipelineId: pl.pipeline_id, count: 1, platform: 'bluesky' });
  return { pipelineId: pl.pipeline_id, postId: postId! };
}

const draft = (postId: string) =>
  unwrap(
    t.s.client().POST(`${V1}/posts/{id}/draft`, {
      params: { path: { id: postId } },
      body: { style_reference: 'Terse. No emoji.', idempotency_key: newIdempotencyKey() },
    }),
  );
const getArtifact = (id: string) => unwrap(t.s.client().GET(`${V1}/artifacts/{id}`, { params: { path: { id } } }));

describe('drafting with an OpenAI-compatible provider', () => {
  it('sends the model, the key and the material, and writes the answer (reasoning removed) into the artifact', async () => {
    answers = [[200, '<think>plan the post</think>v2.3 is out: the importer streams rows now.']];
    const { postId } = await setup('ada.bsky.social');
    const accepted = await draft(postId);
    const { output } = await expectRunSucceeded(t.s.running.deps, accepted.run_id);
    expect(output).toMatchObject({ written: true, writer: 'openai' });
    const a = await getArtifact(accepted.artifact_id);
    expect(a.text).toBe('v2.3 is out: the importer streams rows now.');
    expect(a.state).toBe('review');

    const calls = fake.requests.filter((r) => r.url === '/v1/chat/completions');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.method).toBe('POST');
    expect(calls[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    const sent = JSON.parse(calls[0]!.body.toString()) as { model: string; messages: Array<{ content: string }> };
    expect(sent.model).toBe('llama3.2:3b');
    const prompt = sent.messages.map((m) => m.content).join('\n');
    for (const piece of ['Release notes for developers', 'dry and precise', 'Terse. No emoji.', 'At most 300 characters', 'Post number 0'])
      expect(prompt).toContain(piece);
  });

  it('cuts an answer that is too long for the platform', async () => {
    answers = [[200, 'A sentence that goes on. '.repeat(40)]];
    const { postId } = await setup('bob.bsky.social');
    const accepted = await draft(postId);
    await expectRunSucceeded(t.s.running.deps, accepted.run_id);
    expect([...(await getArtifact(accepted.artifact_id)).text].length).toBeLessThanOrEqual(300);
  });

  it('retries a provider that answers 503, then writes', async () => {
    answers = [
      [503, 'overloaded'],
      [503, 'overloaded'],
      [200, 'Written on the third try.'],
    ];
    const { postId } = await setup('cy.bsky.social');
    const accepted = await draft(postId);
    const { run } = await expectRunSucceeded(t.s.running.deps, accepted.run_id);
    expect(run.attempts).toBe(3);
    expect((await getArtifact(accepted.artifact_id)).text).toBe('Written on the third try.');
  });

  it('fails the run on a rejected key, discards the artifact and frees the post', async () => {
    answers = [[401, 'invalid api key']];
    const { pipelineId, postId } = await setup('dee.bsky.social');
    const accepted = await draft(postId);
    const run = await waitForRun(t.s.running.deps, accepted.run_id);
    expect(run.status).toBe('failed');
    expect(run.attempts).toBe(1);
    expect(run.errorCode).toBe('writer_failed');
    expect(run.errorMessage).toContain('HTTP 401');
    expect(run.errorMessage).not.toContain(KEY);
    const a = await getArtifact(accepted.artifact_id);
    expect(a.state).toBe('discarded');
    expect(a.text).toBe('');
    const posts = await unwrap(t.s.client().GET(`${V1}/pipelines/{id}/posts`, { params: { path: { id: pipelineId }, query: { has_artifact: false } } }));
    expect(posts.data.map((p) => p.id)).toEqual([postId]);
    const viaApi = await unwrap(t.s.client().GET(`${V1}/runs/{id}`, { params: { path: { id: accepted.run_id } } }));
    expect(viaApi.error?.code).toBe('writer_failed');
  });
});
