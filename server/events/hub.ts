// The event hub of one instance: a single reader follows the outbox by `seq` and fans each new
// event out to the open streams of its workspace. It reads when woken: in-process by
// `wake()` (called after a commit that recorded events), and on PostgreSQL by a NOTIFY that
// every commit with events sends (store/events.ts) and that a dedicated LISTEN connection of
// every instance receives, so that an event committed on one instance reaches the streams of
// all of them. A slow fallback poll covers a lost LISTEN connection or a forgotten wake().
import type { ServerResponse } from 'node:http';
import pg from 'pg';
import type { Logger } from 'pino';
import type { EventWaker } from '../services/context.js';
import { envelopeOf } from '../services/events.js';
import type { Db, Provider } from '../store/database.js';
import { TOKEN_CHANGE_PREFIX } from '../store/workspaces.js';
import { EVENTS_CHANNEL, eventsAfter, maxEventSeq, workspaceEventsBetween, type EventRow } from '../store/events.js';
import { Coalesced } from '../lib/coalesce.js';
import { DEFAULT_LIMITS, Subscriber, type EndReason, type HubEvent, type QueueLimits } from './subscriber.js';

/** The reconnection hint sent at connect (`retry:`), in milliseconds. */
export const RETRY_HINT_MS = 3000;
const BATCH = 500;
/**
 * Subscribers written to per turn of the event loop when one event goes to many. Node corks a
 * response's socket on write and uncorks it on the next tick, so nothing leaves the process until
 * the writing code yields: yielding every slice puts the first subscribers' frames on the wire
 * while the rest are still being written (and lets other requests in between).
 */
const FAN_OUT_SLICE = 200;
/**
 * A look at the outbox now and then even when nothing woke the hub: it covers a LISTEN connection
 * being re-established and a producer that forgot wake(). Slow on purpose: wake-ups do the work.
 */
const FALLBACK_POLL_MS = 15_000;

export interface HubOptions {
  db: Db;
  provider: Provider;
  /** The PostgreSQL URL for the LISTEN connection (null on SQLite). */
  databaseUrl: string | null;
  logger: Logger;
  heartbeatMs: number;
  /** End every stream after this long (0: never). */
  maxStreamMs: number;
  fallbackPollMs?: number;
  limits?: QueueLimits;
}

export interface StreamRequest {
  workspaceId: string;
  /** Canonical types to deliver, or null for all. */
  types: string[] | null;
  /** Resume after this seq (from Last-Event-ID), or null for live events only. */
  afterSeq: number | null;
}

export function frameOf(row: EventRow): HubEvent {
  const json = JSON.stringify(envelopeOf(row));
  return { seq: row.seq, id: row.id, workspaceId: row.workspaceId, type: row.type, frame: Buffer.from(`id: ${row.id}\nevent: ${row.type}\ndata: ${json}\n\n`) };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class EventHub implements EventWaker {
  /** Every event up to this seq has been handed to the subscribers. */
  private cursor = 0;
  private started = false;
  private closed = false;
  private readonly reader = new Coalesced(
    () => this.readNew(),
    (err) => this.opts.logger.error({ err }, 'reading new events failed; retrying on the next wake'),
  );
  private readonly byWorkspace = new Map<string, Set<Subscriber>>();
  private readonly committedListeners: Array<() => void> = [];
  private tokenWatcher: TokenWatcher | null = null;
  private readonly timers: NodeJS.Timeout[] = [];
  private listenClient: pg.Client | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectDelayMs = 500;
  readonly stats = { dropped: 0, served: 0 };

  constructor(private readonly opts: HubOptions) {}

  async start(): Promise<void> {
    this.cursor = await maxEventSeq(this.opts.db);
    this.started = true;
    if (this.opts.provider === 'postgresql' && this.opts.databaseUrl) await this.listen();
    this.every(this.opts.heartbeatMs, () => this.forEachSubscriber((s) => s.comment('heartbeat')));
    this.every(this.opts.fallbackPollMs ?? FALLBACK_POLL_MS, () => this.wake());
  }

  /** Reads the events committed since the last read and fans them out (coalesced). */
  wake(): void {
    if (this.started && !this.closed) this.reader.trigger();
  }

  /** Called (on every instance) after events were read, e.g. to nudge the delivery worker. */
  onCommitted(listener: () => void): void {
    this.committedListeners.push(listener);
  }

  /**
   * Hands the announcements of tokens that ended early (revoked, rotated, signed out on any
   * instance: store/workspaces.ts `announceTokenChange`) to `watcher`, and tells it to forget
   * everything each time the LISTEN connection is (re-)established, since announcements made while
   * it was down are lost.
   */
  watchTokens(watcher: TokenWatcher): void {
    this.tokenWatcher = watcher;
  }

  /** Whether this instance hears what other instances announce: always on SQLite, while LISTENing on PostgreSQL. */
  get hearsOtherInstances(): boolean {
    return this.opts.provider !== 'postgresql' || !this.opts.databaseUrl || this.listenClient !== null;
  }

  get subscriberCount(): number {
    let n = 0;
    for (const set of this.byWorkspace.values()) n += set.size;
    return n;
  }

  /**
   * Serves one stream on `res`: headers and the `retry:` hint, then the backlog after
   * `afterSeq` from the database, then live events. Gap-free and without duplicates: the
   * subscriber is registered (synchronously) at the hub's cursor C, so every later event comes
   * live; the backlog is read up to and including C; and nothing at or below the last written seq
   * is written twice.
   */
  serve(res: ServerResponse, req: StreamRequest): void {
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('X-Accel-Buffering', 'no');
    res.socket?.setNoDelay(true);
    res.flushHeaders();
    res.write(`retry: ${RETRY_HINT_MS}\n\n`);
    // HEAD (served for GET) has no body to stream; a closing hub takes no new streams.
    if (this.closed || res.req.method === 'HEAD') {
      res.end();
      return;
    }
    const upTo = this.cursor;
    const start = req.afterSeq ?? upTo;
    const sub = new Subscriber(res, req.workspaceId, req.types ? new Set(req.types) : null, start, this.opts.limits ?? DEFAULT_LIMITS, (s, reason) =>
      this.remove(s, reason),
    );
    let set = this.byWorkspace.get(req.workspaceId);
    if (!set) this.byWorkspace.set(req.workspaceId, (set = new Set()));
    set.add(sub);
    this.stats.served++;
    if (this.opts.maxStreamMs > 0) {
      const t = setTimeout(() => sub.end('max_duration'), this.opts.maxStreamMs);
      t.unref();
      res.on('close', () => clearTimeout(t));
    }
    this.catchUp(sub, req, start, upTo).catch((err: unknown) => {
      this.opts.logger.error({ err }, 'reading the stream backlog failed');
      sub.drop('error');
    });
  }

  private async catchUp(sub: Subscriber, req: StreamRequest, after: number, upTo: number): Promise<void> {
    let from = after;
    while (from < upTo && !sub.isClosed) {
      const rows = await workspaceEventsBetween(this.opts.db, { workspaceId: req.workspaceId, afterSeq: from, upToSeq: upTo, types: req.types, limit: BATCH });
      await sub.writeBacklog(rows.map(frameOf));
      if (rows.length < BATCH) break;
      from = rows[rows.length - 1]!.seq;
    }
    sub.goLive();
  }

  /** Ends every stream and stops listening. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.forEachSubscriber((s) => s.end('shutdown'));
    const client = this.listenClient;
    this.listenClient = null;
    await client?.end().catch(() => {});
    await this.reader.settled();
  }

  private async readNew(): Promise<void> {
    for (;;) {
      const rows = await eventsAfter(this.opts.db, this.cursor, BATCH);
      for (const row of rows) await this.dispatch(row);
      if (rows.length) for (const l of this.committedListeners) l();
      if (rows.length < BATCH || this.closed) return;
    }
  }

  /**
   * Hands one event to the streams of its workspace, in slices of FAN_OUT_SLICE subscribers with
   * a turn of the event loop between them. Order holds: readNew is single-flight, so the next
   * event starts only when every subscriber has been offered this one; a stream that connects
   * meanwhile starts after this event's seq (or reads it from its backlog).
   */
  private async dispatch(row: EventRow): Promise<void> {
    this.cursor = row.seq;
    const set = this.byWorkspace.get(row.workspaceId);
    if (!set?.size) return;
    const ev = frameOf(row);
    // A copy: streams may come and go while the hub yields between slices.
    const subs = [...set];
    for (let i = 0; i < subs.length; i += FAN_OUT_SLICE) {
      if (i > 0) await nextTurn();
      const end = Math.min(i + FAN_OUT_SLICE, subs.length);
      for (let j = i; j < end; j++) subs[j]!.offer(ev);
    }
  }

  private remove(sub: Subscriber, reason: EndReason): void {
    const set = this.byWorkspace.get(sub.workspaceId);
    set?.delete(sub);
    if (set && !set.size) this.byWorkspace.delete(sub.workspaceId);
    if (reason === 'slow') {
      this.stats.dropped++;
      this.opts.logger.warn({ workspaceId: sub.workspaceId, lastSeq: sub.lastSeq }, 'dropped a stream that fell too far behind; it resumes with Last-Event-ID');
    }
  }

  private forEachSubscriber(fn: (s: Subscriber) => void): void {
    for (const set of [...this.byWorkspace.values()]) for (const s of [...set]) fn(s);
  }

  private every(ms: number, fn: () => void): void {
    const t = setInterval(fn, ms);
    t.unref();
    this.timers.push(t);
  }

  /** A dedicated connection (not from the pool) that LISTENs; reconnects with backoff when lost. */
  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.opts.databaseUrl! });
    client.on('notification', (msg) => {
      if (msg.payload?.startsWith(TOKEN_CHANGE_PREFIX)) this.tokenWatcher?.forget(msg.payload.slice(TOKEN_CHANGE_PREFIX.length));
      else this.wake();
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, null));
    try {
      await client.connect();
      await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    } catch (err) {
      this.lost(client, err);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.listenClient = client;
    this.reconnectDelayMs = 500;
    // Tokens may have ended while nobody listened.
    this.tokenWatcher?.clear();
    // Anything committed while we were not listening.
    this.wake();
  }

  private lost(client: pg.Client, err: unknown): void {
    if (this.closed || this.reconnectTimer || (this.listenClient && this.listenClient !== client)) return;
    this.listenClient = null;
    client.end().catch(() => {});
    this.opts.logger.warn({ err, retryInMs: this.reconnectDelayMs }, 'the LISTEN connection for events was lost; reconnecting');
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.listen();
    }, this.reconnectDelayMs);
    this.reconnectTimer.unref();
    this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, 30_000);
  }
}

/** What hears of tokens that ended early (services/token-cache.ts `TokenCache`). */
export interface TokenWatcher {
  forget(tokenId: string): void;
  clear(): void;
}

/** What the stream handler needs of the hub (given to it at start: `HandlerDeps.streams`). */
export type EventStreams = Pick<EventHub, 'serve'>;
