import { concat, getAddress, hashTypedData, keccak256, stringToHex } from 'viem';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { tableSnapshot, useTestTable } from '../../support/table';
import {
  accountFor,
  collectionInput,
  defaultDomain,
  DEFAULT_FACTORY,
  expectGroupError,
  getCollections,
  messageOf,
  METADATA_TYPES,
  postCollection,
  signCollection,
  signedBody,
  ZERO_ROOT,
  type CollectionBody,
} from './fixtures';

const table = useTestTable('collections-create');
const { createCollectionResponse, getCollectionResponse } = await import('../../../shared/collections/schemas');
const { routes } = await import('../../../shared/routes');
const { requestJson } = await import('../../../scripts/lib/dispatch');

const alice = accountFor('alice');
const bob = accountFor('bob');

/** The CREATE2 address written out: keccak256(0xff ++ factory ++ salt ++ initCodeHash)[12:]. */
function expectedAddress(body: CollectionBody, tokenStandard: 'ERC721' | 'ERC1155' = 'ERC721'): string {
  const salt = hashTypedData({
    domain: defaultDomain(body.chainId),
    types: METADATA_TYPES,
    primaryType: 'CollectionMetadata',
    message: messageOf(body),
  });
  const initCodeHash = keccak256(stringToHex(tokenStandard === 'ERC721' ? 'BaseMintCollection' : 'BaseMintCollection1155'));
  const hash = keccak256(concat(['0xff', DEFAULT_FACTORY, salt, initCodeHash]));
  return getAddress(`0x${hash.slice(-40)}`);
}

const UUID = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';

/** The body as JSON text with one more own key first (an object literal cannot hold `__proto__` as an own key). */
const withRawKey = (body: CollectionBody, key: string): string =>
  JSON.stringify(body).replace(/^\{/, `{${JSON.stringify(key)}:{"polluted":true},`);

async function expectRejected(body: unknown, status: number, messagePart: RegExp): Promise<void> {
  const before = await tableSnapshot(table.name);
  const response = await postCollection(body);
  expect(expectGroupError(response, status)).toMatch(messagePart);
  expect(await tableSnapshot(table.name)).toEqual(before);
}

describe('POST /collections', () => {
  it('stores a signed collection under its CREATE2 address and lists it', async () => {
    const body = await signedBody(alice, {
      name: 'First',
      symbol: 'FIRST',
      gameId: 'game-7',
      referrer: 'partner1',
      description: 'a description',
      image: 'ipfs://bafy/cover.png',
      attributes: [{ trait_type: 'Tier', value: 'Gold' }],
    });
    const before = Date.now();
    const response = await postCollection(body);
    expect(response.status).toBe(201);
    expect(v.safeParse(createCollectionResponse, response.body).success).toBe(true);
    const { success, statusCode, message, data, collection } = response.body;
    expect({ success, statusCode, message }).toEqual({ success: true, statusCode: 201, message: 'Collection created' });
    // The B3 envelope's `data` and the BaseMint SDK's `collection`: the same resource.
    expect(collection).toEqual(data);
    expect(data.predictedAddress).toBe(expectedAddress(body));
    expect(data).toMatchObject({
      creator: alice.address,
      gameOwner: alice.address,
      chainId: 8453,
      name: 'First',
      symbol: 'FIRST',
      maxSupply: '1000',
      tokenStandard: 'ERC721',
      gameId: 'game-7',
      referrer: 'partner1',
      attributes: [{ trait_type: 'Tier', value: 'Gold' }],
      creatorSignature: body.creatorSignature.toLowerCase(),
    });
    expect(data.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(data.createdAt)).toBeGreaterThanOrEqual(before - 1000);

    const fetched = await requestJson('collections', 'GET', `/collections/${data.predictedAddress}`);
    expect(fetched.status).toBe(200);
    expect(v.safeParse(getCollectionResponse, fetched.body).success).toBe(true);
    expect(fetched.body.collection).toEqual(data);
    expect(fetched.body.data).toEqual(data);

    // Listed in the unfiltered range and in each of its six filter ranges.
    for (const query of [
      '',
      `creator=${alice.address}`,
      `gameOwner=${alice.address}`,
      'symbol=FIRST',
      'chainId=8453',
      'gameId=game-7',
      'referrer=partner1',
    ]) {
      const listed = await getCollections(query);
      expect(listed.status).toBe(200);
      expect(listed.body.collections.map((c: any) => c.predictedAddress)).toContain(data.predictedAddress);
    }
  });

  it('omits optional display fields that were not given and keeps attributes an array', async () => {
    const response = await postCollection(await signedBody(alice, { name: 'Bare' }));
    expect(response.status).toBe(201);
    const data = response.body.data;
    for (const field of ['gameId', 'referrer', 'image', 'description', 'external_url', 'animation_url'])
      expect(data).not.toHaveProperty(field);
    expect(data.attributes).toEqual([]);
  });

  it('accepts the route table example (the sam event) and its address is the GetCollection example', async () => {
    const create = routes.find((route) => route.id === 'CreateCollection')!;
    const get = routes.find((route) => route.id === 'GetCollection')!;
    const response = await postCollection(create.example.body);
    expect(response.status).toBe(201);
    expect(response.body.data.predictedAddress).toBe(get.example.pathParameters!.predictedAddress);
    expect(response.body.data.uuid).toBe((create.example.body as { uuid: string }).uuid);
    const fetched = await requestJson('collections', 'GET', `/collections/${get.example.pathParameters!.predictedAddress}`);
    expect(fetched.status).toBe(200);
  });

  it('answers 409 to a second creation of the same signed metadata and changes nothing', async () => {
    const body = await signedBody(alice, { name: 'Twice', gameId: 'g1' });
    expect((await postCollection(body)).status).toBe(201);
    await expectRejected(body, 409, /already exists/);
    // Unsigned display fields do not make it a different collection.
    await expectRejected({ ...body, gameId: 'other-game', referrer: 'someoneelse', description: 'changed' }, 409, /already exists/);
  });

  it('gives the same metadata signed for another chain its own address', async () => {
    const input = collectionInput(alice, { name: 'Multichain' });
    const onBase = await postCollection(await signCollection(alice, input));
    const onMainnet = await postCollection(await signCollection(alice, { ...input, chainId: 1 }));
    expect(onBase.status).toBe(201);
    expect(onMainnet.status).toBe(201);
    expect(onMainnet.body.data.predictedAddress).not.toBe(onBase.body.data.predictedAddress);
  });

  it('accepts addresses in any case and stores them checksummed', async () => {
    // EIP-712 encodes addresses as numbers: the signature holds whatever their case in the body.
    const body = await signCollection(alice, collectionInput(alice, { name: 'Any case', gameOwner: bob.address }));
    const response = await postCollection({
      ...body,
      creator: alice.address.toLowerCase(),
      gameOwner: `0x${bob.address.slice(2).toUpperCase()}`,
    });
    expect(response.status).toBe(201);
    expect(response.body.data.creator).toBe(alice.address);
    expect(response.body.data.gameOwner).toBe(bob.address);
  });

  describe('rejects signatures that are not the creator’s over this metadata, writing nothing', () => {
    it('signed by someone else', async () => {
      const body = await signCollection(bob, collectionInput(alice, { name: 'Forged' }));
      await expectRejected(body, 400, /creatorSignature: was not made by creator/);
    });

    it('a field changed after signing', async () => {
      const body = await signedBody(alice, { name: 'Tampered', maxSupply: '100' });
      await expectRejected({ ...body, maxSupply: '1000000' }, 400, /creatorSignature: was not made by creator/);
      await expectRejected({ ...body, gameOwner: bob.address }, 400, /creatorSignature/);
      await expectRejected({ ...body, isWhitelistEnabled: true, whitelistMerkleRoot: `0x${'ab'.repeat(32)}` }, 400, /creatorSignature/);
    });

    it('signed for another chain’s domain or another factory', async () => {
      const input = collectionInput(alice, { name: 'Other domain', chainId: 8453 });
      await expectRejected(await signCollection(alice, input, defaultDomain(1)), 400, /creatorSignature: was not made by creator/);
      await expectRejected(
        await signCollection(alice, input, { ...defaultDomain(8453), verifyingContract: `0x${'12'.repeat(20)}` }),
        400,
        /creatorSignature/,
      );
      await expectRejected(await signCollection(alice, input, { ...defaultDomain(8453), name: 'OtherFactory' }), 400, /creatorSignature/);
    });

    it('malformed signatures', async () => {
      const body = await signedBody(alice, { name: 'Malformed' });
      // Right length, but r = s = 0: no key recovers from it.
      await expectRejected(
        { ...body, creatorSignature: `0x${'00'.repeat(64)}1b` },
        400,
        /creatorSignature: is not a valid ECDSA signature/,
      );
      await expectRejected(
        { ...body, creatorSignature: body.creatorSignature.slice(0, -2) },
        400,
        /creatorSignature: must be a 65-byte signature/,
      );
      await expectRejected({ ...body, creatorSignature: 'not a signature' }, 400, /creatorSignature/);
      await expectRejected({ ...body, creatorSignature: `0x${'zz'.repeat(65)}` }, 400, /creatorSignature/);
    });
  });

  describe('rejects invalid input with 400 in the group format, writing nothing', () => {
    const invalid: [string, (body: CollectionBody) => unknown, RegExp][] = [
      ['missing name', ({ name: _name, ...rest }) => rest, /name/],
      ['missing creatorSignature', ({ creatorSignature: _s, ...rest }) => rest, /creatorSignature/],
      ['missing chainId', ({ chainId: _c, ...rest }) => rest, /chainId/],
      ['blank name', (body) => ({ ...body, name: '   ' }), /name: must not be blank/],
      ['name too long', (body) => ({ ...body, name: 'x'.repeat(101) }), /name/],
      ['symbol with a space', (body) => ({ ...body, symbol: 'A B' }), /symbol/],
      ['symbol too long', (body) => ({ ...body, symbol: 'S'.repeat(33) }), /symbol/],
      ['creator not an address', (body) => ({ ...body, creator: '0x1234' }), /creator: must be 0x followed by 40 hex digits/],
      ['gameOwner not hex', (body) => ({ ...body, gameOwner: `0x${'g'.repeat(40)}` }), /gameOwner/],
      ['maxSupply zero', (body) => ({ ...body, maxSupply: '0' }), /maxSupply: must be greater than 0/],
      [
        'maxSupply above uint96',
        (body) => ({ ...body, maxSupply: (2n ** 96n).toString() }),
        /maxSupply: must be a decimal integer string from 1 to 2\^96 - 1/,
      ],
      ['maxSupply with a leading zero', (body) => ({ ...body, maxSupply: '0100' }), /maxSupply/],
      ['maxSupply as a JSON number', (body) => ({ ...body, maxSupply: 1000 }), /maxSupply/],
      ['mintPrice negative', (body) => ({ ...body, mintPrice: '-1' }), /mintPrice/],
      ['mintPrice above uint256', (body) => ({ ...body, mintPrice: (2n ** 256n).toString() }), /mintPrice/],
      ['mintPrice decimal', (body) => ({ ...body, mintPrice: '1.5' }), /mintPrice/],
      ['maxPerWallet zero', (body) => ({ ...body, maxPerWallet: '0' }), /maxPerWallet: must be greater than 0/],
      ['startTime equal to endTime', (body) => ({ ...body, startTime: body.endTime }), /startTime: must be earlier than endTime/],
      [
        'startTime after endTime',
        (body) => ({ ...body, startTime: '2000000000', endTime: '1000' }),
        /startTime: must be earlier than endTime/,
      ],
      ['endTime not a number', (body) => ({ ...body, endTime: 'soon' }), /endTime/],
      [
        'whitelist enabled with a zero root',
        (body) => ({ ...body, isWhitelistEnabled: true, whitelistMerkleRoot: ZERO_ROOT }),
        /whitelistMerkleRoot: must not be zero/,
      ],
      ['whitelistMerkleRoot too short', (body) => ({ ...body, whitelistMerkleRoot: '0x1234' }), /whitelistMerkleRoot/],
      ['isWhitelistEnabled as a string', (body) => ({ ...body, isWhitelistEnabled: 'false' }), /isWhitelistEnabled/],
      ['baseURI not a URL', (body) => ({ ...body, baseURI: 'not a url' }), /baseURI: must be a URL/],
      ['baseURI with an unsupported scheme', (body) => ({ ...body, baseURI: 'ftp://example.com/' }), /baseURI/],
      ['image not a URL', (body) => ({ ...body, image: 'cover.png' }), /image/],
      ['external_url javascript:', (body) => ({ ...body, external_url: 'javascript:alert(1)' }), /external_url/],
      ['chainId zero', (body) => ({ ...body, chainId: 0 }), /chainId/],
      ['chainId negative', (body) => ({ ...body, chainId: -1 }), /chainId/],
      ['chainId fractional', (body) => ({ ...body, chainId: 1.5 }), /chainId/],
      ['chainId as a string', (body) => ({ ...body, chainId: '8453' }), /chainId/],
      ['referrer with capitals', (body) => ({ ...body, referrer: 'Partner' }), /referrer/],
      ['referrer with a dash', (body) => ({ ...body, referrer: 'a-b' }), /referrer/],
      ['gameId with a space', (body) => ({ ...body, gameId: 'my game' }), /gameId/],
      ['attributes not an array', (body) => ({ ...body, attributes: { trait_type: 'a', value: 'b' } }), /attributes/],
      ['attribute with a number value', (body) => ({ ...body, attributes: [{ trait_type: 'Level', value: 3 }] }), /attributes\.0\.value/],
      [
        'too many attributes',
        (body) => ({ ...body, attributes: Array.from({ length: 101 }, (_, i) => ({ trait_type: `t${i}`, value: 'v' })) }),
        /attributes/,
      ],
      ['description too long', (body) => ({ ...body, description: 'd'.repeat(5001) }), /description/],
      ['tokenStandard ERC20', (body) => ({ ...body, tokenStandard: 'ERC20' }), /tokenStandard: must be ERC721 or ERC1155/],
      ['tokenStandard in lowercase', (body) => ({ ...body, tokenStandard: 'erc721' }), /tokenStandard: must be ERC721 or ERC1155/],
      ['uuid as a number', (body) => ({ ...body, uuid: 42 }), /uuid: must be a string/],
      ['unknown field', (body) => ({ ...body, colour: 'blue' }), /Unexpected field: colour/],
      ['unknown field next to the accepted ones', (body) => ({ ...body, uuid: UUID, colour: 'blue' }), /Unexpected field: colour/],
      ['own key __proto__', (body) => withRawKey(body, '__proto__'), /Unexpected field: __proto__/],
      ['own key constructor', (body) => withRawKey(body, 'constructor'), /Unexpected field: constructor/],
      ['own key prototype', (body) => withRawKey(body, 'prototype'), /Unexpected field: prototype/],
      ['a JSON array', (body) => [body], /must be a JSON object/],
      ['a JSON string', () => JSON.stringify('collection'), /must be a JSON object/],
      ['a JSON null', () => 'null', /must be a JSON object/],
    ];
    it.each(invalid)('%s', async (_label, mutate, messagePart) => {
      const body = await signedBody(alice, { name: 'Invalid input' });
      await expectRejected(mutate(body), 400, messagePart);
    });

    it('reports every failing field at once', async () => {
      const body = await signedBody(alice, { name: 'Many errors' });
      const response = await postCollection({ ...body, creator: 'x', maxSupply: '0', referrer: 'A' });
      const message = expectGroupError(response, 400);
      expect(message).toMatch(/creator/);
      expect(message).toMatch(/maxSupply/);
      expect(message).toMatch(/referrer/);
    });

    it('no body, or a body that is not declared JSON: 415 from the platform', async () => {
      const before = await tableSnapshot(table.name);
      expect(expectGroupError(await requestJson('collections', 'POST', '/collections'), 415)).toMatch(/content-type: application\/json/);
      const body = JSON.stringify(await signedBody(alice, { name: 'Plain text' }));
      const response = await requestJson('collections', 'POST', '/collections', { body, headers: { 'content-type': 'text/plain' } });
      expectGroupError(response, 415);
      expect(await tableSnapshot(table.name)).toEqual(before);
    });

    it('malformed JSON', async () => {
      const before = await tableSnapshot(table.name);
      const response = await requestJson('collections', 'POST', '/collections', {
        body: '{"name": ',
        headers: { 'content-type': 'application/json' },
      });
      expectGroupError(response, 400);
      expect(await tableSnapshot(table.name)).toEqual(before);
    });
  });
});

describe('POST /collections: the fields a creator may send besides the signed ones (BaseMint SDK)', () => {
  const getOne = (address: string) => requestJson('collections', 'GET', `/collections/${address}`);

  it('keeps a valid uuid as sent (any case), stores it and returns it everywhere', async () => {
    for (const uuid of [UUID, UUID.toUpperCase()]) {
      const body = await signedBody(alice, { name: `Kept ${uuid.slice(0, 4)}`, gameId: 'uuid-kept' });
      const response = await postCollection({ ...body, uuid });
      expect(response.status).toBe(201);
      expect(response.body.data.uuid).toBe(uuid);
      expect(response.body.collection.uuid).toBe(uuid);
      expect((await getOne(response.body.data.predictedAddress)).body.collection.uuid).toBe(uuid);
    }
    const listed = await getCollections('gameId=uuid-kept');
    expect(listed.body.collections.map((c: any) => c.uuid).sort()).toEqual([UUID, UUID.toUpperCase()].sort());
  });

  it.each(['', 'not-a-uuid', `${UUID}0`, `{${UUID}}`, '6f1c2a3b4d5e4f608a7b9c0d1e2f3a4b'])(
    'generates a uuid when the one sent is not a valid UUID: %j',
    async (uuid) => {
      const response = await postCollection({ ...(await signedBody(alice, { name: `Generated ${uuid}` })), uuid });
      expect(response.status).toBe(201);
      expect(response.body.data.uuid).not.toBe(uuid);
      expect(response.body.data.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(v.safeParse(createCollectionResponse, response.body).success).toBe(true);
    },
  );

  it('ignores predictedAddress and createdAt when sent, whatever their value', async () => {
    const body = await signedBody(alice, { name: 'Derived fields' });
    const before = Date.now();
    const response = await postCollection({ ...body, predictedAddress: bob.address, createdAt: '2000-01-01T00:00:00.000Z' });
    expect(response.status).toBe(201);
    expect(response.body.data.predictedAddress).toBe(expectedAddress(body));
    expect(Date.parse(response.body.data.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect((await getOne(bob.address)).status).toBe(404);

    const odd = await signedBody(alice, { name: 'Derived fields, odd values' });
    const second = await postCollection({ ...odd, predictedAddress: 12, createdAt: { at: 'now' } });
    expect(second.status).toBe(201);
    expect(second.body.data.predictedAddress).toBe(expectedAddress(odd));
  });

  it('a body as the SDK builds it from a collection it read back is accepted (uuid, tokenStandard, chainId, derived fields)', async () => {
    const body = await signedBody(alice, { name: 'Round trip' });
    const first = await postCollection({ ...body, uuid: UUID, tokenStandard: 'ERC721' });
    expect(first.status).toBe(201);
    // Resubmitting what was returned (minus nothing) names the same collection: 409, table unchanged.
    await expectRejected(first.body.data, 409, /already exists/);
  });

  it('stores an ERC1155 collection under the ERC1155 address of the same signed metadata', async () => {
    const body = await signedBody(alice, { name: 'Both standards', gameId: 'standards' });
    const erc1155 = await postCollection({ ...body, tokenStandard: 'ERC1155' });
    expect(erc1155.status).toBe(201);
    expect(erc1155.body.data.tokenStandard).toBe('ERC1155');
    expect(erc1155.body.data.predictedAddress).toBe(expectedAddress(body, 'ERC1155'));
    expect(v.safeParse(createCollectionResponse, erc1155.body).success).toBe(true);
    // The same signature as ERC721 (the default) is another collection, at another address.
    const erc721 = await postCollection(body);
    expect(erc721.status).toBe(201);
    expect(erc721.body.data.tokenStandard).toBe('ERC721');
    expect(erc721.body.data.predictedAddress).toBe(expectedAddress(body));
    const fetched = await getOne(erc1155.body.data.predictedAddress);
    expect(fetched.body.collection).toEqual(erc1155.body.data);
    expect(v.safeParse(getCollectionResponse, fetched.body).success).toBe(true);
    // Each standard once.
    await expectRejected({ ...body, tokenStandard: 'ERC1155' }, 409, /already exists/);
    const listed = await getCollections('gameId=standards');
    expect(listed.body.collections.map((c: any) => c.tokenStandard).sort()).toEqual(['ERC1155', 'ERC721']);
  });

  it('two collections may share a uuid: both are stored and listed', async () => {
    const one = await postCollection({ ...(await signedBody(alice, { name: 'Shared uuid 1', gameId: 'shared-uuid' })), uuid: UUID });
    const two = await postCollection({ ...(await signedBody(alice, { name: 'Shared uuid 2', gameId: 'shared-uuid' })), uuid: UUID });
    expect([one.status, two.status]).toEqual([201, 201]);
    const listed = await getCollections('gameId=shared-uuid');
    expect(listed.body.total).toBe(2);
    expect(listed.body.collections.map((c: any) => c.predictedAddress).sort()).toEqual(
      [one.body.data.predictedAddress, two.body.data.predictedAddress].sort(),
    );
  });
});
