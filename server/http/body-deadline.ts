// The time a request other than an upload may take to send its body (REQUEST_BODY_TIMEOUT_SECONDS).
// Node's own whole-request limit is off (server/main.ts), since it would cut off slow uploads; an
// upload (a `format: binary` body) has its idle deadline and rate floor instead (services/upload-body.ts). A
// request whose body has arrived when it is routed (every GET, most POSTs) costs no timer.
import type { RequestHandler } from 'express';
import type { RouteTable } from './route-table.js';

export function bodyDeadline(routes: RouteTable, seconds: number): RequestHandler {
  return (req, res, next) => {
    if (req.complete || routes.matchRequest(req).route?.binaryBody) return next();
    const timer = setTimeout(() => {
      if (req.complete) return;
      if (!res.headersSent) {
        res.once('finish', () => req.socket.destroy());
        res
          .status(408)
          .set('Connection', 'close')
          .json({
            error: {
              code: 'bad_request',
              message: `The request body did not arrive within ${seconds} s (REQUEST_BODY_TIMEOUT_SECONDS); send it again (with the same idempotency_key: nothing was done).`,
            },
          });
      } else req.socket.destroy();
    }, seconds * 1000);
    const clear = () => clearTimeout(timer);
    req.once('end', clear);
    res.once('close', clear);
    next();
  };
}
