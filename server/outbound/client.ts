// The SSRF-safe outbound HTTP client (docs/outbound-and-fetch.md). Built on undici: one Agent
// whose connector refuses non-public addresses at connect time (./connector.ts), redirects
// followed here hop by hop (each hop re-checked), a total deadline, a streamed and decompressed
// size cap (./body.ts), a clear User-Agent, and an optional per-request proxy whose own address
// is checked by the same connector.
import { readFileSync } from 'node:fs';
import { promises as dns } from 'node:dns';
import net from 'node:net';
import tls from 'node:tls';
import { Agent, buildConnector, Pool, ProxyAgent, Socks5ProxyAgent, request as undiciRequest, type Dispatcher } from 'undici';
import type { Config } from '../config.js';
import { AllowList, bareHost, nonPublicRange } from './address-policy.js';
import { ACCEPT_ENCODING, readCappedBody, tooLarge } from './body.js';
import { createGuardedConnector, refusedAddress, resolvePublic, unwrapOutbound, type Resolver } from './connector.js';
import { OutboundError, type OutboundClient, type OutboundRequest, type OutboundResponse } from './types.js';

export const OUTBOUND_DEFAULTS = {
  timeoutMs: 10_000,
  connectTimeoutMs: 5_000,
  maxBytes: 5 * 1024 * 1024,
  maxRedirects: 5,
} as const;

export interface OutboundClientOptions {
  /** DNS resolution (default: the system resolver, all addresses). Tests inject fake answers. */
  resolve?: Resolver;
  connectTimeoutMs?: number;
}

const systemResolve: Resolver = (hostname) => dns.lookup(hostname, { all: true, order: 'verbatim' });

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers that must not follow a redirect to another origin. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

function parseUrl(raw: string, what = 'url'): URL {
  try {
    return new URL(raw);
  } catch {
    throw new OutboundError('invalid_url', `${what} is not a valid absolute URL`);
  }
}

const portOf = (url: URL) => url.port || (url.protocol === 'https:' ? '443' : '80');

function extraCa(config: Config): { ca?: string[] } {
  if (!config.outbound.extraCaFile) return {};
  // Passing `ca` replaces Node's bundled roots, so keep them and add the extra one.
  return { ca: [...tls.rootCertificates, readFileSync(config.outbound.extraCaFile, 'utf8')] };
}

function toHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) h.append(k, one);
  }
  return h;
}

function charsetOf(contentType: string | null): string {
  const m = /charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType ?? '');
  return m ? m[1].toLowerCase() : 'utf-8';
}

function makeResponse(status: number, headers: Headers, url: string, body: Buffer): OutboundResponse {
  const text = () => {
    let decoder: TextDecoder;
    try {
      decoder = new TextDecoder(charsetOf(headers.get('content-type')));
    } catch {
      decoder = new TextDecoder('utf-8');
    }
    return decoder.decode(body);
  };
  return { status, headers, url, body, text, json: <T>() => JSON.parse(text()) as T };
}

/** Drops a body we will not read (its 'error' on destroy is expected, not a failure). */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on('error', () => {});
  body.destroy();
}

/** Turns whatever undici, net or the stream layer threw into an OutboundError with a kind. */
function toOutboundError(err: unknown, signal: AbortSignal): OutboundError {
  const known = unwrapOutbound(err) ?? unwrapOutbound(signal.reason);
  if (known) return known;
  const code = (err as { code?: string }).code ?? '';
  if (['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT'].includes(code)) {
    return new OutboundError('timeout', `the upstream did not answer in time (${code})`);
  }
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return new OutboundError('too_large', 'the response body is too large');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new OutboundError('network', `could not resolve the host (${code})`);
  const message = err instanceof Error ? err.message : String(err);
  return new OutboundError('network', `the upstream could not be reached: ${message}${code ? ` (${code})` : ''}`);
}

export function createOutboundClient(config: Config, options: OutboundClientOptions = {}): OutboundClient & { close(): Promise<void> } {
  const allow = new AllowList(config.outbound.allowHosts);
  const resolve = options.resolve ?? systemResolve;
  const tlsOptions = extraCa(config);
  const connector = createGuardedConnector({
    allow,
    resolve,
    tls: tlsOptions,
    connectTimeoutMs: options.connectTimeoutMs ?? OUTBOUND_DEFAULTS.connectTimeoutMs,
  });
  const agent = new Agent({ connect: connector, headersTimeout: 30_000, bodyTimeout: 30_000, keepAliveTimeout: 4_000 });

  /** Scheme, credentials and IP-literal checks of one hop (names are checked at connect time). */
  function checkTarget(url: URL, allowHttp: boolean): void {
    const allowed = allow.has(url.hostname, portOf(url));
    if (url.protocol === 'http:') {
      if (!allowHttp && !(config.outbound.allowHttpForAllowedHosts && allowed)) {
        throw new OutboundError('scheme_not_allowed', `only https:// URLs may be fetched, got ${url.protocol}//${url.host}`);
      }
    } else if (url.protocol !== 'https:') {
      throw new OutboundError('scheme_not_allowed', `only https:// URLs may be fetched, got ${url.protocol}`);
    }
    if (url.username || url.password) throw new OutboundError('invalid_url', 'URLs with credentials (user:password@) are not fetched');
    const host = bareHost(url.hostname);
    if (!host) throw new OutboundError('invalid_url', 'the URL has no host');
    if (!allowed && net.isIP(host)) {
      const range = nonPublicRange(host);
      if (range) throw refusedAddress(host, host, range);
    }
  }

  /**
   * Through a proxy the proxy resolves the target, so we resolve it first ourselves and refuse a
   * name that points to a non-public address. (The proxy's own address is checked by the connector.)
   */
  async function checkProxiedTarget(url: URL): Promise<void> {
    const host = bareHost(url.hostname);
    if (net.isIP(host) || allow.has(url.hostname, portOf(url))) return;
    await resolvePublic(resolve, host);
  }

  /**
   * Through a SOCKS5 proxy: the tunnel comes from undici's Socks5ProxyAgent (its connection to the
   * proxy through the guarded connector), the TLS upgrade from undici's own connector. The agent's
   * own upgrade passes `servername: <target host>` to tls.connect even for an IP address, which
   * Node 26 refuses (ERR_INVALID_ARG_VALUE, formerly the warning DEP0123) and the request never
   * completes; the connector sends SNI for a name only and checks the certificate against the
   * address otherwise. (undici 7.30 and 8.12 both do this.)
   */
  function socksDispatcher(u: URL): Dispatcher {
    // `createSocks5Connection` is public on the class but missing from undici's types.
    const socks = new Socks5ProxyAgent(u.href, { connect: connector }) as Socks5ProxyAgent & {
      createSocks5Connection(host: string, port: number): Promise<net.Socket>;
    };
    const upgrade = buildConnector({ ...tlsOptions });
    return new Agent({
      connect: (opts, callback) => {
        const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
        socks.createSocks5Connection(opts.hostname, port).then(
          (socket) => {
            if (opts.protocol !== 'https:') return callback(null, socket);
            try {
              upgrade({ ...opts, httpSocket: socket }, callback);
            } catch (err) {
              socket.destroy();
              callback(err as Error, null);
            }
          },
          (err: unknown) => callback(err as Error, null),
        );
      },
    });
  }

  function proxyDispatcher(proxyUrl: string): Dispatcher {
    const u = parseUrl(proxyUrl, 'proxy_url');
    if (u.protocol === 'socks5:' || u.protocol === 'socks:') return socksDispatcher(u);
    if (u.protocol === 'http:' || u.protocol === 'https:') {
      return new ProxyAgent({
        uri: u.href,
        requestTls: tlsOptions,
        // The connection to the proxy goes through the guarded connector too.
        clientFactory: (origin, opts) => new Pool(origin, { ...opts, connect: connector }),
      });
    }
    throw new OutboundError('scheme_not_allowed', `proxy_url must be http://, https:// or socks5://, got ${u.protocol}`);
  }

  async function exchange(req: OutboundRequest, dispatcher: Dispatcher, signal: AbortSignal): Promise<OutboundResponse> {
    const maxBytes = req.maxBytes ?? OUTBOUND_DEFAULTS.maxBytes;
    const maxRedirects = req.maxRedirects ?? OUTBOUND_DEFAULTS.maxRedirects;
    const headers: Record<string, string> = { 'user-agent': config.outbound.userAgent };
    for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = v;
    headers['accept-encoding'] = ACCEPT_ENCODING; // only what readCappedBody can undo
    let url = parseUrl(req.url);
    let method: NonNullable<OutboundRequest['method']> = req.method ?? 'GET';
    let body = req.body;
    for (let hop = 0; ; hop++) {
      checkTarget(url, req.allowHttp === true);
      if (req.proxyUrl) await checkProxiedTarget(url);
      const res = await undiciRequest(url, { dispatcher, method, headers, body, signal });
      const location = res.headers.location;
      if (REDIRECTS.has(res.statusCode) && typeof location === 'string' && maxRedirects > 0) {
        discard(res.body);
        if (hop >= maxRedirects) throw new OutboundError('too_many_redirects', `more than ${maxRedirects} redirects`);
        const next = parseUrl(new URL(location, url).href, 'the redirect location');
        // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- undici takes a plain object; the names are our constant list
        if (next.origin !== url.origin) for (const h of CREDENTIAL_HEADERS) delete headers[h];
        // As browsers do: 303, and 301/302 after a POST, continue as a GET without a body.
        if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
          delete headers['content-type'];
        }
        url = next;
        continue;
      }
      const declared = Number(res.headers['content-length'] ?? NaN);
      if (Number.isFinite(declared) && declared > maxBytes) {
        discard(res.body);
        throw tooLarge(maxBytes);
      }
      const encoding = res.headers['content-encoding'];
      const buf = await readCappedBody(res.body, Array.isArray(encoding) ? encoding.join(',') : encoding, maxBytes, signal);
      return makeResponse(res.statusCode, toHeaders(res.headers), url.href, buf);
    }
  }

  return {
    async request(req) {
      const timeoutMs = req.timeoutMs ?? OUTBOUND_DEFAULTS.timeoutMs;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new OutboundError('timeout', `no complete answer within ${timeoutMs} ms`)), timeoutMs);
      let proxy: Dispatcher | null = null;
      try {
        proxy = req.proxyUrl ? proxyDispatcher(req.proxyUrl) : null;
        return await exchange(req, proxy ?? agent, controller.signal);
      } catch (err) {
        throw toOutboundError(err, controller.signal);
      } finally {
        clearTimeout(timer);
        // A proxy dispatcher belongs to this one request; its sockets go with it.
        if (proxy) void proxy.destroy().catch(() => {});
      }
    },
    close: () => agent.close(),
  };
}
