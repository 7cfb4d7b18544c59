/**
 * The six explorer pages (E1-E6): each reads its key range (queries.ts: one Query per range; one
 * range, except E1, E2 and E3 with a two-standard `type` filter: two ranges merged, two Queries; the
 * cursor's bound is a sort-key prefix, the same in both ranges), joins what
 * its items embed with at most ONE BatchGetItem, serialises the items (serialise.ts) and builds
 * next_page_params from the last item served (cursor.ts): the spec's fields for the endpoint, the
 * request's own `filter` and `token` when given, null on the last page.
 */
import { getAddress } from 'viem';
import { logger } from '../observability/logger';
import { PAGE_SIZE } from './config';
import {
  cutTokenBalancesPage,
  internalTransactionStart,
  nftCollectionStart,
  tokenBalanceStart,
  tokenTransferCursor,
  tokenTransferStart,
  transactionStart,
  withdrawalStart,
} from './cursor';
import { countDatabaseCalls, totalCalls } from './db-calls';
import {
  readInternalTransactions,
  readNftCollections,
  readPageDetails,
  readTokenBalances,
  readTokenTransfers,
  readTransactions,
  readWithdrawals,
} from './queries';
import type {
  InternalTransactionsQuery,
  InternalTransactionsResponse,
  NftCollectionsQuery,
  NftCollectionsResponse,
  TokenBalancesQuery,
  TokenBalancesResponse,
  TokenTransfersQuery,
  TokenTransfersResponse,
  TransactionsQuery,
  TransactionsResponse,
  WithdrawalsQuery,
  WithdrawalsResponse,
} from './schemas';
import { internalTransactionItem, nftCollectionItem, tokenBalanceItem, tokenTransferItem, transactionItem, withdrawalItem } from './serialise';

/** Runs one page and logs what it cost in DynamoDB calls. */
async function measured<T>(endpoint: string, work: () => Promise<T>): Promise<T> {
  const { result, calls } = await countDatabaseCalls(work);
  logger.debug('explorer page read', { endpoint, dynamodbCalls: totalCalls(calls), calls });
  return result;
}

const directionOf = (filter: 'to' | 'from' | undefined) => filter ?? 'all';
const echoFilter = (filter: 'to' | 'from' | undefined) => (filter ? { filter } : {});

/** E1: token balances of an address. */
export function listTokenBalances(chainId: number, address: string, query: TokenBalancesQuery): Promise<TokenBalancesResponse> {
  return measured('tokens', async () => {
    const read = await readTokenBalances(chainId, address, query.type, tokenBalanceStart(query));
    const { page, cursor } = cutTokenBalancesPage(read.items, read.more, PAGE_SIZE);
    const details = await readPageDetails(chainId, {
      addresses: page.map((listing) => listing.token),
      instances: page.flatMap((listing) => (listing.tokenId === null ? [] : [{ contract: listing.token, tokenId: listing.tokenId }])),
    });
    return {
      items: page.map((listing) => tokenBalanceItem(listing, details)),
      next_page_params: cursor && { ...cursor, items_count: (query.items_count ?? 0) + page.length },
    };
  });
}

/** E2: NFT collections an address holds, with up to 9 instances each. */
export function listNftCollections(chainId: number, address: string, query: NftCollectionsQuery): Promise<NftCollectionsResponse> {
  return measured('nft/collections', async () => {
    const read = await readNftCollections(chainId, address, query.type, nftCollectionStart(query));
    const page = read.items.slice(0, PAGE_SIZE);
    const details = await readPageDetails(chainId, {
      addresses: page.length > 0 ? [address, ...page.map((collection) => collection.contract)] : [],
      instances: page.flatMap((collection) =>
        collection.instances.filter((embedded) => embedded.omitted).map((embedded) => ({ contract: collection.contract, tokenId: embedded.tokenId })),
      ),
    });
    const last = page.at(-1);
    return {
      items: page.map((collection) => nftCollectionItem(collection, details)),
      next_page_params: read.more && last ? { token_contract_address_hash: getAddress(last.contract), token_type: last.tokenStandard } : null,
    };
  });
}

/**
 * E3: token transfers touching an address. A two-standard `type` reads both standards' ranges and
 * merges them (queries.ts readTokenTransfers); the cursor is the last transfer served, whichever
 * range it came from, and bounds both ranges on the next page. With both `token` and `type`, the
 * token's range is read and its transfers kept when their standard is asked for: a token has one
 * standard, so that keeps all of them or, on the first page read, none (then the answer is empty,
 * after at most 51 items).
 */
export function listTokenTransfers(chainId: number, address: string, query: TokenTransfersQuery): Promise<TokenTransfersResponse> {
  return measured('token-transfers', async () => {
    const read = await readTokenTransfers(chainId, address, { direction: directionOf(query.filter), types: query.type, token: query.token }, tokenTransferStart(query));
    const window = read.items.slice(0, PAGE_SIZE);
    const types = query.token ? query.type : undefined;
    const page = types ? window.filter((transfer) => types.includes(transfer.tokenStandard)) : window;
    const details = await readPageDetails(chainId, { addresses: page.flatMap((transfer) => [transfer.from, transfer.to, transfer.token]) });
    const last = window.at(-1);
    return {
      items: page.map((transfer) => tokenTransferItem(transfer, details)),
      next_page_params:
        read.more && last && page.length > 0
          ? { ...tokenTransferCursor(last), ...echoFilter(query.filter), ...(query.token ? { token: getAddress(query.token) } : {}) }
          : null,
    };
  });
}

/** E4: transactions from, to or creating an address; confirmations from the indexed head. */
export function listTransactions(chainId: number, address: string, query: TransactionsQuery): Promise<TransactionsResponse> {
  return measured('transactions', async () => {
    const read = await readTransactions(chainId, address, directionOf(query.filter), transactionStart(query));
    const page = read.items.slice(0, PAGE_SIZE);
    const details = await readPageDetails(chainId, {
      addresses: page.flatMap((tx) => [tx.from, tx.to, tx.contractAddress].filter((item): item is string => item !== null)),
      transactions: page.filter((tx) => tx.inputOmitted).map((tx) => tx.hash),
      head: page.length > 0,
    });
    const last = page.at(-1);
    return {
      items: page.map((tx) => transactionItem(tx, details)),
      next_page_params:
        read.more && last
          ? { block_number: last.blockNumber, index: last.transactionIndex, items_count: (query.items_count ?? 0) + page.length, ...echoFilter(query.filter) }
          : null,
    };
  });
}

/** E5: internal transactions from or to an address (to: also the contracts it created). */
export function listInternalTransactions(chainId: number, address: string, query: InternalTransactionsQuery): Promise<InternalTransactionsResponse> {
  return measured('internal-transactions', async () => {
    const read = await readInternalTransactions(chainId, address, directionOf(query.filter), internalTransactionStart(query));
    const page = read.items.slice(0, PAGE_SIZE);
    const details = await readPageDetails(chainId, {
      addresses: page.flatMap((internal) => [internal.from, internal.to, internal.createdContract].filter((item): item is string => item !== null)),
    });
    const last = page.at(-1);
    return {
      items: page.map((internal) => internalTransactionItem(internal, details)),
      next_page_params:
        read.more && last
          ? {
              block_number: last.blockNumber,
              index: last.index,
              items_count: (query.items_count ?? 0) + page.length,
              transaction_index: last.transactionIndex,
              ...echoFilter(query.filter),
            }
          : null,
    };
  });
}

/** E6: withdrawals received by an address (nothing to join: one Query). */
export function listWithdrawals(chainId: number, address: string, query: WithdrawalsQuery): Promise<WithdrawalsResponse> {
  return measured('withdrawals', async () => {
    const read = await readWithdrawals(chainId, address, withdrawalStart(query));
    const page = read.items.slice(0, PAGE_SIZE);
    const last = page.at(-1);
    return {
      items: page.map(withdrawalItem),
      next_page_params: read.more && last ? { index: last.index, items_count: (query.items_count ?? 0) + page.length } : null,
    };
  });
}
