// The writer interface: whatever turns a source post (and its decode) into a draft. The drafting
// service picks one (builtin.ts without network, openai.ts for an OpenAI-compatible provider) and
// knows nothing else about it.
import type { OutboundClient } from '../outbound/types.js';

/** The deterministic structure of a post (the ingest's decode; see services/decode.ts). */
export interface DecodeInfo {
  hook: string;
  format: string;
  length: number;
  hashtags: string[];
  links: string[];
}

export interface SourceMaterial {
  /**
   * The post's text as stored: plain text, whatever the source. Sources that carry HTML (Mastodon,
   * WordPress, feeds) are turned into text once, by their adapter, when they are read; X's
   * archive entities are decoded once at import. A writer never reads it as markup again.
   */
  text: string;
  url: string | null;
  platform: string;
  decode: DecodeInfo | null;
  metrics: { likes: number; reposts: number; replies: number; quotes: number };
}

export interface DraftInput {
  /** The post drafted from; a brief adds `more` (other posts of the same pipeline). */
  source: SourceMaterial;
  more: SourceMaterial[];
  /** What the drafts are for (the pipeline's intent). */
  intent: string;
  tone: string | null;
  styleReference: string | null;
  /** The platform the draft will be published on; sets the length budget. */
  platform: string;
  /** For a re-draft: the text of the artifact it refines (the draft must differ from it). */
  parentText: string | null;
  /** 0 for a first draft; grows with each re-draft or regeneration so that each one differs. */
  variation: number;
}

export interface WriterContext {
  outbound: OutboundClient;
  signal?: AbortSignal;
}

export interface WrittenDraft {
  text: string;
}

export interface Writer {
  /** `builtin` or `openai`: recorded on the run's output. */
  readonly name: string;
  write(input: DraftInput, ctx: WriterContext): Promise<WrittenDraft>;
}

/**
 * The most characters a draft may have on each platform, so that publishing never fails on
 * length: Mastodon's default 500, Bluesky's 300 (graphemes; we count code points, which is never
 * fewer); feeds and archives have no publishing target, so a comfortable long-post budget.
 */
export const PLATFORM_LIMITS: Record<string, number> = { mastodon: 500, bluesky: 300, rss: 1200, archive: 1200 };

export function limitFor(platform: string): number {
  return PLATFORM_LIMITS[platform] ?? 1200;
}
