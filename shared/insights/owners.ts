/**
 * I6l–n: holders of a token, and the NFTs of several owners (docs/decisions/insights.md, "Tokens and NFTs").
 *  - I6l GET /v1/tokens/owners?contract_address= (ERC-20 holders) and the ERC-1155 cases of I6m/n:
 *    the table has no holders-by-token range, so they are bounded reads: the token's transfers (N8,
 *    read whole, at most INSIGHTS_MAX_ITEMS_READ_PER_CHAIN items; past it a 400 that says the token has
 *    too many transfers for this bounded read) give every address that ever received
 *    it, whose current balances (G3) are read with one BatchGetItem; holders are those with a positive
 *    balance, largest first.
 *  - I6m GET /v1/nfts/owners/{contract_address} of an ERC-721: its instances (G3, token id ascending,
 *    a state list) carry their owners; I6n .../{token_id} of an ERC-721: the instance's owner (GetItem).
 * A contract's standard comes from its address item (X7), read with one BatchGetItem before the lists.
 * Ids (I6, N8, G3, X7): see docs/access-patterns.md.
 */
import { batchGetItems, queryAll } from '../db/operations';
import { addressKeys, keyId, nftKeys, tokenTransferKeys } from '../table/keys';
import type { AddressRecord, BalanceRecord, NftInstanceRecord } from '../table/records';
import type { InsightsConfig } from './config';
import { parseAddressOrName, resolveAddresses } from './names';
import { queryInput, RangeTooLargeError } from './range-reader';
import { firstChain, listMeta, planListRequest } from './request';
import type { InsightsMeta } from './schemas';
import { readStatePage, stateTotals } from './state-lists';

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

/** Every holder with a positive balance, from the token's transfers (bounded) and the balance items. */
async function holdersFromTransfers(
  chainId: number,
  token: string,
  tokenId: string | undefined,
  config: InsightsConfig,
): Promise<BalanceRecord[]> {
  const bound = config.maxItemsReadPerChain;
  const input = queryInput({ pk: tokenTransferKeys.byToken(chainId, token).pk, checks: [], order: 'asc' });
  const read = await queryAll(
    { ...input, ProjectionExpression: '#to, tokenId', ExpressionAttributeNames: { '#to': 'to' } },
    { maxRead: bound + 1 },
  );
  if (read.scanned > bound) {
    throw new RangeTooLargeError(
      chainId,
      bound,
      `Listing the holders of ${token} (it has more than ${bound} transfers; no range holds its holders)`,
    );
  }
  const pairs = new Map<string, { holder: string; tokenId: string | undefined }>();
  for (const item of read.items) {
    const to = String(item.to ?? '');
    const id = (item.tokenId as string | undefined) ?? undefined;
    if (!to || /^0x0{40}$/.test(to)) continue;
    if (tokenId !== undefined && id !== tokenId) continue;
    pairs.set(`${to}|${id ?? '-'}`, { holder: to, tokenId: id });
  }
  const keys = [...pairs.values()].map(({ holder, tokenId: id }) => addressKeys.balance(chainId, holder, token, id));
  const found = keys.length > 0 ? await batchGetItems<BalanceRecord>(keys) : new Map<string, BalanceRecord>();
  return keys
    .map((key) => found.get(keyId(key)))
    .filter((record): record is BalanceRecord => record !== undefined && BigInt(record.value) > 0n)
    .sort((a, b) => {
      const [x, y] = [BigInt(a.value), BigInt(b.value)];
      return x === y ? a.holder.localeCompare(b.holder) || Number(BigInt(a.tokenId ?? 0) - BigInt(b.tokenId ?? 0)) : x > y ? -1 : 1;
    });
}

const ownerRow = (record: BalanceRecord): OwnerRow => ({
  chain_id: String(record.chainId),
  token_address: record.token,
  owner_address: record.holder,
  ...(record.tokenId !== null ? { token_id: record.tokenId } : {}),
  balance: record.value,
});

/** The address items of a contract on every chain (its standard), one BatchGetItem. */
async function standardsOf(chainIds: readonly number[], contract: Map<number, string>) {
  const keys = chainIds.map((chainId) => addressKeys.address(chainId, contract.get(chainId)!));
  const items = await batchGetItems<AddressRecord>(keys);
  return (chainId: number) => items.get(keyId(addressKeys.address(chainId, contract.get(chainId)!)))?.tokenType ?? null;
}

/** I6l: the holders of an ERC-20 token, largest balance first. */
export async function listTokenOwners(
  { query, host }: Request<OwnersQuery & { contract_address: string }>,
  config: InsightsConfig,
): Promise<OwnersResponse> {
  const plan = await planOf(query, host);
  const { contract } = await resolveAddresses({ contract: parseAddressOrName('contract_address', query.contract_address) }, plan.chainIds);
  const skip = plan.page * plan.limit;
  const perChain = await Promise.all(
    plan.chainIds.map(async (chainId) => {
      const holders = await holdersFromTransfers(chainId, contract.get(chainId)!, undefined, config);
      const fungible = holders.filter((record) => record.tokenStandard === 'ERC-20');
      return { rows: fungible.slice(skip, skip + plan.limit).map(ownerRow), total: fungible.length };
    }),
  );
  const totals = await stateTotals(
    plan,
    perChain.map((chain) => chain.total),
    config,
  );
  return {
    meta: listMeta(plan, totals, contract.get(firstChain(plan)) ?? ''),
    data: perChain.flatMap((chain) => chain.rows),
    aggregations: null,
  };
}

/** I6m / I6n: the owners of an NFT contract, or of one of its token ids. */
export async function listNftOwners(
  { contractAddress, tokenId, query, host }: Request<OwnersQuery> & { contractAddress: string; tokenId?: string },
  config: InsightsConfig,
): Promise<OwnersResponse> {
  const plan = await planOf(query, host);
  const { contract } = await resolveAddresses({ contract: parseAddressOrName('contract_address', contractAddress) }, plan.chainIds);
  const standardOn = await standardsOf(plan.chainIds, contract);
  const skip = plan.page * plan.limit;
  const perChain = await Promise.all(
    plan.chainIds.map(async (chainId): Promise<{ rows: OwnerRow[]; total: number }> => {
      const address = contract.get(chainId)!;
      const standard = standardOn(chainId);
      if (standard === 'ERC-1155') {
        const holders = await holdersFromTransfers(chainId, address, tokenId, config);
        const perId = holders.filter((record) => record.tokenId !== null);
        return { rows: perId.slice(skip, skip + plan.limit).map(ownerRow), total: perId.length };
      }
      if (standard !== 'ERC-721') return { rows: [], total: 0 };
      if (tokenId !== undefined) {
        const found = await batchGetItems<NftInstanceRecord>([nftKeys.instance(chainId, address, tokenId)]);
        const instance = found.get(keyId(nftKeys.instance(chainId, address, tokenId)));
        const rows = instance?.owner
          ? [{ chain_id: String(chainId), token_address: address, owner_address: instance.owner, token_id: tokenId, balance: '1' }]
          : [];
        return { rows: rows.slice(skip, skip + plan.limit), total: rows.length };
      }
      // The contract's instances, token id ascending; a burned one (no owner) has no row.
      const read = await readStatePage(
        chainId,
        [{ pk: nftKeys.instance(chainId, address, 0n).pk, checks: [], order: 'asc' }],
        skip,
        plan.limit,
        config,
      );
      const rows = (read.items as unknown as NftInstanceRecord[])
        .filter((instance) => instance.kind === 'nftInstance' && instance.owner)
        .map((instance) => ({
          chain_id: String(chainId),
          token_address: address,
          owner_address: instance.owner!,
          token_id: instance.tokenId,
          balance: '1',
        }));
      return { rows, total: read.total };
    }),
  );
  const totals = await stateTotals(
    plan,
    perChain.map((chain) => chain.total),
    config,
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
