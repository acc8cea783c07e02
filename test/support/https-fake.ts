// The one builder of local fakes of third-party upstreams (platforms, feeds, web pages, webhook
// receivers, model providers): a real HTTPS (or, with `tls: false`, HTTP) server on 127.0.0.1,
// with a throwaway CA made by `openssl` in a temp dir (never committed). The server under test
// reaches it through the outbound client's test-only settings, which `fake.outboundEnv` spells out:
//
//   const fake = await startFake({
//     routes: {
//       'GET /feed.xml': reply(200, rssFeed('Blog', items), 'application/rss+xml'),
//       '/down.xml': reply(503, 'down for maintenance'),                // any method
//       'POST /api/v1/accounts/:id/follow': (req, res, body, params) => json(res, 200, { id: params.id }),
//     },
//   });
//   const server = await startTestServer({ env: fake.outboundEnv });
//
// A request no route matches goes to `handler` when there is one (the whole fake in one function,
// for a fake with state of its own), else answers 404. Handlers receive the request body already
// read, and every request is recorded in `fake.requests` so that a test can assert what the service
// sent.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * What it returns is ignored (so `(req, res) => res.end('ok')` is fine); a rejection answers 500.
 * `params`: the `:name` segments of the route that matched.
 */
export type FakeHandler = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, params: Record<string, string>) => unknown;

/** Writes a JSON answer. */
export function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * A handler that always answers the same: a string or bytes as given, with `contentType`
 * (`text/plain` unless told; null: no Content-Type), anything else as JSON; `headers` besides.
 */
export function reply(
  status: number,
  body: unknown = '',
  contentType: string | null = 'text/plain; charset=utf-8',
  headers: Record<string, string> = {},
): FakeHandler {
  return (_req, res) => {
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      res.writeHead(status, { ...(contentType ? { 'content-type': contentType } : {}), ...headers });
      res.end(body);
    } else {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    }
  };
}

export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface FakeOptions {
  /** HTTPS (the default) or plain HTTP. */
  tls?: boolean;
  /** `'METHOD /path'` or `'/path'` (any method) → handler; `:name` segments match one segment. Matched on the path, without the query. */
  routes?: Record<string, FakeHandler>;
  /** What answers a request no route matches (default: 404). */
  handler?: FakeHandler;
  /** Extra DNS names for the certificate (it always covers 127.0.0.1, ::1 and localhost). */
  hostnames?: string[];
  /** HTTP CONNECT requests (a proxy fake); only with `tls: false`. */
  onConnect?: (req: http.IncomingMessage, socket: Socket, head: Buffer) => void;
}

interface CompiledRoute {
  method: string | null;
  pattern: RegExp;
  names: string[];
  handler: FakeHandler;
}

function compileRoutes(routes: Record<string, FakeHandler>): CompiledRoute[] {
  return Object.entries(routes).map(([key, handler]) => {
    const [method, route] = key.includes(' ') ? (key.split(' ', 2) as [string, string]) : [null, key];
    const names: string[] = [];
    const source = route
      .split('/')
      .map((seg) => (seg.startsWith(':') ? (names.push(seg.slice(1)), '([^/]+)') : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    return { method: method?.toUpperCase() ?? null, pattern: new RegExp(`^${source}$`), names, handler };
  });
}

const notFound: FakeHandler = (req, res) => json(res, 404, { error: `the fake has no route for ${req.method} ${req.url}` });

export interface Fake {
  /** `https://127.0.0.1:<port>` (or `http://…`), without a trailing slash. */
  url: string;
  /** `127.0.0.1:<port>`: the entry for `OUTBOUND_ALLOW_HOSTS`. */
  host: string;
  port: number;
  /** PEM file of the throwaway CA that signed the server certificate (for `OUTBOUND_EXTRA_CA_FILE`); '' for plain HTTP. */
  caFile: string;
  /** The settings that let the service's outbound client reach this fake, for `startTestServer({ env })`. */
  outboundEnv: Record<string, string>;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

interface Pki {
  caFile: string;
  cert: Buffer;
  key: Buffer;
}

const certCache = new Map<string, Pki>();
let ca: { dir: string; caFile: string } | null = null;

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** The one throwaway CA of this process (so that one `OUTBOUND_EXTRA_CA_FILE` covers every fake). */
function throwawayCa(): { dir: string; caFile: string } {
  if (ca) return ca;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cp-fake-pki-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Content Pipeline test CA'], dir);
  ca = { dir, caFile: path.join(dir, 'ca.pem') };
  return ca;
}

/** A server certificate signed by the throwaway CA, made once per process and set of names. */
export function throwawayPki(hostnames: string[] = []): Pki {
  const names = [...new Set(['localhost', ...hostnames])].sort();
  const key = names.join(',');
  const cached = certCache.get(key);
  if (cached) return cached;
  const root = throwawayCa();
  const dir = mkdtempSync(path.join(root.dir, 'cert-'));
  const san = ['IP:127.0.0.1', 'IP:::1', ...names.map((n) => `DNS:${n}`)].join(',');
  writeFileSync(
    path.join(dir, 'ext.cnf'),
    `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n`,
  );
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost'], dir);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      path.join(root.dir, 'ca.pem'),
      '-CAkey',
      path.join(root.dir, 'ca.key'),
      '-CAcreateserial',
      '-out',
      'server.pem',
      '-days',
      '2',
      '-extfile',
      'ext.cnf',
    ],
    dir,
  );
  const pki = { caFile: root.caFile, cert: readFileSync(path.join(dir, 'server.pem')), key: readFileSync(path.join(dir, 'server.key')) };
  certCache.set(key, pki);
  return pki;
}

export async function startFake(opts: FakeOptions): Promise<Fake> {
  const tls = opts.tls ?? true;
  // plain HTTP needs no certificate (making one starts openssl twice in a fresh process)
  const pki = tls ? throwawayPki(opts.hostnames) : null;
  const requests: RecordedRequest[] = [];
  const routes = compileRoutes(opts.routes ?? {});
  const route = (req: http.IncomingMessage): [FakeHandler, Record<string, string>] => {
    const pathname = (req.url ?? '/').split('?')[0]!;
    for (const r of routes) {
      if (r.method && r.method !== req.method) continue;
      const m = r.pattern.exec(pathname);
      if (m) return [r.handler, Object.fromEntries(r.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]))];
    }
    return [opts.handler ?? notFound, {}];
  };
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body });
      const [handler, params] = route(req);
      Promise.resolve()
        .then(() => handler(req, res, body, params))
        .catch((err: unknown) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`fake handler failed: ${String(err)}`);
        });
    });
  };
  const server = pki ? https.createServer({ cert: pki.cert, key: pki.key }, listener) : http.createServer(listener);
  const sockets = new Set<Socket>();
  if (opts.onConnect) {
    const onConnect = opts.onConnect;
    server.on('connect', (req: http.IncomingMessage, socket: Socket, head: Buffer) => {
      sockets.add(socket);
      onConnect(req, socket, head);
    });
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = `127.0.0.1:${port}`;
  const outboundEnv: Record<string, string> = pki
    ? { OUTBOUND_ALLOW_HOSTS: host, OUTBOUND_EXTRA_CA_FILE: pki.caFile }
    : { OUTBOUND_ALLOW_HOSTS: host, OUTBOUND_ALLOW_HTTP_FOR_ALLOWED_HOSTS: 'true' };
  return {
    url: `${tls ? 'https' : 'http'}://${host}`,
    host,
    port,
    caFile: pki?.caFile ?? '',
    outboundEnv,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Merges the outbound settings of several fakes (they share the process's one CA). */
export function outboundEnvFor(...fakes: Fake[]): Record<string, string> {
  const env: Record<string, string> = { OUTBOUND_ALLOW_HOSTS: fakes.map((f) => f.host).join(',') };
  const tlsFake = fakes.find((f) => f.url.startsWith('https:'));
  if (tlsFake) env.OUTBOUND_EXTRA_CA_FILE = tlsFake.caFile;
  if (fakes.some((f) => f.url.startsWith('http:'))) env.OUTBOUND_ALLOW_HTTP_FOR_ALLOWED_HOSTS = 'true';
  return env;
}
