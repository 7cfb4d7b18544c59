/**
 * POST /orders and POST /checkout-sessions against input a client controls byte for byte: bodies whose
 * bytes are not UTF-8 (as API Gateway hands them over base64-encoded, and as plain text), `\u0000` and
 * lone surrogate escapes in stored strings, and query parameters the routes do not take. Each is a 400
 * in the orders format naming the field, and nothing is written.
 */
import { describe, expect, it } from 'vitest';
import { tableSnapshot, useTestTable } from '../../support/table';
import { dispatch } from '../../../scripts/lib/dispatch';
import { orderBody, postOrder, postSession } from './fixtures';

const table = useTestTable('orders-untrusted');

const JSON_HEADERS = { 'content-type': 'application/json' };

/** The invalid UTF-8 sequences of the issue: an overlong `/`, a byte never valid, a UTF-8-encoded lone surrogate. */
const BAD_BYTES: [string, number[]][] = [
  ['an overlong encoding (C0 AF)', [0xc0, 0xaf]],
  ['the byte FF', [0xff]],
  ['an encoded lone surrogate (ED A0 80)', [0xed, 0xa0, 0x80]],
];

/** `body` as JSON bytes, with `bytes` in place of the placeholder `@@` (inside a string or not). */
function bytesWith(body: unknown, bytes: number[]): Buffer {
  const [before, after] = JSON.stringify(body).split('@@');
  if (after === undefined) throw new Error('no @@ placeholder in the body');
  return Buffer.concat([Buffer.from(before, 'utf8'), Buffer.from(bytes), Buffer.from(after, 'utf8')]);
}

/** A body with the srcToken's name holding `text` (the placeholder or an escape). */
const orderWithTokenName = (name: string) => {
  const body = orderBody();
  body.metadata.srcToken.name = name;
  return body;
};

async function expectRefused(send: () => Promise<{ status: number; body: any }>, ...parts: string[]) {
  const before = await tableSnapshot(table.name);
  const response = await send();
  expect(response.status).toBe(400);
  expect(response.body).toEqual({ success: false, message: expect.any(String), statusCode: 400 });
  for (const part of parts) expect(response.body.message).toContain(part);
  expect(await tableSnapshot(table.name)).toEqual(before);
  return response.body.message as string;
}

const post = async (url: string, bytes: Buffer, encoding: 'base64' | 'text') => {
  const response = await dispatch({
    api: 'orders',
    method: 'POST',
    url,
    headers: JSON_HEADERS,
    body: encoding === 'base64' ? bytes.toString('base64') : bytes.toString('utf8'),
    isBase64Encoded: encoding === 'base64',
  });
  return { status: response.statusCode, body: JSON.parse(response.body) };
};

describe('POST /orders: a body that is not valid UTF-8', () => {
  it.each(BAD_BYTES)('refuses %s inside a stored string (base64 body), naming its JSON path', async (_label, bytes) => {
    await expectRefused(
      () => post('/orders', bytesWith(orderWithTokenName('USD @@ Coin'), bytes), 'base64'),
      'metadata.srcToken.name: is not valid UTF-8',
    );
  });

  it('names every string holding bad bytes, array items and field names included', async () => {
    const body = orderBody({ payload: { expectedDstAmount: '24900000' } });
    body.metadata.dstToken.symbol = '@@';
    const raw = Buffer.concat([
      bytesWith(body, [0xff]).subarray(0, -1),
      Buffer.from(',"x'),
      Buffer.from([0xc0, 0xaf]),
      Buffer.from('":1}'),
    ]);
    const message = await expectRefused(() => post('/orders', raw, 'base64'), 'metadata.dstToken.symbol: is not valid UTF-8');
    expect(message).toContain('The request body has a field name that is not valid UTF-8');
  });

  it('refuses bad bytes outside any string as a body that is not valid UTF-8', async () => {
    const raw = Buffer.concat([Buffer.from('{"type":"swap"'), Buffer.from([0xff]), Buffer.from('}')]);
    const message = await expectRefused(() => post('/orders', raw, 'base64'), 'The request body is not valid UTF-8');
    expect(message).not.toMatch(/JSON/);
  });

  it('accepts a valid body sent base64-encoded (multi-byte characters included)', async () => {
    const raw = Buffer.from(JSON.stringify(orderWithTokenName('USD Coin ✓ 🪙')), 'utf8');
    const response = await post('/orders', raw, 'base64');
    expect(response.status).toBe(200);
    expect(response.body.data.metadata.srcToken.name).toBe('USD Coin ✓ 🪙');
  });
});

describe('POST /orders: strings that cannot be stored', () => {
  const cases: [string, string, string][] = [
    ['\\u0000', 'USD\\u0000Coin', 'metadata.srcToken.name: must not contain U+0000'],
    ['a high surrogate escape without its low half', 'USD\\ud800Coin', 'metadata.srcToken.name: must not contain an unpaired surrogate'],
    ['a high surrogate escape at the end', 'USD Coin\\ud83e', 'metadata.srcToken.name: must not contain an unpaired surrogate'],
    ['a lone low surrogate escape', 'USD\\udc00Coin', 'metadata.srcToken.name: must not contain an unpaired surrogate'],
  ];
  it.each(cases)('refuses %s in a stored string', async (_label, escaped, message) => {
    const raw = JSON.stringify(orderWithTokenName('@@')).replace('@@', escaped);
    await expectRefused(() => post('/orders', Buffer.from(raw, 'utf8'), 'text'), message);
    await expectRefused(() => post('/orders', Buffer.from(raw, 'utf8'), 'base64'), message);
  });

  it('refuses them in a nested payload string and in an unknown field name, every one named', async () => {
    const body = orderBody({ type: 'custom', payload: { data: '0x', to: orderBody().recipientAddress, amount: '1', action: '@@' } });
    const raw = JSON.stringify(body).replace('@@', 'mint\\u0000').replace(/^\{/, '{"a\\udc00":1,');
    const message = await expectRefused(() => post('/orders', Buffer.from(raw, 'utf8'), 'text'), 'payload.action: must not contain U+0000');
    expect(message).toContain('The request body has a field name that must not contain an unpaired surrogate');
  });

  it('refuses a lone surrogate that arrives unescaped in a text body (a string the event itself carries)', async () => {
    const response = await dispatch({
      api: 'orders',
      method: 'POST',
      url: '/orders',
      headers: JSON_HEADERS,
      body: JSON.stringify(orderWithTokenName('USD \ud800 Coin')).replace('\\ud800', '\ud800'),
    });
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body).message).toContain('metadata.srcToken.name: must not contain an unpaired surrogate');
  });

  it('accepts a surrogate pair escape (an emoji) and stores the character', async () => {
    const raw = JSON.stringify(orderWithTokenName('@@')).replace('@@', 'Coin \\ud83e\\ude99');
    const response = await post('/orders', Buffer.from(raw, 'utf8'), 'text');
    expect(response.status).toBe(200);
    expect(response.body.data.metadata.srcToken.name).toBe('Coin 🪙');
  });
});

describe('POST /checkout-sessions: untrusted bytes and escapes', () => {
  it.each(BAD_BYTES)('refuses %s in clientReferenceId (base64 body)', async (_label, bytes) => {
    await expectRefused(
      () => post('/checkout-sessions', bytesWith({ clientReferenceId: 'ref-@@' }, bytes), 'base64'),
      'clientReferenceId: is not valid UTF-8',
    );
  });

  it('refuses \\u0000 in clientReferenceId', async () => {
    const raw = Buffer.from('{"clientReferenceId":"ref\\u0000"}', 'utf8');
    await expectRefused(() => post('/checkout-sessions', raw, 'text'), 'clientReferenceId: must not contain U+0000');
  });
});

describe('unknown query parameters on the POST routes', () => {
  it('POST /orders refuses each one, as GET /orders does, and creates nothing', async () => {
    const get = await dispatch({ api: 'orders', method: 'GET', url: '/orders?colour=blue' });
    expect(JSON.parse(get.body).message).toBe('colour: Unexpected field: colour');
    const message = await expectRefused(
      () => post('/orders?colour=blue&dryRun=1', Buffer.from(JSON.stringify(orderBody()), 'utf8'), 'text'),
      'colour: Unexpected field: colour',
      'dryRun: Unexpected field: dryRun',
    );
    expect(message).toBe('colour: Unexpected field: colour; dryRun: Unexpected field: dryRun');
  });

  it('POST /checkout-sessions refuses each one and creates nothing', async () => {
    await expectRefused(
      () => post('/checkout-sessions?expires_in=900', Buffer.from('{}', 'utf8'), 'text'),
      'expires_in: Unexpected field: expires_in',
    );
  });

  it('the routes still work without a query', async () => {
    expect((await postOrder(orderBody())).status).toBe(200);
    expect((await postSession({})).status).toBe(200);
  });
});

describe('unknown query parameters on the GETs of one order or session', () => {
  it('GET /orders/{id} and GET /checkout-sessions/{id} refuse them as GET /orders does; without them they answer', async () => {
    const order = ((await postOrder(orderBody())).body as { data: { id: string } }).data;
    const session = ((await postSession({})).body as { data: { id: string } }).data;
    for (const url of [`/orders/${order.id}`, `/checkout-sessions/${session.id}`]) {
      const refused = await dispatch({ api: 'orders', method: 'GET', url: `${url}?expand=relay` });
      expect(refused.statusCode, url).toBe(400);
      expect(JSON.parse(refused.body)).toMatchObject({ success: false, statusCode: 400, message: 'expand: Unexpected field: expand' });
      expect((await dispatch({ api: 'orders', method: 'GET', url })).statusCode, url).toBe(200);
    }
  });
});
