/**
 * Chain state read at a given block, for the state items: which addresses hold code, token contract
 * details (name, symbol, decimals, totalSupply, ERC-165 standard), balances with balanceOf, and NFT
 * owners and URIs. Each function is one round of reads (batched; see ContractReader) retried as a
 * whole with backoff. A call that reverts is an answer: the value is recorded as unknown (null).
 */
import type { Address } from 'viem';
import { bytes32MetadataAbi, erc1155Abi, erc1155SupplyAbi, erc165Abi, erc20Abi, erc721Abi, INTERFACE_ID } from '../chain/abis';
import type { ChainClient } from '../chain/client';
import { bytes32ToString, expandErc1155Uri } from '../chain/decode';
import type { ContractRead, ContractReader, ReadResult } from '../chain/read';
import { withBackoff, type RetryPolicy } from '../chain/retry';
import type { IndexedTokenStandard } from '../table/records';

export interface TokenInfo {
  type: IndexedTokenStandard;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  totalSupply: string | null;
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

export class ChainState {
  constructor(
    private readonly client: ChainClient,
    private readonly reader: ContractReader,
    private readonly policy: RetryPolicy,
  ) {}

  /** The subset of `addresses` that hold code at the block. */
  async contractsAmong(addresses: readonly string[], blockNumber: bigint): Promise<Set<string>> {
    if (addresses.length === 0) return new Set();
    const codes = await withBackoff(`code at block ${blockNumber}`, this.policy, () =>
      Promise.all(addresses.map((address) => this.client.getCode({ address: address as Address, blockNumber }))),
    );
    return new Set(addresses.filter((_, position) => codes[position] && codes[position] !== '0x'));
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
    const retryBytes32: ContractRead[] = [];
    entries.forEach(([token], position) => {
      const name = resultAt(results, position * perToken);
      const symbol = resultAt(results, position * perToken + 1);
      if (name.status === 'failure') retryBytes32.push({ address: token as Address, abi: bytes32MetadataAbi, functionName: 'name' });
      if (symbol.status === 'failure') retryBytes32.push({ address: token as Address, abi: bytes32MetadataAbi, functionName: 'symbol' });
    });
    const bytes32Results = await this.read(retryBytes32, blockNumber, 'bytes32 token details');
    const bytes32Values = new Map<string, string | null>();
    retryBytes32.forEach((call, position) => {
      const result = resultAt(bytes32Results, position);
      bytes32Values.set(
        `${call.address}|${call.functionName}`,
        result.status === 'success' ? bytes32ToString(result.result as `0x${string}`) || null : null,
      );
    });

    entries.forEach(([token, eventStandard], position) => {
      const at = (offset: number) => resultAt(results, position * perToken + offset);
      const [name, symbol, decimals, totalSupply, is721, is1155] = [at(0), at(1), at(2), at(3), at(4), at(5)];
      const ok = (result: ReadResult) => result.status === 'success';
      const value = (result: ReadResult) => (result.status === 'success' ? result.result : null);
      const type: IndexedTokenStandard | null =
        value(is721) === true
          ? 'ERC-721'
          : value(is1155) === true
            ? 'ERC-1155'
            : (eventStandard ?? (ok(symbol) && ok(decimals) && ok(totalSupply) ? 'ERC-20' : null));
      if (!type) {
        found.set(token, null);
        return;
      }
      found.set(token, {
        type,
        name: ok(name) ? String(value(name)) : (bytes32Values.get(`${token}|name`) ?? null),
        symbol: ok(symbol) ? String(value(symbol)) : (bytes32Values.get(`${token}|symbol`) ?? null),
        decimals: type === 'ERC-20' && ok(decimals) ? Number(value(decimals)) : null,
        totalSupply: ok(totalSupply) ? String(value(totalSupply)) : null,
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
    return new Map(
      tokens.map((token, position) => {
        const result = resultAt(results, position);
        return [token, result.status === 'success' ? String(result.result) : null];
      }),
    );
  }

  /** balanceOf at the block for each query (null when the call reverts or does not decode). */
  async balances(queries: readonly BalanceQuery[], blockNumber: bigint): Promise<(bigint | null)[]> {
    const calls: ContractRead[] = queries.map((query) =>
      query.tokenId === null
        ? { address: query.token as Address, abi: erc20Abi, functionName: 'balanceOf', args: [query.holder] }
        : { address: query.token as Address, abi: erc1155Abi, functionName: 'balanceOf', args: [query.holder, query.tokenId] },
    );
    const results = await this.read(calls, blockNumber, 'balances');
    return results.map((result) => (result.status === 'success' ? (result.result as bigint) : null));
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
        const [owner, uri] = [resultAt(results, cursor), resultAt(results, cursor + 1)];
        cursor += 2;
        return {
          owner: owner.status === 'success' ? String(owner.result).toLowerCase() : null,
          tokenUri: uri.status === 'success' ? String(uri.result) : null,
          totalSupply: null,
        };
      }
      const [uri, supply] = [resultAt(results, cursor), resultAt(results, cursor + 1)];
      cursor += 2;
      return {
        owner: null,
        tokenUri: uri.status === 'success' ? expandErc1155Uri(String(uri.result), query.tokenId) : null,
        totalSupply: supply.status === 'success' ? String(supply.result) : null,
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

/** The answer to call `index` of a round: the reader answers every call, in order. */
function resultAt(results: readonly ReadResult[], index: number): ReadResult {
  const result = results[index];
  if (result === undefined) throw new Error(`contract read ${index} has no result (${results.length} results)`);
  return result;
}
