/**
 * I6l–n: holders of a token (docs/decisions/insights.md, "Tokens and NFTs").
 *  - I6l GET /v1/tokens/owners?contract_address= (ERC-20 holders) and the ERC-1155 cases of I6m/n: the
 *    token's holders range (T1, on gsi2 of the balance items with a positive balance: ERC-20 holders
 *    largest first; an ERC-1155 collection's (holder, id) pairs by id, then balance desc; one id's
 *    holders its prefix), a state list (state-lists.ts). `total_items` from the counters the ingest keeps
 *    in the balance transitions' transactions: X7 `holders` (ERC-20), X7 `idHolders` (an ERC-1155
 *    collection's pairs), the instance's `holders` (one ERC-1155 id).
 *  - I6m GET /v1/nfts/owners/{contract_address} of an ERC-721: its instances (G3, token id ascending,
 *    a state list) carry their owners, `total_items` X7 `nftInstances`; I6n .../{token_id} of an ERC-721:
 *    the instance's owner.
 * A contract's standard is on its address item (X7). The first page reads it in the same round trip as
 * the lists it may need (for I6m both T1 and the instance partition, each to the page's end, then keeps
 * the standard's); a later page reads X7 first, then the standard's range only: two round trips at most.
 * Ids (I6, T1, G3, X7): see docs/access-patterns.md.
 */
import { batchGetItems, rangeQuery, type QueryInput } from '../db/operations';
import { addressKeys, holderKeys, keyId, nftKeys } from '../table/keys';
import type { AddressRecord, HolderBalanceRecord, NftInstanceRecord } from '../table/records';
import type { InsightsConfig } from './config';
import { parseAddressOrName, resolveAddresses } from './names';
import { queryInput } from './range-reader';
import { firstChain, listMeta, planListRequest } from './request';
import type { InsightsMeta } from './schemas';
import { counterOf, readIndexedHeads, readStatePage, stateTotals } from './state-lists';

interface Request<Q> {
  query: Q;
  host: string | undefined;
}

export interface OwnersQuery {
  chain_id?: number[];
  chain?: number[];
  page: number;
  limit: number;
  include_balances?: boolean;
}

/** One holder of a token (id), as Insight's owner routes answer with include_balances=true and /v1/tokens/owners. */
export interface OwnerRow {
  chain_id: string;
  token_address: string;
  owner_address: string;
  token_id?: string;
  balance: string;
}
/** Without include_balances: the page's owner addresses per chain. */
export interface OwnerAddressesRow {
  chain_id: string;
  owner_addresses: string[];
}
export interface OwnersResponse {
  meta: InsightsMeta;
  data: (OwnerRow | OwnerAddressesRow)[];
  aggregations: null;
}

const planOf = (query: OwnersQuery, host: string | undefined) =>
  planListRequest({ ...query, sort_by: undefined, sort_order: 'desc', group_by: [], aggregate: [] }, host, {});

const ownerRow = (record: HolderBalanceRecord): OwnerRow => ({
  chain_id: String(record.chainId),
  token_address: record.token,
  owner_address: record.holder,
  ...(record.tokenId !== null ? { token_id: record.tokenId } : {}),
  balance: record.value,
});

/** T1: a token's holders (ERC-20), an ERC-1155 collection's (holder, id) pairs, or one id's holders; read forward. */
const holdersRange = (chainId: number, token: string, tokenId?: string): QueryInput => ({
  ...rangeQuery(tokenId === undefined ? holderKeys.holders(chainId, token) : holderKeys.holdersOfId(chainId, token, tokenId)),
  ScanIndexForward: true,
});

/** G3: an NFT contract's instance partition, token id ascending. */
const instancesRange = (chainId: number, contract: string): QueryInput =>
  queryInput({ pk: nftKeys.instance(chainId, contract, 0n).pk, checks: [], order: 'asc' });

/** One chain's page of holders and its total. */
interface ChainOwners {
  rows: OwnerRow[];
  total: number;
}

/** I6l: the holders of an ERC-20 token, largest balance first (then holder address). */
export async function listTokenOwners(
  { query, host }: Request<OwnersQuery & { contract_address: string }>,
  config: InsightsConfig,
): Promise<OwnersResponse> {
  const plan = await planOf(query, host);
  const { contract } = await resolveAddresses({ contract: parseAddressOrName('contract_address', query.contract_address) }, plan.chainIds);
  const heads = readIndexedHeads(plan, config);
  const skip = plan.page * plan.limit;
  const addressKey = (chainId: number) => addressKeys.address(chainId, contract.get(chainId)!);
  // The token's address item (its standard and `holders`) with the holders' page, in one round trip.
  const [pages, tokens] = await Promise.all([
    Promise.all(
      plan.chainIds.map((chainId) => readStatePage(chainId, [holdersRange(chainId, contract.get(chainId)!)], skip, plan.limit, config)),
    ),
    batchGetItems<AddressRecord>(plan.chainIds.map(addressKey)),
  ]);
  const perChain = plan.chainIds.map((chainId, i): ChainOwners => {
    const token = tokens.get(keyId(addressKey(chainId)));
    if (token?.tokenType !== 'ERC-20') return { rows: [], total: 0 };
    const records = (pages[i] as unknown as HolderBalanceRecord[]).filter((record) => record.tokenStandard === 'ERC-20');
    return { rows: records.map(ownerRow), total: counterOf(token.holders) };
  });
  const totals = await stateTotals(
    plan,
    perChain.map((chain) => chain.total),
    config,
    heads,
  );
  return {
    meta: listMeta(plan, totals, contract.get(firstChain(plan)) ?? ''),
    data: perChain.flatMap((chain) => chain.rows),
    aggregations: null,
  };
}

/** What one chain's owners list read before its standard was known (the first page), or nothing yet. */
interface Speculative {
  holders?: Promise<HolderBalanceRecord[]>;
  instances?: Promise<NftInstanceRecord[]>;
}

/**
 * I6m / I6n: the owners of an NFT contract, or of one of its token ids. ERC-721: instance order (token
 * id ascending); ERC-1155: T1 order (id ascending, then balance desc). Anything else lists nothing.
 */
export async function listNftOwners(
  { contractAddress, tokenId, query, host }: Request<OwnersQuery> & { contractAddress: string; tokenId?: string },
  config: InsightsConfig,
): Promise<OwnersResponse> {
  const plan = await planOf(query, host);
  const { contract } = await resolveAddresses({ contract: parseAddressOrName('contract_address', contractAddress) }, plan.chainIds);
  const heads = readIndexedHeads(plan, config);
  const skip = plan.page * plan.limit;
  const take = plan.limit;
  const addressOn = (chainId: number) => contract.get(chainId)!;
  const addressKey = (chainId: number) => addressKeys.address(chainId, addressOn(chainId));
  const instanceKey = (chainId: number) => nftKeys.instance(chainId, addressOn(chainId), tokenId!);
  // Round 1: the contracts' address items (the standard and the counters) and, for one id, its instances
  // (the ERC-721 owner, the ERC-1155 holders count): one BatchGetItem for every chain. On the first page,
  // in the same round trip, the lists either standard would need (a later page reads X7 first: reading
  // both lists to a deep page's end would read twice what it needs).
  const speculative = plan.chainIds.map((chainId): Speculative => {
    if (skip > 0) return {};
    const holders = readStatePage(chainId, [holdersRange(chainId, addressOn(chainId), tokenId)], 0, take, config);
    const instances =
      tokenId === undefined ? readStatePage(chainId, [instancesRange(chainId, addressOn(chainId))], 0, take, config) : undefined;
    for (const read of [holders, instances]) read?.catch(() => undefined); // (awaited below, or not needed)
    return {
      holders: holders as unknown as Promise<HolderBalanceRecord[]>,
      instances: instances as unknown as Promise<NftInstanceRecord[]> | undefined,
    };
  });
  const items = await batchGetItems([...plan.chainIds.map(addressKey), ...(tokenId === undefined ? [] : plan.chainIds.map(instanceKey))]);
  const perChain = await Promise.all(
    plan.chainIds.map(async (chainId, i): Promise<ChainOwners> => {
      const address = addressOn(chainId);
      const item = items.get(keyId(addressKey(chainId))) as AddressRecord | undefined;
      const instance = tokenId === undefined ? undefined : (items.get(keyId(instanceKey(chainId))) as NftInstanceRecord | undefined);
      const early = speculative[i]!;
      if (item?.tokenType === 'ERC-1155') {
        const records =
          (await early.holders) ??
          ((await readStatePage(
            chainId,
            [holdersRange(chainId, address, tokenId)],
            skip,
            take,
            config,
          )) as unknown as HolderBalanceRecord[]);
        return {
          rows: records.filter((record) => record.tokenId !== null).map(ownerRow),
          total: counterOf(tokenId === undefined ? item.idHolders : instance?.holders),
        };
      }
      if (item?.tokenType !== 'ERC-721') return { rows: [], total: 0 };
      if (tokenId !== undefined) {
        const rows: OwnerRow[] = instance?.owner
          ? [{ chain_id: String(chainId), token_address: address, owner_address: instance.owner, token_id: tokenId, balance: '1' }]
          : [];
        return { rows: rows.slice(skip, skip + take), total: rows.length };
      }
      // The contract's instances, token id ascending; a burned one (no owner) has no row.
      const instances =
        (await early.instances) ??
        ((await readStatePage(chainId, [instancesRange(chainId, address)], skip, take, config)) as unknown as NftInstanceRecord[]);
      const rows = instances
        .filter((entry) => entry.kind === 'nftInstance' && entry.owner)
        .map((entry) => ({
          chain_id: String(chainId),
          token_address: address,
          owner_address: entry.owner!,
          token_id: entry.tokenId,
          balance: '1',
        }));
      return { rows, total: counterOf(item.nftInstances) };
    }),
  );
  const totals = await stateTotals(
    plan,
    perChain.map((chain) => chain.total),
    config,
    heads,
  );
  const meta = listMeta(plan, totals, contract.get(firstChain(plan)) ?? '');
  if (query.include_balances) return { meta, data: perChain.flatMap((chain) => chain.rows), aggregations: null };
  // Insight's default shape: the owner addresses of the page, per chain.
  const data = plan.chainIds.flatMap((chainId, i) => {
    const rows = perChain[i]!.rows;
    return rows.length > 0 ? [{ chain_id: String(chainId), owner_addresses: [...new Set(rows.map((row) => row.owner_address))] }] : [];
  });
  return { meta, data, aggregations: null };
}
