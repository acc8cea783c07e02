// A connect without `platform` (issue #30) is refused for what is missing: `body.platform is
// required` with the platforms it takes, not for a handle of the wrong form (every platform's
// handle rule applied when no platform was named). The discriminator's own errors stay named.
import { describe, expect, it } from 'vitest';
import { newIdempotencyKey } from '../../clients/typescript/src/index.js';
import { rawRequest, V1 } from '../support/api.js';
import { countRows } from '../support/rows.js';
import { serverSuite } from '../support/suite.js';

const t = serverSuite();

const connect = (body: Record<string, unknown>) =>
  rawRequest(t.s, `${V1}/accounts/connect`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ idempotency_key: newIdempotencyKey(), ...body }),
  });

describe('POST /accounts/connect names the missing discriminator', () => {
  it.each([
    ['a Mastodon handle', '@ada@mastodon.social'],
    ['a Bluesky handle', 'ada.bsky.social'],
    ['a feed URL', 'https://blog.example.org/feed.xml'],
  ])('without platform (%s): 422 body.platform is required, with the platforms it takes', async (_, handle) => {
    const before = await countRows(t.s.running.deps.db, 'Account');
    const r = await connect({ handle, auth_material: 'token-0123456789' });
    expect(r.res.status).toBe(422);
    expect(r.body.error).toMatchObject({
      code: 'validation_failed',
      message: 'body.platform is required; one of rss, mastodon, bluesky, archive, x, linkedin, threads',
    });
    expect(await countRows(t.s.running.deps.db, 'Account')).toBe(before);
  });

  it('an unknown platform is named with the values it may take; a handle of the wrong form for a named platform is named', async () => {
    const unknown = await connect({ platform: 'myspace', handle: '@ada@mastodon.social', auth_material: 'x' });
    expect(unknown.res.status).toBe(422);
    expect(unknown.body.error!.message).toMatch(/^body\.platform must be equal to one of the allowed values/);
    const wrong = await connect({ platform: 'mastodon', handle: 'ada.bsky.social', auth_material: 'x' });
    expect(wrong.res.status).toBe(422);
    expect(wrong.body.error!.message).toMatch(/^body\.handle /);
  });

  it('another missing field is named the same way', async () => {
    const r = await connect({ platform: 'mastodon', handle: '@ada@mastodon.social' });
    expect(r.res.status).toBe(422);
    expect(r.body.error!.message).toBe('body.auth_material is required');
  });

  it.each(['https://[L', 'socks5://^K<e'])('a proxy_url that is no URL (%s) is 422 naming it, before any probe, nothing stored', async (proxy) => {
    const before = await countRows(t.s.running.deps.db, 'Account');
    const r = await connect({ platform: 'x', handle: '@ada', auth_material: '', proxy_url: proxy });
    expect(r.res.status).toBe(422);
    expect(r.body.error!.message).toMatch(/^body\.proxy_url /);
    expect(await countRows(t.s.running.deps.db, 'Account')).toBe(before);
  });
});
