/**
 * POST /collections against input a client controls byte for byte: bodies whose bytes are not UTF-8
 * (base64-encoded as API Gateway hands a binary body over), `\u0000` and lone surrogate escapes in
 * stored strings, query parameters the route does not take, and several unknown body fields. Each is
 * a 400 in the collections format naming every offending field, and nothing is written.
 *
 * The bodies are signed over exactly what a lenient decoder would read from the bad bytes (U+FFFD in
 * place of each bad sequence), so that before the refusal existed they were stored.
 */
import { describe, expect, it } from 'vitest';
import { tableSnapshot, useTestTable } from '../../support/table';
import { dispatch, requestJson } from '../../../scripts/lib/dispatch';
import { accountFor, expectGroupError, getCollections, postCollection, signedBody } from './fixtures';

const table = useTestTable('collections-untrusted');
const alice = accountFor('alice-untrusted');

const BAD_BYTES: [string, number[]][] = [
  ['an overlong encoding (C0 AF)', [0xc0, 0xaf]],
  ['the byte FF', [0xff]],
  ['an encoded lone surrogate (ED A0 80)', [0xed, 0xa0, 0x80]],
];

/** What Buffer's lenient UTF-8 decoding (middy's, the gateway's) makes of `bytes`. */
const lenient = (bytes: number[]) => Buffer.from(bytes).toString('utf8');

/** The JSON text of `body` as bytes, each `@@` placeholder replaced by `bytes`. */
function bytesWith(body: unknown, bytes: number[]): Buffer {
  const parts = JSON.stringify(body).split('@@');
  if (parts.length < 2) throw new Error('no @@ placeholder in the body');
  const pieces: Buffer[] = [];
  parts.forEach((part, index) => {
    if (index > 0) pieces.push(Buffer.from(bytes));
    pieces.push(Buffer.from(part, 'utf8'));
  });
  return Buffer.concat(pieces);
}

async function send(raw: Buffer | string, encoding: 'base64' | 'text', query = '') {
  const bytes = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
  const response = await dispatch({
    api: 'collections',
    method: 'POST',
    url: `/collections${query}`,
    headers: { 'content-type': 'application/json' },
    body: encoding === 'base64' ? bytes.toString('base64') : bytes.toString('utf8'),
    isBase64Encoded: encoding === 'base64',
  });
  return { status: response.statusCode, body: JSON.parse(response.body) };
}

/** Sends, expects a 400 in the collections format holding every part, and that nothing was written. */
async function expectRefused(request: () => Promise<{ status: number; body: any }>, ...parts: string[]): Promise<string> {
  const before = await tableSnapshot(table.name);
  const message = expectGroupError(await request(), 400);
  for (const part of parts) expect(message).toContain(part);
  expect(await tableSnapshot(table.name)).toEqual(before);
  return message;
}

describe('POST /collections: a body that is not valid UTF-8', () => {
  it.each(BAD_BYTES)('refuses %s in the signed name and the description, naming both', async (_label, bytes) => {
    const body = await signedBody(alice, { name: `Bad ${lenient(bytes)} name`, description: 'about @@' });
    const raw = bytesWith({ ...body, name: 'Bad @@ name' }, bytes);
    const message = await expectRefused(() => send(raw, 'base64'), 'name: is not valid UTF-8', 'description: is not valid UTF-8');
    expect(message).toBe('name: is not valid UTF-8; description: is not valid UTF-8');
    expect((await getCollections(`creator=${alice.address}`)).body.collections).toEqual([]);
  });

  it('names the path of a string inside an array', async () => {
    const body = await signedBody(alice, {
      name: 'Attributes',
      attributes: [
        { trait_type: 'Tier', value: 'ok' },
        { trait_type: 'Mood', value: '@@' },
      ],
    });
    await expectRefused(() => send(bytesWith(body, [0xff]), 'base64'), 'attributes.1.value: is not valid UTF-8');
  });

  it('accepts a valid body sent base64-encoded, multi-byte characters kept', async () => {
    const body = await signedBody(alice, { name: 'Émoji 🪙 collection', description: 'naïve' });
    const response = await send(Buffer.from(JSON.stringify(body), 'utf8'), 'base64');
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ name: 'Émoji 🪙 collection', description: 'naïve' });
  });
});

describe('POST /collections: strings that cannot be stored', () => {
  const cases: [string, string, string][] = [
    ['\\u0000', 'a\\u0000b', 'must not contain U+0000'],
    ['a lone high surrogate escape', 'a\\ud800b', 'must not contain an unpaired surrogate'],
    ['a lone low surrogate escape', 'a\\udc00', 'must not contain an unpaired surrogate'],
  ];
  it.each(cases)('refuses %s in the description and in the signed name', async (_label, escaped, message) => {
    const text = JSON.parse(`"${escaped}"`) as string;
    const description = await signedBody(alice, { name: 'Escapes', description: '@@' });
    await expectRefused(() => send(JSON.stringify(description).replace('@@', escaped), 'text'), `description: ${message}`);
    // Signed over the very string (a wallet encodes a lone surrogate as U+FFFD, as the service does).
    const name = await signedBody(alice, { name: text });
    await expectRefused(() => send(JSON.stringify(name), 'text'), `name: ${message}`);
    await expectRefused(() => send(Buffer.from(JSON.stringify(name), 'utf8'), 'base64'), `name: ${message}`);
  });
});

describe('POST /collections: unknown query parameters', () => {
  it('refuses each one, in the wording of GET /collections, and writes nothing', async () => {
    const get = expectGroupError(await getCollections('colour=blue'), 400);
    expect(get).toBe('colour: Unexpected field: colour');
    const body = await signedBody(alice, { name: 'With a query' });
    const message = await expectRefused(() => send(JSON.stringify(body), 'text', '?colour=blue&dryRun=1'));
    expect(message).toBe('colour: Unexpected field: colour; dryRun: Unexpected field: dryRun');
  });
});

describe('GET /collections/{predictedAddress}: unknown query parameters', () => {
  it('refuses them in the wording of GET /collections; without them the collection answers', async () => {
    const created = await postCollection(await signedBody(alice, { name: 'Read back' }));
    expect(created.status).toBe(201);
    const address = (created.body as { data: { predictedAddress: string } }).data.predictedAddress;
    const refused = expectGroupError(await requestJson('collections', 'GET', `/collections/${address}?chain=8453`), 400);
    expect(refused).toBe('chain: Unexpected field: chain');
    expect((await requestJson('collections', 'GET', `/collections/${address}`)).status).toBe(200);
  });
});

describe('POST /collections: unknown body fields', () => {
  it('names every unknown field, as the orders do', async () => {
    const body = await signedBody(alice, { name: 'Unknown fields' });
    const message = await expectRefused(() => postCollection({ ...body, colour: 'blue', size: 3, owner: 'me' }));
    for (const field of ['colour', 'size', 'owner']) expect(message).toContain(`${field}: Unexpected field: ${field}`);
  });

  it('names every unknown field of an attribute, next to the other failing values', async () => {
    const body = await signedBody(alice, { name: 'Unknown attribute fields' });
    const message = await expectRefused(() =>
      postCollection({ ...body, maxSupply: '0', attributes: [{ trait_type: 'Tier', value: 'Gold', rarity: 1, weight: 2 }], extra: true }),
    );
    for (const part of [
      'maxSupply: must be greater than 0',
      'attributes.0.rarity: Unexpected field: attributes.0.rarity',
      'attributes.0.weight: Unexpected field: attributes.0.weight',
      'extra: Unexpected field: extra',
    ])
      expect(message).toContain(part);
  });
});
