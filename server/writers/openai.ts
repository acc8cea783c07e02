// A writer backed by an OpenAI-compatible chat-completions endpoint (`LLM_BASE_URL`, `LLM_API_KEY`,
// `LLM_MODEL`): hosted providers, and local servers such as Ollama (`http://127.0.0.1:11434/v1`)
// or llama.cpp's server. The call goes through the outbound client like every other one; a local
// server therefore needs its host on `OUTBOUND_ALLOW_HOSTS` (see docs/drafting.md).
// Failures that may pass (timeout, network, 429, 5xx) are `TransientError`s, so the run retries
// with backoff; others (bad key, unknown model, an empty answer) fail the run with `writer_failed`.
import { upstreamMayRecover } from '../errors.js';
import { JobError, TransientError } from '../jobs/registry.js';
import { OutboundError, type OutboundResponse } from '../outbound/types.js';
import { fitToLimit } from './text.js';
import { limitFor, type DraftInput, type SourceMaterial, type Writer } from './types.js';

export interface LlmSettings {
  baseUrl: string;
  apiKey: string | null;
  model: string;
}

/** Local models can be slow to answer a first request (they load the weights). */
const TIMEOUT_MS = 120_000;
const MAX_ANSWER_BYTES = 1024 * 1024;

function describeSource(s: SourceMaterial, n: number | null): string {
  const label = n === null ? 'Source post' : `Source post ${n}`;
  const lines = [`${label} (${s.platform}; ${s.metrics.likes} likes, ${s.metrics.reposts} reposts, ${s.metrics.replies} replies):`, s.text];
  if (s.url) lines.push(`Address: ${s.url}`);
  if (s.decode) {
    lines.push(
      `Structure: hook "${s.decode.hook}"; format ${s.decode.format}; ${s.decode.length} characters` +
        (s.decode.hashtags.length ? `; hashtags ${s.decode.hashtags.join(' ')}` : '') +
        (s.decode.links.length ? `; links ${s.decode.links.join(' ')}` : ''),
    );
  }
  return lines.join('\n');
}

/** The chat messages for a draft: rules in the system message, material in the user message. */
export function buildMessages(input: DraftInput): Array<{ role: 'system' | 'user'; content: string }> {
  const limit = limitFor(input.platform);
  const brief = input.more.length > 0;
  const rules = [
    `You write ${brief ? 'a brief that connects several' : 'a new social media post from an existing'} post${brief ? 's' : ''} for the platform "${input.platform}".`,
    `Purpose of the drafts: ${input.intent}`,
    input.tone ? `Tone: ${input.tone}` : 'Tone: natural and clear.',
    `At most ${limit} characters in total.`,
    'Do not copy the source: rewrite it with a strong opening line, keep the facts and numbers exact, invent nothing.',
    'Answer with the text of the post only: no preamble, no quotes around it, no explanation.',
  ];
  if (input.styleReference)
    rules.push(`Follow the style of this sample (sentence length, line breaks, emoji, hashtags, casing):\n---\n${input.styleReference}\n---`);
  const material = [input.source, ...input.more].map((s, i) => describeSource(s, brief ? i + 1 : null));
  if (input.parentText)
    material.push(`An earlier draft exists. Write a clearly different version (another angle or opening), not a light edit:\n---\n${input.parentText}\n---`);
  return [
    { role: 'system', content: rules.join('\n') },
    { role: 'user', content: material.join('\n\n') },
  ];
}

/** The text of the first choice, without reasoning blocks or wrapping quotes. */
export function answerText(body: unknown): string {
  const content = (body as { choices?: Array<{ message?: { content?: unknown } }> })?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') return '';
  return content
    .replace(/<think>[\s\S]*?<\/think>/gi, '')
    .trim()
    .replace(/^(["“])([\s\S]*)(["”])$/, '$2')
    .trim();
}

/** A short, safe description of a provider's error answer (never the request, never the key). */
function providerMessage(res: OutboundResponse): string {
  let detail = '';
  try {
    const err = res.json<{ error?: { message?: unknown } | string }>().error;
    detail = typeof err === 'string' ? err : typeof err?.message === 'string' ? err.message : '';
  } catch {
    // not JSON: the status says enough
  }
  return `The model provider answered HTTP ${res.status}${detail ? `: ${detail.slice(0, 300)}` : ''}.`;
}

export function openAiWriter(llm: LlmSettings): Writer {
  const url = `${llm.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  return {
    name: 'openai',
    async write(input, ctx) {
      const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
      if (llm.apiKey) headers.Authorization = `Bearer ${llm.apiKey}`;
      // A later variation asks for more variety, so that regenerations differ.
      const temperature = Math.min(1.2, 0.7 + 0.1 * Math.min(input.variation, 5));
      const body = JSON.stringify({ model: llm.model, messages: buildMessages(input), temperature, stream: false });
      let res: OutboundResponse;
      try {
        res = await ctx.outbound.request({
          url,
          method: 'POST',
          headers,
          body,
          timeoutMs: TIMEOUT_MS,
          maxBytes: MAX_ANSWER_BYTES,
          maxRedirects: 0,
          allowHttp: url.startsWith('http://'),
        });
      } catch (err) {
        if (err instanceof OutboundError && ['timeout', 'network'].includes(err.kind))
          throw new TransientError(`The model provider could not be reached: ${err.message}`);
        if (err instanceof OutboundError) throw new JobError('writer_failed', `The model provider's address is refused: ${err.message}`);
        throw err;
      }
      if (upstreamMayRecover(res.status)) throw new TransientError(providerMessage(res));
      if (res.status !== 200) throw new JobError('writer_failed', providerMessage(res));
      let parsed: unknown;
      try {
        parsed = res.json();
      } catch {
        throw new JobError('writer_failed', 'The model provider answered with something that is not JSON.');
      }
      const text = answerText(parsed);
      if (!text) throw new JobError('writer_failed', 'The model provider answered without any text.');
      return { text: fitToLimit(text, limitFor(input.platform)) };
    },
  };
}
