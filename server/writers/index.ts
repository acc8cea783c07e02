// Which writer drafts: the OpenAI-compatible one when a provider is configured (`LLM_BASE_URL`),
// otherwise the built-in one, which needs no network.
import type { Config } from '../config.js';
import { builtinWriter } from './builtin.js';
import { openAiWriter } from './openai.js';
import type { Writer } from './types.js';

export type { DraftInput, Writer } from './types.js';

export function writerFor(config: Pick<Config, 'llm'>): Writer {
  return config.llm ? openAiWriter(config.llm) : builtinWriter;
}
