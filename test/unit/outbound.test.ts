// The SSRF-safe outbound client against real local HTTPS/HTTP servers: the hostile-URL table,
// redirects, size and time caps, schemes, proxies and the test-only allow-list.
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConnector } from 'undici';
import { loadConfig } from '../../server/config.js';
import { AllowList, isPublicAddress, nonPublicRange } from '../../server/outbound/address-policy.js';
import { createOutboundClient, OUTBOUND_DEFAULTS } from '../../server/outbound/client.js';
import { createGuardedConnector, type Resolver } from '../../server/outbound/connector.js';
import { OutboundError, type OutboundErrorKind } from '../../server/outbound/types.js';
import { caught } from '../support/caught.js';
import { json, reply, startFake, type Fake, type FakeHandler } from '../support/https-fake.js';
import { startConnectProxy, type ProxyFake } from '../support/platforms.js';

/** Fake DNS answers; anything else is NXDOMAIN (the tests never touch the real DNS). */
const dnsAnswers: Record<string, string[]> = {
  localhost: ['127.0.0.1', '::1'],
  'internal.test': ['10.0.0.5'],
  'metadata.google.internal': ['169.254.169.254'],
  'mixed.test': ['93.184.216.34', '127.0.0.1'],
  'v6-loopback.test': ['::1'],
  'v6-mapped.test': ['::ffff:10.1.2.3'],
  'news.example.com': ['127.0.0.1'],
  'cgnat.test': ['100.100.100.200'],
};
const fakeResolve: Resolver = async (hostname) => {
  const answers = dnsAnswers[hostname.toLowerCase().replace(/\.$/, '')];
  if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return answers.map((address): LookupAddress => ({ address, family: net.isIPv6(address) ? 6 : 4 }));
};

const BIG = 6 * 1024 * 1024;
let tlsFake: Fake;
let otherFake: Fake;
let plainFake: Fake;
let namedFake: Fake;

/** The pages every fake of this file serves; `fake`: the server itself (for a redirect chain on it). */
function site(fake: () => Fake): Record<string, FakeHandler> {
  const query = (req: http.IncomingMessage) => new URL(req.url ?? '/', 'https://fake.invalid').searchParams;
  return {
    '/ok': reply(200, 'hello'),
    '/echo': (req, res, body) => json(res, 200, { method: req.method, body: body.toString(), headers: req.headers }),
    '/redirect': (req, res) => void res.writeHead(Number(query(req).get('status') ?? 302), { location: query(req).get('to') ?? '/ok' }).end(),
    '/chain': (req, res) => {
      const n = Number(query(req).get('n'));
      res.writeHead(302, { location: n > 0 ? `${fake().url}/chain?n=${n - 1}` : '/ok' }).end();
    },
    '/big-declared': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(BIG) });
      res.end(Buffer.alloc(BIG, 97));
    },
    '/big-chunked': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (let i = 0; i < 6; i++) res.write(Buffer.alloc(1024 * 1024, 97));
      res.end();
    },
    '/gzip-bomb': (req, res, body, params) =>
      reply(200, zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024)), 'text/plain', { 'content-encoding': 'gzip' })(req, res, body, params),
    '/gzip': reply(200, zlib.gzipSync('compressed hello'), 'text/plain', { 'content-encoding': 'gzip' }),
    '/br': reply(200, zlib.brotliCompressSync('brotli hello'), 'text/plain', { 'content-encoding': 'br' }),
    '/latin1': reply(200, Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'text/plain; charset=iso-8859-1'),
    '/slow': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial'); // never ends
    },
  };
}

const fakeOf = (fake: () => Fake) => ({ routes: site(fake), handler: reply(404, '', null) });

beforeAll(async () => {
  tlsFake = await startFake(fakeOf(() => tlsFake));
  otherFake = await startFake(fakeOf(() => otherFake));
  plainFake = await startFake({ tls: false, ...fakeOf(() => plainFake) });
  namedFake = await startFake({ hostnames: ['news.example.com'], ...fakeOf(() => namedFake) });
});
afterAll(async () => {
  await Promise.all([tlsFake, otherFake, plainFake, namedFake].map((f) => f?.close()));
});

function clientWith(env: Record<string, string> = {}, resolve: Resolver = fakeResolve) {
  const config = loadConfig({
    DATA_DIR: '/tmp/unused',
    OUTBOUND_ALLOW_HOSTS: [tlsFake.host, otherFake.host, plainFake.host, `news.example.com:${namedFake.port}`].join(','),
    OUTBOUND_EXTRA_CA_FILE: tlsFake.caFile,
    ...env,
  });
  return createOutboundClient(config, { resolve });
}

describe('hostile URLs are refused', () => {
  const A = 'address_not_allowed';
  const table: Array<[string, OutboundErrorKind]> = [
    ['https://127.0.0.1/', A],
    ['https://127.1/', A],
    ['https://127.0.1/', A],
    ['https://0/', A],
    ['https://0.0.0.0/', A],
    ['https://2130706433/', A], // decimal 127.0.0.1
    ['https://0x7f000001/', A], // hex
    ['https://0x7f.0x0.0x0.0x1/', A],
    ['https://0x7f.1/', A],
    ['https://017700000001/', A], // octal
    ['https://0177.0.0.01/', A],
    ['https://127.000.000.001/', A],
    ['https://10.0.0.1/', A],
    ['https://172.16.5.4/', A],
    ['https://192.168.1.1:8443/admin', A],
    ['https://169.254.169.254/latest/meta-data/', A], // cloud metadata
    ['https://100.64.0.1/', A], // carrier-grade NAT
    ['https://100.100.100.200/', A], // a metadata address inside CGNAT
    ['https://224.0.0.1/', A], // multicast
    ['https://255.255.255.255/', A],
    ['https://192.0.0.192/', A], // reserved (IETF protocol assignments)
    ['https://198.18.0.1/', A], // benchmarking
    ['https://[::1]/', A],
    ['https://[::]/', A],
    ['https://[0:0:0:0:0:0:0:1]/', A],
    ['https://[::ffff:127.0.0.1]/', A], // IPv4-mapped
    ['https://[::ffff:7f00:1]/', A],
    ['https://[::ffff:169.254.169.254]/', A],
    ['https://[::127.0.0.1]/', A], // IPv4-compatible
    ['https://[::a00:1]/', A],
    ['https://[fc00::1]/', A], // unique local
    ['https://[fd00:ec2::254]/', A], // AWS metadata over IPv6
    ['https://[fe80::1]/', A], // link-local
    ['https://[fec0::1]/', A], // site-local
    ['https://[ff02::1]/', A], // multicast
    ['https://[64:ff9b::7f00:1]/', A], // NAT64 of 127.0.0.1
    ['https://[64:ff9b:1::a00:1]/', A], // local-use NAT64
    ['https://[2002:7f00:1::]/', A], // 6to4 of 127.0.0.1
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', A], // Teredo
    ['https://localhost/', A],
    ['https://LOCALHOST./', A],
    ['https://internal.test/', A],
    ['https://metadata.google.internal/computeMetadata/v1/', A],
    ['https://mixed.test/', A], // one public and one private answer
    ['https://v6-loopback.test/', A],
    ['https://v6-mapped.test/', A],
    ['https://cgnat.test/', A],
    ['http://example.com/', 'scheme_not_allowed'],
    ['ftp://example.com/file', 'scheme_not_allowed'],
    ['file:///etc/passwd', 'scheme_not_allowed'],
    ['gopher://127.0.0.1:6379/_INFO', 'scheme_not_allowed'],
    ['data:text/plain,hello', 'scheme_not_allowed'],
    ['https://user:secret@example.com/', 'invalid_url'],
    ['not a url', 'invalid_url'],
    ['https://[::1/', 'invalid_url'],
  ];

  it('has at least 30 entries', () => expect(table.length).toBeGreaterThanOrEqual(30));

  it.each(table)('%s → %s', async (url, kind) => {
    const client = clientWith();
    const before = tlsFake.requests.length;
    const err = await caught(client.request({ url }), OutboundError);
    expect(err.kind).toBe(kind);
    expect(tlsFake.requests.length).toBe(before);
    await client.close();
  });

  it('refuses the allow-listed address on another port', async () => {
    const client = clientWith();
    const listed = new Set([tlsFake, otherFake, plainFake, namedFake].map((f) => f.port));
    let port = tlsFake.port + 1;
    while (listed.has(port)) port++;
    const err = await caught(client.request({ url: `https://127.0.0.1:${port}/ok` }), OutboundError);
    expect(err.kind).toBe('address_not_allowed');
  });

  it('refuses localhost through the system resolver as well', async () => {
    const client = clientWith({}, (h) => import('node:dns').then((d) => d.promises.lookup(h, { all: true })));
    const err = await caught(client.request({ url: `https://localhost:${tlsFake.port}/ok` }), OutboundError);
    expect(err.kind).toBe('address_not_allowed');
    expect(err.message).toMatch(/localhost \((127\.0\.0\.1|::1)\)/);
  });
});

describe('redirects', () => {
  const hostileTargets: Array<[string, OutboundErrorKind]> = [
    ['https://127.0.0.1/', 'address_not_allowed'],
    ['https://[::1]:443/', 'address_not_allowed'],
    ['https://2130706433/', 'address_not_allowed'],
    ['https://169.254.169.254/latest/meta-data/', 'address_not_allowed'],
    ['https://internal.test/', 'address_not_allowed'],
    ['http://169.254.169.254/', 'scheme_not_allowed'],
    ['file:///etc/passwd', 'scheme_not_allowed'],
  ];
  it.each(hostileTargets)('a redirect to %s is refused (%s)', async (target, kind) => {
    const client = clientWith();
    const err = await caught(client.request({ url: `${tlsFake.url}/redirect?to=${encodeURIComponent(target)}` }), OutboundError);
    expect(err.kind).toBe(kind);
  });

  it('refuses a redirect to a live local server that is not on the allow-list (localhost:<same port>)', async () => {
    const client = clientWith();
    const before = tlsFake.requests.length;
    const err = await caught(
      client.request({ url: `${tlsFake.url}/redirect?to=${encodeURIComponent(`https://localhost:${tlsFake.port}/ok`)}` }),
      OutboundError,
    );
    expect(err.kind).toBe('address_not_allowed');
    expect(tlsFake.requests.length).toBe(before + 1); // only the first hop arrived
  });

  it('follows up to maxRedirects hops and reports the final URL', async () => {
    const client = clientWith();
    const res = await client.request({ url: `${tlsFake.url}/chain?n=4` });
    expect(res.status).toBe(200);
    expect(res.text()).toBe('hello');
    expect(res.url).toBe(`${tlsFake.url}/ok`);
  });

  it('gives up past maxRedirects (default 5)', async () => {
    const client = clientWith();
    expect(OUTBOUND_DEFAULTS.maxRedirects).toBe(5);
    expect((await caught(client.request({ url: `${tlsFake.url}/chain?n=5` }), OutboundError)).kind).toBe('too_many_redirects');
    expect((await caught(client.request({ url: `${tlsFake.url}/chain?n=2`, maxRedirects: 2 }), OutboundError)).kind).toBe('too_many_redirects');
  });

  it('returns the 3xx itself when maxRedirects is 0', async () => {
    const client = clientWith();
    const res = await client.request({ url: `${tlsFake.url}/redirect?to=/ok`, maxRedirects: 0 });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/ok');
  });

  it('drops credentials on a redirect to another origin and keeps them on the same origin', async () => {
    const client = clientWith();
    const cross = await client.request({
      url: `${tlsFake.url}/redirect?to=${encodeURIComponent(`${otherFake.url}/echo`)}`,
      headers: { Authorization: 'Bearer secret', Cookie: 'a=b', 'X-Other': 'kept' },
    });
    const crossHeaders = cross.json<{ headers: Record<string, string> }>().headers;
    expect(crossHeaders.authorization).toBeUndefined();
    expect(crossHeaders.cookie).toBeUndefined();
    expect(crossHeaders['x-other']).toBe('kept');
    const same = await client.request({ url: `${tlsFake.url}/redirect?to=/echo`, headers: { Authorization: 'Bearer secret' } });
    expect(same.json<{ headers: Record<string, string> }>().headers.authorization).toBe('Bearer secret');
  });

  it('continues a POST as a GET after 303 and keeps the method and body on 307', async () => {
    const client = clientWith();
    const after303 = await client.request({
      url: `${tlsFake.url}/redirect?status=303&to=/echo`,
      method: 'POST',
      body: 'x=1',
      headers: { 'content-type': 'text/plain' },
    });
    expect(after303.json<{ method: string; body: string }>()).toMatchObject({ method: 'GET', body: '' });
    const after307 = await client.request({
      url: `${tlsFake.url}/redirect?status=307&to=/echo`,
      method: 'POST',
      body: 'x=1',
      headers: { 'content-type': 'text/plain' },
    });
    expect(after307.json<{ method: string; body: string }>()).toMatchObject({ method: 'POST', body: 'x=1' });
  });
});

describe('the allow-list and schemes', () => {
  it('reaches an allow-listed local HTTPS server and sends the configured User-Agent', async () => {
    const client = clientWith({ OUTBOUND_USER_AGENT: 'UnitTestAgent/1.0' });
    const res = await client.request({ url: `${tlsFake.url}/echo` });
    expect(res.status).toBe(200);
    const sent = res.json<{ headers: Record<string, string> }>().headers;
    expect(sent['user-agent']).toBe('UnitTestAgent/1.0');
    expect(sent['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('reaches a public-looking allow-listed name (news.example.com → 127.0.0.1), and refuses it off the list', async () => {
    const allowed = clientWith();
    const res = await allowed.request({ url: `https://news.example.com:${namedFake.port}/ok` });
    expect(res.text()).toBe('hello');
    const notListed = clientWith({ OUTBOUND_ALLOW_HOSTS: tlsFake.host });
    expect((await caught(notListed.request({ url: `https://news.example.com:${namedFake.port}/ok` }), OutboundError)).kind).toBe('address_not_allowed');
  });

  it('does not trust the local CA without OUTBOUND_EXTRA_CA_FILE', async () => {
    const client = clientWith({ OUTBOUND_EXTRA_CA_FILE: '' });
    const err = await caught(client.request({ url: `${tlsFake.url}/ok` }), OutboundError);
    expect(err.kind).toBe('network');
    expect(err.message).toMatch(/certificate/i);
  });

  it('refuses plain http even to an allow-listed host unless allowed', async () => {
    const strict = clientWith();
    expect((await caught(strict.request({ url: `${plainFake.url}/ok` }), OutboundError)).kind).toBe('scheme_not_allowed');
    expect((await strict.request({ url: `${plainFake.url}/ok`, allowHttp: true })).text()).toBe('hello');
    const testMode = clientWith({ OUTBOUND_ALLOW_HTTP_FOR_ALLOWED_HOSTS: 'true' });
    expect((await testMode.request({ url: `${plainFake.url}/ok` })).text()).toBe('hello');
    // allowHttp permits the scheme, never the address
    expect((await caught(strict.request({ url: 'http://10.0.0.1/feed.xml', allowHttp: true }), OutboundError)).kind).toBe('address_not_allowed');
  });
});

describe('size and time caps', () => {
  it('refuses a body whose declared length passes the cap', async () => {
    const err = await caught(clientWith().request({ url: `${tlsFake.url}/big-declared` }), OutboundError);
    expect(err.kind).toBe('too_large');
  });

  it('aborts a streamed body past the cap', async () => {
    const err = await caught(clientWith().request({ url: `${tlsFake.url}/big-chunked` }), OutboundError);
    expect(err.kind).toBe('too_large');
    expect((await clientWith().request({ url: `${tlsFake.url}/big-chunked`, maxBytes: 7 * 1024 * 1024 })).body.length).toBe(BIG);
  });

  it('counts decompressed bytes (a gzip bomb is stopped)', async () => {
    const err = await caught(clientWith().request({ url: `${tlsFake.url}/gzip-bomb` }), OutboundError);
    expect(err.kind).toBe('too_large');
  });

  it('decompresses gzip and brotli, and decodes the declared charset', async () => {
    const client = clientWith();
    expect((await client.request({ url: `${tlsFake.url}/gzip` })).text()).toBe('compressed hello');
    expect((await client.request({ url: `${tlsFake.url}/br` })).text()).toBe('brotli hello');
    expect((await client.request({ url: `${tlsFake.url}/latin1` })).text()).toBe('café');
  });

  it('gives up when the whole exchange takes longer than timeoutMs', async () => {
    const err = await caught(clientWith().request({ url: `${tlsFake.url}/slow`, timeoutMs: 300 }), OutboundError);
    expect(err.kind).toBe('timeout');
  });
  it('gives up on a connection that does not complete (TCP and TLS) within the connect timeout', async () => {
    // Accepts TCP connections and never speaks: the TLS handshake never completes.
    const held: net.Socket[] = [];
    const silent = net.createServer((socket) => held.push(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as net.AddressInfo).port;
    try {
      const config = loadConfig({ DATA_DIR: '/tmp/unused', OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${port}` });
      const client = createOutboundClient(config, { resolve: fakeResolve, connectTimeoutMs: 300 });
      // The whole-exchange timeout is far longer, and would say "no complete answer within …".
      const err = await caught(client.request({ url: `https://127.0.0.1:${port}/`, timeoutMs: 20_000 }), OutboundError);
      expect(err.kind).toBe('timeout');
      expect(err.message).toContain('UND_ERR_CONNECT_TIMEOUT');
      expect(OUTBOUND_DEFAULTS.connectTimeoutMs).toBe(5_000);
      await client.close();
    } finally {
      for (const s of held) s.destroy();
      silent.close();
    }
  });
});

describe('the connector', () => {
  it('checks the address actually connected to, whatever the resolver said', async () => {
    // A base connector that ignores DNS and lands on 127.0.0.1: the post-connect check must refuse it.
    const connect = createGuardedConnector({
      allow: new AllowList([]),
      resolve: async () => [{ address: '93.184.216.34', family: 4 }],
      connectTimeoutMs: 2000,
      baseConnector: (opts, cb) => buildConnector({ rejectUnauthorized: false })({ ...opts, hostname: '127.0.0.1', port: String(tlsFake.port) }, cb),
    });
    const err = await new Promise<Error | null>((resolve) =>
      connect({ hostname: 'public.example', protocol: 'https:', port: '443' }, (...args) => resolve(args[0])),
    );
    expect(err).toBeInstanceOf(OutboundError);
    expect((err as OutboundError).kind).toBe('address_not_allowed');
  });
});

describe('proxies', () => {
  let proxy: ProxyFake;
  let proxyPort: number;
  /** The targets the HTTP CONNECT proxy tunnelled to. */
  let connects: string[];
  beforeAll(async () => {
    proxy = await startConnectProxy();
    proxyPort = Number(new URL(proxy.url).port);
    connects = proxy.tunnels;
  });
  afterAll(() => proxy?.close());

  /** A minimal SOCKS5 server (no authentication, CONNECT only), recording its targets. */
  async function startSocks5(targets: string[]): Promise<net.Server> {
    const server = net.createServer((sock) => {
      sock.on('error', () => {});
      sock.once('data', () => {
        sock.write(Buffer.from([5, 0])); // version 5, "no authentication"
        sock.once('data', (req: Buffer) => {
          const atyp = req[3];
          const host = atyp === 1 ? Array.from(req.subarray(4, 8)).join('.') : req.subarray(5, 5 + req[4]).toString();
          const port = req.readUInt16BE(atyp === 1 ? 8 : 5 + req[4]);
          targets.push(`${host}:${port}`);
          const upstream = net.connect(port, host, () => {
            sock.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
            upstream.pipe(sock).pipe(upstream);
          });
          upstream.on('error', () => sock.destroy());
        });
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    return server;
  }

  it('tunnels through an allowed SOCKS5 proxy', async () => {
    const targets: string[] = [];
    const socks = await startSocks5(targets);
    const port = (socks.address() as net.AddressInfo).port;
    try {
      const client = clientWith({ OUTBOUND_ALLOW_HOSTS: `${tlsFake.host},127.0.0.1:${port}` });
      const res = await client.request({ url: `${tlsFake.url}/ok`, proxyUrl: `socks5://127.0.0.1:${port}` });
      expect(res.text()).toBe('hello');
      expect(targets).toEqual([tlsFake.host]);
      // the same proxy off the allow-list is refused before any byte reaches it
      const strict = clientWith();
      expect((await caught(strict.request({ url: `${tlsFake.url}/ok`, proxyUrl: `socks5://127.0.0.1:${port}` }), OutboundError)).kind).toBe(
        'address_not_allowed',
      );
      expect(targets).toHaveLength(1);
    } finally {
      await new Promise<void>((r) => socks.close(() => r()));
    }
  });

  it('tunnels through an allowed HTTP proxy', async () => {
    const client = clientWith({ OUTBOUND_ALLOW_HOSTS: `${tlsFake.host},127.0.0.1:${proxyPort}` });
    const res = await client.request({ url: `${tlsFake.url}/ok`, proxyUrl: `http://127.0.0.1:${proxyPort}` });
    expect(res.text()).toBe('hello');
    expect(connects).toContain(tlsFake.host);
  });

  it('refuses a proxy at a non-public address', async () => {
    const client = clientWith();
    const before = connects.length;
    expect((await caught(client.request({ url: `${tlsFake.url}/ok`, proxyUrl: `http://127.0.0.1:${proxyPort}` }), OutboundError)).kind).toBe(
      'address_not_allowed',
    );
    expect((await caught(client.request({ url: `${tlsFake.url}/ok`, proxyUrl: 'socks5://10.0.0.1:1080' }), OutboundError)).kind).toBe('address_not_allowed');
    expect((await caught(client.request({ url: `${tlsFake.url}/ok`, proxyUrl: 'socks5://internal.test:1080' }), OutboundError)).kind).toBe(
      'address_not_allowed',
    );
    expect(connects.length).toBe(before);
  });

  it('refuses, before tunnelling, a target name that resolves to a private address', async () => {
    const client = clientWith({ OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${proxyPort}` });
    const before = connects.length;
    expect((await caught(client.request({ url: 'https://internal.test/', proxyUrl: `http://127.0.0.1:${proxyPort}` }), OutboundError)).kind).toBe(
      'address_not_allowed',
    );
    expect((await caught(client.request({ url: 'https://[::1]/', proxyUrl: `http://127.0.0.1:${proxyPort}` }), OutboundError)).kind).toBe(
      'address_not_allowed',
    );
    expect(connects.length).toBe(before);
  });

  it('refuses a proxy URL of another scheme', async () => {
    expect((await caught(clientWith().request({ url: `${tlsFake.url}/ok`, proxyUrl: 'ftp://proxy.example:21' }), OutboundError)).kind).toBe(
      'scheme_not_allowed',
    );
  });
});

describe('address classes', () => {
  it.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:82b::200e'])('%s is public', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['::ffff:8.8.8.8', 'ipv4Mapped'],
    ['::808:808', 'ipv4Compatible'], // ::8.8.8.8 (ipaddr.js reads that spelling as IPv4-mapped: refused either way)
    ['::8.8.8.8', 'ipv4Mapped'],
    ['2002:808:808::1', '6to4'],
    ['not-an-ip', 'invalid'],
  ])('%s is %s', (ip, range) => {
    expect(nonPublicRange(ip)).toBe(range);
  });
});
