// Connecting accounts from the review desk by signing in, in Chromium (playwright-core), through
// the fakes' consent pages: no token typed anywhere. The desk's Accounts view offers a Connect
// button per platform the operator set up (X here) and names the settings of the others
// (LinkedIn, Threads); Connect opens the platform's page in a new tab, the person approves, the
// tab says "Connected", and the desk, which polls the authorization, shows the account.
// Runs on the database of the run (SQLite or PostgreSQL).
import { execFileSync } from 'node:child_process';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { unwrap } from '../../clients/typescript/src/index.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { allowRedirect, startXAuthFake, type OAuthFake } from '../support/oauth-fakes.js';
import { startMastodonFake, type MastodonFake } from '../support/platforms.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { collectPageErrors, connectThrough as connectVia, contextAllowing, launchChromium } from './browser.js';
import { projectRoot } from './support.js';

vi.setConfig({ testTimeout: 240_000, hookTimeout: 600_000 });

let s: TestServer;
let mastodon: MastodonFake;
let x: OAuthFake;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];
const offsite: string[] = [];

describe('connecting accounts from the desk, in Chromium', () => {
  beforeAll(async () => {
    execFileSync(process.execPath, ['scripts/build.mjs', 'desk', '--if-stale'], { cwd: projectRoot, stdio: ['ignore', 'inherit', 'inherit'] });
    mastodon = await startMastodonFake();
    x = await startXAuthFake();
    s = await startTestServer({ env: { ...x.env, ...outboundEnvFor(mastodon.fake, x.fake) } });
    allowRedirect(x, `${s.url}/oauth/callback`);
    browser = await launchChromium();
    context = await contextAllowing(browser, [s.url, mastodon.fake.url, x.fake.url], offsite);
    page = await context.newPage();
    collectPageErrors(page, consoleErrors);
  });
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    await mastodon?.fake.close();
    await x?.fake.close();
  });

  /** Clicks Connect, approves on the platform's page, and answers what that tab shows (the service's callback). */
  async function connectThrough(button: string): Promise<string> {
    const { text, url } = await connectVia(context, page, button);
    expect(url).toMatch(new RegExp(`^${s.url}/oauth/callback\\?`));
    return text;
  }

  it('connects a Mastodon and an X account through the consent pages, and names what LinkedIn and Threads lack', async () => {
    const link = await unwrap(s.client().POST('/api/desk/sign-in-links'));
    await page.goto(`${s.url}${link.path}`);
    await page.getByRole('heading', { level: 1, name: 'Inbox' }).waitFor();
    await page.evaluate(() => (location.hash = '#/accounts'));
    await page.getByRole('heading', { level: 1, name: 'Accounts' }).waitFor();

    // Not set up: the settings to add, and no button.
    await page.getByText('linkedin: not set up on this service').waitFor();
    expect(await page.getByText('LINKEDIN_CLIENT_ID, LINKEDIN_CLIENT_SECRET').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Connect linkedin' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Connect threads' }).count()).toBe(0);

    // Mastodon: the instance, then Connect.
    await page.getByLabel('Your Mastodon instance').fill(mastodon.fake.host);
    expect(await connectThrough('Connect mastodon')).toContain(`Connected ${mastodon.handle}`);
    await page
      .getByRole('status')
      .filter({ hasText: `Connected ${mastodon.handle} on mastodon` })
      .waitFor();
    await page
      .locator('.card')
      .filter({ hasText: `${mastodon.handle} on mastodon` })
      .filter({ hasText: 'by signing in' })
      .waitFor();

    // X.
    expect(await connectThrough('Connect x')).toContain('Connected @ada_writes');
    await page.getByRole('status').filter({ hasText: 'Connected @ada_writes on x' }).waitFor();
    await page.locator('li.card').filter({ hasText: '@ada_writes on x' }).waitFor();

    const accounts = await unwrap(s.client().GET('/api/agent/v1/accounts'));
    expect(accounts.data.map((a) => [a.platform, a.handle, a.connected_by, a.status])).toEqual(
      expect.arrayContaining([
        ['mastodon', mastodon.handle, 'sign_in', 'active'],
        ['x', '@ada_writes', 'sign_in', 'active'],
      ]),
    );
    // Nobody typed a token: the credential field of the paste form stayed empty.
    expect(await page.locator('#acct-secret').inputValue()).toBe('');
    expect(consoleErrors).toEqual([]);
    expect(offsite).toEqual([]);
  });
});
