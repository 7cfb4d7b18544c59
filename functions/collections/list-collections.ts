/** GET /collections: collections newest first, filtered by creator, gameOwner, symbol, referrer, chainId, gameId. */
import { listCollections } from '../../shared/collections/collections';
import { loadCollectionsConfig } from '../../shared/collections/config';
import { listCollectionsQuery, listCollectionsResponse, type ListCollectionsResponse } from '../../shared/collections/schemas';
import { httpHandler } from '../../shared/http/handler';

const config = loadCollectionsConfig();

export const handler = httpHandler({
  group: 'collections',
  query: listCollectionsQuery,
  response: listCollectionsResponse,
  handle: async ({ query }) => {
    const { total, collections } = await listCollections(query, config);
    const body: ListCollectionsResponse = { success: true, total, page: query.page, limit: query.limit, collections };
    return { body };
  },
});
