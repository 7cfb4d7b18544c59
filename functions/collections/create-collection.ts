/** POST /collections: store a collection signed by its creator (EIP-712) under its predicted address. */
import { createCollection } from '../../shared/collections/collections';
import { loadCollectionsConfig } from '../../shared/collections/config';
import {
  createCollectionBody,
  createCollectionQuery,
  createCollectionResponse,
  type CreateCollectionResponse,
} from '../../shared/collections/schemas';
import { httpHandler } from '../../shared/http/handler';

const config = loadCollectionsConfig();

export const handler = httpHandler({
  group: 'collections',
  query: createCollectionQuery,
  body: createCollectionBody,
  response: createCollectionResponse,
  handle: async ({ body }) => {
    const collection = await createCollection(body, config);
    // `data` for the B3 envelope, `collection` for the BaseMint SDK's declared result: the same object.
    const response: CreateCollectionResponse = {
      success: true,
      message: 'Collection created',
      statusCode: 201,
      data: collection,
      collection,
    };
    return { statusCode: 201, body: response };
  },
});
