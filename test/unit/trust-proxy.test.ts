// TRUST_PROXY: which peers may set X-Forwarded-For (the client IP the rate limits key on).
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseTrustProxy } from '../../web/config/env.ts';

describe('TRUST_PROXY', () => {
  it('defaults to private-network proxies only', () => {
    expect(loadConfig({}).trustProxy).toEqual(['loopback', 'linklocal', 'uniquelocal']);
  });

  it.each<[string, number | string[]]>([
    ['0', 0],
    ['2', 2],
    ['loopback', ['loopback']],
    [' loopback ,uniquelocal ', ['loopback', 'uniquelocal']],
    ['10.0.0.0/8, 192.168.1.7', ['10.0.0.0/8', '192.168.1.7']],
    ['::1, fd00::/8', ['::1', 'fd00::/8']],
  ])('%j is %j', (text, expected) => {
    expect(parseTrustProxy(text)).toEqual(expected);
    expect(loadConfig({ TRUST_PROXY: text }).trustProxy).toEqual(expected);
  });

  // `true` would let any client choose its IP; "127.1" and "10" are not dotted addresses (10 is a hop count).
  it.each(['true', 'false', '-1', '1.5', 'everyone', 'loopback,', 'loopback, internet', '127.1', '10.0.0.0/33', '0x7f.0.0.1', '999999999999999999999'])('%j stops start-up naming TRUST_PROXY', (text) => {
    expect(parseTrustProxy(text)).toBeNull();
    let message = '';
    try {
      loadConfig({ TRUST_PROXY: text });
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      message = (e as Error).message;
    }
    expect(message).toBe(
      'Configuration error: TRUST_PROXY is invalid: expected a number of proxy hops (0 = none) or a comma-separated list of loopback, linklocal, uniquelocal, IP addresses and CIDR ranges',
    );
  });
});
