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
 * Token details are probed again at every creation (a contract destroyed and created again at the
 * same address may be another token) and, for a token that moves, once they are older than
 * TOKEN_DETAILS_REFRESH_SECONDS of block time (a token may rename itself; Blockscout refreshes its
 * tokens' metadata on a timer too).
 */
import type { ChainState, TokenInfo } from './chain-state';
import type { DerivedBlock } from './derive';
import type { AddressRecord, IndexedTokenStandard } from '../table/records';
import { inParallel } from '../db/operations';

/** Token details older than this (block timestamps) are read again when the token moves: 2 days, Blockscout's default. */
export const TOKEN_DETAILS_REFRESH_SECONDS = 2 * 86_400;

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
          nameTruncated: item.tokenNameTruncated ?? false,
          symbolTruncated: item.tokenSymbolTruncated ?? false,
          ...(item.tokenDetailsAt === undefined || item.tokenDetailsAt === null ? {} : { readAt: item.tokenDetailsAt }),
          ...(typeof item.tokenDetailsBlock === 'number' ? { readAtBlock: item.tokenDetailsBlock } : {}),
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
    /** The probes made for a creation (the others are for transfers). */
    creationProbes: new Set<string>(),
  }));
  const codeScheduled = new Set<string>();
  const probedForTransfers = new Set<string>();
  // The block timestamp of the latest probe scheduled in the batch, by address.
  const probedAt = new Map<string, number>();
  for (const { derived, codeChecks, probeRequests, creationProbes } of reads) {
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
    const timestamp = derived.block.timestamp;
    // A token is probed when the table has no token details for it yet (as block by block: a
    // contract probed at its creation as no token is probed again once it moves tokens), or when its
    // details are older than TOKEN_DETAILS_REFRESH_SECONDS (details stored without their time: now).
    for (const [token, standard] of derived.tokens) {
      const stored = storedBefore(token, number);
      if (stored?.tokenType || probedForTransfers.has(token)) {
        const readAt = probedAt.get(token) ?? stored?.tokenDetailsAt ?? undefined;
        if (readAt !== undefined && timestamp - readAt < TOKEN_DETAILS_REFRESH_SECONDS) continue;
      }
      probedForTransfers.add(token);
      probedAt.set(token, timestamp);
      probeRequests.set(token, standard);
    }
    // Every creation is probed, also at an address seen before: self-destructed and created again
    // (CREATE2, before EIP-6780) it may be another contract, and its details follow the live one.
    for (const creation of derived.creations) {
      const address = creation.address;
      if (probeRequests.has(address)) continue;
      probedAt.set(address, timestamp);
      probeRequests.set(address, derived.tokens.get(address) ?? null);
      creationProbes.add(address);
    }
    for (const address of [...derived.knownContracts, ...derived.creations.map((creation) => creation.address)]) {
      if (!certainSince.has(address)) certainSince.set(address, number);
    }
  }

  const code = new Map<string, { block: number; hasCode: boolean }[]>();
  const probes = new Map<string, { block: number; info: TokenInfo | null; forCreation: boolean; timestamp: number }[]>();
  const busy = reads.filter(({ codeChecks, probeRequests }) => codeChecks.length > 0 || probeRequests.size > 0);
  await inParallel(busy, concurrency, async ({ derived, codeChecks, probeRequests, creationProbes }) => {
    const number = derived.block.number;
    const [withCode, probed] = await Promise.all([
      chainState.contractsAmong(codeChecks, BigInt(number)),
      chainState.probeTokens(probeRequests, BigInt(number)),
    ]);
    for (const address of codeChecks) code.set(address, [...(code.get(address) ?? []), { block: number, hasCode: withCode.has(address) }]);
    for (const [address, info] of probed) {
      const list = probes.get(address) ?? [];
      const timestamp = derived.block.timestamp;
      list.push({
        block: number,
        info: info && { ...info, readAt: timestamp, readAtBlock: number },
        forCreation: creationProbes.has(address),
        timestamp,
      });
      probes.set(address, list);
    }
  });
  // A contract created earlier in the batch and found a token there: block by block, its address item
  // would hold those details at its later transfers, which probe it again only once they are stale. The
  // transfers' probes (scheduled before any answer was known) are dropped, so the batch's answers do
  // not depend on where a batch ends (tokenDetailsAt was the later block's time within one batch).
  const kept = new Map<string, { block: number; info: TokenInfo | null }[]>();
  for (const [address, list] of probes) {
    list.sort((a, b) => a.block - b.block);
    let known: { readAt: number } | undefined;
    const answers: { block: number; info: TokenInfo | null }[] = [];
    for (const probe of list) {
      if (!probe.forCreation && known && probe.timestamp - known.readAt < TOKEN_DETAILS_REFRESH_SECONDS) continue;
      answers.push({ block: probe.block, info: probe.info });
      known = probe.info ? { readAt: probe.timestamp } : undefined;
    }
    kept.set(address, answers);
  }
  const facts = new BatchFacts(stored, certainSince, code, kept);
  for (const derived of blocks) asErc721Transfers(derived, facts);
  return facts;
}

/**
 * A `Transfer` with three topics decodes as an ERC-20 transfer (value in data). When its contract is
 * an ERC-721 as of the block (ERC-165, probed or stored), the value is the token id: the transfer
 * becomes an ERC-721 transfer of that id (amount 1), with the balance and NFT instance it touches,
 * before the block's items are built. Blockscout's indexer gives such a token the ERC-721 type and
 * treats its ERC-721 transfers without an id as broken (they are fetched again).
 */
function asErc721Transfers(derived: DerivedBlock, facts: BatchFacts): void {
  const number = derived.block.number;
  const isErc721 = new Map<string, boolean>();
  const erc721 = (token: string): boolean => {
    let known = isErc721.get(token);
    if (known === undefined) {
      known = facts.tokenInfo(token, number)?.type === 'ERC-721';
      isErc721.set(token, known);
    }
    return known;
  };
  let changed = false;
  for (const transfer of derived.tokenTransfers) {
    if (transfer.tokenStandard !== 'ERC-20' || transfer.tokenId !== null || !erc721(transfer.token)) continue;
    transfer.tokenStandard = 'ERC-721';
    transfer.tokenId = transfer.amount;
    transfer.amount = '1';
    derived.tokens.set(transfer.token, 'ERC-721');
    if (!derived.nftTouches.some((nft) => nft.contract === transfer.token && nft.tokenId === BigInt(transfer.tokenId!)))
      derived.nftTouches.push({ contract: transfer.token, standard: 'ERC-721', tokenId: BigInt(transfer.tokenId) });
    changed = true;
  }
  if (!changed) return;
  // In place: the ingest listed the batch's balance touches (the same objects) before its facts.
  const seen = new Set<string>();
  derived.balanceTouches = derived.balanceTouches.filter((touch) => {
    if (touch.standard === 'ERC-20' && erc721(touch.token)) touch.standard = 'ERC-721';
    const key = `${touch.holder}|${touch.token}|${touch.standard}|${touch.tokenId ?? '-'}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
