/**
 * The details an insights page joins to its rows (token and contract address items, X7; NFT instances
 * with their fetched metadata, G3): kept by the container for INSIGHTS_DETAILS_CACHE_SECONDS (default 30)
 * and served from its copy meanwhile (shared/db/kept-items.ts), as the explorer's pages do. A page's own
 * rows (balances, holdings, transfers, owners) are always read: what may lag the table by that long is a
 * token's name, symbol and decimals, a contract's details, and an NFT's metadata and
 * `last_updated_block_number` (docs/decisions/insights.md, "Joined details").
 */
import { getItemsKept } from '../db/kept-items';
import type { Item } from '../db/operations';
import type { ItemKey } from '../table/keys';
import { isJoinedDetail } from '../table/records';
import type { InsightsConfig } from './config';

/** The items of `keys` found, by keyId: details kept by the container served without a read. */
export function readJoinedDetails<T = Item>(
  keys: readonly ItemKey[],
  config: Pick<InsightsConfig, 'detailsCacheMs'>,
): Promise<Map<string, T>> {
  if (keys.length === 0) return Promise.resolve(new Map<string, T>());
  return getItemsKept<T>(keys, { keepMs: config.detailsCacheMs, keep: isJoinedDetail });
}
