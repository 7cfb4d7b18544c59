/** GET /collections/{predictedAddress}: one collection, 404 when none is stored at that address. */
import { getCollection } from '../../shared/collections/collections';
import { collectionPath, getCollectionResponse, type GetCollectionResponse } from '../../shared/collections/schemas';
import { httpHandler } from '../../shared/http/handler';

export const handler = httpHandler({
  group: 'collections',
  path: collectionPath,
  response: getCollectionResponse,
  handle: async ({ path }) => {
    const body: GetCollectionResponse = { success: true, collection: await getCollection(path.predictedAddress) };
    return { body };
  },
});
