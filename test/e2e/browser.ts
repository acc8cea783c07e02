// Debian's Chromium, driven by playwright-core, for the browser tests (/docs, the review desk):
// installed by scripts/chromium-install.sh when missing, headless, with no network of its own.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { projectRoot } from './support.js';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) execFileSync('bash', ['scripts/chromium-install.sh'], { cwd: projectRoot, stdio: ['ignore', 'inherit', 'inherit'] });
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
}

/**
 * Collects the page's uncaught exceptions and console errors into `into`, except Chromium's line
 * for every 4xx answer ("Failed to load resource: … status of 4…"): a test that causes one on
 * purpose checks it where it happens.
 */
export function collectPageErrors(page: Page, into: string[]): void {
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource: the server responded with a status of 4')) into.push(m.text());
  });
  page.on('pageerror', (e) => into.push(e.message));
}

/**
 * A browser context in which only `origins` (and about:blank, data:) are reached; every other
 * request is blocked and recorded in `offsite`. The fakes' certificates come from a throwaway CA
 * the browser does not know, hence `ignoreHTTPSErrors`.
 */
export async function contextAllowing(browser: Browser, origins: string[], offsite: string[], options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1100, height: 900 }, ...options });
  const allowed = new Set(origins.map((o) => new URL(o).origin));
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url === 'about:blank' || url.startsWith('data:') || url.startsWith('blob:') || allowed.has(new URL(url).origin)) return route.continue();
    offsite.push(url);
    return route.abort('blockedbyclient');
  });
  return context;
}

/**
 * On the desk's Accounts view: clicks a Connect button, approves ("Authorize app") on the
 * platform's consent page in the tab it opened, waits for that tab's "Connected …", and answers
 * what the tab shows and its address (the service's callback).
 */
export async function connectThrough(context: BrowserContext, page: Page, button: string): Promise<{ text: string; url: string }> {
  const [tab] = await Promise.all([context.waitForEvent('page'), page.getByRole('button', { name: button }).click()]);
  await tab.getByRole('button', { name: 'Authorize app' }).click();
  await tab.getByRole('heading', { level: 1, name: /^Connected / }).waitFor();
  const text = await tab.locator('main').innerText();
  const url = tab.url();
  await tab.close();
  return { text, url };
}

let axeSource: string | undefined;

/** axe-core's serious and critical findings on the page as it is (WCAG 2 A and AA rules, best practices). */
export async function axeFindings(page: Page): Promise<string[]> {
  axeSource ??= readFileSync(path.join(projectRoot, 'node_modules/axe-core/axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol: the page's CSP (no inline script) does not apply to it.
  await page.evaluate(axeSource);
  const results = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run: (ctx: Document, o: unknown) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> };
      }
    ).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return results.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id}: ${v.targets.join(', ')}`);
}
