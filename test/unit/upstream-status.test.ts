// Which upstream answers a run retries: the rule shared by the job worker (502s that carry
// `upstream_status`) and the OpenAI-compatible writer.
import { describe, expect, it } from 'vitest';
import { AppError, upstreamMayRecover } from '../../server/errors.js';

describe('upstreamMayRecover', () => {
  it('retries 5xx, 408, 425 and 429, and no other status', () => {
    for (const s of [500, 502, 503, 504, 599, 408, 425, 429]) expect(upstreamMayRecover(s), String(s)).toBe(true);
    for (const s of [400, 401, 403, 404, 409, 410, 422, 451, 499]) expect(upstreamMayRecover(s), String(s)).toBe(false);
  });
});

describe('error.upstream_status', () => {
  it('is in the envelope when the error carries it, and absent otherwise', () => {
    expect(new AppError(502, 'backend_unavailable', 'The page answered HTTP 404.', { upstreamStatus: 404 }).envelope()).toEqual({
      error: { code: 'backend_unavailable', message: 'The page answered HTTP 404.', upstream_status: 404 },
    });
    expect(new AppError(502, 'backend_unavailable', 'timeout').envelope().error).not.toHaveProperty('upstream_status');
  });
});
