/**
 * The brute-force check of paging by number (insights range-reader.ts readPageAndCount): every page of
 * a range, in both orders, for each block bounds and limit, against the list of its entries' sort keys.
 */
import { expect } from 'vitest';
import type { InsightsConfig } from '../../../shared/insights/config';
import { readPageAndCount, type Item, type RangeRead } from '../../../shared/insights/range-reader';

export interface PagedEntry {
  sk: string;
  block: number;
}

export type BlockBounds = { from?: number; to?: number };

/**
 * Reads every page of range `pk` and compares its items and total_items with `entries` (in sort-key
 * order); with `excluded` (one stored entry of the range: RangeRead.excluded), with the entries less it.
 */
export async function expectEveryPage(options: {
  chainId: number;
  pk: string;
  entries: readonly PagedEntry[];
  bounds: readonly BlockBounds[];
  limits: readonly number[];
  config: InsightsConfig;
  excluded?: Item;
}): Promise<void> {
  const { chainId, pk, entries, config, excluded } = options;
  for (const order of ['asc', 'desc'] as const) {
    for (const blocks of options.bounds) {
      const inRange = entries
        .filter((e) => e.block >= (blocks.from ?? 0) && e.block <= (blocks.to ?? Infinity) && e.sk !== excluded?.sk)
        .map((e) => e.sk);
      const all = order === 'asc' ? inRange : inRange.reverse();
      for (const limit of options.limits) {
        for (let page = 0; page <= Math.ceil(all.length / limit); page += 1) {
          const read: RangeRead = { pk, sk: { blocks }, checks: [], order, ...(excluded ? { excluded: Promise.resolve(excluded) } : {}) };
          const { items, total } = await readPageAndCount(chainId, [read], page * limit, limit, config);
          const label = `${order} ${JSON.stringify(blocks)} limit ${limit} page ${page}${excluded ? ` without ${excluded.sk}` : ''}`;
          expect(total, label).toBe(all.length);
          expect(
            items.map((item) => item.sk),
            label,
          ).toEqual(all.slice(page * limit, (page + 1) * limit));
        }
      }
    }
  }
}
