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

// The one IPv6 block IANA allocates for global unicast; everything outside it is reserved or special.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
// IPv4-compatible IPv6 (::a.b.c.d, deprecated by RFC 4291): some stacks still route it to the IPv4 address.
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * Null for a public unicast address; otherwise the ipaddr.js range that forbids
 * it (loopback, private, linkLocal, uniqueLocal, carrierGradeNat, unspecified,
 * deprecatedSiteLocal, …). IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible
 * (::a.b.c.d) addresses are judged as the IPv4 address they carry; any other IPv6
 * address outside 2000::/3 is 'reserved'.
 */
export function forbiddenRange(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return 'invalid';
  let a = ipaddr.parse(bare);
  if (a.kind() === 'ipv6') {
    const v6 = a as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) a = v6.toIPv4Address();
    else if (v6.range() === 'unicast' && v6.match(IPV4_COMPATIBLE)) a = ipaddr.fromByteArray(v6.toByteArray().slice(12));
    else if (v6.range() === 'unicast' && !v6.match(GLOBAL_UNICAST_V6)) return 'reserved';
  }
  const range = a.range();
  return range === 'unicast' ? null : range;
}

export class ForbiddenAddressError extends Error {
  readonly code = 'ERR_COURIER_ADDRESS_FORBIDDEN';
  constructor(host: string, address: string, range: string) {
    super(`${host} resolves to ${address} (${range}); the courier must be reached at a public address`);
  }
}

/**
 * What can be judged without DNS: the URL's shape, https, and a host that is an IP
 * literal or a localhost name. The environment's URLs are checked with this at start-up
 * (web/config/env.ts); their names are checked at every connection.
 */
export function courierUrlProblem(input: string, policy: CourierUrlPolicy): string | null {
  const v = validateBaseUrl(input);
  if (!v.ok) return v.problem;
  const u = new URL(v.url);
  if (policy.requireHttps && u.protocol !== 'https:') return 'must use https';
  if (policy.allowPrivate) return null;
  const host = u.hostname.replace(/^\[|\]$/g, '');
  // RFC 6761: localhost names are loopback whatever a resolver says.
  if (/^localhost\.?$|\.localhost\.?$/i.test(host)) return `must not point to a loopback address (${host})`;
  const range = isIP(host) ? forbiddenRange(host) : null;
  return range ? `must not point to a ${describeRange(range)} address (${host})` : null;
}

/** A message for the merchant, or null when the URL is acceptable under the policy. */
export async function checkCourierUrl(input: string, policy: CourierUrlPolicy, lookupAll: LookupAll = systemLookupAll): Promise<string | null> {
  const problem = courierUrlProblem(input, policy);
  if (problem || policy.allowPrivate) return problem;
  const host = new URL(input.trim()).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return null;
  let addresses: string[];
  try {
    addresses = (await lookupAll(host)).map((a) => a.address);
  } catch {
    return `host ${host} could not be resolved`;
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
    deprecatedSiteLocal: 'site-local (deprecated)',
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
