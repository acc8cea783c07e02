// The pure parts of the X, LinkedIn and Threads platforms (issue 31): X's counting with
// twitter-text (weighted, 280, URLs 23), LinkedIn's little-format escaping (checked against the
// fake's reading, which cuts where LinkedIn cuts), X's text as written from what its API answers,
// and when a 429 says to come back.
import { describe, expect, it } from 'vitest';
import { retryAtOf } from '../../server/adapters/http.js';
import type { OutboundResponse } from '../../server/outbound/types.js';
import { escapeLittle } from '../../server/platforms/linkedin/adapter.js';
import { xCounting } from '../../server/platforms/x/counting.js';
import { writtenText, xAdapter } from '../../server/platforms/x/adapter.js';
import { shownText } from '../support/fakes/linkedin.js';

describe('X counting (twitter-text)', () => {
  it('weighs Latin 1, CJK and emoji 2, and every URL 23 whatever its length', () => {
    expect(xCounting.count('a'.repeat(280), {})).toBe(280);
    expect(xCounting.count('東京', {})).toBe(4);
    expect(xCounting.count('👩🏽‍💻', {})).toBe(2);
    expect(xCounting.count(`see https://example.org/${'p'.repeat(200)}`, {})).toBe(4 + 23);
    expect(xCounting.rules).toMatchObject({ limit: 280, counting: 'weighted', urlLength: 23 });
  });

  it('refuses 281 but takes 140 CJK characters (280 weighted)', () => {
    expect(xAdapter.refusesText!('a'.repeat(281))).toContain('over x');
    expect(xAdapter.refusesText!('東'.repeat(140))).toBeNull();
    expect(xAdapter.refusesText!('東'.repeat(141))).toContain('counts 282');
  });
});

describe("LinkedIn's little text format", () => {
  const REAL = [
    'Q3 (July–Sept) numbers: revenue up 12% <3 #growth',
    'Ping @ada about [the draft] — use a|b, {x}, *stars*, _under_ and ~tilde~, C:\\tmp',
    'No reserved character at all, just words and emoji 🎉',
  ];

  it('is cut at the first reserved character when sent as written (what LinkedIn does)', () => {
    expect(shownText(REAL[0]!)).toBe('Q3 ');
    expect(shownText(REAL[1]!)).toBe('Ping ');
  });

  it('arrives whole once every reserved character is escaped', () => {
    for (const text of REAL) expect(shownText(escapeLittle(text))).toBe(text);
    expect(escapeLittle('\\|{}@[]()<>#*_~')).toBe('\\\\\\|\\{\\}\\@\\[\\]\\(\\)\\<\\>\\#\\*\\_\\~');
  });
});

describe("X's text as written", () => {
  it('expands t.co links and unescapes the entities X escapes', () => {
    const t = { text: 'a &amp; b &lt;3 https://t.co/abc', entities: { urls: [{ url: 'https://t.co/abc', expanded_url: 'https://blog.example.org/p1' }] } };
    expect(writtenText(t)).toBe('a & b <3 https://blog.example.org/p1');
  });
});

describe('when a 429 says to come back', () => {
  const res = (headers: Record<string, string>) => ({ status: 429, headers: new Headers(headers) }) as unknown as OutboundResponse;
  const now = new Date('2026-11-27T12:00:00Z');

  it("reads X's x-rate-limit-reset (epoch seconds) and Retry-After (seconds or a date)", () => {
    expect(retryAtOf(res({ 'x-rate-limit-reset': '1795000000' }), now)?.toISOString()).toBe(new Date(1_795_000_000_000).toISOString());
    expect(retryAtOf(res({ 'retry-after': '120' }), now)?.toISOString()).toBe('2026-11-27T12:02:00.000Z');
    expect(retryAtOf(res({ 'retry-after': 'Fri, 27 Nov 2026 12:05:00 GMT' }), now)?.toISOString()).toBe('2026-11-27T12:05:00.000Z');
    expect(retryAtOf(res({}), now)).toBeNull();
  });
});
