// The review desk (docs/desk.md): the static files scripts/build.mjs made from desk/ (build/desk/),
// served at `/` (the page) and `/desk/*` (its script, stylesheet and chunks). The page is a client
// of the public API only; this module serves files and guards the one unauthenticated call the
// page makes (the sign-in link's exchange).
import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type RequestHandler, type Response } from 'express';
import { backendUnavailable, rateLimited } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { SlidingWindowLimiter } from '../lib/sliding-window.js';

/**
 * Scripts, styles, images and requests from this origin only; no inline script or style, no
 * eval, no frame may hold the page, no form posts anywhere, no <base>. Imported text is shown as
 * text (never as HTML), and this policy is the second wall if that ever failed.
 */
export const DESK_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function secure(res: Response) {
  res.set({
    'Content-Security-Policy': DESK_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
  });
}

/** `GET /` (the page) and `GET /desk/*` (its assets), from `dir` (build/desk). */
export function deskRoutes(dir: string): express.Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  router.get('/', (_req, res, next) => {
    const page = path.join(dir, 'index.html');
    if (!existsSync(page)) return next(backendUnavailable('The review desk has not been built: run `npm run build`.', { status: 503 }));
    secure(res);
    // Always asked again: the page names the current build's files.
    res.set('Cache-Control', 'no-cache');
    res.sendFile(page);
  });
  // The icon browsers ask for on every page (build/desk/favicon.ico, from desk/favicon.ico).
  router.get('/favicon.ico', (_req, res, next) => {
    const icon = path.join(dir, 'favicon.ico');
    if (!existsSync(icon)) return next();
    res.set('Cache-Control', 'public, max-age=86400');
    res.sendFile(icon);
  });
  // Scripts and styles compressed as the browser takes them: the .br or .gz the build made beside each.
  router.get(/^\/desk\/[\w-]+\.(?:js|css)$/, (req, res, next) => {
    res.vary('Accept-Encoding');
    // Brotli whenever it is taken (smaller), whatever order the header names them in.
    const encoding = req.acceptsEncodings('br') === 'br' ? 'br' : req.acceptsEncodings('gzip') === 'gzip' ? 'gzip' : null;
    if (!encoding) return next();
    const name = path.basename(req.path);
    const file = path.join(dir, `${name}.${encoding === 'br' ? 'br' : 'gz'}`);
    if (!existsSync(file)) return next();
    secure(res);
    res.type(path.extname(name));
    res.set('Content-Encoding', encoding);
    res.sendFile(file);
  });
  router.use(
    '/desk',
    express.static(dir, {
      index: false,
      redirect: false,
      dotfiles: 'ignore',
      fallthrough: true,
      setHeaders: (res) => secure(res as Response),
    }),
  );
  return router;
}

/** Exchanges of sign-in codes allowed per client address and minute (POST /api/desk/sign-in). */
export const SIGN_IN_ATTEMPTS_PER_MINUTE = 10;

/**
 * The limit on POST /api/desk/sign-in, which needs no token and so has no token's quota: 10
 * attempts a minute per client address, kept in this instance's memory.
 */
export function deskSignInLimit(clock: Clock, limit = SIGN_IN_ATTEMPTS_PER_MINUTE): RequestHandler {
  const limiter = new SlidingWindowLimiter(limit);
  return (req, _res, next) => {
    if (req.method !== 'POST' || req.path !== '/api/desk/sign-in') return next();
    const d = limiter.hit(req.socket.remoteAddress ?? 'unknown', clock.now().getTime());
    if (d.allowed) return next();
    next(rateLimited(`Too many sign-in attempts from this address; retry in ${d.resetSeconds} seconds.`, d.resetSeconds));
  };
}
