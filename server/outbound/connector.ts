// The undici connector that every outbound socket (direct, or to a proxy) is opened through.
// Three checks, so that no request reaches a non-public address:
//   1. an IP-literal host is judged before connecting (Node skips the DNS lookup for literals);
//   2. a host name is resolved by our lookup, which refuses the answer if any address in it is
//      non-public, and the socket connects to exactly the addresses that lookup returned, so there
//      is no window between "checked" and "connected" for DNS rebinding;
//   3. after connecting, the socket's remote address is checked again (belt and braces, e.g.
//      against a connector or runtime that resolved by other means).
// Hosts on the test-only allow-list skip all three.
import type { LookupAddress, LookupOptions } from 'node:dns';
import net from 'node:net';
import { buildConnector } from 'undici';
import { AllowList, bareHost, nonPublicRange } from './address-policy.js';
import { OutboundError } from './types.js';

/** Resolves a host name to all its addresses (injectable so tests can fake DNS answers). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export function refusedAddress(host: string, ip: string, range: string): OutboundError {
  const shown = host === ip ? ip : `${host} (${ip})`;
  return new OutboundError('address_not_allowed', `${shown} is not a public address (${range}); only public addresses may be fetched.`);
}

/** Resolves `hostname` and refuses it unless every address is public. */
export async function resolvePublic(resolve: Resolver, hostname: string): Promise<LookupAddress[]> {
  let addresses: LookupAddress[];
  try {
    addresses = await resolve(hostname);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new OutboundError('network', `could not resolve ${hostname}${code ? ` (${code})` : ''}`);
  }
  if (addresses.length === 0) throw new OutboundError('network', `could not resolve ${hostname}`);
  for (const a of addresses) {
    const range = nonPublicRange(a.address);
    if (range) throw refusedAddress(hostname, a.address, range);
  }
  return addresses;
}

/**
 * A `net.connect` lookup over our resolver. With `check`, it only ever hands out public addresses;
 * without (allow-listed hosts) it still uses our resolver, so tests' fake DNS applies everywhere.
 */
function resolverLookup(resolve: Resolver, check: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const answer = check ? resolvePublic(resolve, hostname) : resolve(hostname);
    answer.then(
      (all) => {
        const wanted = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
        if (wanted.length === 0) return callback(Object.assign(new Error(`no IPv${options.family} address for ${hostname}`), { code: 'ENOTFOUND' }), '');
        if (options.all) callback(null, wanted);
        else callback(null, wanted[0].address, wanted[0].family);
      },
      (err: unknown) => callback(err as NodeJS.ErrnoException, ''),
    );
  };
}

export interface GuardedConnectorOptions {
  allow: AllowList;
  resolve: Resolver;
  /** Extra trusted CAs and the like, for TLS sockets. */
  tls?: { ca?: string[] };
  connectTimeoutMs: number;
  /** For tests of check 3 only: replaces undici's connector (it is given no lookup). */
  baseConnector?: buildConnector.connector;
}

export function createGuardedConnector(opts: GuardedConnectorOptions): buildConnector.connector {
  const common = { ...opts.tls, timeout: opts.connectTimeoutMs };
  const checked = opts.baseConnector ?? buildConnector({ ...common, lookup: resolverLookup(opts.resolve, true) } as buildConnector.BuildOptions);
  const unchecked = opts.baseConnector ?? buildConnector({ ...common, lookup: resolverLookup(opts.resolve, false) } as buildConnector.BuildOptions);
  return (options, callback) => {
    const host = bareHost(options.hostname);
    const port = options.port || (options.protocol === 'https:' ? '443' : '80');
    if (opts.allow.has(host, port)) return unchecked(options, callback);
    if (net.isIP(host)) {
      const range = nonPublicRange(host);
      if (range) return callback(refusedAddress(host, host, range), null);
    }
    checked(options, (err, socket) => {
      if (err || !socket) return callback(unwrapOutbound(err) ?? err ?? new Error('connect failed'), null);
      const remote = socket.remoteAddress ?? '';
      const range = remote ? nonPublicRange(remote) : 'unknown';
      if (range) {
        socket.destroy();
        return callback(refusedAddress(host, remote || '?', range), null);
      }
      callback(null, socket);
    });
  };
}

/** The OutboundError somewhere in an error's cause chain (undici and net wrap errors). */
export function unwrapOutbound(err: unknown): OutboundError | null {
  for (let e = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof OutboundError) return e;
  }
  return null;
}
