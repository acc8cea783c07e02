// The one error handler's last line of defence: when the envelope itself cannot be sent (the
// response validator refuses it), the answer is still a JSON 500, never Express's HTML page.
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../server/errors.js';
import { errorHandler } from '../../server/http/errors.js';
import { RouteTable } from '../../server/http/route-table.js';

describe('errorHandler', () => {
  it('answers a JSON 500 when writing the envelope throws', async () => {
    const app = express();
    app.set('env', 'production');
    app.use((_req, res, next) => {
      // What express-openapi-validator does to a status its operation does not document.
      res.json = () => {
        throw Object.assign(new Error("no schema defined for status code '404' in the openapi spec"), { status: 500 });
      };
      next();
    });
    app.get('/x', (_req, _res, next) => next(new AppError(404, 'not_found', 'nothing here')));
    app.use(errorHandler(new RouteTable({ paths: {} })));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x`);
      expect(res.status).toBe(500);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ error: { code: 'internal_error', message: expect.stringContaining('X-Request-Id') } });
    } finally {
      server.close();
    }
  });
});
