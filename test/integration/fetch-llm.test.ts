// The llm mode of POST /fetch against a fake OpenAI-compatible provider (a local HTTPS server),
// with a saved page served by another local HTTPS fake.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContentPipelineError, unwrap, type Schemas } from '../../clients/typescript/src/index.js';
import { caught } from '../support/caught.js';
import { outboundEnvFor, reply, startFake, type Fake } from '../support/https-fake.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { V1 } from '../support/api.js';

const product = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/pages/product.html'));

let s: TestServer;
let site: Fake;
let provider: Fake;
/** What the fake provider answers next: a status and the assistant message content (or a raw body). */
let answer: { status: number; content?: string; raw?: string } = { status: 200, content: '{}' };

beforeAll(async () => {
  site = await startFake({ handler: reply(200, product, 'text/html; charset=utf-8') });
  provider = await startFake({
    routes: {
      'POST /v1/chat/completions': (_req, res) => {
        const body =
          answer.raw ??
          JSON.stringify({
            id: 'chatcmpl-1',
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: answer.content }, finish_reason: 'stop' }],
          });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(body);
      },
    },
  });
  s = await startTestServer({
    env: { ...outboundEnvFor(site, provider), LLM_BASE_URL: `${provider.url}/v1`, LLM_API_KEY: 'sk-test-key', LLM_MODEL: 'test-model' },
  });
});
afterAll(async () => {
  await s?.stop();
  await Promise.all([site?.close(), provider?.close()]);
});

const fetchPage = (body: Schemas['FetchRequest']) => unwrap(s.client().POST(`${V1}/fetch`, { body }));

interface ChatRequest {
  model: string;
  temperature: number;
  response_format: { type: string };
  messages: { role: string; content: string }[];
}
const lastChat = () => JSON.parse(provider.requests[provider.requests.length - 1].body.toString()) as ChatRequest;

describe('llm mode', () => {
  it('sends the page text and the intent to the provider and returns its fields', async () => {
    answer = {
      status: 200,
      content: '{"price": 249, "currency": "EUR", "in_stock": true, "features": ["40 settings", "quiet"], "maker": {"name": "Kaffeewerk"}}',
    };
    const r = await fetchPage({ url: `${site.url}/eg-42`, mode: 'llm', intent: 'The price, the currency and whether it is in stock' });
    expect(r.mode).toBe('llm');
    expect(r.markdown).toBeNull();
    expect(r.title).toBe('Conical Burr Espresso Grinder EG-42');
    expect(r.fields).toEqual({ price: 249, currency: 'EUR', in_stock: true, features: ['40 settings', 'quiet'], maker: '{"name":"Kaffeewerk"}' });
    const sent = provider.requests[provider.requests.length - 1];
    expect(sent.headers.authorization).toBe('Bearer sk-test-key');
    const chat = lastChat();
    expect(chat).toMatchObject({ model: 'test-model', temperature: 0, response_format: { type: 'json_object' } });
    const user = chat.messages.find((m) => m.role === 'user')?.content ?? '';
    expect(user).toContain('What to extract: The price, the currency and whether it is in stock');
    expect(user).toContain('A quiet conical burr grinder with 40 grind settings');
  });

  it('auto picks llm when a provider is configured and an intent is given', async () => {
    answer = { status: 200, content: '```json\n{"summary": "A grinder."}\n```' };
    const r = await fetchPage({ url: `${site.url}/eg-42`, intent: 'A one-line summary' });
    expect(r.mode).toBe('llm');
    expect(r.fields).toEqual({ summary: 'A grinder.' });
  });

  it('with a schema, asks for its keys and shapes the answer to its types', async () => {
    answer = { status: 200, content: '{"name": "EG-42", "price": "€1.299,00", "image": "/media/eg-42/front.jpg", "currency": null, "extra": "dropped"}' };
    const r = await fetchPage({ url: `${site.url}/eg-42`, mode: 'llm', schema_id: 'product' });
    expect(r.fields).toEqual({
      name: 'EG-42',
      price: 1299,
      currency: null,
      availability: null,
      sku: null,
      brand: null,
      image: `${site.url}/media/eg-42/front.jpg`,
      description: null,
    });
    const user = lastChat().messages.find((m) => m.role === 'user')?.content ?? '';
    expect(user).toContain('- price (number)');
    expect(user).toContain('- image (url)');
  });

  it('maps provider failures to 502 with the provider status', async () => {
    answer = { status: 500, raw: '{"error":{"message":"overloaded"}}' };
    const failed = await caught(fetchPage({ url: `${site.url}/eg-42`, mode: 'llm', intent: 'the price' }), ContentPipelineError);
    expect([failed.status, failed.code, failed.message]).toEqual([502, 'backend_unavailable', 'The model provider answered HTTP 500.']);
    answer = { status: 200, content: 'The price is 249 euros.' };
    const prose = await caught(fetchPage({ url: `${site.url}/eg-42`, mode: 'llm', intent: 'the price' }), ContentPipelineError);
    expect([prose.status, prose.message]).toEqual([502, 'The model provider failed: the answer is not JSON.']);
    answer = { status: 200, content: '[1, 2]' };
    expect((await caught(fetchPage({ url: `${site.url}/eg-42`, mode: 'llm', intent: 'the price' }), ContentPipelineError)).message).toBe(
      'The model provider failed: the answer is not a JSON object.',
    );
  });

  it('needs an intent or a schema', async () => {
    const before = site.requests.length;
    const err = await caught(fetchPage({ url: `${site.url}/eg-42`, mode: 'llm' }), ContentPipelineError);
    expect([err.status, err.code, err.message]).toEqual([422, 'validation_failed', 'body.intent is required when mode is llm (or give schema_id)']);
    expect(site.requests.length).toBe(before);
  });
});
