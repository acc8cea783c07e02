// Uploads that do not end the way HTTP says they should (issue 22), played on a raw socket
// against the server running as `npm start` runs it (a process of its own): the client drops the
// connection mid-body, half-closes before the declared length, sends more than it declared,
// declares both Content-Length and Transfer-Encoding, trickles and abandons, stalls. After each:
// the process is alive, /api/health answered within 500 ms throughout (polled during the fault),
// RSS stayed under its bound, the documented 4xx came back or the connection was closed cleanly,
// no blob file and no BlobChunk, Import or MediaUpload row was left, and the same idempotency key
// then uploads (201).
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../server/store/database.js';
import { archiveFixture, uniqueKey, V1 } from '../support/api.js';
import { startChildServer, watchHealth, type ChildServer, type HealthWatch } from '../support/child-server.js';
import { testDbKind } from '../support/database.js';
import { brokenIdatPng, inflatingPng, noise, truncatedJpeg } from '../support/images.js';
import { exchange, head, type Exchange, type Step } from '../support/raw-http.js';
import { countRows } from '../support/rows.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

/** The stated bound: a fault may not grow the server's RSS by more than this over its start. */
const RSS_GROWTH_BOUND = 160 * 1024 * 1024;
/** UPLOAD_IDLE_SECONDS for this server: short, so that the stall tests are quick. */
const IDLE_SECONDS = 2;
/** REQUEST_BODY_TIMEOUT_SECONDS: a JSON body must arrive whole within it; an upload has no such limit. */
const BODY_SECONDS = 2;
/**
 * The rate floor, short for the tests (the defaults are 1024 bytes/s over 60 s): an upload that
 * has lasted RATE_WINDOW_SECONDS must have sent MIN_RATE bytes/s on average over the last window.
 * A byte every 500 ms (2 bytes/s) is under it; the window is longer than the idle deadline, so a
 * stall is still the idle deadline's.
 */
const RATE_WINDOW_SECONDS = 3;
const MIN_RATE = 4;
/** UPLOAD_MAX_CONCURRENT for this server. */
const MAX_CONCURRENT = 2;

let srv: ChildServer;
let database: DatabaseHandle;
let baselineRss = 0;
let outbox: Buffer;
let jpeg: Buffer;

beforeAll(async () => {
  srv = await startChildServer({
    kind: testDbKind(),
    env: {
      UPLOAD_IDLE_SECONDS: String(IDLE_SECONDS),
      REQUEST_BODY_TIMEOUT_SECONDS: String(BODY_SECONDS),
      UPLOAD_RATE_WINDOW_SECONDS: String(RATE_WINDOW_SECONDS),
      UPLOAD_MIN_BYTES_PER_SECOND: String(MIN_RATE),
      UPLOAD_MAX_CONCURRENT: String(MAX_CONCURRENT),
    },
  });
  database = await openDatabase({ dataDir: srv.db.dataDir, databaseUrl: srv.db.databaseUrl });
  outbox = Buffer.from(archiveFixture('mastodon-outbox.json'));
  jpeg = await noise(64, 48);
  // Warm: the first import and image load their code (tsx compiles on first use); health is
  // watched during the faults, not during the server's first steps.
  await sameKeyWorks('import', uniqueKey('warm-import'));
  await sameKeyWorks('media', uniqueKey('warm-media'));
  baselineRss = srv.rss();
});

afterAll(async () => {
  await database?.close();
  await srv?.stop();
});

type Kind = 'import' | 'media';
const target = (kind: Kind, key: string) =>
  kind === 'import' ? `${V1}/imports?handle=faults%40example.social&idempotency_key=${key}` : `${V1}/media?idempotency_key=${key}`;
const contentType = (kind: Kind) => (kind === 'import' ? 'application/zip' : 'image/png');
const auth = () => ({ Authorization: `Bearer ${srv.token}` });

async function leftovers() {
  const dir = path.join(srv.db.dataDir, 'blobs');
  const files = existsSync(dir) ? readdirSync(dir) : [];
  return {
    files,
    chunks: await countRows(database.db, 'BlobChunk'),
    imports: await countRows(database.db, 'Import'),
    media: await countRows(database.db, 'MediaUpload'),
  };
}

/** Plays `steps` while health is polled; then checks the process, its RSS, and that nothing was left. */
async function fault(steps: Step[], opts: { leavesNothing?: boolean } = {}): Promise<Exchange> {
  const watch: HealthWatch = watchHealth(srv);
  let got: Exchange;
  try {
    got = await exchange(srv.port, steps);
    // The server cleans up after the connection is gone: wait for it (blobs removed, rows none).
    if (opts.leavesNothing !== false)
      await vi.waitFor(async () => expect(await leftovers()).toEqual({ files: [], chunks: 0, imports: 0, media: 0 }), { timeout: 10_000, interval: 100 });
  } finally {
    const seen = await watch.stop();
    expect(srv.alive(), `the server exited:\n${srv.stderr}`).toBe(true);
    expect(seen.failures, `health during the fault: ${JSON.stringify(seen)}`).toEqual([]);
    expect(seen.polls).toBeGreaterThan(0);
    expect(seen.peakRss - baselineRss).toBeLessThan(RSS_GROWTH_BOUND);
  }
  expect(srv.stderr).not.toMatch(/Unhandled|ERR_STREAM_DESTROYED/);
  // Each stream handled its own failure: the process-level safety net had nothing to catch.
  expect(srv.stdout).not.toContain('the server keeps running');
  return got;
}

/** The same key, sent properly now: the upload is taken (201), nothing was recorded under it before. */
async function sameKeyWorks(kind: Kind, key: string) {
  const body = kind === 'import' ? outbox : jpeg;
  const res = await fetch(`${srv.url}${target(kind, key)}`, {
    method: 'POST',
    headers: { ...auth(), 'Content-Type': kind === 'import' ? 'application/json' : 'image/jpeg' },
    body: new Uint8Array(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  await clearUploads();
}

/** Cleared for the next case: the import's rows and blob, the media upload's. */
async function clearUploads() {
  await database.db.deleteFrom('BlobChunk').execute();
  rmSync(path.join(srv.db.dataDir, 'blobs'), { recursive: true, force: true });
  await database.db.deleteFrom('MediaUpload').execute();
  await database.db.deleteFrom('Account').where('platform', '=', 'archive').execute();
  await database.db.deleteFrom('Import').execute();
}

const errorOf = (e: Exchange) => JSON.parse(e.answers[0]!.body) as { error: { code: string; message: string } };

describe.each<Kind>(['import', 'media'])('%s uploads under faults', (kind) => {
  it('the client drops the connection mid-body (20 MB declared, 10 MB sent): nothing kept, the server lives', async () => {
    const key = uniqueKey(`drop-${kind}`);
    const got = await fault([
      head('POST', target(kind, key), { ...auth(), 'Content-Type': contentType(kind), 'Content-Length': 20_000_000 }),
      { fill: 10_000_000 },
      'destroy',
    ]);
    expect(got.ended).toBe('client');
    await sameKeyWorks(kind, key);
  });

  it('dropped at many points of the body, one after the other: never a crash, never a leftover', async () => {
    const keys: string[] = [];
    for (const sent of [0, 1, 65_536, 1_000_000, 3_000_000]) {
      const key = uniqueKey(`drops-${kind}`);
      keys.push(key);
      await fault([head('POST', target(kind, key), { ...auth(), 'Content-Type': contentType(kind), 'Content-Length': 8_000_000 }), { fill: sent }, 'destroy']);
    }
    await sameKeyWorks(kind, keys[2]!);
  });

  it('a Content-Length larger than what is sent, then a half-close: a 400 envelope or a clean close, nothing kept', async () => {
    const key = uniqueKey(`short-${kind}`);
    const got = await fault([
      head('POST', target(kind, key), { ...auth(), 'Content-Type': contentType(kind), 'Content-Length': 5_000_000 }),
      { fill: 2_000_000 },
      'end',
    ]);
    expect(['server-closed', 'reset']).toContain(got.ended);
    for (const a of got.answers) {
      expect(a.status).toBe(400);
      expect(JSON.parse(a.body)).toMatchObject({ error: { code: 'bad_request' } });
    }
    await sameKeyWorks(kind, key);
  });

  it('a Content-Length smaller than the body: the declared bytes are the upload, the rest is refused as a request; 4xx envelopes, the connection closed', async () => {
    const key = uniqueKey(`long-${kind}`);
    const got = await fault([
      head('POST', target(kind, key), { ...auth(), 'Content-Type': contentType(kind), 'Content-Length': 100 }),
      Buffer.alloc(200_000, 0x62),
      'end',
    ]);
    expect(['server-closed', 'reset']).toContain(got.ended);
    // The 100 bytes are refused as not an export / not an image (422); what follows them is not
    // HTTP (400, from the parser, which may answer first and close before the 422 is written).
    expect(got.answers.length).toBeGreaterThanOrEqual(1);
    for (const a of got.answers) {
      expect([400, 422]).toContain(a.status);
      expect(JSON.parse(a.body)).toMatchObject({ error: { code: a.status === 400 ? 'bad_request' : 'validation_failed' } });
    }
    await sameKeyWorks(kind, key);
  });

  it('Content-Length together with Transfer-Encoding: chunked is refused (RFC 9112, 6.3): 400 in the envelope, the connection closed', async () => {
    const key = uniqueKey(`clte-${kind}`);
    const got = await fault([
      head('POST', target(kind, key), { ...auth(), 'Content-Type': contentType(kind), 'Content-Length': 1_000_000, 'Transfer-Encoding': 'chunked' }),
      { text: '10\r\n0123456789abcdef\r\n' },
      { fill: 100_000 },
    ]);
    // The server answers and closes while the client is still sending the 100 KB: the kernel turns
    // that close into a reset when unread bytes are pending, so either ending is the server's.
    expect(['server-closed', 'reset']).toContain(got.ended);
    expect(got.answers).toHaveLength(1);
    expect(got.answers[0]!.status).toBe(400);
    expect(got.answers[0]!.headers.connection).toBe('close');
    expect(errorOf(got).error.code).toBe('bad_request');
    await sameKeyWorks(kind, key);
  });

  it('a trickle (a byte every 300 ms) that the client then abandons: nothing kept', async () => {
    const key = uniqueKey(`trickle-${kind}`);
    const got = await fault([
      head('POST', target(kind, key), { ...auth(), 'Content-Type': contentType(kind), 'Content-Length': 1_000_000 }),
      { trickle: 4, every: 300 },
      'destroy',
    ]);
    expect(got.ended).toBe('client');
    await sameKeyWorks(kind, key);
  });

  it(`an upload that stops sending for UPLOAD_IDLE_SECONDS (${IDLE_SECONDS} s here) is dropped: 408 in the envelope, the connection closed, nothing kept`, async () => {
    const key = uniqueKey(`stall-${kind}`);
    const got = await fault([
      head('POST', target(kind, key), { ...auth(), 'Content-Type': contentType(kind), 'Content-Length': 1_000_000 }),
      { fill: 300_000 },
    ]);
    expect(got.ended).toBe('server-closed');
    expect(got.answers).toHaveLength(1);
    expect(got.answers[0]!.status).toBe(408);
    expect(got.answers[0]!.headers.connection).toBe('close');
    expect(errorOf(got).error).toMatchObject({ code: 'bad_request', message: expect.stringContaining('UPLOAD_IDLE_SECONDS') });
    await sameKeyWorks(kind, key);
  });

  it(`a slow upload that keeps above the rate floor (10 bytes every 700 ms against ${MIN_RATE} bytes/s) is taken, past the ${BODY_SECONDS} s a JSON body gets and past the ${RATE_WINDOW_SECONDS} s window`, async () => {
    const key = uniqueKey(`slow-${kind}`);
    const body = kind === 'import' ? outbox : jpeg;
    const pieces = 7;
    const at = body.length - pieces * 10;
    const steps: Step[] = [
      // Connection: close: the server closes once it has answered, however long the check takes.
      head('POST', target(kind, key), {
        ...auth(),
        'Content-Type': kind === 'import' ? 'application/json' : 'image/jpeg',
        'Content-Length': body.length,
        Connection: 'close',
      }),
      body.subarray(0, at),
    ];
    for (let i = 0; i < pieces; i++) steps.push({ wait: 700 }, body.subarray(at + i * 10, at + (i + 1) * 10));
    const got = await fault(steps, { leavesNothing: false });
    expect(got.answers[0]?.status, got.raw).toBe(201);
    await clearUploads();
  });

  it(`a trickle that never pauses for the idle deadline (a byte every 500 ms) is dropped by the rate floor once it has lasted ${RATE_WINDOW_SECONDS} s: 408 naming UPLOAD_MIN_BYTES_PER_SECOND, the connection closed, nothing kept`, async () => {
    const key = uniqueKey(`trickle-floor-${kind}`);
    const got = await fault([
      head('POST', target(kind, key), { ...auth(), 'Content-Type': contentType(kind), 'Content-Length': 1_000_000 }),
      // 40 bytes over 20 s if nobody stops it; each pause is under the idle deadline.
      { trickle: 40, every: 500 },
    ]);
    expect(['server-closed', 'reset']).toContain(got.ended);
    expect(got.answers, got.raw).toHaveLength(1);
    expect(got.answers[0]!.status).toBe(408);
    expect(got.answers[0]!.headers.connection).toBe('close');
    expect(errorOf(got).error).toMatchObject({ code: 'bad_request', message: expect.stringContaining('UPLOAD_MIN_BYTES_PER_SECOND') });
    expect(errorOf(got).error.message).toMatch(/^The upload arrived at [0-3] bytes\/s over the last 3 s, under the floor of 4 bytes\/s/);
    await sameKeyWorks(kind, key);
  });

  it(`more than UPLOAD_MAX_CONCURRENT (${MAX_CONCURRENT}) uploads of one workspace at once: the one over the cap is 429 with Retry-After before its body is read, the others go on; its key is then taken`, async () => {
    // Three uploads at once, each holding on for ~9 s (1,000 bytes, then 100 every 300 ms: above
    // the floor), then dropped by the client: whichever arrives third is refused, whatever the order.
    const holding: Step[] = [{ fill: 1000 }];
    for (let i = 0; i < 30; i++) holding.push({ wait: 300 }, { fill: 100 });
    const keys = [0, 1, 2].map((i) => uniqueKey(`cap-${i}-${kind}`));
    const watch: HealthWatch = watchHealth(srv);
    const got = await Promise.all(
      keys.map((key) =>
        exchange(srv.port, [
          head('POST', target(kind, key), { ...auth(), 'Content-Type': contentType(kind), 'Content-Length': 1_000_000 }),
          ...holding,
          'destroy',
        ]),
      ),
    );
    const seen = await watch.stop();
    expect(seen.failures).toEqual([]);
    const refused = got.filter((g) => g.answers.length > 0);
    expect(refused, got.map((g) => g.raw).join('\n')).toHaveLength(1);
    expect(got.filter((g) => g.ended === 'client' && g.answers.length === 0)).toHaveLength(2);
    const answer = refused[0]!.answers[0]!;
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toBe('10');
    expect(answer.headers.connection).toBe('close');
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'rate_limited', message: expect.stringContaining('UPLOAD_MAX_CONCURRENT') } });
    await vi.waitFor(async () => expect(await leftovers()).toEqual({ files: [], chunks: 0, imports: 0, media: 0 }), { timeout: 10_000, interval: 100 });
    // The dropped uploads give their slots back once their handlers have unwound, which on a loaded
    // machine may be a moment after their rows are gone: retried as the 429 says (nothing was read,
    // so the key is free), the refused one's key then works.
    await vi.waitFor(() => sameKeyWorks(kind, keys[got.indexOf(refused[0]!)]!), { timeout: 10_000, interval: 200 });
  });
});

describe('a JSON body that takes longer than REQUEST_BODY_TIMEOUT_SECONDS', () => {
  it(`is answered 408 and the connection closed, though it never paused for the upload idle deadline (${BODY_SECONDS} s here)`, async () => {
    const body = Buffer.from(JSON.stringify({ handle: '@ada@mastodon.example', intent: 'Slow body', idempotency_key: uniqueKey('slow-json') }));
    const got = await fault(
      [
        head('POST', `${V1}/pipelines/from-intent`, { ...auth(), 'Content-Type': 'application/json', 'Content-Length': body.length }),
        body.subarray(0, 10),
        { trickle: 4, every: 900 },
        { wait: 1500 },
        'destroy',
      ],
      { leavesNothing: false },
    );
    expect(got.answers[0]?.status, got.raw).toBe(408);
    expect(got.answers[0]!.headers.connection).toBe('close');
    expect(errorOf(got).error).toMatchObject({ code: 'bad_request', message: expect.stringContaining('REQUEST_BODY_TIMEOUT_SECONDS') });
  });
});

describe('images whose pixels do not decode: the documented 422, never a 500', () => {
  const send = (key: string, body: Buffer) =>
    fault([head('POST', target('media', key), { ...auth(), 'Content-Type': 'image/png', 'Content-Length': body.length, Connection: 'close' }), body]);

  it.each([
    ['a PNG whose IDAT is garbled', () => Promise.resolve(brokenIdatPng()), /is not a readable PNG image: its pixels do not decode/],
    ['a truncated JPEG', truncatedJpeg, /is not a readable JPEG image: its pixels do not decode/],
    [
      'a PNG of 8192×8192 pixels whose IDAT inflates to 512 MiB (over the pixel limit)',
      () => Promise.resolve(inflatingPng(8192, 8192)),
      /at most 50000000 pixels/,
    ],
  ])('%s: 422 validation_failed naming body, nothing kept', async (_name, make, message) => {
    const key = uniqueKey('image');
    const got = await send(key, await make());
    expect(got.answers[0]?.status, got.raw).toBe(422);
    expect(errorOf(got).error).toMatchObject({ code: 'validation_failed', message: expect.stringMatching(/^body /) });
    expect(errorOf(got).error.message).toMatch(message);
    await sameKeyWorks('media', key);
  });

  it('a 100×100 PNG whose IDAT inflates to 512 MiB: the decoder stops at the header’s pixels (taken), memory bounded', async () => {
    const key = uniqueKey('image');
    const body = inflatingPng(100, 100);
    const got = await fault(
      [head('POST', target('media', key), { ...auth(), 'Content-Type': 'image/png', 'Content-Length': body.length, Connection: 'close' }), body],
      { leavesNothing: false },
    );
    expect(got.answers[0]?.status, got.raw).toBe(201);
    expect(JSON.parse(got.answers[0]!.body)).toMatchObject({ width: 100, height: 100, content_type: 'image/png' });
    await clearUploads();
  });
});
