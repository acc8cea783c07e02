// Test helpers for the event stream: open `GET /api/stream` through the typed client, parse the
// frames with eventsource-parser, and wait for events or heartbeats; and record events the way
// the domain does (recordEvent in a transaction, then wake).
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { EventSourceMessage } from 'eventsource-parser';
import type { ApiClient } from '../../clients/typescript/src/index.js';
import type { ServiceDeps } from '../../server/services/context.js';
import { recordEvent, recordEvents as recordMany, type CanonicalType, type EventEnvelope } from '../../server/services/events.js';

export interface OpenStream {
  response: Response;
  events: EventSourceMessage[];
  comments: string[];
  retry: number | null;
  /** Settles when the stream ends: 'end' for a clean end, 'error' for a broken connection. */
  ended: Promise<'end' | 'error'>;
  waitForEvents(n: number, timeoutMs?: number): Promise<EventSourceMessage[]>;
  waitForComments(n: number, timeoutMs?: number): Promise<string[]>;
  envelopes(): EventEnvelope[];
  close(): void;
}

async function until<T>(what: string, ready: () => T | null, done: () => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = ready();
    if (v !== null) return v;
    if (done()) throw new Error(`the stream ended while waiting for ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function openStream(client: ApiClient, opts: { events?: string; lastEventId?: string } = {}): Promise<OpenStream> {
  const ctrl = new AbortController();
  const { data, error, response } = await client.GET('/api/stream', {
    params: { query: opts.events ? { events: opts.events } : {}, header: opts.lastEventId ? { 'Last-Event-ID': opts.lastEventId } : {} },
    parseAs: 'stream',
    signal: ctrl.signal,
  });
  if (error !== undefined || !data) throw new Error(`stream refused: ${response.status} ${JSON.stringify(error)}`);
  const s = { events: [] as EventSourceMessage[], comments: [] as string[], retry: null as number | null };
  let finished = false;
  const frames = (data as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .pipeThrough(new EventSourceParserStream({ onRetry: (ms) => (s.retry = ms), onComment: (c) => s.comments.push(c.trim()) }));
  const ended = (async () => {
    try {
      for await (const frame of frames as unknown as AsyncIterable<EventSourceMessage>) s.events.push(frame);
      return 'end' as const;
    } catch {
      return 'error' as const;
    } finally {
      finished = true;
    }
  })();
  return {
    response,
    get events() {
      return s.events;
    },
    get comments() {
      return s.comments;
    },
    get retry() {
      return s.retry;
    },
    ended,
    waitForEvents: (n, timeoutMs = 10_000) =>
      until(
        `${n} events`,
        () => (s.events.length >= n ? s.events.slice(0, n) : null),
        () => finished,
        timeoutMs,
      ),
    waitForComments: (n, timeoutMs = 10_000) =>
      until(
        `${n} comments`,
        () => (s.comments.length >= n ? s.comments.slice(0, n) : null),
        () => finished,
        timeoutMs,
      ),
    envelopes: () => s.events.map((e) => JSON.parse(e.data) as EventEnvelope),
    close: () => ctrl.abort(),
  };
}

/**
 * Records events as the domain does, then wakes the streams (unless `wake: false`): one
 * transaction per event, or (`oneTransaction`) all of them in one insert.
 */
export async function recordEvents(
  deps: ServiceDeps,
  workspaceId: string,
  type: CanonicalType,
  datas: Array<Record<string, unknown>>,
  opts: { wake?: boolean; oneTransaction?: boolean } = {},
) {
  const out: EventEnvelope[] = [];
  if (opts.oneTransaction)
    out.push(
      ...(await recordMany(
        deps.db,
        deps,
        workspaceId,
        datas.map((data) => ({ type, data })),
      )),
    );
  else for (const data of datas) out.push(await deps.db.transaction().execute((tx) => recordEvent(tx, deps, workspaceId, type, data)));
  if (opts.wake !== false) deps.events.wake();
  return out;
}

/** `n` riff.ready payloads with distinct ids. */
export const riffs = (n: number, tag = 'r') => Array.from({ length: n }, (_, i) => ({ riff_id: `art_${tag}${i}`, source_post_id: `post_${tag}${i}` }));
