// Debian's Chromium, driven by playwright-core, for the browser tests (/docs, the review desk):
// installed by scripts/chromium-install.sh when missing, headless, with no network of its own.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
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
