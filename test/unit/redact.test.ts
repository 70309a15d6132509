import { describe, expect, it } from 'vitest';
import { REDACTED, redactJsonText, scrubText } from '../../web/privacy/redact.ts';

describe('redactJsonText', () => {
  it.each([
    [
      'order snapshot',
      { name: '#1001', total_price: '10.00', email: 'a@b.co', shipping_address: { name: 'A B', phone: '+27821234567' }, line_items: [{ grams: 500 }] },
      { name: '#1001', total_price: '10.00', email: REDACTED, shipping_address: REDACTED, line_items: [{ grams: 500 }] },
    ],
    [
      'courier request',
      { reference: '1', dropoff: { name: 'A B', latitude: -26.1 }, notes: 'gate code 1234', metadata: { orderName: '#1' } },
      { reference: '1', dropoff: REDACTED, notes: REDACTED, metadata: { orderName: '#1' } },
    ],
    ['unknown nested shape', { order: { recipient: { phone: 'x' } }, list: [{ email: 'e' }] }, { order: { recipient: REDACTED }, list: [{ email: REDACTED }] }],
  ])('%s', (_name, input, expected) => {
    const out = redactJsonText(JSON.stringify(input));
    expect(JSON.parse(out.text!)).toEqual(expected);
  });

  it('collects the personal strings so free text can be scrubbed', () => {
    const { strings } = redactJsonText(JSON.stringify({ shipping_address: { phone: '0825551234', name: 'Thandi Nkosi' } }));
    expect(scrubText("Phone '0825551234' is not valid for Thandi Nkosi", strings)).toBe(`Phone '${REDACTED}' is not valid for ${REDACTED}`);
  });

  it('replaces text that is not JSON entirely', () => {
    expect(redactJsonText('garbage').text).toBe('{"redacted":true}');
    expect(redactJsonText(null).text).toBeNull();
  });
});
