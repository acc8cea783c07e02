// The rest of the desk's house in Chromium (playwright-core), on the database of the run (SQLite
// or PostgreSQL), every other host blocked: the imports list with each import's summary (taken,
// left out by reason, format, period, state) and one opened; a bare tweets.js uploaded from the
// page (the picker's application/javascript, accepted); the runs view, failed and retrying first,
// then running, then the rest, live over the event stream; the calendar at 1,280 px (the week on
// one row), filtered by destination, an entry dragged to another day and moved a day more with
// Alt+→ (each checked through the API: same time of day in the person's zone, announced);
// Activity's draft events linking to the draft. axe-core finds no serious or critical violation
// on Imports, Runs, Calendar, Activity, Accounts and Sources. Screenshots go to
// build/desk-screenshots/ (imports-list, runs, calendar-week; docs/desk.md shows the committed copies).
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { unwrap } from '../../clients/typescript/src/index.js';
import { draftAndWait, getArtifact, publishingWorld, publishRequest, rawRequest, uniqueKey, V1 } from '../support/api.js';
import { writeZip, xArchive } from '../support/exports.js';
import { insertRow } from '../support/rows.js';
import { seedArtifact } from '../support/seed.js';
import { axeFindings as axeFindingsOf, collectPageErrors, contextAllowing, launchChromium } from './browser.js';
import { projectRoot } from './support.js';

vi.setConfig({ testTimeout: 240_000, hookTimeout: 600_000 });

const SHOTS = path.join(projectRoot, 'build/desk-screenshots');
const ZONE = 'America/New_York';

let w: Awaited<ReturnType<typeof publishingWorld>>;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];
const offsite: string[] = [];

const axeFindings = () => axeFindingsOf(page);
const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: false });

async function view(hash: string, heading: string | RegExp) {
  await page.evaluate((h) => (location.hash = h), hash);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** The local date `days` days after today in New York, as YYYY-MM-DD, and its week's Monday offset from this week's. */
function nyDay(days: number): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date());
  const d = new Date(`${today}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
/** The wall-clock time of `at` in New York, as YYYY-MM-DDTHH:MM. */
const nyWall = (at: string) =>
  new Intl.DateTimeFormat('sv-SE', { timeZone: ZONE, dateStyle: 'short', timeStyle: 'short' }).format(new Date(at)).replace(' ', 'T');

describe('the rest of the desk in Chromium', () => {
  beforeAll(async () => {
    execFileSync(process.execPath, ['scripts/build.mjs', 'desk', '--if-stale'], { cwd: projectRoot, stdio: ['ignore', 'inherit', 'inherit'] });
    mkdirSync(SHOTS, { recursive: true });
    w = await publishingWorld();
    browser = await launchChromium();
    const context = await contextAllowing(browser, [w.s.url], offsite, { timezoneId: ZONE, locale: 'en-GB', viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    collectPageErrors(page, consoleErrors);
    const link = await unwrap(w.s.client().POST('/api/desk/sign-in-links', { body: { name: 'Ada' } }));
    await page.goto(`${w.s.url}${link.path}`);
    await page.getByRole('heading', { level: 1, name: 'Inbox' }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await w?.stop();
  });

  it('lists the imports with their summaries, opens one, and takes a bare tweets.js from the picker', async () => {
    const archive = xArchive({ posts: 60 });
    const zip = (await writeZip(archive.files))!;
    const up = await rawRequest(w.s, `${V1}/imports?handle=old-x&idempotency_key=${uniqueKey('imp')}`, {
      method: 'POST',
      body: new Uint8Array(zip),
      headers: { 'Content-Type': 'application/zip' },
    });
    expect(up.res.status, up.text).toBe(201);
    const old = up.body as { id: string; summary: { posts: number; skipped: Record<string, number> } };

    await view('#/imports', 'Imports');
    const row = page.locator(`tr[data-import-id="${old.id}"]`);
    await row.waitFor();
    const text = await row.innerText();
    expect(text).toContain('old-x');
    expect(text).toContain(`${old.summary.posts} posts`);
    expect(old.summary.skipped.repost).toBeGreaterThan(0);
    expect(text).toContain(`reposts ${old.summary.skipped.repost}`);
    expect(text).toContain(`replies to other people ${old.summary.skipped.reply}`);
    expect(text).toContain('ready');
    expect(text).toMatch(/2024/); // the period of the posts

    // A bare tweets.js, as a file picker gives it (application/javascript): taken after the upload reaches 100 %.
    const tweets = archive.files.find((f) => f.name.endsWith('tweets.js'))!.data as Buffer;
    await page.getByLabel('Choose a file').setInputFiles({ name: 'tweets.js', mimeType: 'application/javascript', buffer: tweets });
    await page.getByLabel('Handle for this account').fill('bare-x');
    const [request] = await Promise.all([
      page.waitForRequest((r) => r.method() === 'POST' && r.url().includes('/imports?')),
      page.getByRole('button', { name: 'Upload' }).click(),
    ]);
    expect(request.headers()['content-type']).toBe('application/javascript');
    await page.getByRole('heading', { name: 'What the export holds' }).waitFor();
    expect(await page.locator('#upload-progress').getAttribute('value')).toBe('100');
    await page.locator('tr', { hasText: 'bare-x' }).waitFor(); // the list shows it at once
    expect(await page.locator('table.imports tbody tr').count()).toBe(2);
    expect(await axeFindings(), 'axe on Imports').toEqual([]);
    await page.locator('#import-list-title').scrollIntoViewIfNeeded();
    await shot('imports-list');

    await row.getByRole('link', { name: 'old-x' }).click();
    await page.getByRole('heading', { level: 1, name: 'Import old-x' }).waitFor();
    const detail = await page.locator('main').innerText();
    expect(detail).toContain('data/tweets.js');
    expect(detail).toContain(`reposts ${old.summary.skipped.repost}`);
    expect(await axeFindings(), 'axe on an import').toEqual([]);
  });

  it('lists the runs, failed and retrying first, then running, then the rest, live', async () => {
    const db = w.s.running.deps.db;
    const now = Date.now();
    const base = { workspaceId: w.workspaceId, pipelineId: w.pipelines.mastodon.id, input: '{}', createdAt: new Date(now - 60_000) };
    const failed = await insertRow(db, 'Run', {
      ...base,
      id: 'run_house_failed',
      kind: 'publish',
      input: JSON.stringify({ artifact_id: 'art_house_failed' }),
      status: 'failed',
      attempts: 5,
      errorCode: 'credential_dead',
      errorMessage: 'The platform refused the credential (401).',
      startedAt: new Date(now - 50_000),
      finishedAt: new Date(now - 40_000),
      runAfter: new Date(now - 60_000),
    });
    const retrying = await insertRow(db, 'Run', {
      ...base,
      id: 'run_house_retrying',
      kind: 'ingest',
      status: 'queued',
      attempts: 2,
      errorCode: 'backend_unavailable',
      errorMessage: 'The feed answered 503.',
      errorUpstreamStatus: 503,
      runAfter: new Date(now + 3_600_000),
    });
    const running = await insertRow(db, 'Run', {
      ...base,
      id: 'run_house_running',
      kind: 'ingest',
      status: 'running',
      attempts: 1,
      startedAt: new Date(now - 30_000),
      lockedBy: 'another-instance',
      lockedUntil: new Date(now + 3_600_000),
      progressDone: 40,
      progressTotal: 100,
      runAfter: new Date(now - 60_000),
    });

    await view('#/runs', 'Runs');
    await page.getByText('Live: the list follows the event stream').waitFor();
    const ids = () => page.locator('.runs li').evaluateAll((lis) => lis.map((li) => `${li.getAttribute('data-run-state')} ${li.getAttribute('data-run-id')}`));
    const order = await ids();
    const states = order.map((o) => o.split(' ')[0]);
    // Failed and retrying first, then running, then the rest (the ingests that succeeded).
    expect(order.indexOf(`running ${running.id}`)).toBe(2);
    expect(order.slice(0, 2).sort()).toEqual([`failed ${failed.id}`, `retrying ${retrying.id}`].sort());
    expect(states.slice(3)).toContain('done');
    expect(states.slice(3).every((s) => s === 'done' || s === 'waiting')).toBe(true);
    const failedText = await page.locator(`li[data-run-id="${failed.id}"]`).innerText();
    expect(failedText).toContain('The account stopped working: connect it again on Accounts.');
    expect(failedText).toContain('5 attempts');
    expect(await page.locator(`li[data-run-id="${retrying.id}"]`).innerText()).toContain('HTTP 503');
    const links = await page.locator(`li[data-run-id="${failed.id}"] a`).evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(links).toEqual(['#/drafts/art_house_failed', `#/sources/${w.pipelines.mastodon.id}`]);
    expect(await page.locator(`li[data-run-id="${running.id}"] a`).evaluateAll((as) => as.map((a) => a.getAttribute('href')))).toEqual([
      `#/sources/${w.pipelines.mastodon.id}`,
    ]);

    // Live: a draft's run appears (and ends) without a reload, through the event stream.
    const before = await page.locator('.runs li').count();
    await draftAndWait(w.s, w.pipelines.bluesky.postId);
    await page.waitForFunction((n) => document.querySelectorAll('.runs li').length > n, before);
    expect(await axeFindings(), 'axe on Runs').toEqual([]);
    await shot('runs');
  });

  it('filters the calendar by destination, moves an entry by dragging and by keyboard, and keeps the week on one row at 1,280 px', async () => {
    // Two drafts next week, Wednesday 09:30 New York time: one to Mastodon, one to Bluesky.
    const mondayOffset = (() => {
      const wd = new Date(`${nyDay(0)}T12:00:00Z`).getUTCDay(); // 0 Sunday
      return ((8 - wd) % 7 || 7) - 0; // days to next Monday
    })();
    const wednesday = nyDay(mondayOffset + 2);
    const thursday = nyDay(mondayOffset + 3);
    const friday = nyDay(mondayOffset + 4);
    const seed = async (platform: 'mastodon' | 'bluesky', text: string) => {
      const a = await seedArtifact(w.s.running.deps, {
        workspaceId: w.workspaceId,
        pipelineId: w.pipelines[platform].id,
        postId: w.pipelines[platform].postId,
        state: 'ready',
        text,
      });
      const r = await publishRequest(w.s, a.id, { local_time: `${wednesday}T09:30:00`, time_zone: ZONE });
      expect(r.response.status, JSON.stringify(r.error)).toBe(202);
      return a.id;
    };
    const toMastodon = await seed('mastodon', 'Release notes for the Mastodon crowd');
    const toBluesky = await seed('bluesky', 'Release notes for Bluesky');

    await view('#/calendar', 'Calendar');
    await page.getByRole('button', { name: 'Next' }).click();
    const entry = (id: string) => page.locator(`.calendar .entry[data-entry="${id}"]`);
    await entry(toMastodon).waitFor();
    await entry(toBluesky).waitFor();
    // The week on one row at 1,280 px: every day at the same height.
    const tops = await page.locator('.calendar.week > .day').evaluateAll((lis) => lis.map((li) => (li as HTMLElement).offsetTop));
    expect(tops).toHaveLength(7);
    expect(new Set(tops).size, 'the week wraps').toBe(1);
    expect(await axeFindings(), 'axe on Calendar').toEqual([]);
    await shot('calendar-week');

    // Filter: unchecking Bluesky's destination hides its entry only.
    const bskyBox = page.getByRole('checkbox', { name: new RegExp(`bluesky ${w.bluesky.state.handle.replaceAll('.', '\\.')}`) });
    await bskyBox.uncheck();
    await entry(toBluesky).waitFor({ state: 'detached' });
    expect(await entry(toMastodon).count()).toBe(1);
    await bskyBox.check();
    await entry(toBluesky).waitFor();

    // Drag the Mastodon entry from Wednesday to Thursday: the same 09:30 in New York.
    await entry(toMastodon)
      .locator('time')
      .dragTo(page.locator(`.calendar .day[data-day="${thursday}"]`));
    await page.locator(`.calendar .day[data-day="${thursday}"] .entry[data-entry="${toMastodon}"]`).waitFor();
    expect(nyWall((await getArtifact(w.s, toMastodon)).schedule!.at)).toBe(`${thursday}T09:30`);
    await page.getByRole('status').filter({ hasText: 'Moved “Release notes for the Mastodon crowd”' }).waitFor();

    // By keyboard: focus the entry's link, Alt+→ moves it a day later; the focus follows it.
    await entry(toMastodon).getByRole('link').focus();
    await page.keyboard.press('Alt+ArrowRight');
    await page.locator(`.calendar .day[data-day="${friday}"] .entry[data-entry="${toMastodon}"]`).waitFor();
    expect(nyWall((await getArtifact(w.s, toMastodon)).schedule!.at)).toBe(`${friday}T09:30`);
    const announced = await page.locator('[aria-live="polite"][role="status"]').first().innerText();
    expect(announced).toMatch(/Moved .* 09:30/);
    await page.waitForFunction((id) => document.activeElement?.closest('[data-entry]')?.getAttribute('data-entry') === id, toMastodon);
    // The Move buttons do the same: a day earlier, back to Thursday.
    await entry(toMastodon).getByRole('button', { name: 'Move' }).click();
    await entry(toMastodon).getByRole('button', { name: 'A day earlier' }).click();
    await page.locator(`.calendar .day[data-day="${thursday}"] .entry[data-entry="${toMastodon}"]`).waitFor();
    expect(nyWall((await getArtifact(w.s, toMastodon)).schedule!.at)).toBe(`${thursday}T09:30`);
    // The other entry never moved.
    expect(nyWall((await getArtifact(w.s, toBluesky)).schedule!.at)).toBe(`${wednesday}T09:30`);
  });

  it('links draft events in Activity to the draft; axe on Activity, Accounts and Sources', async () => {
    await view('#/activity', 'Activity');
    await page.getByText('Live', { exact: true }).waitFor();
    const { artifact } = await draftAndWait(w.s, w.pipelines.mastodon.postId);
    const event = page.locator('.events li').filter({ hasText: 'riff.ready' }).first();
    await event.waitFor();
    expect(await event.getByRole('link', { name: 'open the draft' }).getAttribute('href')).toBe(`#/drafts/${artifact.id}`);
    expect(await axeFindings(), 'axe on Activity').toEqual([]);

    await view('#/accounts', 'Accounts');
    await page.locator('.card').filter({ hasText: w.mastodon.handle }).waitFor();
    expect(await axeFindings(), 'axe on Accounts').toEqual([]);
    await view(`#/sources/${w.pipelines.mastodon.id}`, 'Sources');
    await page.locator('.card').first().waitFor();
    expect(await axeFindings(), 'axe on Sources').toEqual([]);

    expect(consoleErrors, 'console errors').toEqual([]);
    expect(offsite, 'requests to other hosts').toEqual([]);
  });
});
