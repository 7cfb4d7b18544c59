/**
 * I5: token transfers, on each requested chain.
 *  - I5a by owner (N9): the owner's range for the direction the transfer type implies (mint: `to`,
 *    burn: `from`, otherwise `all`) and the token types (ALL, or one standard's range; two standards
 *    read both single-standard ranges, merged by sort key in list.ts), or with a contract the owner's
 *    range in that token; by contract only (N8): the token's range.
 *  - I5b by transaction (N10): the transaction's transfers, by log index (ascending by default).
 *  - I5c by contract (N8).
 * Block bounds are the key condition (timestamps through the block-by-time index). What has no range
 * of its own is a bounded check inside the narrowed range: the transfer type (after the direction
 * narrowed it) and, where the range holds a single token or transaction, the token type
 * (docs/decisions/insights.md).
 * I6h–k, NFT transfers: the same ranges restricted to ERC-721 and ERC-1155; by contract only the
 * contract's N8 range, read with its address item (X7) in the same round trip (the range is kept only
 * when X7 says the contract is an NFT), and one token id (I6k) its own range (N16).
 * Ids of endpoints and access patterns (I1, N9, ...): see docs/access-patterns.md.
 */
import { batchGetItems } from '../db/operations';
import { expandTokenTransfer } from '../table/compact';
import { addressKeys, keyId, nftKeys, type Direction, type TokenStandard } from '../table/keys';
import { InvalidRequestError } from '../errors';
import type { AddressRecord, NftInstanceRecord, TokenTransferRecord, TransferType } from '../table/records';
import { blockRangeOf } from './block-range';
import type { InsightsConfig } from './config';
import { readJoinedDetails } from './joined-details';
import { TOKEN_TRANSFER_FIELDS } from './fields';
import { readList, type ChainRanges, type ListPlan, type ListRead } from './list';
import { parseAddressOrName, resolveAddresses, type AddressOrName } from './names';
import {
  tokenTransfersOfOwnerInTokenRanges,
  tokenTransfersOfOwnerRanges,
  tokenTransfersOfTokenIdRange,
  tokenTransfersOfTokenRange,
  tokenTransfersOfTransactionRange,
} from './queries';
import type { Check } from './range-reader';
import { firstChain, planListRequest, type ListQuery } from './request';
import type { InsightsTokenTransfer, TokenTransferMeta, TokenTransfersResponse, TokenTypeName } from './schemas';
import { serialiseTokenTransfer } from './serialise';
import { type MetadataOptions, metadataOptions, nftContractOf, nftMetadataFields } from './state-lists';

const STANDARD: Record<TokenTypeName, TokenStandard> = { erc20: 'ERC-20', erc721: 'ERC-721', erc1155: 'ERC-1155' };

/** The parameters shared by the three endpoints (those an endpoint lacks are absent). */
export interface TransferQuery extends ListQuery {
  metadata: boolean;
  include_owners: boolean;
  token_types: TokenTypeName[];
  block_number_from?: number;
  block_number_to?: number;
  block_timestamp_from?: number;
  block_timestamp_to?: number;
  transfer_type?: TransferType;
  /** The NFT routes': their metadata's ipfs:// and ar:// links through the gateways. */
  resolve_metadata_links?: boolean;
}

/** A request of one of the three endpoints: its query and the Host header (whose first label may name the chain). */
export interface TransfersRequest<Q extends TransferQuery = TransferQuery> {
  query: Q;
  host: string | undefined;
}

/** I5a: by owner and / or contract (query parameters; names accepted). */
export async function listTokenTransfers(
  { query, host }: TransfersRequest<TransferQuery & { owner_address?: string; contract_address?: readonly string[] }>,
  config: InsightsConfig,
): Promise<TokenTransfersResponse> {
  const owner = query.owner_address !== undefined ? parseAddressOrName('owner_address', query.owner_address) : undefined;
  const contracts = (query.contract_address ?? []).map((value) => parseAddressOrName('contract_address', value));
  if (!owner && contracts.length === 0) throw new InvalidRequestError('owner_address or contract_address is required (or both)');
  return transfersOf({ query, host }, config, { owner, contracts });
}

/** I5c: by contract (path parameter; a name accepted). */
export async function listContractTokenTransfers(
  request: TransfersRequest & { contractAddress: string },
  config: InsightsConfig,
): Promise<TokenTransfersResponse> {
  return transfersOf(request, config, { contracts: [parseAddressOrName('contract_address', request.contractAddress)] });
}

/** I5b: the transfers of one transaction, by log index. */
export async function listTransactionTokenTransfers(
  { transactionHash, query, host }: TransfersRequest & { transactionHash: string },
  config: InsightsConfig,
  nft = false,
): Promise<TokenTransfersResponse> {
  const plan = await planListRequest(query, host, TOKEN_TRANSFER_FIELDS);
  const checks = tokenTypeChecks(query.token_types);
  const list = await readTransfers(
    plan,
    async (chainId) => tokenTransfersOfTransactionRange(chainId, transactionHash, checks, plan.sortOrder),
    config,
  );
  return respond(plan, query, list, '', config, nft);
}

// ---------------------------------------------------------------------------------------------------
// I6h-k: NFT transfers, the same ranges restricted to ERC-721 and ERC-1155 (docs/decisions/insights.md)

const NFT_TYPES: TokenTypeName[] = ['erc721', 'erc1155'];
const nftTypes = (types: readonly TokenTypeName[]): TokenTypeName[] => (types.length > 0 ? [...types] : NFT_TYPES);

/** I6h: NFT transfers of an owner and / or contracts. */
export async function listNftTransfers(
  { query, host }: TransfersRequest<TransferQuery & { owner_address?: string; contract_address?: readonly string[] }>,
  config: InsightsConfig,
): Promise<TokenTransfersResponse> {
  const owner = query.owner_address !== undefined ? parseAddressOrName('owner_address', query.owner_address) : undefined;
  const contracts = (query.contract_address ?? []).map((value) => parseAddressOrName('contract_address', value));
  if (!owner && contracts.length === 0) throw new InvalidRequestError('owner_address or contract_address is required (or both)');
  return transfersOf({ query: { ...query, token_types: nftTypes(query.token_types) }, host }, config, { owner, contracts, nft: true });
}

/** I6i: the NFT transfers of one transaction. */
export async function listNftTransactionTransfers(
  { transactionHash, query, host }: TransfersRequest & { transactionHash: string },
  config: InsightsConfig,
): Promise<TokenTransfersResponse> {
  return listTransactionTokenTransfers(
    { transactionHash, query: { ...query, token_types: nftTypes(query.token_types) }, host },
    config,
    true,
  );
}

/** I6j: NFT transfers of one contract; I6k: of one token id (`tokenId`), optionally of an owner. */
export async function listNftContractTransfers(
  request: TransfersRequest<TransferQuery & { owner_address?: string }> & { contractAddress: string; tokenId?: string },
  config: InsightsConfig,
): Promise<TokenTransfersResponse> {
  const { query } = request;
  const owner = query.owner_address !== undefined ? parseAddressOrName('owner_address', query.owner_address) : undefined;
  return transfersOf({ query: { ...query, token_types: nftTypes(query.token_types) }, host: request.host }, config, {
    owner,
    contracts: [parseAddressOrName('contract_address', request.contractAddress)],
    nft: true,
    tokenId: request.tokenId,
  });
}

/** The address items (X7) of `contracts` on each chain, one BatchGetItem, by keyId. */
async function addressItemsOf(chainIds: readonly number[], contracts: Map<number, string[]>): Promise<Map<string, AddressRecord>> {
  const keys = chainIds.flatMap((chainId) => (contracts.get(chainId) ?? []).map((contract) => addressKeys.address(chainId, contract)));
  return keys.length > 0 ? batchGetItems<AddressRecord>(keys) : new Map<string, AddressRecord>();
}

/** The NFT contracts among `contracts` on each chain, by their address items (X7). */
function nftContractsAmong(
  chainIds: readonly number[],
  contracts: Map<number, string[]>,
  items: Map<string, AddressRecord>,
): Map<number, string[]> {
  return new Map(
    chainIds.map((chainId) => [
      chainId,
      (contracts.get(chainId) ?? []).filter((contract) => {
        const type = items.get(keyId(addressKeys.address(chainId, contract)))?.tokenType;
        return type === 'ERC-721' || type === 'ERC-1155';
      }),
    ]),
  );
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
const settle = <T>(promise: Promise<T>): Promise<Settled<T>> =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

async function transfersOf(
  { query, host }: TransfersRequest,
  config: InsightsConfig,
  given: { owner?: AddressOrName; contracts: readonly AddressOrName[]; nft?: boolean; tokenId?: string },
): Promise<TokenTransfersResponse> {
  const plan = await planListRequest(query, host, TOKEN_TRANSFER_FIELDS);
  const resolved = await resolveAddresses(
    {
      owner_address: given.owner,
      ...Object.fromEntries(given.contracts.map((contract, i) => [i === 0 ? 'contract_address' : `contract_address[${i}]`, contract])),
    },
    plan.chainIds,
  );
  const owners = resolved.owner_address;
  /** Per chain, the distinct token addresses the request names (each one a range; several are merged by sort key). */
  const contracts = new Map(
    plan.chainIds.map((chainId) => [
      chainId,
      [
        ...new Set(
          Object.entries(resolved)
            .filter(([parameter]) => parameter.startsWith('contract_address'))
            .map(([, byChain]) => byChain?.get(chainId))
            .filter((address): address is string => address !== undefined),
        ),
      ],
    ]),
  );
  // NFT routes by contract only: one token id's own range (N16, written for NFT transfers only), or the
  // contracts' ranges (N8) read with their address items (X7) in the same round trip and kept for NFT
  // contracts only (an N8 range holds one standard: every entry of an NFT contract's is an NFT transfer).
  const byContract = given.nft === true && !owners;
  const tokenId = given.tokenId;
  // One token id in the owner's range (I6k with owner_address): a bounded check.
  const idChecks: Check[] = tokenId === undefined ? [] : [{ attribute: 'tokenId', operator: '=', value: tokenId, kind: 'string' }];
  let listed = contracts;
  const rangeOf = async (chainId: number): Promise<ChainRanges> => {
    const blocks = await blockRangeOf(chainId, {
      numbers: { min: query.block_number_from, max: query.block_number_to, empty: isEmpty(query.block_number_from, query.block_number_to) },
      timestamps: {
        min: query.block_timestamp_from,
        max: query.block_timestamp_to,
        empty: isEmpty(query.block_timestamp_from, query.block_timestamp_to),
      },
    });
    if (!blocks) return null;
    const owner = owners?.get(chainId);
    const tokens = contracts.get(chainId) ?? [];
    if (owner) {
      const { direction, checks: typeChecks } = ownerDirection(query.transfer_type);
      const checks = [...typeChecks, ...idChecks];
      // Per token, the ranges of the standards asked for (the key carries the token's standard).
      return tokens.length > 0
        ? tokens.flatMap((token) =>
            tokenTransfersOfOwnerInTokenRanges(
              chainId,
              owner,
              direction,
              token,
              query.token_types.map((type) => STANDARD[type]),
              blocks,
              checks,
              plan.sortOrder,
            ),
          )
        : tokenTransfersOfOwnerRanges(
            chainId,
            owner,
            direction,
            query.token_types.map((type) => STANDARD[type]),
            blocks,
            checks,
            plan.sortOrder,
          );
    }
    if (byContract) {
      const checks = transferTypeChecks(query.transfer_type);
      return (listed.get(chainId) ?? []).map((token) =>
        tokenId === undefined
          ? tokenTransfersOfTokenRange(chainId, token, blocks, checks, plan.sortOrder)
          : tokenTransfersOfTokenIdRange(chainId, token, tokenId, blocks, checks, plan.sortOrder),
      );
    }
    const checks = [...transferTypeChecks(query.transfer_type), ...tokenTypeChecks(query.token_types)];
    return tokens.map((token) => tokenTransfersOfTokenRange(chainId, token, blocks, checks, plan.sortOrder));
  };
  const first = firstChain(plan);
  const address = owners?.get(first) ?? contracts.get(first)?.[0] ?? '';
  if (!byContract || tokenId !== undefined)
    return respond(plan, query, await readTransfers(plan, rangeOf, config), address, config, given.nft);
  // Every contract's range at once with the address items; read again without those that are not NFTs
  // (no round trip more when none is left: a single ERC-20 contract lists nothing).
  const [speculative, items] = await Promise.all([settle(readTransfers(plan, rangeOf, config)), addressItemsOf(plan.chainIds, contracts)]);
  listed = nftContractsAmong(plan.chainIds, contracts, items);
  const allNfts = plan.chainIds.every((chainId) => listed.get(chainId)!.length === (contracts.get(chainId) ?? []).length);
  if (allNfts && !speculative.ok) throw speculative.error;
  const list = allNfts && speculative.ok ? speculative.value : await readTransfers(plan, rangeOf, config);
  return respond(plan, query, list, address, config, true, items);
}

const isEmpty = (min: number | undefined, max: number | undefined): boolean => min !== undefined && max !== undefined && min > max;

/**
 * The owner's range for a transfer type: a mint reaches the owner (its `to` range), a burn leaves it
 * (its `from` range); the record's transferType is then checked inside that range (a plain transfer
 * reads the `all` range). The zero address itself has no range (the ingest does not index it).
 */
function ownerDirection(type: TransferType | undefined): { direction: Direction; checks: Check[] } {
  if (type === 'mint') return { direction: 'to', checks: transferTypeChecks('mint') };
  if (type === 'burn') return { direction: 'from', checks: transferTypeChecks('burn') };
  return { direction: 'all', checks: transferTypeChecks(type) };
}

function transferTypeChecks(type: TransferType | undefined): Check[] {
  if (type === undefined) return [];
  return [{ attribute: 'transferType', operator: '=', value: type, kind: 'string' }];
}

/** A token-type filter on a range that has no type-set key of its own (one token, one transaction). */
function tokenTypeChecks(types: readonly TokenTypeName[]): Check[] {
  if (types.length === 0 || types.length === Object.keys(STANDARD).length) return [];
  return [{ attribute: 'tokenStandard', operator: 'in', value: types.map((type) => STANDARD[type]), kind: 'string' }];
}

/** The list of every chain's page (or aggregation) of token transfers. */
function readTransfers(
  plan: ListPlan,
  rangeForChain: (chainId: number) => Promise<ChainRanges>,
  config: InsightsConfig,
): Promise<ListRead<TokenTransferRecord>> {
  return readList<TokenTransferRecord>(plan, rangeForChain, config, {
    summed: { amount: 'amount' },
    fields: TOKEN_TRANSFER_FIELDS,
    // Items store compacted records (shared/table/compact.ts).
    row: (item, wanted) => serialiseTokenTransfer(expandTokenTransfer(item, wanted)),
    position: (item) => {
      const transfer = expandTokenTransfer(item);
      return [transfer.blockNumber, transfer.logIndex, transfer.batchIndex];
    },
  });
}

/** The response of a list: its rows, with metadata on request (`known`: address items already read). */
async function respond(
  plan: ListPlan,
  query: TransferQuery,
  list: ListRead<TokenTransferRecord>,
  address: string,
  config: InsightsConfig,
  nft = false,
  known: ReadonlyMap<string, AddressRecord> = new Map(),
): Promise<TokenTransfersResponse> {
  const meta = (chains: { total_items: number; total_pages: number }): TokenTransferMeta => ({
    chain_id: firstChain(plan),
    chain_ids: plan.chainIds,
    address,
    signature: '',
    page: plan.page,
    limit: plan.limit,
    ...chains,
  });
  if (list.aggregations) return { meta: meta(list.totals), data: [], aggregations: list.aggregations };
  const rows = list.records
    .map((item): TokenTransferRecord => expandTokenTransfer(item))
    .map((record) => ({ record, row: serialiseTokenTransfer(record) }));
  if (query.metadata) await (nft ? addNftMetadata(rows, known, metadataOptions(query, config), config) : addTokenMetadata(rows, config));
  return { meta: meta(list.totals), data: rows.map(({ row }) => row), aggregations: null };
}

/** token_metadata from the token contracts' address items (X7): one BatchGetItem for the page. */
async function addTokenMetadata(
  rows: readonly { record: TokenTransferRecord; row: InsightsTokenTransfer }[],
  config: Pick<InsightsConfig, 'detailsCacheMs'>,
): Promise<void> {
  const key = (record: TokenTransferRecord) => addressKeys.address(record.chainId, record.token);
  const items = await readJoinedDetails(
    rows.map(({ record }) => key(record)),
    config,
  );
  for (const { record, row } of rows) {
    const token = items.get(keyId(key(record))) as AddressRecord | undefined;
    row.token_metadata = {
      name: token?.tokenName ?? null,
      symbol: token?.tokenSymbol ?? null,
      decimals: token?.tokenDecimals ?? null,
    };
  }
}

/**
 * nft_metadata of the NFT routes (I6h-k, `metadata=true`): the NFT's metadata (its instance item, G3,
 * with what the fetcher stored on it for a web token URI, G7) and its contract (X7; those in `known` were read
 * with the list), one BatchGetItem for the page. `owner_addresses` with include_owners: an ERC-721 NFT's current owner.
 */
async function addNftMetadata(
  rows: readonly { record: TokenTransferRecord; row: InsightsTokenTransfer }[],
  known: ReadonlyMap<string, AddressRecord>,
  options: MetadataOptions,
  config: Pick<InsightsConfig, 'detailsCacheMs'>,
): Promise<void> {
  const instanceKey = (record: TokenTransferRecord) => nftKeys.instance(record.chainId, record.token, record.tokenId ?? '0');
  const addressKey = (record: TokenTransferRecord) => addressKeys.address(record.chainId, record.token);
  const keys = [
    ...rows.map(({ record }) => instanceKey(record)),
    ...rows.map(({ record }) => addressKey(record)).filter((key) => !known.has(keyId(key))),
  ];
  const items = await readJoinedDetails(keys, config);
  for (const { record, row } of rows) {
    const instance = items.get(keyId(instanceKey(record))) as NftInstanceRecord | undefined;
    const contract = (known.get(keyId(addressKey(record))) ?? items.get(keyId(addressKey(record)))) as AddressRecord | undefined;
    row.nft_metadata = {
      ...nftMetadataFields(instance, options),
      ...(instance?.tokenStandard === 'ERC-721' ? { owner_addresses: instance.owner ? [instance.owner] : [] } : {}),
      contract: nftContractOf(record.chainId, record.token, contract),
    };
  }
}
