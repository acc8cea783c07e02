// GET /oauth/callback: where a platform sends the person's browser back after they approved (or
// refused) the service (services/oauth/authorizations.ts). Outside the versioned API and without a
// token: the single-use `state` names the authorization. It answers a small HTML page for the
// person (the only HTML the service writes besides the docs and the desk), with a policy that
// lets it load nothing at all.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ServiceDeps } from '../services/context.js';
import { finishAuthorization } from '../services/oauth/authorizations.js';

export { CALLBACK_PATH } from '../services/oauth/redirect.js';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function callbackPage(title: string, message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Content Pipeline</title></head>
<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p><a href="/#/accounts">Open the review desk's accounts</a></p></main></body></html>
`;
}

export function oauthCallback(deps: ServiceDeps): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    finishAuthorization(deps, req.query as Record<string, unknown>, req.headers.cookie)
      .then((outcome) => {
        if (outcome.clearCookie) res.append('Set-Cookie', outcome.clearCookie);
        res
          .status(outcome.status)
          .set({
            'Content-Security-Policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
            'Cache-Control': 'no-store',
            'Referrer-Policy': 'no-referrer',
          })
          .type('text/html')
          .send(callbackPage(outcome.title, outcome.message));
      })
      .catch(next);
  };
}
