// How a draft should look, read from the pipeline's tone (free words such as "friendly" or
// "plain and technical") and the request's style_reference (a sample to imitate, which may also
// state rules such as "No emoji."). Measured features of the sample and stated rules both count;
// a stated rule wins over a measurement.
import { firstEmoji, hasEmoji, sentences, words } from './text.js';

export interface StyleProfile {
  /** Split long sentences at clause boundaries. */
  shortSentences: boolean;
  /** Put every sentence on its own line. */
  linePerSentence: boolean;
  /** An emoji to use (taken from the sample), or null for none. */
  emoji: string | null;
  /** How list items start: `•`, `-`, `→` or `1.` (numbered). */
  bullet: string;
  hashtags: boolean;
  lowercase: boolean;
  /** Enthusiastic: the opening may end with `!`. */
  exclaim: boolean;
  /** Friendly/casual: closes by inviting replies. */
  warm: boolean;
  /** Formal/technical/plain: no exclamation, no emoji, no chatty closing. */
  formal: boolean;
  /** How many supporting points at most. */
  maxPoints: number;
}

const has = (text: string, re: RegExp) => re.test(text);

function toneOf(tone: string) {
  const t = tone.toLowerCase();
  return {
    warm: has(t, /friendly|warm|casual|playful|conversational|approachable|upbeat|fun/),
    exclaim: has(t, /enthusias|excit|energetic|upbeat|hype|bold/),
    formal: has(t, /formal|professional|technical|plain|neutral|serious|academic|dry|precise|corporate/),
    concise: has(t, /concise|brief|short|punchy|terse|crisp|minimal/),
  };
}

function sampleOf(sample: string) {
  const s = sample.toLowerCase();
  const lines = sample
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const sents = sentences(sample);
  const avgWords = sents.length ? sents.reduce((n, x) => n + words(x).length, 0) / sents.length : 0;
  const bulletLine = lines.find((l) => /^(?:[-•→*]|\d+[.)])\s/.test(l));
  const letters = sample.replace(/[^\p{L}]/gu, '');
  return {
    // stated rules
    noEmoji: has(s, /\bno emoji|without emoji|avoid emoji/),
    noHashtags: has(s, /\bno hashtags?|without hashtags?|avoid hashtags?/),
    saysShort: has(s, /short sentences|keep it short|be brief|concise/),
    saysLines: has(s, /one (?:idea|thought|sentence) per line|line breaks/),
    saysNoExclaim: has(s, /no exclamation/),
    // measurements
    shortMeasured: sents.length >= 2 && avgWords > 0 && avgWords <= 9,
    linesMeasured: lines.length >= 3 && lines.length >= sents.length * 0.8,
    emoji: hasEmoji(sample) ? firstEmoji(sample) : null,
    bullet: bulletLine ? (/^\d/.test(bulletLine) ? '1.' : bulletLine[0]!) : null,
    hashtagsMeasured: /(^|\s)#\w/.test(sample),
    lowercase: letters.length >= 40 && letters === letters.toLowerCase(),
    exclaims: (sample.match(/!/g) ?? []).length >= 2,
  };
}

export function styleProfile(tone: string | null, styleReference: string | null): StyleProfile {
  const t = toneOf(tone ?? '');
  const sample = styleReference ? sampleOf(styleReference) : null;
  const formal = t.formal && !t.warm;
  return {
    shortSentences: Boolean(sample && (sample.saysShort || sample.shortMeasured)) || t.concise,
    linePerSentence: Boolean(sample && (sample.saysLines || sample.linesMeasured)),
    emoji: formal || sample?.noEmoji ? null : (sample?.emoji ?? null),
    bullet: sample?.bullet ?? (formal ? '-' : '•'),
    // Without a sample, hashtags the source used are kept; a sample decides by example or by rule.
    hashtags: sample ? !sample.noHashtags && (sample.hashtagsMeasured || styleReference!.length < 200) : true,
    lowercase: sample?.lowercase ?? false,
    exclaim: !formal && !sample?.saysNoExclaim && (t.exclaim || Boolean(sample?.exclaims)),
    warm: t.warm,
    formal,
    maxPoints: t.concise || sample?.saysShort ? 2 : 3,
  };
}
