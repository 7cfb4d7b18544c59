/**
 * A small chain of the bench's Base profile (scripts/bench/dataset/base-profile.ts) for tests: few
 * tokens, pools and holders, so that senders and holders come back block after block, epochs of 3
 * blocks; `burst`: one block of that many transactions.
 */
import { BaseChain } from '../../scripts/bench/dataset/base-profile';
import type { ChainSpec } from '../../scripts/bench/dataset/chain';
import { baseProfileSpec } from '../../scripts/bench/dataset/spec';

export function smallBaseChain(
  blocks: number,
  perBlock: number,
  burst?: { block: number; transactions: number },
): { spec: ChainSpec; chain: BaseChain } {
  const spec = baseProfileSpec({ blocks, transactionsPerBlock: perBlock, ...(burst ? { burst } : {}) });
  const small: ChainSpec = {
    ...spec,
    erc20Tokens: 30,
    erc721Tokens: 3,
    erc1155Tokens: 2,
    addresses: 120,
    base: { ...spec.base!, pools: 12, apps: 6, routers: 2, epochBlocks: 3 },
  };
  return { spec: small, chain: new BaseChain(small) };
}
