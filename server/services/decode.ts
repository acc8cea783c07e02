// Decode: the structure of one post, by deterministic analysis of its text (no model, no
// network): its hook (the opening line a reader sees first), its format, its length in
// characters, its hashtags and its links. The same text always decodes the same way.
export type PostFormat = 'thread' | 'list' | 'question' | 'announcement' | 'link_share' | 'long_form' | 'short_take' | 'statement';
export type HookKind = 'question' | 'number' | 'how_why' | 'personal' | 'imperative' | 'statement';
export type LengthBand = 'short' | 'medium' | 'long';

export interface DecodeResult {
  hook: string;
  format: PostFormat;
  /** Characters (code points) of the whole text. */
  length: number;
  /** Lower-cased, without `#`, in order of first appearance. */
  hashtags: string[];
  links: string[];
}

const HOOK_MAX = 280;
const LINK = /\bhttps?:\/\/[^\s<>"'`]+/gi;
const HASHTAG = /(?:^|[^\p{L}\p{N}_&/#])#([\p{L}_][\p{L}\p{N}_]{0,99})/gu;
const BULLET = /^\s*(?:[-*•·▪–]|\d{1,2}[.)]|[①-⑳]|\p{Extended_Pictographic})\s+\S/u;
const THREAD = /🧵|\bthread\b|(?:^|\s)\(?1\s?\/\s?(?:\d{1,2}|n)\)?(?:\s|$)/iu;
const ANNOUNCE = /\b(announc\w*|launch\w*|releas\w*|shipped|shipping|introducing|now available|just published|is out|v\d+\.\d+)/i;

/** Links as written, without the punctuation that ends the sentence around them. */
export function extractLinks(text: string): string[] {
  const found = (text.match(LINK) ?? []).map((l) => l.replace(/[.,;:!?)\]}>…]+$/u, ''));
  return [...new Set(found)];
}

export function extractHashtags(text: string): string[] {
  return [...new Set([...text.matchAll(HASHTAG)].map((m) => m[1].toLowerCase()))];
}

/** The first line, cut at its first sentence end when it is long; links and trailing hashtags removed. */
export function extractHook(text: string): string {
  const lines = text.split('\n').map((l) =>
    l
      .replace(LINK, '')
      .replace(/(\s#[\p{L}\p{N}_]+)+\s*$/u, '')
      .trim(),
  );
  const first = lines.find((l) => l.length > 0) ?? '';
  if ([...first].length <= HOOK_MAX) return first;
  const sentence = /^(.{20,}?[.!?…])(\s|$)/su.exec(first);
  if (sentence && [...sentence[1]].length <= HOOK_MAX) return sentence[1];
  return `${[...first]
    .slice(0, HOOK_MAX - 1)
    .join('')
    .trimEnd()}…`;
}

export function classifyFormat(text: string, hook: string, links: string[]): PostFormat {
  const length = [...text].length;
  const bullets = text.split('\n').filter((l) => BULLET.test(l)).length;
  if (THREAD.test(text)) return 'thread';
  if (bullets >= 2) return 'list';
  if (hook.endsWith('?')) return 'question';
  if (ANNOUNCE.test(hook)) return 'announcement';
  const withoutLinks = links.reduce((t, l) => t.split(l).join(''), text).trim();
  if (links.length > 0 && [...withoutLinks].length < 140) return 'link_share';
  if (length > 1000) return 'long_form';
  if (length <= 140) return 'short_take';
  return 'statement';
}

export function decodeText(text: string): DecodeResult {
  const links = extractLinks(text);
  const hook = extractHook(text);
  return { hook, format: classifyFormat(text, hook, links), length: [...text].length, hashtags: extractHashtags(text), links };
}

/** How a hook opens, for pattern detection. */
export function hookKind(hook: string): HookKind {
  const h = hook.trim();
  if (h.endsWith('?')) return 'question';
  if (
    /^(\d[\d,.]*\b|(one|two|three|four|five|six|seven|eight|nine|ten)\b)/i.test(h) ||
    /\b\d+\s+(ways|things|tips|lessons|reasons|steps|mistakes|ideas|tools)\b/i.test(h)
  )
    return 'number';
  if (/^(how|why|what|when|where|who)\b/i.test(h)) return 'how_why';
  if (/^(i|we|i'm|i've|we're|we've|my|our)\b/i.test(h)) return 'personal';
  if (/^(stop|start|try|don't|do|use|read|learn|build|ship|remember|never|always)\b/i.test(h)) return 'imperative';
  return 'statement';
}

export function lengthBand(length: number): LengthBand {
  return length <= 140 ? 'short' : length <= 500 ? 'medium' : 'long';
}
