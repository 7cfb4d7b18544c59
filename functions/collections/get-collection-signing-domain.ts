/** GET /collections/signing-domain?chainId=N: the EIP-712 domain, types and primary type a creator signs. */
import { signingDomainFor } from '../../shared/collections/collections';
import { loadCollectionsConfig } from '../../shared/collections/config';
import { signingDomainQuery, signingDomainResponse, type SigningDomainResponse } from '../../shared/collections/schemas';
import { httpHandler } from '../../shared/http/handler';

const config = loadCollectionsConfig();

export const handler = httpHandler({
  group: 'collections',
  query: signingDomainQuery,
  response: signingDomainResponse,
  handle: async ({ query }) => {
    const typedData = signingDomainFor(query.chainId, config);
    const body: SigningDomainResponse = {
      domain: typedData.domain,
      types: { CollectionMetadata: typedData.types.CollectionMetadata.map((field) => ({ ...field })) },
      primaryType: typedData.primaryType,
    };
    return { body };
  },
});
