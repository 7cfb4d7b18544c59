/**
 * I6a GET /v1/tokens/erc20/{ownerAddress} and I6e GET /v1/tokens: ERC-20 balances of owners, from the
 * explorer's balance listings (X1, the owner's ERC-20 range on gsi3, value desc) and, for named tokens, the
 * balance items themselves (G3, one BatchGetItem). Balances are balanceOf as read by the ingest at the
 * last block that touched them. `total_items` is the owners' X10 counts of ERC-20 balances (one
 * BatchGetItem for every chain, beside the pages: one round trip). `metadata=true` adds name / symbol /
 * decimals from the tokens' address items (X7, one BatchGetItem for the page: round 2). I6e's
 * `include_native=true` adds the owners' native coin balances (X9, in the round trip of the pages).
 * Ids (I6, X1, X9, X10, G3, X7): see docs/access-patterns.md.
 */
import { batchGetItems, rangeQuery, type Item, type QueryInput } from '../db/operations';
import { InvalidRequestError } from '../errors';
import { coinBalanceKey, type CoinBalanceRecord } from '../table/address-state';
import { addressKeys, compareSortKeys, keyId } from '../table/keys';
import type { AddressRecord, BalanceCountsRecord, BalanceRecord, ListedBalanceRecord } from '../table/records';
import type { InsightsConfig } from './config';
import { readJoinedDetails } from './joined-details';
import { parseAddressOrName, resolveAddresses } from './names';
import { NATIVE_TOKEN_ADDRESS, nativeCurrencyOf } from './native-currencies';
import { RangeTooLargeError } from './range-reader';
import { firstChain, listMeta, planListRequest } from './request';
import type { Erc20BalancesResponse, InsightsErc20Balance, OwnerTokensQuery, TokensQuery } from './schemas';
import { counterOf, readIndexedHeads, readStatePage, stateTotals } from './state-lists';

/** A balance as a page lists it: a G3 item named by its key, or an X1 entry (no `updatedAtBlock`: records.ts). */
type Balance = BalanceRecord | ListedBalanceRecord;

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
  const rows = perChain.flatMap((items) => items.map((item) => balanceRow(item as unknown as Balance)));
  if (query.metadata) await addErc20Metadata(rows, config);
  const totals = await stateTotals(plan, plan.chainIds.map(counts), config, heads);
  return { meta: listMeta(plan, totals, owner.get(firstChain(plan)) ?? ''), data: rows, aggregations: null };
}

/**
 * I6e: the ERC-20 balances of one or more owners (`owner_address`, repeatable), by balance (the X1
 * order, either way) or by token address (each owner's whole range read, under the read bound, and
 * sorted). With `token_address` the (owner, token) balance items are read directly: one BatchGetItem.
 * Prices (`token_price`, `usd_value`) need a price source this service does not have: a 400.
 *
 * `include_native=true` adds each owner's native coin balance on each chain (the ingest's X9 item,
 * eth_getBalance at the last block that touched the address; none for an address it never saw), as
 * Insight does: token address 0xeeee…eeee, the chain's native currency (native-currencies.ts), first on
 * each chain's list (owners in request order) and so at the beginning of the response, whatever the
 * sort. A chain's list is its native rows then its ERC-20 rows: `page` / `limit` and `total_items`
 * count both. The X9 items are read in the BatchGetItem of the owners' counts (X10), beside the pages;
 * each chain's ERC-20 page is read from `n` entries earlier (n: its owners, the most native rows it
 * can have) and cut once the native rows are known, so no round trip waits on them.
 */
export async function listTokens({ query, host }: Request<TokensQuery>, config: InsightsConfig): Promise<Erc20BalancesResponse> {
  if (query.sort_by === 'token_price' || query.sort_by === 'usd_value') {
    throw new InvalidRequestError(
      `sort_by: ${query.sort_by} needs price data, and this service has no price source (sort by balance or token_address)`,
    );
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
  // The owners whose native balances a chain lists: every owner, unless tokens are named without the native one.
  const nativeOwnersOn = (chainId: number): string[] => {
    if (!query.include_native) return [];
    const tokens = valuesOn(chainId, 'token_address');
    return tokens.length === 0 || tokens.includes(NATIVE_TOKEN_ADDRESS) ? valuesOn(chainId, 'owner_address') : [];
  };
  // One BatchGetItem beside the pages: the owners' counts of ERC-20 balances (X10) for the totals (not
  // needed for named tokens, whose balance items are read whole, nor for a sort by token address, which
  // reads the ranges whole) and the native balances (X9).
  const counting = !named && query.sort_by !== 'token_address';
  const lookups = ownerLookups(plan.chainIds, (chainId) => (counting ? valuesOn(chainId, 'owner_address') : []), nativeOwnersOn);
  lookups.catch(() => undefined); // (awaited below; a failure surfaces there)
  const perChain = await Promise.all(
    plan.chainIds.map(async (chainId) => {
      const owners = valuesOn(chainId, 'owner_address');
      const tokens = valuesOn(chainId, 'token_address').filter((token) => token !== NATIVE_TOKEN_ADDRESS);
      const natives = async () => (await lookups).natives(chainId);
      if (named) {
        const [records, nativeRows] = await Promise.all([namedBalances(chainId, owners, tokens, query), natives()]);
        return nativesFirst(nativeRows, records, skip, plan.limit);
      }
      if (query.sort_by === 'token_address') {
        // No range orders an owner's tokens by address: the whole ranges, under the read bound (one more
        // entry than the bound says the ranges hold more: a 400).
        const [items, nativeRows] = await Promise.all([
          readStatePage(
            chainId,
            owners.map((owner) => balancesRange(chainId, owner, 'desc')),
            0,
            config.maxItemsReadPerChain + 1,
            config,
          ),
          natives(),
        ]);
        if (items.length > config.maxItemsReadPerChain) {
          throw new RangeTooLargeError(chainId, config.maxItemsReadPerChain, 'Sorting by token_address');
        }
        return nativesFirst(nativeRows, sortRecords(items as unknown as Balance[], query), skip, plan.limit);
      }
      // The chain's list is its native rows (at most one per owner), then the X1 entries: the page's
      // entries are read from as many entries earlier as it can have native rows, and cut below.
      const most = nativeOwnersOn(chainId).length;
      const from = Math.max(0, skip - most);
      const [items, nativeRows] = await Promise.all([
        readStatePage(
          chainId,
          owners.map((owner) => balancesRange(chainId, owner, plan.sortOrder)),
          from,
          skip + plan.limit - from,
          config,
        ),
        natives(),
      ]);
      const page = nativesFirst(nativeRows, items as unknown as Balance[], skip, plan.limit, from);
      return { ...page, total: nativeRows.length + (await lookups).erc20Count(chainId) };
    }),
  );
  const nativeRows = perChain.flatMap(({ natives }) => natives);
  const rows = perChain.flatMap(({ records }) => records.map(balanceRow));
  if (query.metadata) await addErc20Metadata(rows, config);
  const totals = await stateTotals(
    plan,
    perChain.map((chain) => chain.total),
    config,
    heads,
  );
  // Native rows at the beginning of the response (Insight's rule), then the ERC-20 rows, chain by chain.
  return {
    meta: listMeta(plan, totals, valuesOn(firstChain(plan), 'owner_address')[0] ?? ''),
    data: [...nativeRows, ...rows],
    aggregations: null,
  };
}

/**
 * Rows `skip` to `skip + take` of a chain's list, its native rows then its ERC-20 rows, and its size:
 * `records` are the ERC-20 rows in order from the `from`-th on (all of them when `from` is 0).
 */
function nativesFirst(natives: InsightsErc20Balance[], records: Balance[], skip: number, take: number, from = 0) {
  const count = natives.length;
  const [start, end] = [Math.max(0, skip - count), Math.max(0, skip + take - count)];
  return {
    natives: natives.slice(skip, skip + take),
    records: end > start ? records.slice(start - from, end - from) : [],
    total: count + records.length,
  };
}

/**
 * One BatchGetItem for every chain: the X10 counts of `countedOn`'s owners and the X9 coin balances of
 * `nativeOn`'s owners. Per chain: its owners' number of ERC-20 balances, and its native rows (owners in
 * order; an owner without an X9 item, never touched as far as the ingest knows, has none).
 */
async function ownerLookups(
  chainIds: readonly number[],
  countedOn: (chainId: number) => string[],
  nativeOn: (chainId: number) => string[],
): Promise<{ erc20Count: (chainId: number) => number; natives: (chainId: number) => InsightsErc20Balance[] }> {
  const keys = chainIds.flatMap((chainId) => [
    ...countedOn(chainId).map((owner) => addressKeys.balanceCounts(chainId, owner)),
    ...nativeOn(chainId).map((owner) => coinBalanceKey(chainId, owner)),
  ]);
  const found = keys.length === 0 ? new Map<string, Item>() : await batchGetItems(keys);
  return {
    erc20Count: (chainId) =>
      countedOn(chainId).reduce(
        (sum, owner) =>
          sum + counterOf((found.get(keyId(addressKeys.balanceCounts(chainId, owner))) as BalanceCountsRecord | undefined)?.['ERC-20']),
        0,
      ),
    natives: (chainId) =>
      nativeOn(chainId).flatMap((owner) => {
        const coin = found.get(keyId(coinBalanceKey(chainId, owner))) as CoinBalanceRecord | undefined;
        return coin ? [nativeRow(chainId, coin.value)] : [];
      }),
  };
}

/** A native balance row as Insight gives it: the native token address and the chain's native currency. */
function nativeRow(chainId: number, balance: string): InsightsErc20Balance {
  const { name, symbol, decimals } = nativeCurrencyOf(chainId);
  return { chain_id: chainId, token_address: NATIVE_TOKEN_ADDRESS, balance, name, symbol, decimals };
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

/** G3: the balance items of every (owner, token) pair named (at most 10 × 10 keys per chain, one BatchGetItem), sorted. */
async function namedBalances(chainId: number, owners: string[], tokens: string[], query: TokensQuery): Promise<Balance[]> {
  if (tokens.length === 0) return [];
  const keys = owners.flatMap((owner) => tokens.map((token) => addressKeys.balance(chainId, owner, token)));
  const found = await batchGetItems<BalanceRecord>(keys);
  const records = keys
    .map((key) => found.get(keyId(key)))
    .filter((record): record is BalanceRecord => record !== undefined && record.tokenStandard === 'ERC-20' && BigInt(record.value) > 0n);
  return sortRecords(records, query);
}

function sortRecords(records: Balance[], query: TokensQuery): Balance[] {
  const sign = query.sort_order === 'asc' ? 1 : -1;
  const byBalance = (a: Balance, b: Balance) => {
    const [x, y] = [BigInt(a.value), BigInt(b.value)];
    return x === y ? 0 : x < y ? -1 : 1;
  };
  const byToken = (a: Balance, b: Balance) => compareSortKeys(a.token, b.token);
  return [...records].sort((a, b) =>
    query.sort_by === 'token_address'
      ? sign * byToken(a, b) || -byBalance(a, b) || compareSortKeys(a.holder, b.holder)
      : sign * byBalance(a, b) || byToken(a, b) || compareSortKeys(a.holder, b.holder),
  );
}

function balanceRow(record: Balance | Item): InsightsErc20Balance {
  const balance = record as Balance;
  return { chain_id: balance.chainId, token_address: balance.token, balance: balance.value };
}

/** name / symbol / decimals from the tokens' address items (X7): one BatchGetItem for the page. */
async function addErc20Metadata(rows: InsightsErc20Balance[], config: Pick<InsightsConfig, 'detailsCacheMs'>): Promise<void> {
  if (rows.length === 0) return;
  const key = (row: InsightsErc20Balance) => addressKeys.address(row.chain_id, row.token_address);
  const items = await readJoinedDetails<AddressRecord>(rows.map(key), config);
  for (const row of rows) {
    const token = items.get(keyId(key(row)));
    row.name = token?.tokenName ?? null;
    row.symbol = token?.tokenSymbol ?? null;
    row.decimals = token?.tokenDecimals ?? null;
  }
}
