// Where the contract is as precise as the server (issue 25, item 13): the stream's `events` list
// and a connected account's `handle`, whose form depends on `platform` (an `if`/`then` union on
// `platform` in ConnectAccountRequest). Whatever the schema admits, the server accepts — checked
// with strings generated from the contract's own patterns (as schemathesis' positive-data
// phase does) — and what it does not, the schema already refuses.
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { blueskyAdapter } from '../../server/platforms/bluesky/adapter.js';
import { mastodonAdapter } from '../../server/platforms/mastodon/adapter.js';
import { rssAdapter } from '../../server/adapters/rss.js';
import { linkedinAdapter } from '../../server/platforms/linkedin/adapter.js';
import { threadsAdapter } from '../../server/platforms/threads/adapter.js';
import { xAdapter } from '../../server/platforms/x/adapter.js';
import { CANONICAL_TYPES, parseTypeFilter, TYPE_ALIASES } from '../../server/services/events.js';

type Json = Record<string, unknown>;
const spec = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../generated/openapi.json'), 'utf8')) as Json;
const schemas = (spec.components as Json).schemas as Record<string, Json>;
const params = (spec.components as Json).parameters as Record<string, Json>;

const eventsSchema = params.StreamEvents!.schema as { pattern: string; maxLength: number };
const connect = schemas.ConnectAccountRequest as {
  allOf: Array<{ if: { properties: { platform: { const: string } } }; then: { properties: { handle: { pattern: string; maxLength?: number } } } }>;
};
const handleRule = (platform: string) => {
  const branch = connect.allOf.find((b) => b.if.properties.platform.const === platform);
  if (!branch) throw new Error(`no handle rule for ${platform}`);
  const h = branch.then.properties.handle;
  return { re: new RegExp(h.pattern, 'u'), maxLength: h.maxLength ?? 512 };
};
const admits = (rule: { re: RegExp; maxLength: number }, s: string) => rule.re.test(s) && s.length <= rule.maxLength && s.length >= 1;

describe('the stream’s events filter', () => {
  const re = new RegExp(eventsSchema.pattern, 'u');
  it('admits exactly the event names the stream knows, canonical and alternative', () => {
    const known = [...CANONICAL_TYPES, ...Object.keys(TYPE_ALIASES)];
    for (const name of known) expect([name, re.test(name)]).toEqual([name, true]);
    for (const name of ['riff', 'riff.readyx', 'post.read', 'ingest.completed.', 'a', '_', 'post.ready,', ',post.ready', 'post.ready,,riff.ready'])
      expect([name, re.test(name)]).toEqual([name, false]);
  });
  it('every list the schema admits is one the stream accepts (no 422)', () => {
    fc.assert(
      fc.property(fc.stringMatching(re), (list) => {
        fc.pre(list.length <= eventsSchema.maxLength);
        expect(() => parseTypeFilter(list)).not.toThrow();
      }),
      { numRuns: 500, seed: 25 },
    );
  });
});

describe('a connected account’s handle, by platform', () => {
  const adapters = { mastodon: mastodonAdapter, bluesky: blueskyAdapter, rss: rssAdapter, x: xAdapter, linkedin: linkedinAdapter, threads: threadsAdapter };
  for (const platform of ['mastodon', 'bluesky', 'rss', 'x', 'linkedin', 'threads'] as const) {
    it(`${platform}: every handle the schema admits, the adapter accepts`, () => {
      const rule = handleRule(platform);
      fc.assert(
        fc.property(fc.stringMatching(rule.re), (handle) => {
          fc.pre(handle.length <= rule.maxLength && /^[\x21-\x7e]+$/.test(handle));
          expect(() => adapters[platform].normalizeHandle(handle)).not.toThrow();
        }),
        { numRuns: 500, seed: 25 },
      );
    });
  }
  it('refuses in the schema a handle of another platform’s form', () => {
    expect(admits(handleRule('mastodon'), '@ada@mastodon.example')).toBe(true);
    expect(admits(handleRule('mastodon'), 'ada@mastodon.example:8443')).toBe(true);
    expect(admits(handleRule('mastodon'), 'https://mastodon.example/@ada')).toBe(false);
    expect(admits(handleRule('mastodon'), '@ada@mastodon.example:99999')).toBe(false);
    expect(admits(handleRule('bluesky'), 'ada.bsky.social')).toBe(true);
    expect(admits(handleRule('bluesky'), '@ada@bsky.social')).toBe(false);
    expect(admits(handleRule('bluesky'), 'ada')).toBe(false);
    expect(admits(handleRule('rss'), 'https://blog.example.com/feed.xml')).toBe(true);
    expect(admits(handleRule('rss'), 'blog.example.com/feed.xml')).toBe(false);
    expect(admits(handleRule('rss'), '@ada@mastodon.example')).toBe(false);
    expect(admits(handleRule('x'), '@Ada_Writes')).toBe(true);
    expect(admits(handleRule('x'), '@ada@mastodon.example')).toBe(false);
    expect(admits(handleRule('x'), '@sixteen_letters_')).toBe(false);
    expect(admits(handleRule('threads'), '@ada.writes')).toBe(true);
    expect(admits(handleRule('threads'), 'ada.bsky.social@x')).toBe(false);
    expect(admits(handleRule('linkedin'), 'ada-lovelace')).toBe(true);
    expect(admits(handleRule('linkedin'), 'urn:li:person:yWk3vJ9Q2b')).toBe(true);
    expect(admits(handleRule('linkedin'), '@ada')).toBe(false);
  });
});
