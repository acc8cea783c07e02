// POST /accounts/connect: the synchronous probe of each platform against its local fake,
// add vs rotate, nothing stored after a failed probe, credentials sealed at rest and never
// returned, the proxy honoured, and the documented errors.
import { statSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { refusal } from '../support/errors.js';
import { createCipher, KEY_FILE } from '../../server/services/crypto.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { rssDocument, startBlueskyFake, startConnectProxy, startFeedFake, startMastodonFake, type ProxyFake } from '../support/platforms.js';
import { archiveFixture, connect, V1 } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { findRows } from '../support/rows.js';

let s: TestServer;
let keyed: TestServer;
let mastodon: Awaited<ReturnType<typeof startMastodonFake>>;
let bluesky: Awaited<ReturnType<typeof startBlueskyFake>>;
let feed: Awaited<ReturnType<typeof startFeedFake>>;
let proxy: ProxyFake;
let gone: Awaited<ReturnType<typeof startMastodonFake>>;
const FIXED_KEY = 'ab'.repeat(32);

beforeAll(async () => {
  mastodon = await startMastodonFake();
  bluesky = await startBlueskyFake();
  feed = await startFeedFake({ xml: rssDocument([{ guid: 'a', title: 'Hello', description: 'World', pubDate: 'Sun, 01 Nov 2026 10:00:00 GMT' }]) });
  proxy = await startConnectProxy();
  // An allowed address where nothing listens any more: an unreachable instance.
  gone = await startMastodonFake();
  await gone.fake.close();
  const env = outboundEnvFor(mastodon.fake, bluesky.fake, feed.fake, gone.fake);
  env.OUTBOUND_ALLOW_HOSTS += `,${proxy.host}`;
  s = await startTestServer({ env: { ...env, ...bluesky.env } });
  keyed = await startTestServer({ env: { ...env, CREDENTIALS_KEY: FIXED_KEY } });
});

afterAll(async () => {
  await s?.stop();
  await keyed?.stop();
  for (const f of [mastodon?.fake, bluesky?.fake, feed?.fake]) await f?.close();
  await proxy?.close();
});

const accountRows = (t: TestServer) => findRows(t.running.deps.db, 'Account');

describe('mastodon', () => {
  it('adds an account after verify_credentials, then rotates it; the token is never returned and is sealed at rest', async () => {
    const added = await connect(s, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
    expect(added.result).toBe('added');
    expect(added.account).toMatchObject({ platform: 'mastodon', handle: mastodon.handle, status: 'active', has_proxy: false });
    expect(JSON.stringify(added)).not.toContain(mastodon.state.token);
    const probe = mastodon.fake.requests.find((r) => r.url === '/api/v1/accounts/verify_credentials');
    expect(probe?.headers.authorization).toBe(`Bearer ${mastodon.state.token}`);

    const [row] = (await accountRows(s)).filter((a) => a.platform === 'mastodon');
    expect(row.credentials).not.toContain(mastodon.state.token);
    expect(row.credentials).toMatch(/^v1\./);
    // The key file was created with mode 0600, and it opens the sealed value.
    const keyFile = path.join(s.db.dataDir, KEY_FILE);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);

    const rotated = await connect(s, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
    expect(rotated.result).toBe('rotated');
    expect(rotated.account.id).toBe(added.account.id);
    const rows = (await accountRows(s)).filter((a) => a.platform === 'mastodon');
    expect(rows).toHaveLength(1);
    // A fresh nonce per sealing: the same token seals differently.
    expect(rows[0].credentials).not.toBe(row.credentials);
  });

  it('refuses a wrong token with 424 credential_dead and stores nothing', async () => {
    const handle = `@nobody@${mastodon.fake.host}`;
    const err = await refusal(connect(s, { platform: 'mastodon', handle, auth_material: 'not-the-token' }));
    expect(err.status).toBe(424);
    expect(err.code).toBe('credential_dead');
    expect(err.suggestedAction).toBe('connect_account');
    expect((await accountRows(s)).some((a) => a.handle === handle)).toBe(false);
  });

  it('refuses a token that belongs to another account', async () => {
    const err = await refusal(connect(s, { platform: 'mastodon', handle: `@grace@${mastodon.fake.host}`, auth_material: mastodon.state.token }));
    expect(err.code).toBe('credential_dead');
    expect(err.message).toContain('@ada');
  });

  it('says 422 for a handle of the wrong form, naming the field', async () => {
    const err = await refusal(connect(s, { platform: 'mastodon', handle: 'ada.bsky.social', auth_material: 'x' }));
    expect(err.status).toBe(422);
    expect(err.code).toBe('validation_failed');
    expect(err.message).toContain('body.handle');
  });

  it('answers 502 backend_unavailable when the instance cannot be reached, and does not hang', async () => {
    const err = await refusal(connect(s, { platform: 'mastodon', handle: gone.handle, auth_material: 'whatever' }));
    expect(err.status).toBe(502);
    expect(err.code).toBe('backend_unavailable');
  });

  it('refuses with 422 an instance at a non-public address (the outbound guard)', async () => {
    const err = await refusal(connect(s, { platform: 'mastodon', handle: '@ada@10.1.2.3', auth_material: 'whatever' }));
    expect(err.status).toBe(422);
    expect(err.message).toContain('body.handle');
    expect((await accountRows(s)).some((a) => a.handle === '@ada@10.1.2.3')).toBe(false);
  });

  it('sends every request of an account with proxy_url through that proxy', async () => {
    const before = proxy.tunnels.length;
    const added = await connect(s, { platform: 'rss', handle: feed.url, auth_material: '', proxy_url: proxy.url });
    expect(added.account.has_proxy).toBe(true);
    expect(proxy.tunnels.slice(before)).toContain(feed.fake.host);
    const [row] = (await accountRows(s)).filter((a) => a.platform === 'rss');
    expect(row.proxyUrl).not.toContain(proxy.host);
  });
});

describe('bluesky', () => {
  it('probes by creating a session with the app password', async () => {
    const added = await connect(s, { platform: 'bluesky', handle: bluesky.state.handle, auth_material: bluesky.state.appPassword });
    expect(added.result).toBe('added');
    const session = bluesky.fake.requests.find((r) => r.url === '/xrpc/com.atproto.server.createSession');
    expect(JSON.parse(session!.body.toString())).toEqual({ identifier: bluesky.state.handle, password: bluesky.state.appPassword });
  });

  it('refuses a wrong app password', async () => {
    const err = await refusal(connect(s, { platform: 'bluesky', handle: bluesky.state.handle, auth_material: 'wrong-pass-word' }));
    expect(err.code).toBe('credential_dead');
    expect(err.status).toBe(424);
  });
});

describe('rss and archive', () => {
  it('probes a feed by fetching it; an address that answers no feed is 422 on the handle (a feed has no credential to reconnect)', async () => {
    const ok = await connect(keyed, { platform: 'rss', handle: feed.url, auth_material: '' });
    expect(ok.account.platform).toBe('rss');
    const err = await refusal(connect(keyed, { platform: 'rss', handle: `${feed.fake.url}/nope.xml`, auth_material: '' }));
    expect(err).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(err.message).toMatch(/^body\.handle: .*404/);
    expect(err.suggestedAction).not.toBe('connect_account');
  });

  it('imports an archive whose format is detected, and refuses an unreadable one with 422', async () => {
    for (const [file, format] of [
      ['x-tweets.js', 'x'],
      ['linkedin-Shares.csv', 'linkedin'],
      ['mastodon-outbox.json', 'mastodon'],
    ] as const) {
      const r = await connect(keyed, { platform: 'archive', handle: `ada-${format}`, auth_material: archiveFixture(file) });
      expect(r.result).toBe('added');
    }
    const err = await refusal(connect(keyed, { platform: 'archive', handle: 'junk', auth_material: 'this is not an export' }));
    expect(err.status).toBe(422);
    expect(err.message).toMatch(/secondary_auth|auth_material/);
    const wrongFormat = await refusal(
      connect(keyed, { platform: 'archive', handle: 'junk', auth_material: archiveFixture('x-tweets.js'), secondary_auth: 'linkedin' }),
    );
    expect(wrongFormat.status).toBe(422);
    expect((await accountRows(keyed)).some((a) => a.handle === 'junk')).toBe(false);
  });

  it('uses CREDENTIALS_KEY when configured: no key file, and the configured key opens the stored value', async () => {
    expect(existsSync(path.join(keyed.db.dataDir, KEY_FILE))).toBe(false);
    const [row] = (await accountRows(keyed)).filter((a) => a.handle === 'ada-x');
    const aad = `account|${row.workspaceId}|archive|ada-x|credentials`;
    const opened = JSON.parse(createCipher(Buffer.from(FIXED_KEY, 'hex')).decrypt(row.credentials, aad)) as { secret: string };
    expect(opened.secret).toBe(archiveFixture('x-tweets.js'));
    // Bound to its row: the same value does not open as another account's.
    expect(() => createCipher(Buffer.from(FIXED_KEY, 'hex')).decrypt(row.credentials, aad.replace('ada-x', 'ada-y'))).toThrow();
  });

  it('replays a connect with the same key without probing again', async () => {
    const body = { platform: 'rss' as const, handle: `${feed.url}?replay=1`, auth_material: '', idempotency_key: newIdempotencyKey() };
    const first = await unwrap(keyed.client().POST(`${V1}/accounts/connect`, { body }));
    const probes = feed.fake.requests.length;
    const again = await keyed.client().POST(`${V1}/accounts/connect`, { body });
    expect(again.data).toEqual(first);
    expect(again.response.headers.get('Idempotent-Replayed')).toBe('true');
    expect(feed.fake.requests.length).toBe(probes);
  });
});
