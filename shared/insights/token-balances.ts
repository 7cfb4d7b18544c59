/**
 * I6a GET /v1/tokens/erc20/{ownerAddress} and I6e GET /v1/tokens: ERC-20 balances of owners, from the
 * explorer's balance listings (X1, the owner's ERC-20 range on gsi3, value desc) and, for named tokens, the
 * balance items themselves (G3, one BatchGetItem). Balances are balanceOf as read by the ingest at the
 * last block that touched them. `total_items` is the owners' X10 counts of ERC-20 balances (one
 * BatchGetItem for every chain, beside the pages: one round trip). `metadata=true` adds name / symbol /
 * decimals from the tokens' address items (X7, one BatchGetItem for the page: round 2).
 * Ids (I6, X1, X10, G3, X7): see docs/access-patterns.md.
 */
import { batchGetItems, rangeQuery, type Item, type QueryInput } from '../db/operations';
import { InvalidRequestError } from '../errors';
import { addressKeys, compareSortKeys, keyId } from '../table/keys';
import type { AddressRecord, BalanceCountsRecord, BalanceRecord } from '../table/records';
import type { InsightsConfig } from './config';
import { parseAddressOrName, resolveAddresses } from './names';
import { RangeTooLargeError } from './range-reader';
import { firstChain, listMeta, planListRequest } from './request';
import type { Erc20BalancesResponse, InsightsErc20Balance, OwnerTokensQuery, TokensQuery } from './schemas';
import { counterOf, readIndexedHeads, readStatePage, stateTotals } from './state-lists';

interface Request<Q> {
  query: Q;
  host: string | undefined;
}

/** The list plan of a balances route: paging and chains only (no aggregation, no sort_by of its own). */
function planOf(query: OwnerTokensQuery, host: string | undefined, sortOrder: 'asc' | 'desc' = 'desc') {
  return planListRequest({ ...query, sort_by: undefined, sort_order: sortOrder, group_by: [], aggregate: [] }, host, {});
}

/** I6a: the ERC-20 balances of one owner on each chain, largest first. */
export async function listOwnerErc20Balances(
  { ownerAddress, query, host }: Request<OwnerTokensQuery> & { ownerAddress: string },
  config: InsightsConfig,
): Promise<Erc20BalancesResponse> {
  const plan = await planOf(query, host);
  const { owner } = await resolveAddresses({ owner: parseAddressOrName('ownerAddress', ownerAddress) }, plan.chainIds);
  const heads = readIndexedHeads(plan, config);
  const ownersOn = (chainId: number) => [owner.get(chainId)!];
  const [perChain, counts] = await Promise.all([
    Promise.all(
      plan.chainIds.map((chainId) =>
        readStatePage(chainId, [balancesRange(chainId, owner.get(chainId)!, 'desc')], plan.page * plan.limit, plan.limit, config),
      ),
    ),
    erc20Counts(plan.chainIds, ownersOn),
  ]);
  const rows = perChain.flatMap((items) => items.map((item) => balanceRow(item as unknown as BalanceRecord)));
  if (query.metadata) await addErc20Metadata(rows);
  const totals = await stateTotals(plan, plan.chainIds.map(counts), config, heads);
  return { meta: listMeta(plan, totals, owner.get(firstChain(plan)) ?? ''), data: rows, aggregations: null };
}

/**
 * I6e: the ERC-20 balances of one or more owners (`owner_address`, repeatable), by balance (the X1
 * order, either way) or by token address (each owner's whole range read, under the read bound, and
 * sorted). With `token_address` the (owner, token) balance items are read directly: one BatchGetItem.
 * Prices (`token_price`, `usd_value`) need a price source this service does not have: a 400.
 */
export async function listTokens({ query, host }: Request<TokensQuery>, config: InsightsConfig): Promise<Erc20BalancesResponse> {
  if (query.sort_by === 'token_price' || query.sort_by === 'usd_value') {
    throw new InvalidRequestError(
      `sort_by: ${query.sort_by} needs price data, and this service has no price source (sort by balance or token_address)`,
    );
  }
  if (query.include_native) {
    throw new InvalidRequestError('include_native: native balances are not indexed by this service (leave it out or false)');
  }
  const plan = await planOf(query, host, query.sort_order);
  const given = Object.fromEntries(
    query.owner_address.map((owner, i) => [`owner_address[${i}]`, parseAddressOrName('owner_address', owner)]),
  );
  const tokensGiven = Object.fromEntries(
    (query.token_address ?? []).map((token, i) => [`token_address[${i}]`, parseAddressOrName('token_address', token)]),
  );
  const resolved = await resolveAddresses({ ...given, ...tokensGiven }, plan.chainIds);
  const valuesOn = (chainId: number, prefix: string) => [
    ...new Set(
      Object.entries(resolved)
        .filter(([parameter]) => parameter.startsWith(prefix))
        .map(([, byChain]) => byChain!.get(chainId)!),
    ),
  ];
  const skip = plan.page * plan.limit;
  const heads = readIndexedHeads(plan, config);
  const named = plan.chainIds.some((chainId) => valuesOn(chainId, 'token_address').length > 0);
  // The owners' counts of ERC-20 balances (X10) for the totals, beside the pages (not needed for named
  // tokens, whose balance items are read whole, nor for a sort by token address, which reads the ranges whole).
  const counted =
    named || query.sort_by === 'token_address' ? undefined : erc20Counts(plan.chainIds, (chainId) => valuesOn(chainId, 'owner_address'));
  counted?.catch(() => undefined); // (awaited below; a failure surfaces there)
  const perChain = await Promise.all(
    plan.chainIds.map(async (chainId) => {
      const owners = valuesOn(chainId, 'owner_address');
      const tokens = valuesOn(chainId, 'token_address');
      if (tokens.length > 0) return namedBalances(chainId, owners, tokens, query, skip, plan.limit);
      if (query.sort_by === 'token_address') {
        // No range orders an owner's tokens by address: the whole ranges, under the read bound (one more
        // entry than the bound says the ranges hold more: a 400).
        const items = await readStatePage(
          chainId,
          owners.map((owner) => balancesRange(chainId, owner, 'desc')),
          0,
          config.maxItemsReadPerChain + 1,
          config,
        );
        if (items.length > config.maxItemsReadPerChain) {
          throw new RangeTooLargeError(chainId, config.maxItemsReadPerChain, 'Sorting by token_address');
        }
        return { items: sortRecords(items as unknown as BalanceRecord[], query).slice(skip, skip + plan.limit), total: items.length };
      }
      const items = await readStatePage(
        chainId,
        owners.map((owner) => balancesRange(chainId, owner, plan.sortOrder)),
        skip,
        plan.limit,
        config,
      );
      return { items: items as unknown as BalanceRecord[], total: undefined };
    }),
  );
  const counts = counted ? await counted : undefined;
  const rows = perChain.flatMap(({ items }) => items.map(balanceRow));
  if (query.metadata) await addErc20Metadata(rows);
  const totals = await stateTotals(
    plan,
    perChain.map((chain, i) => chain.total ?? counts?.(plan.chainIds[i]!) ?? 0),
    config,
    heads,
  );
  return { meta: listMeta(plan, totals, valuesOn(firstChain(plan), 'owner_address')[0] ?? ''), data: rows, aggregations: null };
}

/** X1: an owner's ERC-20 balances by value (their gsi3 range). */
function balancesRange(chainId: number, owner: string, order: 'asc' | 'desc'): QueryInput {
  return { ...rangeQuery(addressKeys.balancesByValue(chainId, owner, 'ERC-20')), ScanIndexForward: order === 'asc' };
}

/**
 * Per chain, the number of ERC-20 balances its owners have listed (the sizes of their X1 ERC-20 ranges:
 * X10, one BatchGetItem for every chain and owner).
 */
async function erc20Counts(chainIds: readonly number[], ownersOn: (chainId: number) => string[]): Promise<(chainId: number) => number> {
  const keys = chainIds.flatMap((chainId) => ownersOn(chainId).map((owner) => addressKeys.balanceCounts(chainId, owner)));
  const found = await batchGetItems<BalanceCountsRecord>(keys);
  return (chainId) =>
    ownersOn(chainId).reduce((sum, owner) => sum + counterOf(found.get(keyId(addressKeys.balanceCounts(chainId, owner)))?.['ERC-20']), 0);
}

/** G3: the balance items of every (owner, token) pair named, one BatchGetItem (at most 10 × 10 keys per chain). */
async function namedBalances(chainId: number, owners: string[], tokens: string[], query: TokensQuery, skip: number, take: number) {
  const keys = owners.flatMap((owner) => tokens.map((token) => addressKeys.balance(chainId, owner, token)));
  const found = await batchGetItems<BalanceRecord>(keys);
  const records = keys
    .map((key) => found.get(keyId(key)))
    .filter((record): record is BalanceRecord => record !== undefined && record.tokenStandard === 'ERC-20' && BigInt(record.value) > 0n);
  return { items: sortRecords(records, query).slice(skip, skip + take), total: records.length };
}

function sortRecords(records: BalanceRecord[], query: TokensQuery): BalanceRecord[] {
  const sign = query.sort_order === 'asc' ? 1 : -1;
  const byBalance = (a: BalanceRecord, b: BalanceRecord) => {
    const [x, y] = [BigInt(a.value), BigInt(b.value)];
    return x === y ? 0 : x < y ? -1 : 1;
  };
  const byToken = (a: BalanceRecord, b: BalanceRecord) => compareSortKeys(a.token, b.token);
  return [...records].sort((a, b) =>
    query.sort_by === 'token_address'
      ? sign * byToken(a, b) || -byBalance(a, b) || compareSortKeys(a.holder, b.holder)
      : sign * byBalance(a, b) || byToken(a, b) || compareSortKeys(a.holder, b.holder),
  );
}

function balanceRow(record: BalanceRecord | Item): InsightsErc20Balance {
  const balance = record as BalanceRecord;
  return { chain_id: balance.chainId, token_address: balance.token, balance: balance.value };
}

/** name / symbol / decimals from the tokens' address items (X7): one BatchGetItem for the page. */
async function addErc20Metadata(rows: InsightsErc20Balance[]): Promise<void> {
  if (rows.length === 0) return;
  const key = (row: InsightsErc20Balance) => addressKeys.address(row.chain_id, row.token_address);
  const items = await batchGetItems<AddressRecord>(rows.map(key));
  for (const row of rows) {
    const token = items.get(keyId(key(row)));
    row.name = token?.tokenName ?? null;
    row.symbol = token?.tokenSymbol ?? null;
    row.decimals = token?.tokenDecimals ?? null;
  }
}
