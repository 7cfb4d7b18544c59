/**
 * I6q GET /insights/v1/nfts/metadata/refresh/{contract_address} and I6r .../{contract_address}/{token_id}:
 * queue a fetch of NFT metadata from the web again (shared/nft-metadata/), and answer as Insight does:
 * `{ data: { success, message } }`. Nothing is fetched in the request: one message per chain goes to
 * the fetcher's queue (SQS in AWS, the in-process fetcher under `npm start`; with neither, `success: false`).
 *  - one token: its instance (G3) is read on each requested chain (one BatchGetItem); a chain that has
 *    it gets a `token` refresh when its URI is on the web; a 404 when no chain has the token;
 *  - a contract: its address item (X7) on each chain; a chain where it is an NFT contract gets one
 *    `contract` refresh, which the fetcher expands into a refresh of each of its instances; a 404 when
 *    no chain indexes it as an NFT contract.
 * A token fetched or tried less than a minute before the refresh is not fetched again
 * (REFRESH_COOLDOWN_MS), so repeated refreshes cost the origin servers nothing more.
 */
import { batchGetItems } from '../db/operations';
import { NotFoundError } from '../errors';
import { metadataQueue, MESSAGE_VERSION, type MetadataRequest } from '../nft-metadata/queue';
import { webScheme } from '../nft-metadata/uri';
import { addressKeys, keyId, nftKeys } from '../table/keys';
import type { AddressRecord, NftInstanceRecord } from '../table/records';
import type { InsightsConfig } from './config';
import { parseAddressOrName, resolveAddresses } from './names';
import { firstChain, planListRequest } from './request';
import type { NftRefreshQuery, NftRefreshResponse } from './schemas';

/** No fetcher in this process (a local run without one: the tests' gateway, `sam local invoke`): nothing queued. */
const notQueued = (): NftRefreshResponse => ({
  data: {
    success: false,
    message: 'No NFT metadata fetcher runs here (NFT_METADATA_QUEUE_URL is unset and no local fetcher is running): nothing was queued',
  },
});

interface RefreshRequest {
  contractAddress: string;
  query: NftRefreshQuery;
  host: string | undefined;
}

const planOf = (query: NftRefreshQuery, host: string | undefined) =>
  planListRequest({ ...query, page: 0, limit: 1, sort_by: undefined, sort_order: 'asc', group_by: [], aggregate: [] }, host, {});

/** I6r: refresh one token's metadata on each requested chain that has it. */
export async function refreshNftMetadata(
  { contractAddress, tokenId, query, host }: RefreshRequest & { tokenId: string },
  config: InsightsConfig,
): Promise<NftRefreshResponse> {
  const plan = await planOf(query, host);
  const { contract } = await resolveAddresses({ contract: parseAddressOrName('contract_address', contractAddress) }, plan.chainIds);
  const key = (chainId: number) => nftKeys.instance(chainId, contract.get(chainId)!, tokenId);
  const items = await batchGetItems<NftInstanceRecord>(plan.chainIds.map(key));
  const found = plan.chainIds.flatMap((chainId) => {
    const instance = items.get(keyId(key(chainId)));
    return instance?.kind === 'nftInstance' && instance.updatedAtBlock !== undefined ? [{ chainId, instance }] : [];
  });
  if (found.length === 0)
    throw new NotFoundError(`token ${tokenId} of ${contract.get(firstChain(plan))} is not indexed on chain ${plan.chainIds.join(', ')}`);
  const web = found.filter(({ instance }) => webScheme(instance.tokenUri) !== null);
  const queue = metadataQueue(config.metadataQueueUrl);
  if (!queue && web.length > 0) return notQueued();
  const refresh = Date.now();
  const requests = web.map(
    ({ chainId }): MetadataRequest => ({ v: MESSAGE_VERSION, kind: 'token', chainId, contract: contract.get(chainId)!, tokenId, refresh }),
  );
  if (requests.length > 0) await queue!.send(requests);
  const onChain = found.length - web.length;
  return {
    data: {
      success: true,
      message:
        `Metadata refresh of token ${tokenId} of ${contract.get(firstChain(plan))} ` +
        (web.length > 0 ? `queued on chain ${web.map(({ chainId }) => chainId).join(', ')}` : 'not needed') +
        (onChain > 0
          ? `; ${onChain === found.length ? 'its' : `on ${onChain} chain(s) its`} token URI is not on the web (nothing to fetch)`
          : ''),
    },
  };
}

/** I6q: refresh the metadata of every token of a contract on each requested chain that indexes it as an NFT contract. */
export async function refreshContractNftMetadata(
  { contractAddress, query, host }: RefreshRequest,
  config: InsightsConfig,
): Promise<NftRefreshResponse> {
  const plan = await planOf(query, host);
  const { contract } = await resolveAddresses({ contract: parseAddressOrName('contract_address', contractAddress) }, plan.chainIds);
  const key = (chainId: number) => addressKeys.address(chainId, contract.get(chainId)!);
  const items = await batchGetItems<AddressRecord>(plan.chainIds.map(key));
  const chains = plan.chainIds.filter((chainId) => {
    const type = items.get(keyId(key(chainId)))?.tokenType;
    return type === 'ERC-721' || type === 'ERC-1155';
  });
  if (chains.length === 0)
    throw new NotFoundError(`${contract.get(firstChain(plan))} is not an NFT contract indexed on chain ${plan.chainIds.join(', ')}`);
  const queue = metadataQueue(config.metadataQueueUrl);
  if (!queue) return notQueued();
  const refresh = Date.now();
  await queue.send(
    chains.map(
      (chainId): MetadataRequest => ({ v: MESSAGE_VERSION, kind: 'contract', chainId, contract: contract.get(chainId)!, refresh }),
    ),
  );
  return {
    data: {
      success: true,
      message: `Metadata refresh of every token of ${contract.get(firstChain(plan))} queued on chain ${chains.join(', ')}`,
    },
  };
}
