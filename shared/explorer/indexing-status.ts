/**
 * E7 GET /explorer/main-page/indexing-status: Blockscout's indexing status (`finished_indexing`,
 * `finished_indexing_blocks`, `indexed_blocks_ratio`, `indexed_internal_transactions_ratio`), plus the
 * chain's status as this service records it (the same fields as the insights status endpoint:
 * shared/chain-status/status.ts), read fresh (one BatchGetItem).
 *
 * Every explorer answer also carries the indexed head in headers (`withIndexingHeaders`), from the
 * status this container keeps for CHAIN_STATUS_CACHE_SECONDS, read in parallel with the page:
 *   X-Indexed-Block          the last block whose data is all served (absent before the first)
 *   X-Indexed-Block-Time     its timestamp (ISO 8601)
 *   X-Indexing-State         following | catching_up | repairing | stopped
 *   X-Indexing-Lag-Blocks    blocks behind the node's head as the ingest last saw it
 */
import * as v from 'valibot';
import { type ChainStatus, chainStatusSchema, readChainStatus, serialiseChainStatus } from '../chain-status/status';
import type { ExplorerConfig } from './config';

/** The status takes no query parameter: an unknown one is refused, as on every explorer route. */
export const indexingStatusQuery = v.strictObject({});

export const indexingStatusResponse = v.strictObject({
  /** Blocks and internal transactions indexed up to the node's head (Blockscout). */
  finished_indexing: v.boolean(),
  /** Blocks indexed up to the node's head: the state is `following` (Blockscout). */
  finished_indexing_blocks: v.boolean(),
  /**
   * Indexed blocks / blocks from the first indexed one to the node's head, two decimals (Blockscout: always
   * a string, which its frontend's type requires). Where the node's head is not known yet: "1.00" when
   * `finished_indexing`, else "0.00".
   */
  indexed_blocks_ratio: v.string(),
  /** The same for internal transactions; null when the chain's node serves no traces (they are not indexed at all). */
  indexed_internal_transactions_ratio: v.nullable(v.string()),
  ...chainStatusSchema.entries,
});
export type IndexingStatusResponse = v.InferOutput<typeof indexingStatusResponse>;

function blocksRatio(status: ChainStatus, firstBlock: number | null, finished: boolean): string {
  if (!status.indexedHead || firstBlock === null) return '0.00';
  if (!status.nodeHead) return finished ? '1.00' : '0.00';
  const total = Math.max(1, status.nodeHead.number - firstBlock + 1);
  const done = Math.min(total, Math.max(0, status.indexedHead.number - firstBlock + 1));
  // Rounded down: "1.00" only when every block is indexed.
  return (Math.floor((done / total) * 100) / 100).toFixed(2);
}

export async function getIndexingStatus(config: ExplorerConfig): Promise<IndexingStatusResponse> {
  const status = await readChainStatus(config.chainId, config.chainStatus, { history: true });
  // History the table has lost and the cold store does not hold yet is not finished indexing.
  const finished = status.state === 'following' && !status.coldHistory?.missing;
  const ratio = blocksRatio(status, status.firstBlock, finished);
  return {
    finished_indexing: finished,
    finished_indexing_blocks: finished,
    indexed_blocks_ratio: ratio,
    indexed_internal_transactions_ratio: status.capabilities.traceMethod === 'none' ? null : ratio,
    ...serialiseChainStatus(status),
  };
}

/** The indexed head and state as response headers. */
export function indexingHeaders(status: ChainStatus): Record<string, string> {
  const headers: Record<string, string> = { 'X-Indexing-State': status.state };
  if (status.indexedHead) {
    headers['X-Indexed-Block'] = String(status.indexedHead.number);
    if (status.indexedHead.timestamp !== null)
      headers['X-Indexed-Block-Time'] = new Date(status.indexedHead.timestamp * 1000).toISOString();
  }
  if (status.lag) headers['X-Indexing-Lag-Blocks'] = String(status.lag.blocks);
  return headers;
}

/** A page's body with the indexing headers: the status (kept per container) is read beside the page's own reads. */
export async function withIndexingHeaders<T>(
  config: ExplorerConfig,
  body: Promise<T>,
): Promise<{ body: T; headers: Record<string, string> }> {
  const [page, status] = await Promise.all([body, readChainStatus(config.chainId, config.chainStatus, { cached: true })]);
  return { body: page, headers: indexingHeaders(status) };
}
