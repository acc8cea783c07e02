// The built-in writer: no network, no model. It rewrites a post into a new one by rules: the
// post's hook (from its decode) and its strongest sentences (numbers, intent words) are condensed
// and rearranged under one of several angles (headline, numbered takeaways, "in short", lead with
// the strongest point), shaped by the tone and the style reference, closed with a call to action
// or the link, and fitted to the platform's length. Deterministic: the same input gives the same
// draft, and a re-draft (a higher `variation`) takes another angle, so it differs from its parent.
import { styleProfile, type StyleProfile } from './style.js';
import {
  charCount,
  condense,
  extractHashtags,
  extractLinks,
  fitToLimit,
  keywords,
  prose,
  sameWords,
  sentences,
  shortSentences,
  stripEmoji,
  terminate,
  words,
} from './text.js';
import { limitFor, type DraftInput, type SourceMaterial, type Writer } from './types.js';

interface Material {
  hook: string;
  /** Supporting sentences, strongest first. */
  points: string[];
  link: string | null;
  hashtags: string[];
}

/** The same sentence, but for case, spacing and the punctuation that ends it. */
const sameSentence = (a: string, b: string): boolean => {
  const norm = (s: string) =>
    s
      .replace(/\s+/gu, ' ')
      .replace(/[.!?…]+$/u, '')
      .trim()
      .toLowerCase();
  return norm(a) === norm(b);
};

/** Ranks a supporting sentence: numbers and the intent's words make it stronger. */
function strength(sentence: string, intentWords: Set<string>): number {
  const n = words(sentence).length;
  let score = /\d/.test(sentence) ? 2 : 0;
  if (n >= 5 && n <= 28) score += 1;
  if (sentence.endsWith('?')) score -= 1;
  for (const w of words(sentence)) if (intentWords.has(w)) score += 1;
  return score;
}

function materialOf(src: SourceMaterial, intent: string, style: StyleProfile): Material {
  // The post's text as stored: plain text, read as such (never as markup; see text.ts).
  const raw = src.text;
  let sents = sentences(prose(raw)).map(condense);
  if (style.shortSentences) sents = sents.flatMap((s) => shortSentences(s, 12));
  if (!style.emoji) sents = sents.map(stripEmoji);
  sents = sents.filter((s) => /[\p{L}\p{N}]/u.test(s));
  // The decode's hook is the post's opening as the ingest saw it; its first sentence leads.
  const decoded = src.decode?.hook ? sentences(prose(src.decode.hook)).map(condense)[0] : undefined;
  const hook = (decoded && (style.emoji ? decoded : stripEmoji(decoded))) || (sents[0] ?? '');
  const intentWords = new Set(keywords(intent, 8));
  // A sentence that repeats the hook goes; one that differs from it only in symbols (`5 > 3`
  // against `5 < 3`) is another sentence and stays.
  const rest = sents.filter((s) => !sameSentence(s, hook));
  const points = rest
    .map((s, i) => ({ s, score: strength(s, intentWords), i }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map((x) => x.s);
  // A feed item is a pointer to the article: its own address is the link to share.
  const links = src.decode?.links.length ? src.decode.links : extractLinks(raw);
  const link = src.platform === 'rss' && src.url ? src.url : (links[0] ?? null);
  const hashtags = (src.decode?.hashtags.length ? src.decode.hashtags : extractHashtags(raw)).map((h) => h.replace(/^#/, ''));
  return { hook, points, link, hashtags };
}

function closingOf(m: Material, style: StyleProfile, variation: number): string {
  if (m.link) {
    const label = style.formal ? ['Details', 'Reference', 'More'] : style.warm ? ['Full story', 'Have a look', 'More here'] : ['More', 'Details', 'Read more'];
    return `${label[variation % 3]}: ${m.link}`;
  }
  if (style.warm) return ['What would you add?', 'How do you handle this?', 'Curious what you think.'][variation % 3]!;
  if (style.formal) return '';
  return ['Thoughts?', 'Feedback welcome.', ''][variation % 3]!;
}

function listOf(items: string[], style: StyleProfile): string {
  return items.map((s, i) => `${style.bullet === '1.' ? `${i + 1}.` : style.bullet} ${terminate(s)}`).join('\n');
}

function openingLine(text: string, style: StyleProfile): string {
  let line = terminate(text);
  if (style.exclaim && line.endsWith('.')) line = `${line.slice(0, -1)}!`;
  return style.emoji ? `${line} ${style.emoji}` : line;
}

/** The angles a draft can take; the variation picks one, so successive re-drafts differ. */
const ANGLES: Array<(m: Material, points: string[], style: StyleProfile) => string[]> = [
  // headline: the hook, then the points
  (m, points, style) => [openingLine(m.hook, style), listOf(points, style)],
  // numbered takeaways
  (m, points, style) => {
    const items = [m.hook, ...points].filter(Boolean);
    const n = items.length;
    return [n === 1 ? 'One takeaway:' : `${n} takeaways:`, listOf(items, { ...style, bullet: '1.' })];
  },
  // in short
  (m, points, style) => [openingLine(`In short: ${m.hook}`, style), points.length ? `The details:\n${listOf(points, style)}` : ''],
  // lead with the strongest point, the hook as context
  (m, points, style) => {
    const [lead, ...others] = points;
    if (!lead) return [openingLine(`Worth knowing: ${m.hook}`, style)];
    return [openingLine(lead, style), `Context: ${terminate(m.hook)}`, listOf(others, style)];
  },
];

function briefSections(all: Material[], points: string[], style: StyleProfile, variation: number): string[] {
  const n = all.length;
  const opening = [`${n} posts, one thread:`, 'Roundup:', `What connects these ${n} posts:`, 'Recap of recent posts:'][variation % 4]!;
  return [opening, listOf(points, style)];
}

const LIST_ITEM = /^(?:[-•→*]|\d+\.)\s/;

function layout(sections: string[], style: StyleProfile): string {
  let text = sections
    .map((s) => s.trim())
    .filter(Boolean)
    .join('\n\n');
  // One idea per line: every sentence of a paragraph gets its own line (list items already do).
  if (style.linePerSentence)
    text = text
      .split('\n')
      .flatMap((line) => (!line || LIST_ITEM.test(line) ? [line] : sentences(line)))
      .join('\n');
  // Lower case: the capital that starts a plain word goes (`The` → `the`); what is not a plain
  // word stays as written (links, mentions, file names, `iPhone`, `NASA`), since the writer never
  // alters a token.
  if (style.lowercase) text = text.replace(/(?<![\p{L}\p{N}_.@#/:-])\p{Lu}\p{Ll}*(?![\p{L}\p{N}_.@/-])/gu, (w) => w.toLowerCase());
  return text;
}

/** Builds the draft, dropping the least important parts until it fits the platform's budget. */
function compose(input: DraftInput, variation: number): string {
  const style = styleProfile(input.tone, input.styleReference);
  const limit = limitFor(input.platform);
  const main = materialOf(input.source, input.intent, style);
  const more = input.more.map((s) => materialOf(s, input.intent, style));
  const brief = more.length > 0;
  const all = [main, ...more];
  let pointCount = brief ? all.length : Math.min(style.maxPoints, main.points.length);
  let withClosing = true;
  let withTags = style.hashtags;
  const build = () => {
    const sections = brief
      ? briefSections(
          all,
          all.slice(0, pointCount).map((m) => fitToLimit(m.hook, 140)),
          style,
          variation,
        )
      : ANGLES[variation % ANGLES.length]!(main, main.points.slice(0, pointCount), style);
    if (withClosing) sections.push(closingOf(main, style, variation));
    if (withTags && main.hashtags.length)
      sections.push(
        main.hashtags
          .slice(0, 3)
          .map((h) => `#${h}`)
          .join(' '),
      );
    return layout(sections, style);
  };
  let text = build();
  while (charCount(text) > limit) {
    if (withTags) withTags = false;
    else if (pointCount > 1) pointCount--;
    else if (withClosing) withClosing = false;
    else if (pointCount > 0) pointCount--;
    else break;
    text = build();
  }
  return fitToLimit(text, limit);
}

function fallbackText(input: DraftInput): string {
  const link = input.source.url ?? extractLinks(input.source.text)[0];
  return link ? `Worth a look: ${link}` : 'Worth a look.';
}

export const builtinWriter: Writer = {
  name: 'builtin',
  async write(input) {
    const sourceWords = prose(input.source.text);
    if (!/[\p{L}\p{N}]/u.test(sourceWords)) return { text: fitToLimit(fallbackText(input), limitFor(input.platform)) };
    // Try the angles in turn from the requested variation until the draft is neither a copy of
    // the source nor a repeat of its parent.
    let text = '';
    for (let v = input.variation; v < input.variation + ANGLES.length * 3; v++) {
      text = compose(input, v);
      if (!sameWords(text, sourceWords) && !(input.parentText && sameWords(text, input.parentText))) break;
    }
    return { text };
  },
};
