import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../server/services/cursor.js';
import { ConfigError, loadConfig } from '../../server/config.js';
import { platformForHandle } from '../../server/services/pipelines.js';
import { AppError } from '../../server/errors.js';

describe('cursors', () => {
  const key = Buffer.alloc(32, 7);
  it('round-trip within their scope', () => {
    const c = encodeCursor(key, 'scope-a', { t: '2026-01-01T00:00:00.000Z', i: 'post_1' });
    expect(decodeCursor(key, 'scope-a', c)).toEqual({ t: '2026-01-01T00:00:00.000Z', i: 'post_1' });
  });
  it('are refused in another scope, with another key, or altered', () => {
    const c = encodeCursor(key, 'scope-a', { i: 'x' });
    expect(() => decodeCursor(key, 'scope-b', c)).toThrow(AppError);
    expect(() => decodeCursor(Buffer.alloc(32, 8), 'scope-a', c)).toThrow(AppError);
    const [p, s] = c.split('.');
    expect(() => decodeCursor(key, 'scope-a', `${p}x.${s}`)).toThrow(AppError);
  });
});

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect([c.host, c.port, c.rateLimitPerMinute, c.instanceMode, c.databaseUrl, c.heartbeatSeconds]).toEqual(['127.0.0.1', 8787, 600, 'desktop', null, 15]);
    expect(c.dataDir.endsWith('/data')).toBe(true);
  });
  it('asks for LLM_MODEL with LLM_BASE_URL instead of a default model a local server does not have', () => {
    expect(() => loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1' })).toThrow(/LLM_MODEL must be set with LLM_BASE_URL/);
    expect(loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1/', LLM_MODEL: 'llama3.2:3b' }).llm).toEqual({
      baseUrl: 'http://127.0.0.1:11434/v1',
      apiKey: null,
      model: 'llama3.2:3b',
    });
    expect(loadConfig({ LLM_MODEL: 'llama3.2:3b' }).llm).toBeNull();
  });

  it('reports every problem at once, naming the variable', () => {
    try {
      loadConfig({ PORT: 'eighty', RATE_LIMIT_PER_MINUTE: '0', DATABASE_URL: 'mysql://x', INSTANCE_MODE: 'cloud', WEBHOOK_SIGNING_SECRET: 'short' });
      throw new Error('expected a ConfigError');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const m = (err as Error).message;
      for (const name of ['PORT', 'RATE_LIMIT_PER_MINUTE', 'DATABASE_URL', 'INSTANCE_MODE', 'WEBHOOK_SIGNING_SECRET']) expect(m).toContain(name);
    }
  });
});

describe('platformForHandle', () => {
  it.each([
    ['@ada@mastodon.social', 'mastodon'],
    ['https://blog.example.com/feed.xml', 'rss'],
    ['ada.bsky.social', 'bluesky'],
    ['my-x-archive', 'archive'],
  ])('%s is %s', (handle, platform) => {
    expect(platformForHandle(handle)).toBe(platform);
  });
});
