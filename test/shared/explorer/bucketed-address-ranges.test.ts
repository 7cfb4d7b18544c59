/**
 * An address's X3 and X4 ranges in block buckets (shared/table/buckets.ts): on a Base-profile chain the
 * router and the pools get many entries a block, written as buckets, and E3 and E4 page through them,
 * newest first and (E4) oldest first, giving every transfer and transaction the chain has for the
 * address once, in the chain's order.
 */
import { describe, expect, it } from 'vitest';
import { listTokenTransfers } from '../../../shared/explorer/token-transfers';
import { listTransactions } from '../../../shared/explorer/transactions';
import { loadExplorerConfig } from '../../../shared/explorer/config';
import { ChainIngest, registerChain } from '../../../shared/ingest/ingest';
import { isBucket } from '../../../shared/table/buckets';
import { addressKeys, tokenTransferKeys } from '../../../shared/table/keys';
import { smallBaseChain } from '../../support/base-chain';
import { tableSnapshot, useTestTable } from '../../support/table';

const table = useTestTable('bucketed-address-ranges');

/** keccak256("Transfer(address,address,uint256)"): ERC-20 and ERC-721 transfers. */
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const topicAddress = (topic: string | undefined): string => `0x${String(topic).slice(26)}`;

describe('an address’s token transfers and transactions in block buckets', () => {
  it('E3 and E4 page through a router’s and a pool’s buckets as the chain has them, in both orders', async () => {
    const { spec, chain } = smallBaseChain(6, 80);
    await registerChain(spec.chainId, 1);
    await new ChainIngest({
      chainId: spec.chainId,
      client: chain.client(),
      log: { info: () => undefined, warn: () => undefined },
    }).ingestRange({
      from: 1,
      to: chain.head,
    });
    const config = loadExplorerConfig({ EXPLORER_CHAIN_ID: String(spec.chainId) });
    const router = chain.router;
    const pool = chain.pools[0]!;

    // The chain's truth: the router's transactions (oldest first) and the pool's transfers.
    const transactions = chain.blocks.flatMap((block) =>
      block.txs.filter((tx) => tx.to === router || tx.from === router).map((tx) => tx.hash),
    );
    const transfers = chain.blocks.flatMap((block) =>
      block.txs.flatMap((tx) => {
        let logIndex = 0;
        const found: string[] = [];
        for (const log of tx.logs) {
          const index = logIndex++;
          if (log.topics[0] !== TRANSFER) continue;
          if (topicAddress(log.topics[1]) === pool || topicAddress(log.topics[2]) === pool) found.push(`${tx.hash}#${index}`);
        }
        return found;
      }),
    );
    expect(transactions.length).toBeGreaterThan(120);
    expect(transfers.length).toBeGreaterThan(120);

    // Stored in buckets, not only one item an entry.
    const stored = await tableSnapshot(table.name);
    const bucketsOf = (pk: string) => stored.filter((item) => item.pk === pk && isBucket(item)).length;
    expect(bucketsOf(addressKeys.transactions(spec.chainId, router, 'to').pk)).toBeGreaterThan(0);
    expect(
      bucketsOf(tokenTransferKeys.byAddress(spec.chainId, pool, 'to', 'ALL').pk) +
        bucketsOf(tokenTransferKeys.byAddress(spec.chainId, pool, 'from', 'ALL').pk),
    ).toBeGreaterThan(0);

    // E4 newest first, then oldest first (sort=block_number&order=asc), cursor after cursor.
    for (const order of ['desc', 'asc'] as const) {
      const seen: string[] = [];
      let query: Record<string, unknown> = order === 'asc' ? { sort: 'block_number', order } : {};
      for (;;) {
        const page = await listTransactions({ address: router, query } as never, config);
        seen.push(...page.items.map((item) => String((item as { hash: string }).hash)));
        if (page.next_page_params === null) break;
        query = { ...page.next_page_params };
      }
      expect(seen, `E4 ${order}`).toEqual(order === 'asc' ? transactions : [...transactions].reverse());
    }

    // E3 newest first: every transfer of the pool once (a global log index: the block's logs numbered in order).
    const globalIndex = new Map<string, number>();
    for (const block of chain.blocks) {
      let index = 0;
      for (const tx of block.txs) for (let local = 0; local < tx.logs.length; local += 1) globalIndex.set(`${tx.hash}#${local}`, index++);
    }
    const expected = transfers.map((key) => `${key.split('#')[0]}#${globalIndex.get(key)}`).reverse();
    const seen: string[] = [];
    let query: Record<string, unknown> = {};
    for (;;) {
      const page = await listTokenTransfers({ address: pool, query } as never, config);
      seen.push(
        ...page.items.map(
          (item) => `${(item as { transaction_hash: string }).transaction_hash}#${(item as { log_index: number }).log_index}`,
        ),
      );
      if (page.next_page_params === null) break;
      query = { ...page.next_page_params };
    }
    expect(seen).toEqual(expected);
  });
});
