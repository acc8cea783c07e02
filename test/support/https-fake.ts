// A local fake of a third-party upstream: a real HTTP or HTTPS server on 127.0.0.1 with a
// throwaway CA made by `openssl` in a temp dir (never committed). The server under test reaches it
// through the outbound client's test-only settings, which `fake.outboundEnv` spells out:
//
//   const fake = await startFake({ tls: true, handler: (req, res) => res.end('ok') });
//   const server = await startTestServer({ env: fake.outboundEnv });
//
// The handler receives the request body already read (third argument), and every request is
// recorded in `fake.requests` so that a test can assert what the service sent.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** What it returns is ignored (so `(req, res) => res.end('ok')` is fine); a rejection answers 500. */
export type FakeHandler = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => unknown;

export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface FakeOptions {
  tls: boolean;
  handler: FakeHandler;
  /** Extra DNS names for the certificate (it always covers 127.0.0.1, ::1 and localhost). */
  hostnames?: string[];
}

export interface Fake {
  /** `https://127.0.0.1:<port>` (or `http://…`), without a trailing slash. */
  url: string;
  /** `127.0.0.1:<port>`: the entry for `OUTBOUND_ALLOW_HOSTS`. */
  host: string;
  port: number;
  /** PEM file of the throwaway CA that signed the server certificate (for `OUTBOUND_EXTRA_CA_FILE`). */
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
  writeFileSync(path.join(dir, 'ext.cnf'), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n`);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost'], dir);
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', path.join(root.dir, 'ca.pem'), '-CAkey', path.join(root.dir, 'ca.key'), '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'ext.cnf'], dir);
  const pki = { caFile: root.caFile, cert: readFileSync(path.join(dir, 'server.pem')), key: readFileSync(path.join(dir, 'server.key')) };
  certCache.set(key, pki);
  return pki;
}

export async function startFake(opts: FakeOptions): Promise<Fake> {
  const pki = throwawayPki(opts.hostnames);
  const requests: RecordedRequest[] = [];
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body });
      Promise.resolve(opts.handler(req, res, body)).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`fake handler failed: ${String(err)}`);
      });
    });
  };
  const server = opts.tls ? https.createServer({ cert: pki.cert, key: pki.key }, listener) : http.createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = `127.0.0.1:${port}`;
  const outboundEnv: Record<string, string> = opts.tls
    ? { OUTBOUND_ALLOW_HOSTS: host, OUTBOUND_EXTRA_CA_FILE: pki.caFile }
    : { OUTBOUND_ALLOW_HOSTS: host, OUTBOUND_ALLOW_HTTP_FOR_ALLOWED_HOSTS: 'true' };
  return {
    url: `${opts.tls ? 'https' : 'http'}://${host}`,
    host,
    port,
    caFile: pki.caFile,
    outboundEnv,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
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
