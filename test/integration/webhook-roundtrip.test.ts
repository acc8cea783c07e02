// The round trip between two real servers: an event recorded on A is delivered by A's webhook
// emitter (WEBHOOK_TARGETS = B's backend receiver, signed with the shared WEBHOOK_SIGNING_SECRET),
// accepted by B's receiver, and streamed by B with the same envelope. A redelivery of it is a
// duplicate for B; A's delivery is recorded as succeeded with B's answer kept for audit.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { rescheduleNow } from '../../server/store/deliveries.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { workspaceOf } from '../support/seed.js';
import { openStream, recordEvents } from '../support/stream-reader.js';
import { countRows, findRows } from '../support/rows.js';

const SECRET = 'shared-backend-secret-0123456789';
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  b = await startTestServer({ env: { WEBHOOK_SIGNING_SECRET: SECRET } });
  const bHost = new URL(b.url).host;
  a = await startTestServer({
    env: {
      WEBHOOK_SIGNING_SECRET: SECRET,
      WEBHOOK_TARGETS: `${b.url}/api/webhooks/backend`,
      // B is a local plain-HTTP server: the outbound client's documented test settings.
      OUTBOUND_ALLOW_HOSTS: bHost,
      OUTBOUND_ALLOW_HTTP_FOR_ALLOWED_HOSTS: 'true',
    },
  });
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

it('emitter → receiver → stream', async () => {
  const wsA = await workspaceOf(a.running.deps, a.token);
  const onB = await openStream(b.client());
  try {
    const [sent] = await recordEvents(a.running.deps, wsA, 'riff.ready', [{ riff_id: 'art_rt1', source_post_id: 'post_rt1', pipeline_id: 'pl_rt1' }]);
    const [frame] = await onB.waitForEvents(1, 15_000);
    expect(frame!.id).toBe(sent!.id);
    expect(frame!.event).toBe('riff.ready');
    expect(JSON.parse(frame!.data)).toEqual(sent);

    // A records the delivery as succeeded, with B's answer (right after B answered).
    const settled = () => findRows(a.running.deps.db, 'Delivery', { eventId: sent!.id }).then((r) => r[0] ?? null);
    await vi.waitFor(async () => expect((await settled())?.status).toBe('succeeded'), { timeout: 10_000 });
    const delivery = (await settled())!;
    expect(delivery).toMatchObject({ attempts: 1, lastStatus: 200, target: `${b.url}/api/webhooks/backend` });
    const attemptsOf = () => findRows(a.running.deps.db, 'DeliveryAttempt', { deliveryId: delivery.id }, 'attempt');
    const [attempt] = await attemptsOf();
    expect(attempt!.responseBody).toBe('{"ok":true}');
    expect(attempt!.id).toMatch(/^wd_/);

    // The emitter sends it again (as after a crash between sending and settling): B answers
    // that it is a duplicate and streams nothing new.
    expect(await rescheduleNow(a.running.deps.db, { id: delivery.id, now: new Date(), from: ['succeeded'] })).toBe(true);
    await vi.waitFor(async () => expect(await attemptsOf()).toHaveLength(2), { timeout: 10_000 });
    const [, second] = await attemptsOf();
    expect(second).toMatchObject({ status: 200, responseBody: '{"ok":true,"duplicate":true}' });
    expect(second!.id).not.toBe(attempt!.id);

    // B stored it once, under A's id; B has no targets, so it sends nothing on.
    expect(await countRows(b.running.deps.db, 'Event', { id: sent!.id })).toBe(1);
    expect(await countRows(b.running.deps.db, 'Delivery')).toBe(0);
    expect(onB.events.map((f) => f.id)).toEqual([sent!.id]);
  } finally {
    onB.close();
  }
});
