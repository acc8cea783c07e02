// Bluesky rich text: a post's links, mentions and hashtags are clickable only through
// `app.bsky.richtext.facet` entries, each naming a range of the text in UTF-8 **bytes**
// (`byteStart` inclusive, `byteEnd` exclusive) and a feature (#link, #mention, #tag). JavaScript
// strings index UTF-16 code units, so every offset is converted; an emoji or a CJK character
// before a link is where offsets in code units or code points go wrong.
//
// Detection follows @atproto/api's `RichText.detectFacets` (its URL, mention and tag patterns) with
// twitter-text, already a dependency, finding the URLs written without a scheme (it knows the
// TLDs, so `example.com` links and `v1.2` does not). @atproto/api itself was not taken: it
// brings the whole generated lexicon client, zod 3 and multiformats for these three patterns.
// Pure: resolving a mention's handle to a DID is the adapter's (server/adapters/bluesky.ts).
import twitterText from 'twitter-text';

export type FacetFeature =
  | { $type: 'app.bsky.richtext.facet#link'; uri: string }
  | { $type: 'app.bsky.richtext.facet#mention'; did: string }
  | { $type: 'app.bsky.richtext.facet#tag'; tag: string };

export interface Facet {
  $type: 'app.bsky.richtext.facet';
  index: { byteStart: number; byteEnd: number };
  features: FacetFeature[];
}

/** A facet found in the text before mentions are resolved: a mention names its handle. */
export type DetectedFacet =
  | { kind: 'link'; start: number; end: number; uri: string }
  | { kind: 'mention'; start: number; end: number; handle: string }
  | { kind: 'tag'; start: number; end: number; tag: string };

// @atproto/api: a URL with a scheme runs to the next white space, less trailing punctuation.
const SCHEME_URL = /(^|\s|\()(https?:\/\/\S+)/gi;
// @atproto/api: a mention is `@` after the start, white space or `(`, then a handle (a domain name).
const MENTION = /(^|\s|\()(@)([a-zA-Z0-9.-]+)(\b)/g;
const HANDLE = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/i;
// @atproto/api: a tag is `#` (or the full-width `＃`) after the start or white space, not only digits,
// trailing punctuation not included, at most 64 characters. The classes list the zero-width and
// combining characters (ZWJ, U+20E2) one by one, on purpose: a tag stops at any of them.
/* eslint-disable no-misleading-character-class -- as @atproto/api's regex (a block: the formatter puts the regex on a line of its own) */
const TAG =
  /(^|\s)[#＃]((?!\ufe0f)[^\s\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]*[^\d\s\p{P}\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]+[^\s\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]*)?/gu;
/* eslint-enable no-misleading-character-class */
const MAX_TAG = 64;

/** Links, mentions and tags of a text, with UTF-16 offsets, in order and never overlapping (a link wins). */
export function detectFacets(text: string): DetectedFacet[] {
  const found: DetectedFacet[] = [];
  for (const m of text.matchAll(SCHEME_URL)) {
    let uri = m[2]!.replace(/[.,;:!?]+$/, '');
    if (uri.endsWith(')') && !uri.includes('(')) uri = uri.slice(0, -1);
    const start = m.index + m[1]!.length;
    found.push({ kind: 'link', start, end: start + uri.length, uri });
  }
  for (const u of twitterText.extractUrlsWithIndices(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(u.url)) continue;
    found.push({ kind: 'link', start: u.indices[0], end: u.indices[1], uri: `https://${u.url}` });
  }
  for (const m of text.matchAll(MENTION)) {
    const handle = m[3]!.replace(/[.-]+$/, '');
    if (!HANDLE.test(handle)) continue;
    const start = m.index + m[1]!.length;
    found.push({ kind: 'mention', start, end: start + 1 + handle.length, handle: handle.toLowerCase() });
  }
  for (const m of text.matchAll(TAG)) {
    if (!m[2]) continue;
    const tag = m[2].trim().replace(/\p{P}+$/u, '');
    if (!tag || [...tag].length > MAX_TAG) continue;
    const start = m.index + m[1]!.length;
    found.push({ kind: 'tag', start, end: start + 1 + tag.length, tag });
  }
  found.sort((a, b) => a.start - b.start || (a.kind === 'link' ? -1 : 1));
  const out: DetectedFacet[] = [];
  for (const f of found) if (!out.length || f.start >= out.at(-1)!.end) out.push(f);
  return out;
}

/** The UTF-8 byte offset of a UTF-16 offset of `text`. */
const byteOffset = (text: string, utf16: number): number => Buffer.byteLength(text.slice(0, utf16), 'utf8');

/**
 * The facets of a text: its links and tags, and its mentions whose handle `did` resolves
 * (a mention that does not resolve stays plain text, as the Bluesky app leaves it).
 */
export function facetsOf(text: string, detected: DetectedFacet[], did: (handle: string) => string | null): Facet[] {
  const facets: Facet[] = [];
  for (const f of detected) {
    let feature: FacetFeature;
    if (f.kind === 'link') feature = { $type: 'app.bsky.richtext.facet#link', uri: f.uri };
    else if (f.kind === 'tag') feature = { $type: 'app.bsky.richtext.facet#tag', tag: f.tag };
    else {
      const resolved = did(f.handle);
      if (!resolved) continue;
      feature = { $type: 'app.bsky.richtext.facet#mention', did: resolved };
    }
    facets.push({ $type: 'app.bsky.richtext.facet', index: { byteStart: byteOffset(text, f.start), byteEnd: byteOffset(text, f.end) }, features: [feature] });
  }
  return facets;
}
