/**
 * I6 NFT routes, from the explorer's state items (docs/decisions/insights.md, "Tokens and NFTs"):
 *  - I6b/c/d GET /v1/tokens/erc721|erc1155/{ownerAddress}, GET /v1/nfts/balance/{ownerAddress}: the NFTs
 *    an owner holds, one row per token id, in G4 order (ERC-721 then ERC-1155, contract ascending, token
 *    id descending). Round 1, in parallel: the owner's collections (X2, read whole under the read bound:
 *    total_items is exact, the sum of their id counts) and the first `page end` of its G4 holdings
 *    (ownerNftPage); round 2, with `metadata=true`: the page's instances and contracts (one BatchGetItem).
 *  - I6f GET /v1/nfts/{contract_address}: the contract's NFT instances (G3 instance partition, token id
 *    ascending; a state list, state-lists.ts), with the contract's X7 (`contract`, the total) at once.
 *  - I6g GET /v1/nfts/{contract_address}/{token_id}: the instance on each chain (one BatchGetItem).
 * The metadata shown is the document the ingest resolved from a data: token URI, or the one the NFT
 * metadata fetcher stored on the instance for a web URI (G7, `fetched`). Ids (I6, X2, G3, G4, X7, G7):
 * see docs/access-patterns.md.
 */
import { batchGetItems, queryAll, rangeQuery } from '../db/operations';
import { NotFoundError } from '../errors';
import { expandTokenTransfer } from '../table/compact';
import { addressKeys, keyId, nftKeys, TOKEN_TYPE_RANK, tokenTransferKeys, tokenTypeSetKey } from '../table/keys';
import type { AddressRecord, NftCollectionRecord, NftHoldingRecord, NftInstanceRecord } from '../table/records';
import type { InsightsConfig } from './config';
import { readJoinedDetails } from './joined-details';
import { parseAddressOrName, resolveAddresses } from './names';
import { queryInput, RangeTooLargeError } from './range-reader';
import { firstChain, listMeta, planListRequest } from './request';
import type {
  ContractNftsQuery,
  InsightsNftBalance,
  InsightsNftCollection,
  InsightsNftToken,
  NftCollectionQuery,
  NftCollectionResponse,
  NftBalancesResponse,
  NftQuery,
  NftTokensResponse,
  NftsQuery,
  NftTypeName,
  OwnerTokensQuery,
} from './schemas';
import {
  counterOf,
  type MetadataOptions,
  metadataOptions,
  nftContractOf,
  nftMetadataFields,
  nftTypeName,
  readIndexedHeads,
  readStatePage,
  stateTotals,
} from './state-lists';

type NftStandard = 'ERC-721' | 'ERC-1155';
const STANDARD: Record<NftTypeName, NftStandard> = { erc721: 'ERC-721', erc1155: 'ERC-1155' };

interface Request<Q> {
  query: Q;
  host: string | undefined;
}

const planOf = (query: { chain_id?: number[]; chain?: number[]; page?: number; limit?: number }, host: string | undefined) =>
  planListRequest({ page: 0, limit: 1, ...query, sort_by: undefined, sort_order: 'asc', group_by: [], aggregate: [] }, host, {});

// ---------------------------------------------------------------------------------------------------
// An owner's NFTs (X2 + G4)

/** I6b/c/d: `types` empty or both: every NFT (the X2 ALL range holds NFTs only). */
export async function listOwnerNfts(
  { ownerAddress, query, host, types }: Request<OwnerTokensQuery> & { ownerAddress: string; types: readonly NftTypeName[] },
  config: InsightsConfig,
): Promise<NftBalancesResponse> {
  const plan = await planOf(query, host);
  const { owner } = await resolveAddresses({ owner: parseAddressOrName('ownerAddress', ownerAddress) }, plan.chainIds);
  const heads = readIndexedHeads(plan, config);
  const standards = types.length === 1 ? [STANDARD[types[0]!]] : [];
  const skip = plan.page * plan.limit;
  const perChain = await Promise.all(
    plan.chainIds.map(async (chainId) => {
      const page = await ownerNftPage(chainId, [owner.get(chainId)!], standards, undefined, skip, plan.limit, config);
      return { rows: page.rows.map(({ row }) => row), total: page.total };
    }),
  );
  const rows = perChain.flatMap((chain) => chain.rows);
  if (query.metadata) await addNftMetadata(rows, metadataOptions(query, config), config);
  const totals = await stateTotals(
    plan,
    perChain.map((chain) => chain.total),
    config,
    heads,
  );
  return { meta: listMeta(plan, totals, owner.get(firstChain(plan)) ?? ''), data: rows, aggregations: null };
}

/**
 * The page of the owners' NFTs on one chain (owners in the order given, each one's NFTs in G4 order:
 * ERC-721 then ERC-1155, contract ascending, ids descending), optionally of some contracts only, with
 * each row's owner. One round trip, all in parallel: each owner's collections (X2, read whole under the
 * read bound: the total is the sum of their id counts) and the first `skip + take` of its G4 holdings
 * (the standard's prefix when one is asked for; with a contracts filter, one prefix Query per contract
 * and standard when that makes at most MAX_PREFIX_QUERIES Queries, else the holdings filtered by
 * contract under the read bound).
 */
async function ownerNftPage(
  chainId: number,
  owners: readonly string[],
  types: readonly NftStandard[],
  contracts: ReadonlySet<string> | undefined,
  skip: number,
  take: number,
  config: InsightsConfig,
): Promise<{ rows: { owner: string; row: InsightsNftBalance }[]; total: number }> {
  const bound = config.maxItemsReadPerChain;
  const end = skip + take;
  if (end > bound) throw new RangeTooLargeError(chainId, bound, 'A page this deep in an owner’s NFTs');
  const standards: readonly NftStandard[] = types.length === 0 ? ['ERC-721', 'ERC-1155'] : types;
  // X2's ALL range holds NFTs only: both standards read it.
  const typeSet = tokenTypeSetKey(types.length === 1 ? types : undefined);
  const [ranges, holdings] = await Promise.all([
    Promise.all(
      owners.map((owner) =>
        queryAll<NftCollectionRecord>(
          {
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': addressKeys.nftCollections(chainId, owner, typeSet).pk },
          },
          { maxRead: bound + 1 },
        ),
      ),
    ),
    Promise.all(owners.map((owner) => readHoldings(chainId, owner, standards, contracts, end, bound, owners.length))),
  ]);
  if (ranges.reduce((sum, range) => sum + range.scanned, 0) > bound)
    throw new RangeTooLargeError(chainId, bound, 'A list of an owner’s collections');
  const rows: { owner: string; row: InsightsNftBalance }[] = [];
  let offset = 0;
  owners.forEach((owner, index) => {
    const count = ranges[index]!.items.filter((entry) => !contracts || contracts.has(entry.contract)).reduce(
      (sum, collection) => sum + (collection.distinctTokenIds ?? collection.instances.length),
      0,
    );
    const from = Math.max(skip - offset, 0);
    const to = Math.min(end - offset, count);
    offset += count;
    for (const holding of holdings[index]!.slice(from, Math.max(from, to))) {
      rows.push({
        owner,
        row: {
          chain_id: chainId,
          token_address: holding.contract,
          token_id: holding.tokenId,
          balance: holding.value,
          token_type: nftTypeName(holding.tokenStandard),
        } satisfies InsightsNftBalance as InsightsNftBalance,
      });
    }
  });
  return { rows, total: offset };
}

/** At most this many prefix Queries for a contracts filter (owners x contracts x standards); past it, a filtered read. */
const MAX_PREFIX_QUERIES = 6;

/** The first `limit` G4 holdings of an owner, of the standards and contracts asked for, in G4 order. */
async function readHoldings(
  chainId: number,
  owner: string,
  standards: readonly NftStandard[],
  contracts: ReadonlySet<string> | undefined,
  limit: number,
  bound: number,
  owners: number,
): Promise<NftHoldingRecord[]> {
  if (limit === 0) return [];
  const pk = addressKeys.nftHoldings(chainId, owner).pk;
  if (contracts && owners * contracts.size * standards.length <= MAX_PREFIX_QUERIES) {
    const parts = await Promise.all(
      [...contracts].flatMap((contract) =>
        standards.map(
          async (standard) =>
            (await queryAll<NftHoldingRecord>(rangeQuery(addressKeys.nftHoldingsOf(chainId, owner, standard, contract)), { limit })).items,
        ),
      ),
    );
    // Each part is in G4 order; their union in G4 (sort key) order.
    const sortKey = (holding: NftHoldingRecord) => addressKeys.nftHoldingSortKey(holding.tokenStandard, holding.contract, holding.tokenId);
    return parts
      .flat()
      .map((holding) => ({ holding, key: sortKey(holding) }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .slice(0, limit)
      .map(({ holding }) => holding);
  }
  const values: Record<string, string> = { ':pk': pk };
  let condition = 'pk = :pk';
  if (standards.length === 1) {
    values[':prefix'] = `${TOKEN_TYPE_RANK[standards[0]!]}#`;
    condition += ' AND begins_with(sk, :prefix)';
  }
  const filter = contracts ? [...contracts].map((contract, i) => [`:c${i}`, contract] as const) : [];
  for (const [name, contract] of filter) values[name] = contract;
  const read = await queryAll<NftHoldingRecord>(
    {
      KeyConditionExpression: condition,
      ExpressionAttributeValues: values,
      ...(filter.length > 0
        ? {
            FilterExpression: `#contract IN (${filter.map(([name]) => name).join(', ')})`,
            ExpressionAttributeNames: { '#contract': 'contract' },
          }
        : {}),
    },
    { limit, maxRead: bound + 1 },
  );
  if (!read.complete && read.items.length < limit && read.scanned > bound)
    throw new RangeTooLargeError(chainId, bound, 'The NFTs of these contracts among an owner’s');
  return read.items;
}

/**
 * Metadata of the page's NFTs: their instance items (with the metadata fetched for them, G7) and their
 * contracts' address items, one BatchGetItem.
 */
export async function addNftMetadata(
  rows: (InsightsNftBalance | InsightsNftToken)[],
  options: MetadataOptions,
  config: Pick<InsightsConfig, 'detailsCacheMs'>,
): Promise<void> {
  if (rows.length === 0) return;
  const contractOf = (row: InsightsNftBalance | InsightsNftToken) => ('token_address' in row ? row.token_address : row.contract_address);
  const instanceKey = (row: InsightsNftBalance | InsightsNftToken) => nftKeys.instance(row.chain_id, contractOf(row), row.token_id);
  const addressKey = (row: InsightsNftBalance | InsightsNftToken) => addressKeys.address(row.chain_id, contractOf(row));
  const items = await readJoinedDetails([...rows.map(instanceKey), ...rows.map(addressKey)], config);
  for (const row of rows) {
    Object.assign(row, nftMetadataFields(items.get(keyId(instanceKey(row))) as NftInstanceRecord | undefined, options));
    row.contract = nftContractOf(row.chain_id, contractOf(row), items.get(keyId(addressKey(row))) as AddressRecord | undefined);
  }
}

/**
 * I6o GET /v1/nfts?owner_address=: the NFTs of one or more owners (repeatable, at most 10), optionally of
 * some contracts (`contract_address`, repeatable): I6d's reads for each owner (round 1 in parallel), rows
 * in Insight's NFT shape with the instance's metadata and the owner (one BatchGetItem for the page).
 */
export async function listNfts({ query, host }: Request<NftsQuery>, config: InsightsConfig): Promise<NftTokensResponse> {
  const plan = await planOf(query, host);
  const given = Object.fromEntries(
    query.owner_address.map((owner, i) => [`owner_address[${i}]`, parseAddressOrName('owner_address', owner)]),
  );
  const contractsGiven = Object.fromEntries(
    (query.contract_address ?? []).map((contract, i) => [`contract_address[${i}]`, parseAddressOrName('contract_address', contract)]),
  );
  const resolved = await resolveAddresses({ ...given, ...contractsGiven }, plan.chainIds);
  const valuesOn = (chainId: number, prefix: string) => [
    ...new Set(
      Object.entries(resolved)
        .filter(([parameter]) => parameter.startsWith(prefix))
        .map(([, byChain]) => byChain!.get(chainId)!),
    ),
  ];
  const skip = plan.page * plan.limit;
  const heads = readIndexedHeads(plan, config);
  const perChain = await Promise.all(
    plan.chainIds.map((chainId) => {
      const contracts = valuesOn(chainId, 'contract_address');
      return ownerNftPage(
        chainId,
        valuesOn(chainId, 'owner_address'),
        [],
        contracts.length > 0 ? new Set(contracts) : undefined,
        skip,
        plan.limit,
        config,
      );
    }),
  );
  const page = perChain.flatMap((chain) => chain.rows);
  const instanceKey = ({ row }: (typeof page)[number]) => nftKeys.instance(row.chain_id, row.token_address, row.token_id);
  const addressKey = ({ row }: (typeof page)[number]) => addressKeys.address(row.chain_id, row.token_address);
  const items = await readJoinedDetails([...page.map(instanceKey), ...page.map(addressKey)], config);
  const rows = page.map((entry): InsightsNftToken => {
    const instance = items.get(keyId(instanceKey(entry))) as NftInstanceRecord | undefined;
    return {
      chain_id: entry.row.chain_id,
      contract_address: entry.row.token_address,
      token_id: entry.row.token_id,
      token_type: entry.row.token_type,
      last_updated_block_number: String(instance?.updatedAtBlock ?? ''),
      balance: entry.row.balance,
      owner_addresses: [entry.owner],
      ...nftMetadataFields(instance, metadataOptions(query, config)),
      contract: nftContractOf(
        entry.row.chain_id,
        entry.row.token_address,
        items.get(keyId(addressKey(entry))) as AddressRecord | undefined,
      ),
    };
  });
  const totals = await stateTotals(
    plan,
    perChain.map((chain) => chain.total),
    config,
    heads,
  );
  return { meta: listMeta(plan, totals, valuesOn(firstChain(plan), 'owner_address')[0] ?? ''), data: rows, aggregations: null };
}

// ---------------------------------------------------------------------------------------------------
// A contract's NFTs (G3 instances)

/**
 * One instance as a row. `balance`: ERC-721 1 while it has an owner (0 once burned); ERC-1155 its total
 * supply (totalSupply(id), else the sum of the balances the ingest holds). `owner_addresses` with
 * include_owners: the ERC-721 owner; ERC-1155 holders of an id have no range (not listed, see the decisions).
 */
function instanceRow(instance: NftInstanceRecord, includeOwners: boolean, options: MetadataOptions): InsightsNftToken {
  const erc721 = instance.tokenStandard === 'ERC-721';
  return {
    chain_id: instance.chainId,
    contract_address: instance.contract,
    token_id: instance.tokenId,
    token_type: nftTypeName(instance.tokenStandard),
    last_updated_block_number: String(instance.updatedAtBlock),
    balance: erc721 ? (instance.owner ? '1' : '0') : (instance.totalSupply ?? instance.heldSupply ?? '0'),
    ...nftMetadataFields(instance, options),
    ...(includeOwners && erc721 ? { owner_addresses: instance.owner ? [instance.owner] : [] } : {}),
  };
}

/** Instance items complete enough to show (the balance transitions may create one with its counters only). */
const isInstance = (item: unknown): item is NftInstanceRecord => (item as NftInstanceRecord | undefined)?.kind === 'nftInstance';

/**
 * I6f: the NFTs of a contract on each chain, token id ascending. One round trip: each chain's page of
 * the instance partition (G3) and the contracts' address items (X7, one BatchGetItem for every chain:
 * `contract`, and `total_items` from their `nftInstances` counter).
 */
export async function listContractNfts(
  { contractAddress, query, host }: Request<ContractNftsQuery> & { contractAddress: string },
  config: InsightsConfig,
): Promise<NftTokensResponse> {
  const plan = await planOf(query, host);
  const { contract } = await resolveAddresses({ contract: parseAddressOrName('contract_address', contractAddress) }, plan.chainIds);
  const heads = readIndexedHeads(plan, config);
  const addressKey = (chainId: number) => addressKeys.address(chainId, contract.get(chainId)!);
  const skip = plan.page * plan.limit;
  const [perChain, contracts] = await Promise.all([
    Promise.all(
      plan.chainIds.map((chainId) => readStatePage(chainId, [instancesRange(chainId, contract.get(chainId)!)], skip, plan.limit, config)),
    ),
    batchGetItems<AddressRecord>(plan.chainIds.map(addressKey)),
  ]);
  const instances = plan.chainIds.flatMap((_chainId, i) => (perChain[i] as unknown[]).filter(isInstance));
  const options = metadataOptions(query, config);
  const rows = instances.map((item) => {
    const row = instanceRow(item, query.include_owners, options);
    row.contract = nftContractOf(item.chainId, row.contract_address, contracts.get(keyId(addressKey(item.chainId))));
    return row;
  });
  const totals = await stateTotals(
    plan,
    plan.chainIds.map((chainId) => counterOf(contracts.get(keyId(addressKey(chainId)))?.nftInstances)),
    config,
    heads,
  );
  return { meta: listMeta(plan, totals, contract.get(firstChain(plan)) ?? ''), data: rows, aggregations: null };
}

/** G3: a contract's instance partition, token id ascending. */
export const instancesRange = (chainId: number, contract: string) =>
  queryInput({ pk: nftKeys.instance(chainId, contract, 0n).pk, checks: [], order: 'asc' });

/** I6g: one NFT on each requested chain that has it (404 when none has). */
export async function getNft(
  { contractAddress, tokenId, query, host }: Request<NftQuery> & { contractAddress: string; tokenId: string },
  config: InsightsConfig,
): Promise<NftTokensResponse> {
  const plan = await planOf(query, host);
  const { contract } = await resolveAddresses({ contract: parseAddressOrName('contract_address', contractAddress) }, plan.chainIds);
  const keys = plan.chainIds.flatMap((chainId) => [
    nftKeys.instance(chainId, contract.get(chainId)!, tokenId),
    addressKeys.address(chainId, contract.get(chainId)!),
  ]);
  const items = await batchGetItems(keys);
  const rows = plan.chainIds.flatMap((chainId) => {
    const instance = items.get(keyId(nftKeys.instance(chainId, contract.get(chainId)!, tokenId)));
    if (!isInstance(instance)) return [];
    const row = instanceRow(instance, query.include_owners, metadataOptions(query, config));
    row.contract = nftContractOf(
      chainId,
      instance.contract,
      items.get(keyId(addressKeys.address(chainId, instance.contract))) as AddressRecord | undefined,
    );
    return [row];
  });
  if (rows.length === 0) {
    throw new NotFoundError(`token ${tokenId} of ${contract.get(firstChain(plan))} is not indexed on chain ${plan.chainIds.join(', ')}`);
  }
  const totals = await stateTotals({ ...plan, limit: 1 }, [rows.length], config);
  return { meta: listMeta(plan, { ...totals, total_pages: 1 }, contract.get(firstChain(plan)) ?? ''), data: rows, aggregations: null };
}

// ---------------------------------------------------------------------------------------------------
// A collection (X7; stats: bounded reads)

/**
 * I6p: an NFT contract as a collection on each requested chain that indexes it as one (404 when none
 * does): its address item (X7: name, symbol, standard, one BatchGetItem). `include_stats=true` adds
 * `owner_count` (the holders counter the ingest keeps on X7), `token_count` and `total_quantity` (its
 * instances, G3, read whole: ERC-721 ids with an owner, ERC-1155 the sum of the ids' supplies) and
 * `mint_count` (its transfers, N8, read whole): bounded reads, a 400 past INSIGHTS_MAX_ITEMS_READ_PER_CHAIN.
 */
export async function getNftCollection(
  { contractAddress, query, host }: Request<NftCollectionQuery> & { contractAddress: string },
  config: InsightsConfig,
): Promise<NftCollectionResponse> {
  const plan = await planOf(query, host);
  const { contract } = await resolveAddresses({ contract: parseAddressOrName('contract_address', contractAddress) }, plan.chainIds);
  const items = await batchGetItems<AddressRecord>(plan.chainIds.map((chainId) => addressKeys.address(chainId, contract.get(chainId)!)));
  const rows = await Promise.all(
    plan.chainIds.map(async (chainId): Promise<InsightsNftCollection | undefined> => {
      const address = contract.get(chainId)!;
      const item = items.get(keyId(addressKeys.address(chainId, address)));
      if (item?.tokenType !== 'ERC-721' && item?.tokenType !== 'ERC-1155') return undefined;
      const row: InsightsNftCollection = {
        chain_id: chainId,
        contract_address: address,
        ...(item.tokenName ? { name: item.tokenName } : {}),
        ...(item.tokenSymbol ? { symbol: item.tokenSymbol } : {}),
        token_type: nftTypeName(item.tokenType),
      };
      if (query.include_stats) row.stats = await collectionStats(chainId, address, item, config);
      return row;
    }),
  );
  const data = rows.filter((row): row is InsightsNftCollection => row !== undefined);
  if (data.length === 0)
    throw new NotFoundError(`${contract.get(firstChain(plan))} is not an NFT contract indexed on chain ${plan.chainIds.join(', ')}`);
  const totals = await stateTotals({ ...plan, limit: 1 }, [data.length], config);
  return { meta: listMeta(plan, { ...totals, total_pages: 1 }, contract.get(firstChain(plan)) ?? ''), data, aggregations: null };
}

async function collectionStats(chainId: number, contract: string, item: AddressRecord, config: InsightsConfig) {
  const bound = config.maxItemsReadPerChain;
  const read = (pk: string, projection?: { expression: string; names: Record<string, string> }) =>
    queryAll(
      {
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ...(projection ? { ProjectionExpression: projection.expression, ExpressionAttributeNames: projection.names } : {}),
      },
      { maxRead: bound + 1 },
    );
  // Transfers are packed items (compact.ts): read whole (a projection bills the same units) and expanded.
  const [instances, transfers] = await Promise.all([
    read(nftKeys.instance(chainId, contract, 0n).pk, {
      expression: '#kind, #owner, totalSupply',
      names: { '#kind': 'kind', '#owner': 'owner' },
    }),
    read(tokenTransferKeys.byToken(chainId, contract).pk),
  ]);
  if (instances.scanned > bound || transfers.scanned > bound) {
    throw new RangeTooLargeError(
      chainId,
      bound,
      `The stats of ${contract} (more than ${bound} tokens or transfers; no running counts are kept for them)`,
    );
  }
  const tokens = (instances.items as unknown as NftInstanceRecord[]).filter((instance) => instance.kind === 'nftInstance');
  const quantity =
    item.tokenType === 'ERC-721'
      ? tokens.filter((instance) => instance.owner).length
      : Number(tokens.reduce((sum, instance) => sum + BigInt(instance.totalSupply ?? '0'), 0n));
  return {
    owner_count: Math.max(0, Number(item.holders ?? 0)),
    token_count: tokens.length,
    mint_count: transfers.items.filter((transfer) => expandTokenTransfer(transfer).transferType === 'mint').length,
    total_quantity: quantity,
  };
}
