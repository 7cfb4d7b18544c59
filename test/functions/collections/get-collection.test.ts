import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { tableSnapshot, useTestTable } from '../../support/table';
import { accountFor, expectGroupError, postCollection, signedBody } from './fixtures';

const table = useTestTable('collections-get');
const { getCollectionResponse } = await import('../../../shared/collections/schemas');
const { requestJson } = await import('../../../scripts/lib/dispatch');

const getOne = (address: string) => requestJson('collections', 'GET', `/collections/${address}`);

describe('GET /collections/{predictedAddress}', () => {
  it('returns the stored collection, whatever the case of the address', async () => {
    const created = (await postCollection(await signedBody(accountFor('getter'), { name: 'Fetched', referrer: 'ref' }))).body.data;
    for (const address of [
      created.predictedAddress,
      created.predictedAddress.toLowerCase(),
      `0x${created.predictedAddress.slice(2).toUpperCase()}`,
    ]) {
      const response = await getOne(address);
      expect(response.status).toBe(200);
      expect(v.safeParse(getCollectionResponse, response.body).success).toBe(true);
      expect(response.body).toEqual({ success: true, collection: created, data: created });
    }
  });

  it('answers 404 in the group format when no collection is stored there', async () => {
    const message = expectGroupError(await getOne('0x00000000000000000000000000000000000000aa'), 404);
    expect(message).toMatch(/No collection with predictedAddress 0x00000000000000000000000000000000000000aa/);
  });

  it.each(['0x1234', 'not-an-address', `0x${'g'.repeat(40)}`, `0x${'1'.repeat(41)}`])(
    'answers 400 to the malformed address %s',
    async (address) => {
      const before = await tableSnapshot(table.name);
      expect(expectGroupError(await getOne(address), 400)).toMatch(/predictedAddress: must be 0x followed by 40 hex digits/);
      expect(await tableSnapshot(table.name)).toEqual(before);
    },
  );
});
