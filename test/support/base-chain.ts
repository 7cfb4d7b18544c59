/**
 * A small chain of the bench's Base profile (scripts/bench/dataset/base-profile.ts) for tests: few
 * tokens, pools and holders, so that senders and holders come back block after block, epochs of 3
 * blocks; `burst`: one block of that many transactions.
 */
import { BaseChain } from '../../scripts/bench/dataset/base-profile';
import type { ChainSpec } from '../../scripts/bench/dataset/chain';
import { baseProfileSpec } from '../../scripts/bench/dataset/spec';
import { ChainIngest, type IngestOptions, registerChain } from '../../shared/ingest/ingest';

export function smallBaseChain(
  blocks: number,
  perBlock: number,
  burst?: { block: number; transactions: number },
  /** The first block's time (epoch seconds; the profile's fixed date otherwise), 2 s a block after it. */
  firstTimestamp?: number,
): { spec: ChainSpec; chain: BaseChain } {
  const spec = baseProfileSpec({ blocks, transactionsPerBlock: perBlock, ...(burst ? { burst } : {}) });
  const small: ChainSpec = {
    ...spec,
    ...(firstTimestamp === undefined ? {} : { firstTimestamp }),
    erc20Tokens: 30,
    erc721Tokens: 3,
    erc1155Tokens: 2,
    addresses: 120,
    base: { ...spec.base!, pools: 12, apps: 6, routers: 2, epochBlocks: 3 },
  };
  return { spec: small, chain: new BaseChain(small) };
}

/**
 * A small Base-profile chain (smallBaseChain) registered and ingested by the real ingest into the test's
 * table: its first blocks (up to `batchTo`) as one catch-up batch, the rest one block at a time, as a
 * follower at the head writes them.
 */
export async function ingestedSmallBaseChain(
  blocks: number,
  perBlock: number,
  batchTo = Math.ceil(blocks / 2),
  settings: { firstTimestamp?: number; ingest?: Pick<IngestOptions, 'coldHistory' | 'zeroValueCallsRetentionDays'> } = {},
): Promise<{ spec: ChainSpec; chain: BaseChain }> {
  const { spec, chain } = smallBaseChain(blocks, perBlock, undefined, settings.firstTimestamp);
  await registerChain(spec.chainId, 1);
  const options: IngestOptions = {
    chainId: spec.chainId,
    client: chain.client(),
    log: { info: () => undefined, warn: () => undefined },
    ...settings.ingest,
  };
  await new ChainIngest(options).ingestRange({ from: 1, to: batchTo });
  const follower = new ChainIngest({ ...options, maxBatchBlocks: 1 });
  for (let n = batchTo + 1; n <= blocks; n += 1) await follower.ingestRange({ from: n, to: n });
  return { spec, chain };
}
