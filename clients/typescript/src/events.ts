// Following the Server-Sent Events stream: parse frames with eventsource-parser, and on any drop
// reconnect with exponential backoff, sending `Last-Event-ID` so that nothing is missed.
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { ApiClient, Schemas } from './client.js';
import { ContentPipelineError, errorFromResponse } from './errors.js';

export type EventEnvelope = Schemas['EventEnvelope'];

export interface FollowEventsOptions {
  /** Event types to deliver (all when omitted). */
  events?: string[];
  /** Resume after this event id. */
  lastEventId?: string;
  signal?: AbortSignal;
  /** First reconnect delay (default 1000 ms, or the server's `retry:` when larger); doubles up to `maxDelayMs`. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Called when the stream is open (again). */
  onOpen?: (info: { lastEventId: string | undefined; reconnect: boolean }) => void;
  /** Called before waiting to reconnect. */
  onReconnect?: (info: { attempt: number; delayMs: number; error: unknown; lastEventId: string | undefined }) => void;
  onHeartbeat?: () => void;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Errors that reconnecting cannot fix (a refused token, a bad filter): they end the stream. */
function isFatal(err: unknown): boolean {
  return err instanceof ContentPipelineError && err.status < 500 && err.status !== 429 && err.status !== 408;
}

const abortableSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });

/**
 * Yields the workspace's events for as long as the caller keeps iterating (or until `signal`
 * aborts). Transient failures (network, 5xx, 429, the server closing the stream) reconnect;
 * a 4xx answer is thrown.
 */
export async function* followEvents(client: ApiClient, opts: FollowEventsOptions = {}): AsyncGenerator<EventEnvelope> {
  const sleep = opts.sleep ?? abortableSleep;
  const initial = opts.initialDelayMs ?? 1000;
  const max = opts.maxDelayMs ?? 30_000;
  let lastEventId = opts.lastEventId;
  let serverRetry = 0;
  let attempt = 0;
  let opened = false;
  while (!opts.signal?.aborted) {
    let failure: unknown = new Error('the server closed the stream');
    try {
      const { data, error, response } = await client.GET('/api/stream', {
        params: { query: opts.events?.length ? { events: opts.events.join(',') } : {}, header: lastEventId ? { 'Last-Event-ID': lastEventId } : {} },
        parseAs: 'stream',
        signal: opts.signal,
      });
      if (error !== undefined || !data) throw errorFromResponse(response, error);
      opts.onOpen?.({ lastEventId, reconnect: opened });
      opened = true;
      attempt = 0;
      // The caller's signal ends the read itself, not only the request: the signal `fetch` got is
      // derived from it through the Request objects built on the way (openapi-fetch's, the retry
      // layer's clone), which the runtime holds only weakly; once they are collected, an abort
      // no longer reaches a body that is waiting for its next chunk, and the loop would wait
      // for ever on a quiet stream (`cpa stream` ignored Ctrl-C and SIGTERM).
      const frames = (data as ReadableStream<Uint8Array>)
        .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>, opts.signal ? { signal: opts.signal } : {})
        .pipeThrough(new EventSourceParserStream({ onRetry: (ms) => (serverRetry = ms), onComment: () => opts.onHeartbeat?.() }));
      for await (const frame of frames as unknown as AsyncIterable<{ id?: string; data: string }>) {
        if (!frame.data) continue;
        const envelope = JSON.parse(frame.data) as EventEnvelope;
        lastEventId = frame.id ?? envelope.id;
        yield envelope;
      }
    } catch (err) {
      if (opts.signal?.aborted) return;
      if (isFatal(err)) throw err;
      failure = err;
    }
    attempt++;
    const backoff = Math.min(max, Math.max(initial, serverRetry) * 2 ** (attempt - 1));
    // Jitter (50–100 %) so that many clients do not reconnect in step after an outage.
    const delayMs = Math.round(backoff * (0.5 + Math.random() / 2));
    opts.onReconnect?.({ attempt, delayMs, error: failure, lastEventId });
    await sleep(delayMs, opts.signal);
  }
}
