// One open SSE stream. Frames are written whole; when the socket pushes back (`write` returns
// false) the subscriber stops writing and queues, and a queue past its bounds drops the
// subscriber: the connection is destroyed and the client resumes with Last-Event-ID, catching up
// from the database instead of from this process's memory.
import type { ServerResponse } from 'node:http';

export interface HubEvent {
  seq: number;
  id: string;
  workspaceId: string;
  type: string;
  /** The whole SSE frame (`id:`, `event:`, `data:`, blank line), built once for every subscriber. */
  frame: string;
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

  constructor(
    private readonly res: ServerResponse,
    readonly workspaceId: string,
    private readonly types: ReadonlySet<string> | null,
    startSeq: number,
    private readonly limits: QueueLimits,
    private readonly onEnd: (s: Subscriber, reason: EndReason) => void,
  ) {
    this.lastSeq = startSeq;
    res.on('drain', () => {
      this.blocked = false;
      for (const w of this.drainWaiters.splice(0)) w();
      if (this.live) this.flush();
    });
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
    this.queue.push(ev);
    this.queuedBytes += Buffer.byteLength(ev.frame);
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
    if (!this.closed && !this.blocked) this.blocked = !this.res.write(`: ${text}\n\n`);
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
      this.queuedBytes -= Buffer.byteLength(ev.frame);
      this.write(ev);
    }
  }

  private write(ev: HubEvent): void {
    if (ev.seq <= this.lastSeq) return;
    this.lastSeq = ev.seq;
    if (!this.res.write(ev.frame)) this.blocked = true;
  }

  private finish(reason: EndReason): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.queuedBytes = 0;
    for (const w of this.drainWaiters.splice(0)) w();
    this.onEnd(this, reason);
  }
}
