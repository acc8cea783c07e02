// `cpa accounts connect` without a credential signs in: it prints the platform's authorization
// address and waits until the service's callback connected the account; `cpa accounts
// redirect-url` prints the address to register and what each platform lacks; `cpa accounts
// check` checks a credential.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { outboundEnvFor } from '../support/https-fake.js';
import { consent } from '../support/oauth-server.js';
import { startMastodonFake, type MastodonFake } from '../support/platforms.js';
import { findRows } from '../support/rows.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { cpaIn, expectExit, json } from './support.js';

vi.setConfig({ testTimeout: 60_000 });

let s: TestServer;
let mastodon: MastodonFake;

beforeAll(async () => {
  mastodon = await startMastodonFake();
  s = await startTestServer({ env: outboundEnvFor(mastodon.fake) });
});
afterAll(async () => {
  await s?.stop();
  await mastodon?.fake.close();
});

const run = (args: string[]) => cpaIn(['--base-url', s.url, '--token', s.token, ...args]);

/** The person: waits for the CLI's authorization to exist, approves it on the instance, comes back to the callback. */
async function approveWhenAsked(): Promise<void> {
  for (;;) {
    const [pending] = await findRows(s.running.deps.db, 'OAuthAuthorization', { status: 'pending' });
    if (pending) {
      const back = await fetch(await consent(pending.authorizationUrl, mastodon.fake.caFile));
      expect(back.status).toBe(200);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('cpa accounts connect, by signing in', () => {
  it('prints the address to open, waits, and reports the account connected', async () => {
    const [r] = await Promise.all([run(['accounts', 'connect', '--platform', 'mastodon', '--handle', mastodon.fake.host]), approveWhenAsked()]);
    expectExit(r, 0);
    const url = new URL(r.stdout.trim());
    expect(url.origin + url.pathname).toBe(`${mastodon.fake.url}/oauth/authorize`);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(r.stderr).toContain('Open this address');
    expect(r.stderr).toContain(`Connected ${mastodon.handle}`);
    const list = await run(['accounts', 'list', '--json', 'id,handle,connected_by']);
    const account = json<Array<{ id: string; handle: string; connected_by: string }>>(list).find((a) => a.handle === mastodon.handle);
    expect(account?.connected_by).toBe('sign_in');
    const checked = await run(['accounts', 'check', account!.id, '--json']);
    expectExit(checked, 0);
    expect(json(checked)).toMatchObject({ status: 'active' });
  });

  it('names the missing settings of X and prints the redirect URL', async () => {
    const r = await run(['accounts', 'connect', '--platform', 'x']);
    expectExit(r, 8);
    expect(r.stderr).toMatch(/X_CLIENT_ID and X_CLIENT_SECRET/);
    const urls = await run(['accounts', 'redirect-url']);
    expectExit(urls, 0);
    expect(urls.stdout.trim()).toBe(`${s.url}/oauth/callback`);
    expect(urls.stderr).toContain('x: set X_CLIENT_ID, X_CLIENT_SECRET');
    expect(urls.stderr).toContain('mastodon: ready');
  });
});
