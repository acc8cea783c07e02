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

/** The address the description's `servers` names (openapi/openapi.yaml), which the page shows in its "Servers" box. */
export const DOCUMENTED_ORIGIN = 'http://127.0.0.1:8787';

/**
 * The address this server answered on, from the socket (never from the client's Host header):
 * its local IP address and port, IPv6 in brackets, an IPv4-mapped address as IPv4.
 */
export function listeningOrigin(socket: { localAddress?: string; localPort?: number }): string | null {
  const { localAddress, localPort } = socket;
  if (!localAddress || !localPort) return null;
  const host = localAddress.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  return `http://${host.includes(':') ? `[${host}]` : host}:${localPort}`;
}

export function docsPage(file: string): RequestHandler {
  // Read when first asked for, and again only when the file changed (`npm run build`); one copy
  // per address the page is served on, whose "Servers" box (and the description it embeds) shows
  // that address instead of the documented default port.
  let cached: { mtimeMs: number; pages: Map<string, { html: string; policy: string }>; html: string } | null = null;
  return (req, res, next) => {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(file).mtimeMs;
    } catch {
      next(backendUnavailable('The documentation has not been built: run `npm run build`.', { status: 503 }));
      return;
    }
    if (cached?.mtimeMs !== mtimeMs) cached = { mtimeMs, pages: new Map(), html: readFileSync(file, 'utf8') };
    const origin = listeningOrigin(req.socket) ?? DOCUMENTED_ORIGIN;
    let page = cached.pages.get(origin);
    if (!page) {
      const html = cached.html.replaceAll(DOCUMENTED_ORIGIN, origin);
      page = { html, policy: docsContentSecurityPolicy(html) };
      cached.pages.set(origin, page);
    }
    res.set('Content-Security-Policy', page.policy).type('text/html').send(page.html);
  };
}
