// Which courier base URLs a merchant may save (web/delivery/address-policy.ts),
// and the excerpt of foreign text a merchant may see (web/delivery/errors.ts).
import { describe, expect, it } from 'vitest';
import { checkCourierUrl, courierUrlPolicy, forbiddenRange, type LookupAll } from '../../web/delivery/address-policy.ts';
import { foreignExcerpt } from '../../web/delivery/errors.ts';

const PROD = courierUrlPolicy('production');
const DEV = courierUrlPolicy('development');

/** DNS as a table; unknown names fail like ENOTFOUND. */
function dns(table: Record<string, string[]>): LookupAll {
  return async (host) => {
    const list = table[host];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

describe('forbiddenRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'], // cloud metadata
    ['100.100.100.200', 'carrierGradeNat'], // another cloud's metadata
    ['0.0.0.0', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fd00:ec2::254', 'uniqueLocal'], // AWS IPv6 metadata
    ['::ffff:127.0.0.1', 'loopback'], // IPv4-mapped
    ['::ffff:a9fe:a9fe', 'linkLocal'], // 169.254.169.254, mapped
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    // IPv4-compatible (::/96, deprecated) is judged as the IPv4 address it embeds.
    ['::7f00:1', 'loopback'], // ::127.0.0.1
    ['[::7f00:1]', 'loopback'],
    ['::a9fe:a9fe', 'linkLocal'], // ::169.254.169.254
    ['::a00:1', 'private'], // ::10.0.0.1
    ['::2', 'unspecified'], // ::0.0.0.2
    ['fec0::1', 'deprecatedSiteLocal'],
    ['feff::1', 'deprecatedSiteLocal'],
    ['100::1', 'discard'],
    ['2001:db8::1', 'reserved'], // documentation
    ['3fff::1', 'reserved'], // documentation
    ['2001::1', 'teredo'],
    ['2002:7f00:1::', '6to4'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['5f00::1', 'segmentRouting'],
    ['::1:0:1', 'reserved'], // outside 2000::/3, the only global unicast allocation
    ['4000::1', 'reserved'],
    ['not-an-ip', 'invalid'],
  ])('%s is %s', (ip, range) => {
    expect(forbiddenRange(ip)).toBe(range);
  });

  it.each(['8.8.8.8', '41.0.0.1', '2001:4860:4860::8888', '::808:808', '2a00:1450:4001::1'])('%s is public', (ip) => {
    expect(forbiddenRange(ip)).toBeNull();
  });
});

describe('checkCourierUrl', () => {
  const lookup = dns({ 'api.courier.example': ['41.0.0.10'], 'inside.courier.example': ['41.0.0.11', '10.1.2.3'], 'v6.courier.example': ['::1'] });

  it.each([
    ['http://127.0.0.1:4010', /must use https/],
    ['http://api.courier.example', /https/],
    ['https://127.0.0.1:4010', /loopback/],
    ['https://10.0.0.1', /private/],
    ['https://169.254.169.254/latest', /link-local or cloud metadata/],
    ['https://[::1]:8443', /loopback/],
    ['https://[::ffff:7f00:1]', /loopback/],
    ['https://[::127.0.0.1]', /loopback/], // IPv4-compatible
    ['https://[::169.254.169.254]/latest', /link-local or cloud metadata/],
    ['https://[fec0::1]', /site-local \(deprecated\)/],
    ['https://localhost:8443', /loopback/],
    ['https://api.localhost', /loopback/],
    ['https://user:pw@api.courier.example', /user name or password/],
    ['https://api.courier.example/?x=1', /query string/],
    ['https://inside.courier.example', /private address \(inside.courier.example is 10.1.2.3\)/], // any address of the name
    ['https://v6.courier.example', /loopback/],
    ['https://nowhere.courier.example', /could not be resolved/],
  ])('production refuses %s', async (url, problem) => {
    expect(await checkCourierUrl(url, PROD, lookup)).toMatch(problem);
  });

  it('production accepts an https URL whose name resolves only to public addresses', async () => {
    expect(await checkCourierUrl('https://api.courier.example/delivery', PROD, lookup)).toBeNull();
  });

  it('development keeps allowing the local sandbox, but never credentials in the URL', async () => {
    expect(await checkCourierUrl('http://127.0.0.1:4010', DEV, lookup)).toBeNull();
    expect(await checkCourierUrl('http://localhost:4010', DEV, lookup)).toBeNull();
    expect(await checkCourierUrl('https://user:pw@127.0.0.1', DEV, lookup)).toMatch(/user name or password/);
  });
});

describe('foreignExcerpt', () => {
  it('keeps a short, single-line, markup-free excerpt', () => {
    const body = `<html><script>alert(1)</script>\n${'x'.repeat(5000)}\u202e\u0000\ud800</html>`;
    const e = foreignExcerpt(body);
    expect(e.length).toBeLessThanOrEqual(160);
    expect(e).not.toMatch(/[<>\n\u202e\u0000\ud800]/);
    expect(foreignExcerpt('invalid_client: unknown client id')).toBe('invalid_client: unknown client id');
  });
});
