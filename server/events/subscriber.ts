// One open SSE stream. Frames are written whole; when the socket pushes back (`write` returns
// false) the subscriber stops writing and queues, and a queue past its bounds drops the
// subscriber: the connection is destroyed and the client resumes with Last-Event-ID, catching up
// from the database instead of from this process's memory.
//
// On an HTTP/1.1 stream (chunked transfer coding, headers already sent) each frame is written to
// the socket as one ready-made chunk, built once per event for every subscriber, instead of
// through `res.write`: that cost ~25 µs per subscriber (four buffers, a cork until the next tick,
// a writev), the direct write ~15 µs, which is what takes one event to 5,000 streams under 100 ms
// (BENCHMARKS.md). `res.end()` still writes the last chunk, so the framing stays Node's to finish.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface HubEvent {
  seq: number;
  id: string;
  workspaceId: string;
  type: string;
  /** The whole SSE frame (`id:`, `event:`, `data:`, blank line), encoded once for every subscriber. */
  frame: Buffer;
  /** `frame` as one chunk of HTTP/1.1 chunked transfer coding, made on first use. */
  chunk?: Buffer;
}

const CRLF = Buffer.from('\r\n');

/** `data` as one chunk of the chunked transfer coding (RFC 9112 §7.1): size in hex, CRLF, data, CRLF. */
export function chunkOf(data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`, 'latin1'), data, CRLF]);
}

export interface QueueLimits {
  /** Events waiting for a slow socket before the subscriber is dropped. */
  maxEvents: number;
  /** Bytes of frames waiting for a slow socket before the subscriber is dropped. */
  maxBytes: number;
}

export const DEFAULT_LIMITS: QueueLimits = { maxEvents: 1000, maxBytes: 1024 * 1024 };

export type EndReason = 'client' | 'slow' | 'shutdown' | 'max_duration' | 'error';

export class Subscriber {
  /** The seq of the last event written; nothing at or below it is written again. */
  lastSeq: number;
  private queue: HubEvent[] = [];
  private queuedBytes = 0;
  private blocked = false;
  /** False while the backlog is being written from the database: live events only queue. */
  private live = false;
  private closed = false;
  private drainWaiters: Array<() => void> = [];
  /** The socket to write chunks to directly, or null to write through `res` (HTTP/1.0: no chunking). */
  private readonly socket: Socket | null;
  private readonly onDrain = () => {
    this.blocked = false;
    for (const w of this.drainWaiters.splice(0)) w();
    if (this.live) this.flush();
  };

  constructor(
    private readonly res: ServerResponse,
    readonly workspaceId: string,
    private readonly types: ReadonlySet<string> | null,
    startSeq: number,
    private readonly limits: QueueLimits,
    private readonly onEnd: (s: Subscriber, reason: EndReason) => void,
  ) {
    this.lastSeq = startSeq;
    this.socket = res.headersSent && res.chunkedEncoding && res.socket ? res.socket : null;
    // Writes straight to the socket make the socket, not the response, emit 'drain'.
    if (this.socket) this.socket.on('drain', this.onDrain);
    else res.on('drain', this.onDrain);
    res.on('close', () => this.finish('client'));
  }

  get isClosed() {
    return this.closed;
  }

  accepts(type: string): boolean {
    return this.types === null || this.types.has(type);
  }

  /** A live event from the hub (already filtered by workspace). */
  offer(ev: HubEvent): void {
    if (this.closed || ev.seq <= this.lastSeq || !this.accepts(ev.type)) return;
    // The common case: nothing waiting, the socket takes it.
    if (this.live && !this.blocked && !this.queue.length) return this.write(ev);
    this.queue.push(ev);
    this.queuedBytes += ev.frame.length;
    if (this.queue.length > this.limits.maxEvents || this.queuedBytes > this.limits.maxBytes) {
      this.drop('slow');
      return;
    }
    if (this.live) this.flush();
  }

  /** Writes a backlog page (events from the database), waiting for the socket when it pushes back. */
  async writeBacklog(events: HubEvent[]): Promise<void> {
    for (const ev of events) {
      if (this.closed) return;
      if (this.blocked) await new Promise<void>((r) => this.drainWaiters.push(r));
      this.write(ev);
    }
  }

  /** The backlog is written: from now on live events are written as they come. */
  goLive(): void {
    this.live = true;
    this.flush();
  }

  /** A comment line; skipped while the socket pushes back (it is only there to keep the line open). */
  comment(text: string): void {
    if (!this.closed && !this.blocked) this.send(Buffer.from(`: ${text}\n\n`));
  }

  /** Ends the stream cleanly (the client sees a normal end and reconnects). */
  end(reason: EndReason): void {
    if (this.closed) return;
    if (this.blocked) return this.drop(reason);
    this.finish(reason);
    // On shutdown the connection goes too, so that the server need not wait for the client
    // (the response lets go of its socket when it finishes, so hold on to it here).
    const socket = this.res.socket;
    this.res.end(() => {
      if (reason === 'shutdown') socket?.destroySoon();
    });
  }

  /** Drops the connection at once: nothing more is buffered for it. */
  drop(reason: EndReason): void {
    if (this.closed) return;
    this.finish(reason);
    this.res.destroy();
  }

  private flush(): void {
    while (!this.blocked && !this.closed && this.queue.length) {
      const ev = this.queue.shift()!;
      this.queuedBytes -= ev.frame.length;
      this.write(ev);
    }
  }

  private write(ev: HubEvent): void {
    if (ev.seq <= this.lastSeq) return;
    this.lastSeq = ev.seq;
    this.send(ev.frame, ev);
  }

  /** Writes bytes of the stream; `ev` keeps the chunk made for the first subscriber for all the others. */
  private send(data: Buffer, ev?: HubEvent): void {
    const ok = this.socket ? this.socket.write(ev ? (ev.chunk ??= chunkOf(data)) : chunkOf(data)) : this.res.write(data);
    if (!ok) this.blocked = true;
  }

  private finish(reason: EndReason): void {
    if (this.closed) return;
    this.closed = true;
    // A kept-alive socket outlives the stream.
    this.socket?.off('drain', this.onDrain);
    this.queue = [];
    this.queuedBytes = 0;
    for (const w of this.drainWaiters.splice(0)) w();
    this.onEnd(this, reason);
  }
}
