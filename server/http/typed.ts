// The strict-server contract: every operation of the description is one function that takes a
// typed request and returns a typed `{ status, body, headers }`, all derived from the generated
// `operations` (generated/api.ts) and the facts generated/operations.ts adds: the `caller` is there
// on the bearer operations and absent on the others; the headers are the ones the contract
// declares for that status (required ones required). `Handlers` must list every operation, and
// nothing else; each handler module serves one tag (`HandlersOf<'Artifacts'>`).
import type { IncomingHttpHeaders, ServerResponse, IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { operations } from '../../generated/api.js';
import type { BearerOperation, HandlerResponseHeaders, OperationsByTag } from '../../generated/operations.js';
import type { Caller, CommitHook } from '../services/context.js';
import type { IdempotencyScope } from '../services/idempotency.js';
import type { Db } from '../store/database.js';

/** Operations served over HTTP (`backendEventPayload` only describes a payload in `webhooks`). */
export type OpId = Exclude<keyof operations, 'backendEventPayload'>;

type Params<K extends OpId> = operations[K]['parameters'];
type PathOf<K extends OpId> = Params<K> extends { path: infer P } ? P : Record<string, never>;
type QueryOf<K extends OpId> = Params<K> extends { query?: infer Q } ? NonNullable<Q> : Record<string, never>;
type BodyOf<K extends OpId> = operations[K] extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : operations[K] extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B | undefined
    : undefined;

/** A Server-Sent Events body: the handler takes over the response. */
export interface SseBody {
  sse: (req: IncomingMessage, res: ServerResponse) => void;
}

type ContentOf<R> = R extends { content: { 'application/json': infer B } }
  ? B
  : R extends { content: { 'text/event-stream': unknown } }
    ? SseBody
    : R extends { content: { 'image/jpeg': unknown } }
      ? BinaryBody
      : never;

/** An answer that is bytes (an image), written as they are with their Content-Type. */
export interface BinaryBody {
  bytes: Buffer;
  contentType: string;
}

type Responses<K extends OpId> = operations[K]['responses'];

/** The headers of an answer that declares none of its own (an error, or an operation without response headers). */
// eslint-disable-next-line @typescript-eslint/no-generated-empty-object-type -- an object with no property is what is meant: `keyof NoHeaders` is never, and `NoHeaders extends H` holds when every header of H is optional
type NoHeaders = Record<never, never>;
/** The headers of one answer: those the contract declares for it, less the pipeline's (`NoHeaders` for an error). */
type HeadersOf<K extends OpId, S> = K extends keyof HandlerResponseHeaders
  ? S extends keyof HandlerResponseHeaders[K]
    ? HandlerResponseHeaders[K][S]
    : NoHeaders
  : NoHeaders;
/** `headers` is required when the contract requires one of them, optional otherwise, absent when none is declared. */
type HeadersField<H> = keyof H extends never ? { headers?: never } : NoHeaders extends H ? { headers?: H } : { headers: H };

export type Reply<K extends OpId> = {
  [S in keyof Responses<K> & number]: { status: S; body: ContentOf<Responses<K>[S]> } & HeadersField<HeadersOf<K, S>>;
}[keyof Responses<K> & number];

/** What a request of an operation the record of who did what covers carries (http/audit.ts `auditFor`). */
export interface AuditScope {
  /** Writes the record inside the transaction of the change (a service's commit hook calls it). */
  writeIn(tx: Db, status: number, answer: unknown): Promise<void>;
}

export interface HandlerRequest<K extends OpId> {
  operationId: K;
  path: PathOf<K>;
  query: QueryOf<K>;
  body: BodyOf<K>;
  headers: IncomingHttpHeaders;
  /** The raw bytes of the body (signed webhooks need them). */
  rawBody: Buffer | undefined;
  /** The body as a stream, for operations that take raw bytes (`format: binary`): never buffered. */
  bodyStream: AsyncIterable<Buffer>;
  /** The caller (the workspace its token is bound to): on the bearer operations only. */
  caller: K extends BearerOperation ? Caller : undefined;
  log: Logger;
  /** On an idempotent operation whose key this request claimed: see `commitHook`. */
  idempotency?: IdempotencyScope;
  /** On an operation that the record of who did what covers (http/audit.ts): see `commitHook`. */
  audit?: AuditScope;
}

/**
 * For an operation that creates work: a hook for the service to call inside the transaction that
 * commits the work, with the answer it will give. The idempotency record is completed in that
 * same transaction, so that a crash between the commit and the answer leaves a key that replays
 * the answer, never one that a retry (after the claim's lease) would take over to do the work again;
 * and the record of who did it (http/audit.ts) is written there too, so that it commits with the work.
 */
export function commitHook<T>(req: Pick<HandlerRequest<OpId>, 'idempotency' | 'audit'>, status: number): CommitHook<T> | undefined {
  const { idempotency: scope, audit } = req;
  if (!scope && !audit) return undefined;
  return async (tx, answer) => {
    await scope?.completeIn(tx, { status, body: answer });
    await audit?.writeIn(tx, status, answer);
  };
}

/**
 * The answer of an upload whose key travels in the query (POST /imports, POST /media; the service
 * dedupes it with the stored upload): 201 when stored now, 200 with `Idempotent-Replayed` when the
 * key had stored the same upload before.
 */
export function uploadReply<B>(r: { status: 200 | 201; body: B }) {
  return r.status === 201
    ? { status: 201 as const, body: r.body }
    : { status: 200 as const, body: r.body, headers: { 'Idempotent-Replayed': 'true' as const } };
}

export type Handler<K extends OpId> = (req: HandlerRequest<K>) => Promise<Reply<K>>;

export type Handlers = { [K in OpId]: Handler<K> };

/** The handlers of one tag's operations: what a module of server/handlers/ returns (`satisfies`). */
export type HandlersOf<T extends keyof OperationsByTag> = { [K in OperationsByTag[T] & OpId]: Handler<K> };
