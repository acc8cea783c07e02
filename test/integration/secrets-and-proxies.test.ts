// Low items of issue #30: answers that carry a secret are never cached (the desk's sign-in link
// and its exchange, which answers a person's session); /docs cannot be framed; /metrics without
// METRICS_TOKEN answers loopback callers only when the request was not forwarded (a reverse
// proxy on the same host connects from loopback for anyone).
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../server/services/metrics.js';
import { forwardedBy, metricsEndpoint } from '../../server/http/metrics.js';
import { serverSuite } from '../support/suite.js';

const t = serverSuite();

describe('answers that carry a secret', () => {
  it("the sign-in link and its exchange (a person's session) are Cache-Control: no-store", async () => {
    const made = await fetch(`${t.s.url}/api/desk/sign-in-links`, { method: 'POST', headers: { Authorization: `Bearer ${t.s.token}` } });
    expect(made.status).toBe(201);
    expect(made.headers.get('cache-control')).toBe('no-store');
    const { code } = (await made.json()) as { code: string };
    const exchanged = await fetch(`${t.s.url}/api/desk/sign-in`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    expect(exchanged.status).toBe(200);
    expect(((await exchanged.json()) as { token: string }).token).toMatch(/^cps_[0-9a-f]{64}$/);
    expect(exchanged.headers.get('cache-control')).toBe('no-store');
  });
});

describe('/docs', () => {
  it('may not be framed by any page', async () => {
    const res = await fetch(`${t.s.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });
});

describe('/metrics without METRICS_TOKEN', () => {
  it('answers a loopback caller, and refuses one whose request a proxy forwarded, naming the header', async () => {
    expect((await fetch(`${t.s.url}/metrics`)).status).toBe(200);
    for (const [name, value] of [
      ['X-Forwarded-For', '203.0.113.7'],
      ['Forwarded', 'for=203.0.113.7;proto=https'],
      ['X-Real-IP', '203.0.113.7'],
      ['X-Forwarded-Host', 'metrics.example.org'],
    ] as const) {
      const res = await fetch(`${t.s.url}/metrics`, { headers: { [name]: value } });
      expect([name, res.status]).toEqual([name, 403]);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('forbidden');
      expect(body.error.message).toContain(name.toLowerCase());
      expect(body.error.message).toContain('METRICS_TOKEN');
    }
  });

  it('with METRICS_TOKEN, a forwarded request with the token is answered', async () => {
    const token = 'metrics-token-of-this-instance-0123';
    const handler = metricsEndpoint(createMetrics(t.s.running.deps, { subscribers: () => 0 }), token);
    const outcome = await new Promise<unknown>((resolve) => {
      handler(
        { socket: { remoteAddress: '127.0.0.1' }, headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': '203.0.113.7' } } as never,
        { status: () => ({ type: () => ({ send: () => resolve('sent') }) }) } as never,
        (err?: unknown) => resolve(err),
      );
    });
    expect(outcome).toBe('sent');
    expect(forwardedBy({ via: '1.1 proxy' })).toBe('via');
    expect(forwardedBy({ host: '127.0.0.1:8787', 'user-agent': 'Prometheus/2.53' })).toBeNull();
  });
});
