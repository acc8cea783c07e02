// Two server instances on one PostgreSQL database (skipped on SQLite, which is one instance by
// design): an event committed on one instance reaches the streams of the other through
// LISTEN/NOTIFY (no in-process wake is involved, and the fallback poll is slower than the waits
// here); a transaction that took its seq first but commits after a later one is not skipped
// (the outbox lock); and a stream resumed on the other instance picks up exactly where the
// first left off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../server/services/events.js';
import { createTestDatabase, testDbKind, type TestDatabase } from '../support/database.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { workspaceOf } from '../support/seed.js';
import { openStream, recordEvents, riffs } from '../support/stream-reader.js';
import { findRows } from '../support/rows.js';

const onPostgres = testDbKind() === 'postgresql';

describe.skipIf(!onPostgres)('several instances on one PostgreSQL database', () => {
  let db: TestDatabase;
  let a: TestServer;
  let b: TestServer;
  let ws: string;

  beforeAll(async () => {
    db = await createTestDatabase('postgresql');
    a = await startTestServer({ db });
    b = await startTestServer({ db });
    ws = await workspaceOf(a.running.deps, a.token);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  it('an event committed on one instance reaches the streams of the other', async () => {
    const onB = await openStream(b.client(), { events: 'riff.ready' });
    const onA = await openStream(a.client(), { events: 'riff.ready' });
    try {
      // No wake(): only the NOTIFY sent at commit tells the instances.
      const sent = await recordEvents(a.running.deps, ws, 'riff.ready', riffs(3, 'fan'), { wake: false });
      await onB.waitForEvents(3, 4000);
      await onA.waitForEvents(3, 4000);
      expect(onB.events.map((f) => f.id)).toEqual(sent.map((e) => e.id));
      expect(onA.events.map((f) => f.id)).toEqual(sent.map((e) => e.id));
    } finally {
      onA.close();
      onB.close();
    }
  });

  it('a commit held back behind a later one is not skipped: streams get every event in seq order, and resume on the other instance', async () => {
    const watcher = await openStream(b.client(), { events: 'riff.refined' });
    const first = await openStream(a.client(), { events: 'riff.refined' });
    const event = (i: number) => ({ riff_id: `art_c${i}`, parent_id: `art_p${i}` });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    for (let round = 0; round < 4; round++) {
      // X takes its seq first, then holds its commit until Y has committed (or 400 ms passed);
      // Y, on the other instance, records after X and commits at once. Were seq values visible
      // out of order, a reader would see Y's seq, move past X's, and never send X.
      let xInserted!: () => void;
      let yCommitted!: () => void;
      const inserted = new Promise<void>((r) => (xInserted = r));
      const committed = new Promise<void>((r) => (yCommitted = r));
      const x = a.running.deps.db.transaction().execute(async (tx) => {
        const e = await recordEvent(tx, a.running.deps, ws, 'riff.refined', event(round * 2));
        xInserted();
        await Promise.race([committed, sleep(400)]);
        return e;
      });
      await inserted;
      const y = b.running.deps.db
        .transaction()
        .execute((tx) => recordEvent(tx, b.running.deps, ws, 'riff.refined', event(round * 2 + 1)))
        .then((e) => {
          yCommitted();
          return e;
        });
      await Promise.all([x, y]);
    }
    // And a burst of concurrent writers on both instances.
    await Promise.all(Array.from({ length: 24 }, (_, i) => recordEvents((i % 2 ? a : b).running.deps, ws, 'riff.refined', [event(100 + i)], { wake: false })));
    const inSeqOrder = (await findRows(a.running.deps.db, 'Event', { type: 'riff.refined' }, 'seq')).map((r) => r.id);
    expect(inSeqOrder).toHaveLength(32);
    await watcher.waitForEvents(32, 8000);
    expect(watcher.events.map((f) => f.id)).toEqual(inSeqOrder);
    const got = await first.waitForEvents(10, 8000);
    first.close();
    expect(got.map((f) => f.id)).toEqual(inSeqOrder.slice(0, 10));
    const resumed = await openStream(b.client(), { events: 'riff.refined', lastEventId: got[9]!.id });
    await resumed.waitForEvents(22, 8000);
    expect(resumed.events.map((f) => f.id)).toEqual(inSeqOrder.slice(10));
    watcher.close();
    resumed.close();
  });
});

// On SQLite the file has nothing to run; say so rather than report an empty file.
describe.skipIf(onPostgres)('on SQLite', () => {
  it.skip('fan-out across instances needs PostgreSQL (TEST_DATABASE=postgresql)', () => {});
});
