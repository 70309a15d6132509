// Where a merchant-supplied courier base URL may point. A merchant can type any
// URL and press "Test connection", which POSTs the client id and secret there:
// without this policy that is a request from our server into its own network.
//
// Production: https only, and the host must resolve only to public unicast
// addresses. Checked when the URL is saved (checkCourierUrl) and again at every
// connection (guardedAgent: the socket's own DNS lookup is checked, so a name
// that changes its answer after the save, or between lookup and connect, is
// still refused). Development and test keep allowing the local sandbox.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';
import { validateBaseUrl } from './url.ts';

export interface CourierUrlPolicy {
  requireHttps: boolean;
  /** Loopback, private, link-local, unique-local, metadata, … addresses. */
  allowPrivate: boolean;
}

export function courierUrlPolicy(nodeEnv: string): CourierUrlPolicy {
  return nodeEnv === 'production' ? { requireHttps: true, allowPrivate: false } : { requireHttps: false, allowPrivate: true };
}

/** dns.lookup with `all: true` (replaceable in tests). */
export type LookupAll = (hostname: string) => Promise<LookupAddress[]>;

export const systemLookupAll: LookupAll = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/**
 * Null for a public unicast address; otherwise the ipaddr.js range that forbids
 * it (loopback, private, linkLocal, uniqueLocal, carrierGradeNat, unspecified, …).
 * IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
 */
export function forbiddenRange(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return 'invalid';
  let a = ipaddr.parse(bare);
  if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()) a = (a as ipaddr.IPv6).toIPv4Address();
  const range = a.range();
  return range === 'unicast' ? null : range;
}

export class ForbiddenAddressError extends Error {
  readonly code = 'ERR_COURIER_ADDRESS_FORBIDDEN';
  constructor(host: string, address: string, range: string) {
    super(`${host} resolves to ${address} (${range}); the courier must be reached at a public address`);
  }
}

/** A message for the merchant, or null when the URL is acceptable under the policy. */
export async function checkCourierUrl(input: string, policy: CourierUrlPolicy, lookupAll: LookupAll = systemLookupAll): Promise<string | null> {
  const v = validateBaseUrl(input);
  if (!v.ok) return v.problem;
  const u = new URL(v.url);
  if (policy.requireHttps && u.protocol !== 'https:') return 'must use https';
  if (policy.allowPrivate) return null;
  const host = u.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookupAll(host)).map((a) => a.address);
    } catch {
      return `host ${host} could not be resolved`;
    }
  }
  for (const a of addresses) {
    const range = forbiddenRange(a);
    if (range) return `must not point to a ${describeRange(range)} address (${host} is ${a})`;
  }
  return null;
}

function describeRange(range: string): string {
  const names: Record<string, string> = {
    loopback: 'loopback', private: 'private', linkLocal: 'link-local or cloud metadata', uniqueLocal: 'unique-local', unspecified: 'unspecified',
    carrierGradeNat: 'shared (carrier-grade NAT)', multicast: 'multicast', broadcast: 'broadcast', reserved: 'reserved',
  };
  return names[range] ?? `non-public (${range})`;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A net/tls `lookup` that fails when any address of the name is forbidden. */
export function guardedLookup(lookupAll: LookupAll = systemLookupAll) {
  return (hostname: string, options: LookupOptions | LookupAllOptions, callback: LookupCallback): void => {
    lookupAll(hostname).then(
      (all) => {
        const family = typeof options === 'object' && options.family ? Number(options.family === 'IPv6' ? 6 : options.family === 'IPv4' ? 4 : options.family) : 0;
        const usable = family ? all.filter((a) => a.family === family) : all;
        for (const a of all) {
          const range = forbiddenRange(a.address);
          if (range) return callback(new ForbiddenAddressError(hostname, a.address, range) as NodeJS.ErrnoException, []);
        }
        if (!usable.length) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
        if (typeof options === 'object' && options.all) return callback(null, usable);
        callback(null, usable[0]!.address, usable[0]!.family);
      },
      (e) => callback(e as NodeJS.ErrnoException, []),
    );
  };
}

/**
 * An undici Agent that refuses to connect to forbidden addresses: IP literals
 * before connecting, names through the socket's own DNS lookup.
 */
export function guardedAgent(opts: { connectTimeoutMs: number; keepAliveTimeout?: number; lookupAll?: LookupAll }): Agent {
  const base = buildConnector({ timeout: opts.connectTimeoutMs, lookup: guardedLookup(opts.lookupAll) } as buildConnector.BuildOptions);
  const connect: buildConnector.connector = (o, cb) => {
    const host = o.hostname.replace(/^\[|\]$/g, '');
    const range = isIP(host) ? forbiddenRange(host) : null;
    if (range) return cb(new ForbiddenAddressError(host, host, range), null);
    return base(o, cb);
  };
  return new Agent({ connect, keepAliveTimeout: opts.keepAliveTimeout ?? 4_000 });
}
