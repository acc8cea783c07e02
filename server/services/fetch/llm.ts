// The `llm` mode: the configured OpenAI-compatible provider (`POST {LLM_BASE_URL}/chat/completions`,
// through the outbound client like every other call) reads the page's main text and returns the
// fields that the intent and/or the schema describe, as one JSON object.
import { AppError, backendUnavailable } from '../../errors.js';
import { OutboundError } from '../../outbound/types.js';
import type { ServiceDeps } from '../context.js';
import type { SchemaDefinition } from './builtin-schemas.js';
import { clip, MAX_LIST, MAX_STRING, shapeValue, type FieldValue } from './values.js';

/** How much of the page's main text the model sees. */
export const LLM_INPUT_CHARS = 60_000;
export const LLM_TIMEOUT_MS = 60_000;
const MAX_FIELDS = 100;

export function noProvider(): AppError {
  return backendUnavailable('The llm mode needs a language-model provider and none is configured (LLM_BASE_URL); use mode markdown or css, or configure one.', {
    status: 503,
    suggestedAction: 'configure_writer',
  });
}

function prompt(text: string, intent: string | undefined, schema: SchemaDefinition | null): string {
  const parts = ['Extract data from the web page below. Answer with one JSON object and nothing else.'];
  if (schema) {
    const fields = Object.entries(schema.fields).map(([name, f]) => `- ${name} (${f.type ?? 'string'})`);
    parts.push(`Use exactly these keys; use null when the page does not say:\n${fields.join('\n')}`);
    parts.push('Types: string → a string; number → a number; url → an absolute URL string; list and url_list → an array of strings.');
  } else {
    parts.push('Choose short snake_case keys. Values must be strings, numbers, booleans, null, or arrays of strings.');
  }
  if (intent) parts.push(`What to extract: ${intent}`);
  parts.push(`The page (Markdown):\n"""\n${text}\n"""`);
  return parts.join('\n\n');
}

/** A free-form model value, as a contract field value. */
function freeValue(v: unknown): FieldValue {
  if (v === null || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string') return clip(v, MAX_STRING);
  if (Array.isArray(v)) return v.slice(0, MAX_LIST).map((x) => clip(typeof x === 'string' ? x : JSON.stringify(x), MAX_STRING));
  return clip(JSON.stringify(v) ?? '', MAX_STRING);
}

/** Keeps the schema's fields (shaped to their types), or up to 100 free-form ones. */
export function normalizeFields(answer: Record<string, unknown>, schema: SchemaDefinition | null, base: string): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  if (schema) {
    for (const [name, f] of Object.entries(schema.fields)) {
      const v = answer[name];
      const raw = v === null || v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
      out[name] = typeof v === 'boolean' && (f.type ?? 'string') === 'string' ? String(v) : shapeValue(f.type, raw, base);
    }
    return out;
  }
  for (const [k, v] of Object.entries(answer).slice(0, MAX_FIELDS)) out[k] = freeValue(v);
  return out;
}

function providerFailure(message: string): AppError {
  return backendUnavailable(`The model provider failed: ${message}`);
}

/** The JSON object in a model's answer (tolerating a ```json fence around it). */
export function parseAnswer(content: string): Record<string, unknown> {
  const trimmed = content
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    throw providerFailure('the answer is not JSON.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw providerFailure('the answer is not a JSON object.');
  return parsed as Record<string, unknown>;
}

export async function extractWithModel(
  deps: ServiceDeps,
  q: { text: string; intent?: string; schema: SchemaDefinition | null; base: string },
): Promise<Record<string, FieldValue>> {
  const llm = deps.config.llm;
  if (!llm) throw noProvider();
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (llm.apiKey) headers.authorization = `Bearer ${llm.apiKey}`;
  const body = JSON.stringify({
    model: llm.model,
    temperature: 0,
    response_format: { type: 'json_object' },
    messages: [
      { role: 'system', content: 'You extract structured data from web pages. You answer with a single JSON object.' },
      { role: 'user', content: prompt(q.text.slice(0, LLM_INPUT_CHARS), q.intent, q.schema) },
    ],
  });
  let res;
  try {
    // The provider URL is the operator's configuration, so plain http (a local model server on
    // the allow-list) is permitted; the address rules still apply.
    res = await deps.outbound.request({
      url: `${llm.baseUrl}/chat/completions`,
      method: 'POST',
      headers,
      body,
      timeoutMs: LLM_TIMEOUT_MS,
      maxBytes: 2 * 1024 * 1024,
      maxRedirects: 0,
      allowHttp: true,
    });
  } catch (err) {
    if (err instanceof OutboundError) throw providerFailure(err.message);
    throw err;
  }
  if (res.status < 200 || res.status > 299) throw backendUnavailable(`The model provider answered HTTP ${res.status}.`, { upstreamStatus: res.status });
  let content: unknown;
  try {
    content = res.json<{ choices?: { message?: { content?: unknown } }[] }>().choices?.[0]?.message?.content;
  } catch {
    throw providerFailure('its response is not JSON.');
  }
  if (typeof content !== 'string') throw providerFailure('its response has no choices[0].message.content.');
  return normalizeFields(parseAnswer(content), q.schema, q.base);
}
