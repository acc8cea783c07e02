// GET /docs: the partner docs, one self-contained HTML page (build/docs.html, made by
// scripts/build.mjs at install: Redoc's script inlined, no telemetry). The Content-Security-Policy
// lets the page run its own inline scripts (by hash) and styles and load nothing from any other
// host: whatever a future Redoc would fetch (fonts, icons, telemetry), a partner's browser refuses
// it rather than leak a request or hang on it behind a firewall.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { RequestHandler } from 'express';
import { backendUnavailable } from '../errors.js';

/** The policy for `html`: its inline scripts allowed by their SHA-256, nothing from another origin. */
export function docsContentSecurityPolicy(html: string): string {
  const hashes = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/gi)].map((m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`);
  return [
    "default-src 'none'",
    `script-src ${hashes.join(' ') || "'none'"}`,
    "style-src 'unsafe-inline'", // styled-components writes <style> elements at run time
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function docsPage(file: string): RequestHandler {
  // Read when first asked for, and again only when the file changed (`npm run build`).
  let cached: { mtimeMs: number; html: string; policy: string } | null = null;
  return (_req, res, next) => {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(file).mtimeMs;
    } catch {
      next(backendUnavailable('The documentation has not been built: run `npm run build`.', { status: 503 }));
      return;
    }
    if (cached?.mtimeMs !== mtimeMs) {
      const html = readFileSync(file, 'utf8');
      cached = { mtimeMs, html, policy: docsContentSecurityPolicy(html) };
    }
    res.set('Content-Security-Policy', cached.policy).type('text/html').send(cached.html);
  };
}
