/**
 * What the blocks of a batch (consecutive blocks written together, see ingest.ts) must know about the
 * addresses they mention, each AS OF ITS OWN BLOCK: which addresses hold code (transaction tags) and
 * which are tokens with what details (tags, address items, token names). An address is known from
 *  - the table: its address item, written by an earlier batch (first seen before the block);
 *  - an earlier block of the batch: it emitted a log or was created there, or was found to hold code
 *    or probed as a token there;
 *  - or the chain: getCode and the token probe, read at the FIRST block of the batch that shows the
 *    address, once per batch (block by block, a busy address would be read at every block).
 * The answers are those a block-by-block ingest gives. Code can only appear at an address through a
 * creation, which the block's traces show; a block read without traces (a node with no tracer) sees
 * no internal creations, so there an address without code is checked again at every block.
 */
import type { ChainState, TokenInfo } from './chain-state';
import type { DerivedBlock } from './derive';
import type { AddressRecord, IndexedTokenStandard } from '../table/records';
import { inParallel } from '../db/operations';

/** The addresses a block may write an address item for: possible contracts, creations, tokens moved. */
export function candidatesOf(derived: DerivedBlock): string[] {
  return [...new Set([...derived.candidateContracts, ...derived.creations.map((creation) => creation.address), ...derived.tokens.keys()])];
}

export class BatchFacts {
  constructor(
    private readonly stored: ReadonlyMap<string, AddressRecord>,
    /** The first block of the batch at which each address was certainly a contract (log or creation). */
    private readonly certainSince: ReadonlyMap<string, number>,
    /** getCode, in block order, at the blocks of the batch that needed it. */
    private readonly code: ReadonlyMap<string, readonly { block: number; hasCode: boolean }[]>,
    /** Token probes, by address, in block order. */
    private readonly probes: ReadonlyMap<string, readonly { block: number; info: TokenInfo | null }[]>,
  ) {}

  /** The stored address item, when written by a block before `blockNumber`. */
  storedBefore(address: string, blockNumber: number): AddressRecord | undefined {
    const item = this.stored.get(address);
    return item && item.firstSeenBlock < blockNumber ? item : undefined;
  }

  isContract(address: string, derived: DerivedBlock): boolean {
    const number = derived.block.number;
    if (derived.knownContracts.has(address) || this.storedBefore(address, number)) return true;
    const since = this.certainSince.get(address);
    if (since !== undefined && since < number) return true;
    const checks = this.code.get(address) ?? [];
    return checks.some((check) => check.hasCode && check.block <= number);
  }

  /** Token details as of the block: the latest probe at or before it, else the stored item's. */
  tokenInfo(address: string, blockNumber: number): TokenInfo | null {
    const probe = this.probes.get(address)?.findLast((candidate) => candidate.block <= blockNumber);
    if (probe) return probe.info;
    const item = this.storedBefore(address, blockNumber);
    return item?.tokenType
      ? {
          type: item.tokenType,
          name: item.tokenName,
          symbol: item.tokenSymbol,
          decimals: item.tokenDecimals,
          totalSupply: item.tokenTotalSupply,
        }
      : null;
  }

  /** Whether the address was probed anywhere in the batch, and the latest answer. */
  latestProbe(address: string): { info: TokenInfo | null } | undefined {
    const latest = this.probes.get(address)?.at(-1);
    return latest ? { info: latest.info } : undefined;
  }
}

/**
 * Reads the chain facts of a batch: each block's getCode and token probe round (at that block) for
 * the addresses it is the first of the batch to need, `concurrency` blocks at a time.
 */
export async function readBatchFacts(
  blocks: readonly DerivedBlock[],
  stored: ReadonlyMap<string, AddressRecord>,
  chainState: ChainState,
  concurrency: number,
): Promise<BatchFacts> {
  const storedBefore = (address: string, number: number): AddressRecord | undefined => {
    const item = stored.get(address);
    return item && item.firstSeenBlock < number ? item : undefined;
  };
  const certainSince = new Map<string, number>();
  // What each block must read from the chain: getCode for some addresses, token probes for others.
  const reads = blocks.map((derived) => ({
    derived,
    codeChecks: [] as string[],
    probeRequests: new Map<string, IndexedTokenStandard | null>(),
  }));
  const codeScheduled = new Set<string>();
  const probedForTransfers = new Set<string>();
  const probedForCreation = new Set<string>();
  for (const { derived, codeChecks, probeRequests } of reads) {
    const number = derived.block.number;
    const certainBefore = (address: string): boolean => (certainSince.get(address) ?? Infinity) < number;
    // Without traces, creations by contracts are invisible: an address is checked at every block.
    const traced = derived.transactions.every((tx) => tx.tracesAvailable);
    for (const address of candidatesOf(derived)) {
      if (derived.knownContracts.has(address) || storedBefore(address, number) || certainBefore(address)) continue;
      if (traced && codeScheduled.has(address)) continue;
      codeScheduled.add(address);
      codeChecks.push(address);
    }
    // A token is probed when the table has no token details for it yet (as block by block: a
    // contract probed at its creation as no token is probed again once it moves tokens).
    for (const [token, standard] of derived.tokens) {
      if (storedBefore(token, number)?.tokenType || probedForTransfers.has(token)) continue;
      probedForTransfers.add(token);
      probeRequests.set(token, standard);
    }
    for (const creation of derived.creations) {
      const address = creation.address;
      if (storedBefore(address, number) || probeRequests.has(address) || probedForTransfers.has(address) || probedForCreation.has(address))
        continue;
      probedForCreation.add(address);
      probeRequests.set(address, null);
    }
    for (const address of [...derived.knownContracts, ...derived.creations.map((creation) => creation.address)]) {
      if (!certainSince.has(address)) certainSince.set(address, number);
    }
  }

  const code = new Map<string, { block: number; hasCode: boolean }[]>();
  const probes = new Map<string, { block: number; info: TokenInfo | null }[]>();
  const busy = reads.filter(({ codeChecks, probeRequests }) => codeChecks.length > 0 || probeRequests.size > 0);
  await inParallel(busy, concurrency, async ({ derived, codeChecks, probeRequests }) => {
    const number = derived.block.number;
    const [withCode, probed] = await Promise.all([
      chainState.contractsAmong(codeChecks, BigInt(number)),
      chainState.probeTokens(probeRequests, BigInt(number)),
    ]);
    for (const address of codeChecks) code.set(address, [...(code.get(address) ?? []), { block: number, hasCode: withCode.has(address) }]);
    for (const [address, info] of probed) {
      const list = probes.get(address) ?? [];
      list.push({ block: number, info });
      probes.set(address, list);
    }
  });
  for (const list of probes.values()) list.sort((a, b) => a.block - b.block);
  return new BatchFacts(stored, certainSince, code, probes);
}
