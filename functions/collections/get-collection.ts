/** GET /collections/{predictedAddress}: one collection, 404 when none is stored at that address. */
import { getCollection } from '../../shared/collections/collections';
import { collectionPath, getCollectionResponse, noCollectionQuery, type GetCollectionResponse } from '../../shared/collections/schemas';
import { httpHandler } from '../../shared/http/handler';

export const handler = httpHandler({
  group: 'collections',
  path: collectionPath,
  query: noCollectionQuery,
  response: getCollectionResponse,
  handle: async ({ path }) => {
    const collection = await getCollection(path.predictedAddress);
    // `collection` as the BaseMint SDK reads it, `data` as the creation's envelope has it.
    const body: GetCollectionResponse = { success: true, collection, data: collection };
    return { body };
  },
});
