/**
 * Chain state read at a given block, for the state items: which addresses hold code, token contract
 * details (name, symbol, decimals, totalSupply, ERC-165 standard), balances with balanceOf, and NFT
 * owners and URIs. Each function is one round of reads (batched; see ContractReader) retried as a
 * whole with backoff. A call that reverts is an answer: the value is recorded as unknown (null). The
 * raw answers are decoded by one rule per field (chain/token-metadata.ts), the same with and without
 * Multicall3.
 */
import type { Address } from 'viem';
import {
  erc1155Abi,
  erc1155SupplyAbi,
  erc165Abi,
  erc20Abi,
  erc721Abi,
  INTERFACE_ID,
  MULTICALL3_ADDRESS,
  multicall3Abi,
} from '../chain/abis';
import type { ChainClient } from '../chain/client';
import { expandErc1155Uri } from '../chain/decode';
import type { ContractRead, ContractReader, ReadResult } from '../chain/read';
import {
  decodeAddress,
  decodeBool,
  decodeDecimals,
  decodeSupply,
  decodeTokenText,
  decodeTokenUri,
  decodeUint,
  MAX_TOKEN_URI_BYTES,
  type RawAnswer,
} from '../chain/token-metadata';
import { errorMessage, withBackoff, type RetryPolicy } from '../chain/retry';
import { EIP1967_IMPLEMENTATION_SLOT } from '../chain/eip1967';
import type { IndexedTokenStandard } from '../table/records';

export interface TokenInfo {
  type: IndexedTokenStandard;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  totalSupply: string | null;
  /** The contract's name / symbol was longer than 255 bytes: `name` / `symbol` is its beginning. */
  nameTruncated?: boolean;
  symbolTruncated?: boolean;
  /** Timestamp of the block the details were read at (they are read again some time later: batch.ts). */
  readAt?: number;
  /** The number of that block (a restart inside a batch tells details read before it from those read in it: ingest.ts). */
  readAtBlock?: number;
}

export interface BalanceQuery {
  holder: string;
  token: string;
  standard: IndexedTokenStandard;
  /** ERC-1155 id; null reads balanceOf(holder). */
  tokenId: bigint | null;
}

export interface NftQuery {
  contract: string;
  standard: 'ERC-721' | 'ERC-1155';
  tokenId: bigint;
}

export interface NftState {
  /** ERC-721 ownerOf (null when it reverts: burned or never minted); null for ERC-1155. */
  owner: string | null;
  tokenUri: string | null;
  /**
   * ERC-1155 `totalSupply(id)` (ERC1155Supply), decimal; null when the contract does not answer it
   * (no such function: the supply then comes from the held balances) and always for ERC-721.
   */
  totalSupply: string | null;
}

/** An address and the block to read it at (native balance, storage slot). */
export interface NativeQuery {
  address: string;
  blockNumber: bigint;
}

/** Answers to NativeQuery reads, in order; all null with `failure` when the node did not answer. */
export interface NativeAnswers<T> {
  values: (T | null)[];
  failure: string | null;
}

/** Coin balances read in one aggregate3 (Multicall3's getEthBalance: about 5,000 gas each, 2.5 M gas a call). */
const BALANCES_PER_AGGREGATE = 500;

/** A uint256 return value (32 bytes), or undefined when the data is not one. */
function decodedUint(data: string): bigint | undefined {
  return /^0x[0-9a-fA-F]{64}$/.test(data) ? BigInt(data) : undefined;
}

export class ChainState {
  constructor(
    private readonly client: ChainClient,
    private readonly reader: ContractReader,
    private readonly policy: RetryPolicy,
  ) {}

  /** The subset of `addresses` that hold code at the block. */
  async contractsAmong(addresses: readonly string[], blockNumber: bigint): Promise<Set<string>> {
    if (addresses.length === 0) return new Set();
    // (ContractReader.hasCode: one eth_call for a thousand addresses where the node takes a state override.)
    const hasCode = await withBackoff(`code at block ${blockNumber}`, this.policy, () => this.reader.hasCode(addresses, blockNumber));
    return new Set(addresses.filter((_, position) => hasCode[position]));
  }

  /**
   * The native balance of each address at its block: where Multicall3 is deployed at the block, its
   * getEthBalance inside aggregate3 (up to BALANCES_PER_AGGREGATE addresses an eth_call, retried like
   * every contract read; an entry that does not decode is read directly), else eth_getBalance
   * (concurrent requests: one JSON-RPC batch through the transport, which fits it to the node's limit),
   * retried as one round by the policy. Never throws:
   * when the node refuses the method or still fails after the last attempt every value is null and
   * `failure` says why (the caller keeps what it stored, and logs it).
   */
  async coinBalances(queries: readonly NativeQuery[]): Promise<NativeAnswers<bigint>> {
    if (queries.length === 0) return { values: [], failure: null };
    try {
      const values: (bigint | null)[] = queries.map(() => null);
      const byBlock = new Map<bigint, number[]>();
      for (const [position, query] of queries.entries())
        byBlock.set(query.blockNumber, [...(byBlock.get(query.blockNumber) ?? []), position]);
      const direct: number[] = [];
      await Promise.all(
        [...byBlock].map(async ([blockNumber, positions]) => {
          // With Multicall3 at the block: its getEthBalance, hundreds of addresses in one eth_call
          // (aggregate3) instead of one eth_getBalance each (providers bill per call).
          if (!(await withBackoff(`Multicall3 at block ${blockNumber}`, this.policy, () => this.reader.multicallAt(blockNumber)))) {
            direct.push(...positions);
            return;
          }
          for (let start = 0; start < positions.length; start += BALANCES_PER_AGGREGATE) {
            const chunk = positions.slice(start, start + BALANCES_PER_AGGREGATE);
            const calls: ContractRead[] = chunk.map((position) => ({
              address: MULTICALL3_ADDRESS,
              abi: multicall3Abi,
              functionName: 'getEthBalance',
              args: [queries[position]!.address],
            }));
            const results = await this.read(calls, blockNumber, 'coin balances');
            results.forEach((result, index) => {
              const balance = result.status === 'success' ? decodedUint(result.data) : undefined;
              if (balance === undefined) direct.push(chunk[index]!);
              else values[chunk[index]!] = balance;
            });
          }
        }),
      );
      if (direct.length > 0) {
        const read = await withBackoff('eth_getBalance', this.policy, () =>
          Promise.all(
            direct.map((position) =>
              this.client.getBalance({ address: queries[position]!.address as Address, blockNumber: queries[position]!.blockNumber }),
            ),
          ),
        );
        direct.forEach((position, index) => {
          values[position] = read[index]!;
        });
      }
      return { values, failure: null };
    } catch (error) {
      return { values: queries.map(() => null), failure: errorMessage(error) };
    }
  }

  /**
   * The EIP-1967 implementation slot of each contract at its block (eth_getStorageAt), as a 32-byte
   * word. Like coinBalances: never throws; every value null and `failure` set when the node does not
   * answer.
   */
  async implementationSlots(queries: readonly NativeQuery[]): Promise<NativeAnswers<string>> {
    if (queries.length === 0) return { values: [], failure: null };
    try {
      const values = await withBackoff('eth_getStorageAt', this.policy, () =>
        Promise.all(
          queries.map(
            async (query) =>
              (await this.client.getStorageAt({
                address: query.address as Address,
                slot: EIP1967_IMPLEMENTATION_SLOT,
                blockNumber: query.blockNumber,
              })) ?? '0x0',
          ),
        ),
      );
      return { values, failure: null };
    } catch (error) {
      return { values: queries.map(() => null), failure: errorMessage(error) };
    }
  }

  /**
   * Token details of each contract, or null when it is not a token. The standard is ERC-165's answer
   * when positive, else `eventStandard` (the shape of a transfer it emitted), else ERC-20 when
   * symbol(), decimals() and totalSupply() all answer (a created contract probed for token_creation).
   */
  async probeTokens(
    contracts: ReadonlyMap<string, IndexedTokenStandard | null>,
    blockNumber: bigint,
  ): Promise<Map<string, TokenInfo | null>> {
    const entries = [...contracts.entries()];
    const found = new Map<string, TokenInfo | null>();
    if (entries.length === 0) return found;
    const perToken = 6;
    const calls: ContractRead[] = entries.flatMap(([token]) => {
      const address = token as Address;
      return [
        { address, abi: erc20Abi, functionName: 'name' },
        { address, abi: erc20Abi, functionName: 'symbol' },
        { address, abi: erc20Abi, functionName: 'decimals' },
        { address, abi: erc20Abi, functionName: 'totalSupply' },
        { address, abi: erc165Abi, functionName: 'supportsInterface', args: [INTERFACE_ID.erc721] },
        { address, abi: erc165Abi, functionName: 'supportsInterface', args: [INTERFACE_ID.erc1155] },
      ];
    });
    const results = await this.read(calls, blockNumber, 'token details');
    entries.forEach(([token, eventStandard], position) => {
      const at = (offset: number) => answerOf(resultAt(results, position * perToken + offset));
      const [name, symbol, decimals, totalSupply, is721, is1155] = [at(0), at(1), at(2), at(3), at(4), at(5)];
      // "Answers": returned at least one ABI word.
      const answers = (answer: RawAnswer) => decodeUint(answer) !== null;
      const type: IndexedTokenStandard | null = decodeBool(is721)
        ? 'ERC-721'
        : decodeBool(is1155)
          ? 'ERC-1155'
          : (eventStandard ?? (answers(symbol) && answers(decimals) && answers(totalSupply) ? 'ERC-20' : null));
      if (!type) {
        found.set(token, null);
        return;
      }
      // Blockscout names a token whose name is not valid UTF-8 after its address.
      const nameText = decodeTokenText(name, token.slice(0, 6));
      const symbolText = decodeTokenText(symbol);
      found.set(token, {
        type,
        name: nameText.value,
        symbol: symbolText.value,
        decimals: type === 'ERC-20' ? decodeDecimals(decimals) : null,
        totalSupply: decodeSupply(totalSupply),
        nameTruncated: nameText.truncated,
        symbolTruncated: symbolText.truncated,
      });
    });
    return found;
  }

  /** totalSupply() of each token at the block (null when it reverts). */
  async totalSupplies(tokens: readonly string[], blockNumber: bigint): Promise<Map<string, string | null>> {
    const results = await this.read(
      tokens.map((token) => ({ address: token as Address, abi: erc20Abi, functionName: 'totalSupply' })),
      blockNumber,
      'total supplies',
    );
    return new Map(tokens.map((token, position) => [token, decodeSupply(answerOf(resultAt(results, position)))]));
  }

  /** balanceOf at the block for each query (null when the call reverts or does not decode). */
  async balances(queries: readonly BalanceQuery[], blockNumber: bigint): Promise<(bigint | null)[]> {
    const calls: ContractRead[] = queries.map((query) =>
      query.tokenId === null
        ? { address: query.token as Address, abi: erc20Abi, functionName: 'balanceOf', args: [query.holder] }
        : { address: query.token as Address, abi: erc1155Abi, functionName: 'balanceOf', args: [query.holder, query.tokenId] },
    );
    const results = await this.read(calls, blockNumber, 'balances');
    return results.map((result) => decodeUint(answerOf(result)));
  }

  /** Owner (ERC-721), metadata URI and ERC-1155 `totalSupply(id)` of each NFT at the block. */
  async nfts(queries: readonly NftQuery[], blockNumber: bigint): Promise<NftState[]> {
    const calls: ContractRead[] = queries.flatMap((query): ContractRead[] =>
      query.standard === 'ERC-721'
        ? [
            { address: query.contract as Address, abi: erc721Abi, functionName: 'ownerOf', args: [query.tokenId] },
            { address: query.contract as Address, abi: erc721Abi, functionName: 'tokenURI', args: [query.tokenId] },
          ]
        : [
            { address: query.contract as Address, abi: erc1155Abi, functionName: 'uri', args: [query.tokenId] },
            { address: query.contract as Address, abi: erc1155SupplyAbi, functionName: 'totalSupply', args: [query.tokenId] },
          ],
    );
    const results = await this.read(calls, blockNumber, 'nft details');
    let cursor = 0;
    return queries.map((query) => {
      if (query.standard === 'ERC-721') {
        const [owner, uri] = [answerOf(resultAt(results, cursor)), answerOf(resultAt(results, cursor + 1))];
        cursor += 2;
        return { owner: decodeAddress(owner), tokenUri: decodeTokenUri(uri), totalSupply: null };
      }
      const [uri, supply] = [answerOf(resultAt(results, cursor)), answerOf(resultAt(results, cursor + 1))];
      cursor += 2;
      const template = decodeTokenUri(uri);
      const expanded = template === null ? null : expandErc1155Uri(template, query.tokenId);
      return {
        owner: null,
        // `{id}` makes a URI longer: the bound applies to the expanded URI too.
        tokenUri: expanded !== null && Buffer.byteLength(expanded) <= MAX_TOKEN_URI_BYTES ? expanded : null,
        totalSupply: decodeSupply(supply),
      };
    });
  }

  private read(calls: readonly ContractRead[], blockNumber: bigint, label: string): Promise<ReadResult[]> {
    if (calls.length === 0) return Promise.resolve([]);
    return withBackoff(`${label} at block ${blockNumber}`, this.policy, () => this.reader.readAll(calls, blockNumber));
  }
}

/** Each query with its answer: a round of reads answers every query, in order. */
export function withAnswers<Q, A>(queries: readonly Q[], answers: readonly A[]): [Q, A][] {
  if (answers.length !== queries.length) throw new Error(`${answers.length} answers for ${queries.length} queries`);
  return queries.map((query, position) => [query, answers[position] as A]);
}

/** The return data of an answered call; null when it reverted. */
function answerOf(result: ReadResult): RawAnswer {
  return result.status === 'success' ? result.data : null;
}

/** The answer to call `index` of a round: the reader answers every call, in order. */
function resultAt(results: readonly ReadResult[], index: number): ReadResult {
  const result = results[index];
  if (result === undefined) throw new Error(`contract read ${index} has no result (${results.length} results)`);
  return result;
}
