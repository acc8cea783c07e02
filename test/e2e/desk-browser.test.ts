// The review desk in a real browser (Debian's Chromium, driven by playwright-core), on the
// database of the run (SQLite or PostgreSQL), with every request to another host blocked: sign in
// (a one-time link making a session of the person's own; sign out; a session ended elsewhere), upload an export with its progress and ingest it, draft
// from a post, edit a thread part past the limit and see it refused as you type, approve,
// schedule in another time zone (a skipped hour refused, then a valid time shown in UTC and
// local), see it on the calendar, publish it to the fake Mastodon, see the activity resume after a
// reload. Hostile imported texts (script tags, onerror, javascript: links, RTL overrides, ZWJ, a
// 10,000-character word) are shown with no dialog, no console error and no page wider than the
// window. axe-core finds no serious or critical violation on any view. Screenshots of each view
// go to build/desk-screenshots/ (docs/desk.md links the committed copies in docs/desk/).
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { unwrap } from '../../clients/typescript/src/index.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { mastodonStatus, startMastodonFake } from '../support/platforms.js';
import { connect, draftAndWait, ingest, listAllPosts } from '../support/api.js';
import { updateRows } from '../support/rows.js';
import { seedArtifact, workspaceOf } from '../support/seed.js';
import { writeZip, xArchive } from '../support/exports.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { axeFindings as axeFindingsOf, collectPageErrors, launchChromium } from './browser.js';
import { projectRoot } from './support.js';

vi.setConfig({ testTimeout: 240_000, hookTimeout: 600_000 });

const SHOTS = path.join(projectRoot, 'build/desk-screenshots');

const LONG_WORD = 'W'.repeat(10_000);
const HOSTILE = [
  '<p>&lt;script&gt;window.__pwned = 1; alert("script")&lt;/script&gt; and &lt;img src=x onerror="alert(1)"&gt;</p>',
  '<p><a href="javascript:alert(2)">javascript:alert(2)</a> &lt;a href="javascript:alert(3)"&gt;click&lt;/a&gt;</p>',
  '<p>RTL \u202Egnp.exe\u202C override and family \u{1F468}\u200D\u{1F469}\u200D\u{1F467} with ZWJ</p>',
  `<p>${LONG_WORD}</p>`,
];

let s: TestServer;
let mastodon: Awaited<ReturnType<typeof startMastodonFake>>;
let mastodonPipeline: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const dialogs: string[] = [];
const consoleErrors: string[] = [];
const offsite: string[] = [];

async function shot(name: string) {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: false });
}

const axeFindings = () => axeFindingsOf(page);

/** The page holds its layout: nothing makes it wider than the window. */
const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

async function view(hash: string, heading: string) {
  await page.evaluate((h) => (location.hash = h), hash);
  await page
    .getByRole('heading', { level: 1, name: heading })
    .waitFor()
    .catch(async (err: unknown) => {
      await shot(`failed-${heading}`);
      throw new Error(`${String(err)}\nconsole errors: ${consoleErrors.join('\n')}`);
    });
}

describe('the review desk in Chromium', () => {
  beforeAll(async () => {
    execFileSync(process.execPath, ['scripts/build.mjs', 'desk', '--if-stale'], { cwd: projectRoot, stdio: ['ignore', 'inherit', 'inherit'] });
    mkdirSync(SHOTS, { recursive: true });
    mastodon = await startMastodonFake({ statuses: [mastodonStatus(1), ...HOSTILE.map((content, i) => mastodonStatus(2 + i, { content }))] });
    s = await startTestServer({ env: { ...outboundEnvFor(mastodon.fake), JOB_POLL_MS: '50', JOB_RETRY_BASE_MS: '50' } });
    await connect(s, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
    mastodonPipeline = (await ingest(s, mastodon.handle)).pipeline_id;
    browser = await launchChromium();
    // A person in New York, reading English as written in Britain (dates as "2 Apr 2030, 09:30").
    context = await browser.newContext({ timezoneId: 'America/New_York', locale: 'en-GB', viewport: { width: 1100, height: 900 } });
    const origin = new URL(s.url).origin;
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('data:') || url.startsWith('blob:') || new URL(url).origin === origin) return route.continue();
      offsite.push(url);
      return route.abort('blockedbyclient');
    });
    page = await context.newPage();
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    // The walk causes 4xx answers on purpose (a spent link, a revoked session, a skipped local time), checked where they happen.
    collectPageErrors(page, consoleErrors);
  });
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    await mastodon?.fake.close();
  });

  it('walks sign-in, import, draft, edit, approve, schedule, calendar, publish and activity, accessibly and safely', async () => {
    // ---- without a session: the page asks for a one-time link; a link used already is refused with what to do ----
    await page.goto(`${s.url}/`);
    await page.getByText('npx cpa desk').first().waitFor();
    expect(await page.getByLabel('Agent token').count()).toBe(0); // no agent token is typed into the desk
    const spent = await unwrap(s.client().POST('/api/desk/sign-in-links', { body: { name: 'Ada' } }));
    await unwrap(s.client().POST('/api/desk/sign-in', { body: { code: spent.code } }));
    await page.goto(`${s.url}${spent.path}`);
    await page.getByRole('alert').filter({ hasText: 'used already' }).waitFor();
    expect(await axeFindings(), 'axe on the sign-in page').toEqual([]);
    await shot('sign-in');

    // ---- sign in with a one-time link: a session of Ada's own; the code leaves the address bar ----
    const signIn = async () => {
      const link = await unwrap(s.client().POST('/api/desk/sign-in-links', { body: { name: 'Ada' } }));
      await page.goto(`${s.url}${link.path}`);
      await page.getByRole('heading', { level: 1, name: 'Inbox' }).waitFor();
      expect(page.url()).not.toContain(link.code);
      const kept = JSON.parse((await page.evaluate(() => sessionStorage.getItem('cpa.desk.session'))) ?? '{}') as { token: string; id: string; name: string };
      expect(kept.token).toMatch(/^cps_[0-9a-f]{64}$/);
      return kept;
    };
    const first = await signIn();
    expect(first.name).toBe('Ada');
    await page.getByText('Signed in as Ada').waitFor();
    expect(await page.evaluate(() => JSON.stringify(Object.entries(sessionStorage)))).not.toContain(s.token);
    expect(await page.evaluate(() => JSON.stringify(Object.entries(localStorage)))).not.toMatch(/cp[as]_|[0-9a-f]{64}/);

    // ---- sign out revokes the session: a copy of it no longer works ----
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('alert').filter({ hasText: 'Signed out' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('cpa.desk.session'))).toBeNull();
    expect((await s.client(first.token).GET('/api/agent/v1/pipelines')).response.status).toBe(401);

    // ---- a session that ended elsewhere (revoked, or 12 hours unused): the page asks to sign in again ----
    const ended = await signIn();
    await unwrap(s.client().DELETE('/api/agent/v1/tokens/{id}', { params: { path: { id: ended.id } } }));
    await page.evaluate(() => (location.hash = '#/activity'));
    await page.getByRole('alert').filter({ hasText: 'Your session has ended' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('cpa.desk.session'))).toBeNull();
    await signIn();

    // ---- by keyboard: from the top of the page, Tab reaches the views' links, Enter opens one ----
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Inbox' }).waitFor();
    const tabbed: string[] = [];
    for (let i = 0; i < 12 && tabbed.at(-1) !== 'Calendar'; i++) {
      await page.keyboard.press('Tab');
      tabbed.push(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText.trim() ?? ''));
    }
    expect(tabbed.slice(0, 2)).toEqual(['Skip to content', 'Inbox']);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Calendar' }).waitFor();
    await page.waitForFunction(() => document.activeElement?.id === 'main'); // the focus follows the navigation

    // ---- the activity, open while an ingest completes: the event arrives live ----
    await view('#/activity', 'Activity');
    await page.getByText('Live', { exact: true }).waitFor();
    await ingest(s, mastodon.handle, 'Second run of the same account');
    await page.locator('.events li').filter({ hasText: 'ingest.completed' }).first().waitFor();
    const seen = await page.evaluate(() => sessionStorage.getItem('cpa.desk.lastEventId'));
    expect(seen).toMatch(/^evt_/);

    // ---- upload an X archive with a progress bar, see its summary, ingest it ----
    const archive = xArchive({ posts: 120, filler: 6000 });
    const zip = (await writeZip(archive.files))!;
    await view('#/imports', 'Imports');
    await page.getByLabel('Choose a file').setInputFiles({ name: 'twitter-2026-11-01-abc.zip', mimeType: 'application/zip', buffer: zip });
    await page.getByLabel('Handle for this account').fill('my-x');
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('heading', { name: 'What the export holds' }).waitFor();
    expect(await page.locator('#upload-progress').getAttribute('value')).toBe('100');
    expect(await page.locator('.upload-progress').innerText()).toContain(`${new Intl.NumberFormat('en-GB').format(zip.length)} of`);
    expect(await page.locator('.summary').innerText()).toContain(String(archive.publicPosts.size));
    await page.getByLabel('What the pipeline is for').fill('Weekly posts about our releases');
    await page.getByRole('button', { name: 'Ingest the posts' }).click();
    await page.getByText('Done.').waitFor({ timeout: 120_000 });
    expect(await page.locator('#ingest-progress').getAttribute('value')).toBe(await page.locator('#ingest-progress').getAttribute('max'));
    expect(await axeFindings(), 'axe on Imports').toEqual([]);
    await shot('imports');

    // ---- the Mastodon pipeline's sources, hostile texts among them ----
    await view('#/sources', 'Sources');
    // The picker lists the workspace's pipelines (GET /pipelines) by handle.
    await page.getByLabel('Pipeline').selectOption(mastodonPipeline);
    await page.locator('.card').filter({ hasText: 'gnp.exe' }).waitFor();
    expect(page.url()).toContain(`#/sources/${mastodonPipeline}`);
    const cards = page.locator('.card');
    expect(await cards.filter({ hasText: '<script>window.__pwned = 1;' }).count()).toBe(1);
    expect(await cards.filter({ hasText: 'onerror="alert(1)"' }).count()).toBe(1);
    expect(await cards.filter({ hasText: LONG_WORD }).count()).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('main img, main script, main iframe').count()).toBe(0);
    const hrefs = await page.locator('main a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    expect(
      hrefs.filter((h) => !/^(#|https?:)/.test(h)),
      'links that are not http(s) or in-page',
    ).toEqual([]);
    expect(await overflow(), 'the page is no wider than the window').toBeLessThanOrEqual(1);
    expect(await axeFindings(), 'axe on Sources').toEqual([]);
    await shot('sources');

    // ---- draft from a post; the draft page fills in when the writer is done ----
    await cards.filter({ hasText: 'Post 1: notes from the release train' }).getByRole('button', { name: 'Draft from this post' }).click();
    await page.getByText('In review').waitFor({ timeout: 60_000 });
    const artifactId = /#\/drafts\/([\w-]+)/.exec(page.url())![1]!;

    // ---- edit the Mastodon thread: past 500 it is refused as you type, and cannot be saved ----
    await page.getByRole('button', { name: 'Edit the mastodon thread' }).click();
    const part = page.getByLabel('Part 1 of', { exact: false }).first();
    await part.fill('x'.repeat(501));
    await page.getByText('refused: this part counts 501').waitFor();
    expect(await part.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('button', { name: 'Save the mastodon thread' }).isDisabled()).toBe(true);
    await part.fill('Importer v2.3 is out: 4x faster on big CSV files.');
    await page.getByRole('button', { name: 'Add a part' }).click();
    await page.getByLabel('Part 2 of 2').fill('Notes and numbers in the changelog.');
    await page.getByRole('button', { name: 'Save the mastodon thread' }).click();
    await page.locator('.preview.platform-mastodon .post').nth(1).filter({ hasText: 'Notes and numbers' }).waitFor();

    // ---- approve ----
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.badge', { hasText: 'Approved' }).waitFor();

    // ---- schedule in Tokyo time: the hour Berlin skips is refused, then a valid time shown in UTC and local ----
    await page.getByLabel('Date and time').fill('2030-03-31T02:30');
    await page.getByLabel('Time zone').selectOption('Europe/Berlin');
    await page.getByRole('button', { name: 'Schedule', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'local_time' }).waitFor();
    const when = new Date(Date.now() + 3 * 86_400_000);
    const day = when.toISOString().slice(0, 10);
    await page.getByLabel('Date and time').fill(`${day}T09:30`);
    await page.getByLabel('Time zone').selectOption('Asia/Tokyo');
    await page.getByRole('button', { name: 'Schedule', exact: true }).click();
    await page.locator('.badge', { hasText: 'Scheduled' }).waitFor();
    const at = (await unwrap(s.client().GET('/api/agent/v1/artifacts/{id}', { params: { path: { id: artifactId } } }))).schedule!.at;
    expect(new Date(at).toISOString()).toBe(new Date(`${day}T00:30:00Z`).toISOString()); // 09:30 in Tokyo (UTC+9)
    const shown = await page.locator('.schedule-at').innerText();
    expect(shown).toContain('00:30 UTC');
    expect(shown).toContain(new Intl.DateTimeFormat('en-GB', { timeZone: 'America/New_York', timeStyle: 'short' }).format(new Date(at)));
    expect(shown).toContain('Asia/Tokyo');
    expect(await overflow()).toBeLessThanOrEqual(1);
    expect(await axeFindings(), 'axe on Draft').toEqual([]);
    await shot('draft');

    // ---- the calendar shows it on its day (New York time) ----
    await view('#/calendar', 'Calendar');
    await page.getByRole('button', { name: 'Month' }).click();
    const entry = page.locator(`.calendar .entry a[href="#/drafts/${artifactId}"]`);
    // The day in New York time; the month view starts on the current month.
    const nyMonth = (d: Date) => new Intl.DateTimeFormat('en-GB', { timeZone: 'America/New_York', month: 'numeric', year: 'numeric' }).format(d);
    if (nyMonth(new Date(at)) !== nyMonth(new Date())) await page.getByRole('button', { name: 'Next' }).click();
    await entry.waitFor();
    const dayLabel = new Intl.DateTimeFormat('en-GB', { timeZone: 'America/New_York', weekday: 'short', day: 'numeric', month: 'short' }).format(new Date(at));
    expect(
      await page
        .locator('.calendar .day', { has: page.locator(`a[href="#/drafts/${artifactId}"]`) })
        .locator('.day-label')
        .innerText(),
    ).toBe(dayLabel);
    expect(await axeFindings(), 'axe on Calendar').toEqual([]);
    await shot('calendar');

    // ---- publish now: the thread reaches the fake Mastodon ----
    await view(`#/drafts/${artifactId}`, 'Draft');
    await page.getByRole('button', { name: 'Publish now' }).click();
    await page.locator('.badge', { hasText: 'Published' }).waitFor({ timeout: 60_000 });
    expect(mastodon.state.posted.map((p) => p.text)).toEqual(
      expect.arrayContaining([expect.stringContaining('Importer v2.3 is out'), expect.stringContaining('Notes and numbers')]),
    );
    // ---- the draft's history: who edited, approved, scheduled and published it, newest first ----
    const history = page.locator('.audit-events li');
    await history.filter({ hasText: 'artifact.published' }).waitFor();
    const actions = await history.evaluateAll((lis) => lis.map((li) => li.getAttribute('data-action')));
    expect(actions.slice(0, 2)).toEqual(['artifact.published', 'artifact.publish_requested']);
    expect(actions).toEqual(expect.arrayContaining(['artifact.approved', 'artifact.scheduled', 'artifact.edited', 'artifact.drafted']));
    // approved by the person signed in, by name: a desk session is the person's own, not a token's
    expect(await history.filter({ hasText: 'artifact.approved' }).innerText()).toContain('Ada (person)');

    // ---- after a reload, the activity resumes after the last event this tab saw ----
    await page.reload();
    await view('#/activity', 'Activity');
    await page.locator('.events li').filter({ hasText: 'artifact.published' }).waitFor();
    // Resumed after the last event seen: the X archive's ingest.completed (after it) is there, the first one is not.
    await page.locator('.events li').filter({ hasText: 'ingest.completed' }).first().waitFor();
    expect(await page.locator(`.events li[data-event-id="${seen}"]`).count(), 'no event seen before is sent again').toBe(0);
    // ---- and the record of who did what, each linking to its subject ----
    await page.locator('.audit-events li[data-action="artifact.scheduled"]').first().waitFor();
    expect(await page.locator(`.audit-events li[data-action="artifact.approved"] a[href="#/drafts/${artifactId}"]`).count()).toBe(1);
    expect(await axeFindings(), 'axe on Activity').toEqual([]);
    await shot('activity');

    // ---- the inbox: across pipelines, with a publish that failed and an account that stopped working ----
    const deps = s.running.deps;
    const firstPost = (await listAllPosts(s, mastodonPipeline))[0]!;
    await seedArtifact(deps, { workspaceId: await workspaceOf(deps, s.token), pipelineId: mastodonPipeline, postId: firstPost.id, state: 'publish_failed' });
    await updateRows(deps.db, 'Account', { handle: mastodon.handle }, { status: 'dead' });
    await view('#/inbox', 'Inbox');
    await page.locator('.card', { hasText: 'Publish failed' }).first().waitFor();
    await page
      .locator('.card', { hasText: 'Account not working' })
      .filter({ hasText: mastodon.handle })
      .getByRole('link', { name: 'Rotate its credential' })
      .waitFor();
    for (const handle of [mastodon.handle, 'my-x'])
      expect(await page.locator('.card', { hasText: 'Post without a draft' }).filter({ hasText: handle }).count()).toBeGreaterThan(0);
    expect(await overflow()).toBeLessThanOrEqual(1);
    expect(await axeFindings(), 'axe on Inbox').toEqual([]);
    await shot('inbox');
    await view('#/accounts', 'Accounts');
    await page.locator('.card').filter({ hasText: mastodon.handle }).getByText('not working: rotate its credential').waitFor();
    await page.getByRole('button', { name: `Rotate the credential of ${mastodon.handle}` }).click();
    expect(await page.getByLabel(/^Handle/).inputValue()).toBe(mastodon.handle);
    await page.getByLabel(/^Access token/).fill(mastodon.state.token);
    await page.getByRole('button', { name: 'Connect or rotate' }).click();
    await page.getByText('Credential rotated').waitFor();
    await page.locator('.cards .card').filter({ hasText: mastodon.handle }).getByText('working', { exact: true }).waitFor();
    expect(await axeFindings(), 'axe on Accounts').toEqual([]);
    await shot('accounts');

    // ---- alt text: a draft of an imported X post with an image, opened by its address ----
    const xPipeline = (await unwrap(s.client().GET('/api/agent/v1/pipelines'))).data.find((p) => p.handle === 'my-x')!.id;
    const withImage = (await listAllPosts(s, xPipeline)).find((p) => p.media.some((m) => m.type === 'image'))!;
    const { artifact: imaged } = await draftAndWait(s, withImage.id);
    await view(`#/drafts/${imaged.id}`, 'Draft');
    const alt = page.getByLabel(/^Alt text of image/).first();
    await alt.fill('A bar chart: CI time per week falls from 38 to 17 minutes');
    await page.getByRole('button', { name: 'Save the alt text' }).click();
    await page.locator('.alt').filter({ hasText: 'ALT: A bar chart' }).first().waitFor();
    const saved = await unwrap(s.client().GET('/api/agent/v1/artifacts/{id}', { params: { path: { id: imaged.id } } }));
    expect(saved.media!.map((m) => m.alt_text)).toContain('A bar chart: CI time per week falls from 38 to 17 minutes');

    // ---- at phone width the layout still holds ----
    await page.setViewportSize({ width: 375, height: 800 });
    await view(`#/sources/${mastodonPipeline}`, 'Sources');
    await page.locator('.card').filter({ hasText: 'gnp.exe' }).waitFor();
    expect(await overflow()).toBeLessThanOrEqual(1);
    await shot('sources-phone');

    expect(dialogs, 'dialogs opened by the page').toEqual([]);
    expect(consoleErrors, 'console errors').toEqual([]);
    expect(offsite, 'requests to other hosts').toEqual([]);
  });
});
