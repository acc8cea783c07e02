// The one outbound HTTP client of the service (fetch, platform adapters, webhook delivery, LLM
// calls). Every request goes through it, so that none can reach a non-public address.
export interface OutboundRequest {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** An http(s):// or socks5:// proxy for this request (a connected account's proxy_url). */
  proxyUrl?: string | null;
  /** Permit plain http:// for this request (e.g. an RSS feed); https is the default and the rule. */
  allowHttp?: boolean;
  /** Abort when the (decompressed) body grows past this many bytes. */
  maxBytes?: number;
  /** Total time for the whole exchange, redirects included. */
  timeoutMs?: number;
  /** Redirects followed (each hop re-checked); 0 returns the 3xx itself. */
  maxRedirects?: number;
}

export interface OutboundResponse {
  status: number;
  headers: Headers;
  /** The URL after redirects. */
  url: string;
  body: Buffer;
  text(): string;
  json<T = unknown>(): T;
}

export type OutboundErrorKind = 'invalid_url' | 'scheme_not_allowed' | 'address_not_allowed' | 'timeout' | 'too_large' | 'too_many_redirects' | 'network';

export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

export interface OutboundClient {
  request(req: OutboundRequest): Promise<OutboundResponse>;
}
