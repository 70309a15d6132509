// A local stand-in for a Nominatim server (https://nominatim.org/release-docs/latest/api/Search/),
// for tests and the demo: GET /search answers in the documented jsonv2 place format from a
// small table of places, GET /status as Nominatim's status endpoint. It holds our client to
// the public server's usage policy (a generic or missing User-Agent gets 403) and can be told
// to find nothing, to rate limit (429 + Retry-After), to fail (503) or to answer slowly:
//   POST /_control/mode      {"mode":"zero"|"rate_limit"|"error"|"slow"|"normal","times"?:n,"retryAfter"?:"7","delayMs"?:n}
//   GET  /_control/requests  what was asked (params without the key, User-Agent, arrival time)
//   POST /_control/reset     normal mode, empty request log
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DoublePlace {
  /** Every term must appear in the lower-cased query for the place to match. */
  terms: string[];
  lat: string;
  lon: string;
  /** 30 = a house number / building, 26 = a street, 16 = a city. */
  placeRank: number;
  category: string;
  type: string;
  addresstype: string;
  name: string;
  displayName: string;
  address: Record<string, string>;
}

const za = (a: Record<string, string>) => ({ ...a, country: 'South Africa', country_code: 'za' });

/** A house-number match (place_rank 30) in South Africa. */
function house(no: string, road: string, suburb: string, city: string, state: string, postcode: string, lat: string, lon: string): DoublePlace {
  return {
    terms: [`${no} ${road}`.toLowerCase(), city.toLowerCase()], lat, lon, placeRank: 30, category: 'place', type: 'house', addresstype: 'place', name: '',
    displayName: [no, road, suburb, city, state, postcode, 'South Africa'].filter(Boolean).join(', '),
    address: za({ house_number: no, road, suburb, city, state, ...(postcode ? { postcode } : {}) }),
  };
}

/** Places of the order fixtures (dev/shop-sim/orders) and the demo. */
export const DEFAULT_PLACES: DoublePlace[] = [
  house('1115', 'Burnett Street', 'Hatfield', 'Pretoria', 'Gauteng', '0083', '-25.7537300', '28.2376800'),
  house('12', 'Rivonia Road', 'Sandhurst', 'Sandton', 'Gauteng', '2196', '-26.1076000', '28.0567000'),
  house('45', 'Bree Street', 'Cape Town City Centre', 'Cape Town', 'Western Cape', '8001', '-33.9196000', '18.4200000'),
  // The shop simulator's checkout origin (dev/shop-sim/carrier-services.ts): rate requests carry no coordinates.
  house('1', 'Cradock Avenue', 'Rosebank', 'Johannesburg', 'Gauteng', '2196', '-26.1460000', '28.0420000'),
  // A street match only (place_rank 26): no house numbers mapped there.
  {
    terms: ['vilakazi street', 'soweto'], lat: '-26.2384000', lon: '27.9086000', placeRank: 26, category: 'highway', type: 'residential', addresstype: 'road', name: 'Vilakazi Street',
    displayName: 'Vilakazi Street, Orlando West, Soweto, Johannesburg, Gauteng, 1804, South Africa',
    address: za({ road: 'Vilakazi Street', suburb: 'Orlando West', city: 'Johannesburg', state: 'Gauteng', postcode: '1804' }),
  },
  // The same street name in two suburbs: an ambiguous address.
  house('7', 'Church Street', 'Arcadia', 'Pretoria', 'Gauteng', '', '-25.7449000', '28.2300000'),
  house('7', 'Church Street', 'Sunnyside', 'Pretoria', 'Gauteng', '', '-25.7560000', '28.2050000'),
];

export type DoubleMode = 'normal' | 'zero' | 'rate_limit' | 'error' | 'slow';

export interface RecordedRequest {
  path: string;
  params: Record<string, string>;
  keySent: boolean;
  userAgent: string | null;
  at: number;
}

export interface RunningGeocoderDouble {
  url: string;
  port: number;
  requests: RecordedRequest[];
  setMode(mode: DoubleMode, opts?: { times?: number; retryAfter?: string; delayMs?: number }): void;
  reset(): void;
  close(): Promise<void>;
}

// Library defaults the policy names as not identifying an application.
const GENERIC_AGENT = /^(undici|node|node-fetch|axios|python-requests|curl|wget|go-http-client)\b/i;

export async function startGeocoderDouble(opts: { port?: number; host?: string; places?: DoublePlace[] } = {}): Promise<RunningGeocoderDouble> {
  const places = opts.places ?? DEFAULT_PLACES;
  const requests: RecordedRequest[] = [];
  let mode: DoubleMode = 'normal';
  let times = Infinity;
  let retryAfter = '1';
  let delayMs = 5_000;

  const setMode: RunningGeocoderDouble['setMode'] = (m, o = {}) => {
    mode = m;
    times = o.times ?? Infinity;
    retryAfter = o.retryAfter ?? '1';
    delayMs = o.delayMs ?? 5_000;
  };
  const reset = () => {
    setMode('normal');
    requests.length = 0;
  };

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  };

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://double');
    if (url.pathname.startsWith('/_control/')) return control(req, res, url.pathname);
    const params = Object.fromEntries([...url.searchParams].filter(([k]) => k !== 'key'));
    const userAgent = req.headers['user-agent'] ?? null;
    requests.push({ path: url.pathname, params, keySent: url.searchParams.has('key'), userAgent, at: Date.now() });

    if (url.pathname === '/status') return json(res, 200, { status: 0, message: 'OK', data_updated: '2026-11-22T00:00:00+00:00', software_version: '4.5.0', database_version: '4.5.0' });
    if (url.pathname !== '/search') return json(res, 404, { error: { code: 404, message: 'Not found' } });
    if (!userAgent || GENERIC_AGENT.test(userAgent)) {
      res.writeHead(403, { 'content-type': 'text/plain' });
      return res.end('Access blocked: set a User-Agent that identifies your application (usage policy).');
    }

    const active = times > 0 ? mode : 'normal';
    if (active !== 'normal') times -= 1;
    if (active === 'rate_limit') {
      res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': retryAfter });
      return res.end('Too Many Requests');
    }
    if (active === 'error') return json(res, 503, { error: { code: 503, message: 'Service Unavailable' } });
    if (active === 'slow') await new Promise((r) => setTimeout(r, delayMs));
    if (res.destroyed) return;

    const q = url.searchParams.get('q');
    if (!q) return json(res, 400, { error: { code: 400, message: 'Nominatim API: Need query parameter q or a structured query' } });
    if (!['json', 'jsonv2'].includes(url.searchParams.get('format') ?? '')) return json(res, 400, { error: { code: 400, message: 'Parameter format must be json or jsonv2 here' } });
    const limit = Math.min(40, Number(url.searchParams.get('limit') ?? 10) || 10);
    const countries = (url.searchParams.get('countrycodes') ?? '').toLowerCase().split(',').filter(Boolean);
    const text = q.toLowerCase().replace(/\s+/g, ' ');
    const found = active === 'zero' ? [] : places.filter((p) => p.terms.every((t) => text.includes(t)) && (!countries.length || countries.includes(p.address.country_code ?? '')));
    json(res, 200, found.slice(0, limit).map((p, i) => place(p, i, url.searchParams.get('format') === 'jsonv2', url.searchParams.get('addressdetails') === '1')));
  });

  async function control(req: IncomingMessage, res: ServerResponse, path: string) {
    if (path === '/_control/requests') return json(res, 200, requests);
    if (path === '/_control/reset' && req.method === 'POST') {
      reset();
      return json(res, 200, { ok: true });
    }
    if (path === '/_control/mode' && req.method === 'POST') {
      let body = '';
      for await (const c of req) body += c;
      try {
        const o = JSON.parse(body || '{}');
        if (!['normal', 'zero', 'rate_limit', 'error', 'slow'].includes(o.mode)) return json(res, 400, { error: 'mode must be normal, zero, rate_limit, error or slow' });
        setMode(o.mode, o);
        return json(res, 200, { mode: o.mode });
      } catch {
        return json(res, 400, { error: 'body must be JSON' });
      }
    }
    json(res, 404, { error: 'unknown control path' });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
    port,
    requests,
    setMode,
    reset,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** One place in Nominatim's documented output (json or jsonv2, with or without addressdetails). */
function place(p: DoublePlace, i: number, v2: boolean, details: boolean): Record<string, unknown> {
  const [lat, lon] = [Number(p.lat), Number(p.lon)];
  return {
    place_id: 100000 + i,
    licence: 'Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright',
    osm_type: 'node',
    osm_id: 200000 + i,
    lat: p.lat,
    lon: p.lon,
    ...(v2 ? { category: p.category } : { class: p.category }),
    type: p.type,
    ...(v2 ? { place_rank: p.placeRank } : {}),
    importance: 0.00001,
    ...(v2 ? { addresstype: p.addresstype, name: p.name } : {}),
    display_name: p.displayName,
    ...(details ? { address: p.address } : {}),
    boundingbox: [lat - 0.0001, lat + 0.0001, lon - 0.0001, lon + 0.0001].map((n) => n.toFixed(7)),
  };
}
