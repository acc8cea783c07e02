// Debian's Chromium, driven by playwright-core, for the browser tests (/docs, the review desk):
// installed by scripts/chromium-install.sh when missing, headless, with no network of its own.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
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
