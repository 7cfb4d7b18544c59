/**
 * The route table: the single source of truth for every HTTP endpoint. The CDK stack (one function
 * and one HTTP API route per row), the local gateway, the `events/` files for `sam local invoke` and
 * the OpenAPI documents (scripts/generate-openapi.ts) are all derived from it. Adding an endpoint =
 * one handler file + one row. A row of the `platform` group is served on every base URL.
 *
 * This module holds data only (no imports of handlers or SDKs), so any of those readers can load it.
 */
import { API_NAMES, API_OF_GROUP, type ApiGroup, type ApiName, groupOfPath, type RouteGroup } from './http/groups';
import { REFERENCE_PAGE_ASSETS } from './http/reference-assets';

export { API_NAMES };

/** DELETE and PATCH: only Insight's webhook routes, which answer 501 (I12). */
export type HttpMethod = 'GET' | 'POST' | 'DELETE' | 'PATCH';

/** DynamoDB actions a writer may be granted; readers get GetItem, BatchGetItem, Query (no Scan). */
export type WriteAction = 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'BatchWriteItem' | 'ConditionCheckItem';

/**
 * Partition keys a writer's writes may touch, as IAM `StringLike` patterns (`*` any run of characters):
 * the stack grants its write actions only under a `dynamodb:LeadingKeys` condition on them.
 * `CHAIN_DATA` is for the ingest, whose keys are too many to list: any partition key except the
 * service's own records (orders, checkout sessions, idempotency keys, partners, collections, the ABI
 * registry), which the stack denies it (lib/api-function.ts `SERVICE_RECORD_KEYS`).
 */
export type WriteKeys = readonly string[] | typeof CHAIN_DATA;
export const CHAIN_DATA = 'chain-data';

export type TableAccess = {
  read: boolean;
  write: readonly WriteAction[];
  /** Required when `write` is not empty (test/lib/write-keys.test.ts checks them against the writes). */
  writeKeys?: WriteKeys;
  /**
   * The only attributes its writes may name (key attributes included), as an IAM `dynamodb:Attributes`
   * condition: for a writer of one attribute of items another writer owns (the NFT metadata fetcher).
   */
  writeAttributes?: readonly string[];
};

export const READ_ONLY: TableAccess = { read: true, write: [] };
export const NO_TABLE: TableAccess = { read: false, write: [] };

export interface RouteExample {
  pathParameters?: Record<string, string>;
  /** Raw query parameters; arrays become repeated parameters. */
  query?: Record<string, string | readonly string[]>;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Route {
  /** PascalCase id: the function's construct id and the `events/<id>.json` file name. */
  id: string;
  method: HttpMethod;
  /** Path template with `{name}` parameters, as API Gateway HTTP API writes it. */
  path: string;
  /** The API group, whose base URL serves the route; `platform`: every base URL serves it. */
  group: RouteGroup;
  /** Handler module, relative to the repository root; it exports `handler`. */
  handler: string;
  table: TableAccess;
  /**
   * Files of npm packages the handler reads at run time (module specifiers, e.g.
   * `swagger-ui-dist/swagger-ui.css`): the stack copies them next to the function's bundle.
   */
  assets?: readonly string[];
  summary: string;
  /** A request that the generated sam event file carries. */
  example: RouteExample;
  /**
   * Set on a route of the reference API that this service does not serve because its data is outside
   * the chain: why. The route answers 501 in its group's error format (the OpenAPI documents say so).
   */
  notServed?: string;
  /** Queues (ids of shared/jobs.ts `queues`) the route sends to: its function gets their URL and sqs:SendMessage on them. */
  publishesTo?: readonly string[];
}

/**
 * What the route examples name: entities of the demo chain that `npm start` runs (anvil's dev accounts
 * and the demo's first deployments have the same addresses on every run), so every example request
 * answers with data locally, and `npm run openapi:examples` takes the documents' examples from them.
 */
const DEMO = {
  chainId: '31337',
  /** The demo's busiest account (anvil's second dev account). */
  busyAccount: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  /** A payee of the demo's splitter contract: paid by internal calls. */
  splitPayee: '0x5A991D819d15f2Cd9B7b54DCA3F40A2E55f1985e',
  /** DemoToken, the ERC-20 the demo deploys first. */
  token: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  /** A transaction moving DemoToken through a contract: several transfers (the demo's `tokenViaContract`). */
  transferThroughContract: '0x9cbd64550b461a94a749ffd666fc7e5c83e9e7c727fb23b72051dece15069cfe',
  /** DemoNFT (ERC-721) and DemoMulti (ERC-1155), the demo's second and third deployments; busyAccount holds some of each. */
  nft: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  multi: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
  /** The demo's ERC-1155 TransferBatch (DemoMulti ids 2, 3, 4 from alice to busyAccount). */
  nftBatchTransfer: '0x956cea17c3ce5ba97b2cd529f3f19753a0b909846e39fc1dce31c569d5891945',
} as const;

/**
 * The secret key the webhook routes' examples carry: the key `npm start` issues for its demo project
 * (a fixed one, so that examples and events work unchanged; a deployment's keys come from `npm run keys`).
 */
export const EXAMPLE_SECRET_KEY = 'sk_demo_0000000000000000000000000000000000000000000';

/** The webhook routes' table access: each counts its request on its key's item (K1, UpdateItem). */
const WEBHOOK_READER: TableAccess = { read: true, write: ['UpdateItem'], writeKeys: ['APIKEY#*'] };
/** ... and the writing ones change webhooks, their count and their filters (H1, H3, H4) in one transaction. */
const WEBHOOK_WRITER: TableAccess = {
  read: true,
  write: ['PutItem', 'UpdateItem', 'DeleteItem'],
  writeKeys: ['APIKEY#*', 'WEBHOOKS#*', 'WEBHOOK-FILTERS#*'],
};

export const routes: readonly Route[] = [
  // ----- explorer (base URL; Blockscout API v2 compatible, one chain: EXPLORER_CHAIN_ID) -----
  {
    id: 'ListAddressTokens',
    method: 'GET',
    path: '/explorer/addresses/{address_hash}/tokens',
    group: 'explorer',
    handler: 'functions/explorer/list-address-tokens.ts',
    table: READ_ONLY,
    summary: 'Token balances of an address (ERC-20, ERC-721, ERC-1155 ids), largest value first, filtered by type',
    example: { pathParameters: { address_hash: DEMO.busyAccount }, query: { type: 'ERC-20,ERC-1155' } },
  },
  {
    id: 'ListAddressNftCollections',
    method: 'GET',
    path: '/explorer/addresses/{address_hash}/nft/collections',
    group: 'explorer',
    handler: 'functions/explorer/list-address-nft-collections.ts',
    table: READ_ONLY,
    summary: 'NFT collections an address holds (ERC-721, then ERC-1155), each with up to 9 of its token instances',
    example: { pathParameters: { address_hash: DEMO.busyAccount }, query: { type: 'ERC-721,ERC-1155' } },
  },
  {
    id: 'ListAddressTokenTransfers',
    method: 'GET',
    path: '/explorer/addresses/{address_hash}/token-transfers',
    group: 'explorer',
    handler: 'functions/explorer/list-address-token-transfers.ts',
    table: READ_ONLY,
    summary: 'Token transfers to or from an address, newest first, filtered by type, direction and token',
    example: { pathParameters: { address_hash: DEMO.busyAccount }, query: { type: 'ERC-20', filter: 'to' } },
  },
  {
    id: 'ListAddressTransactions',
    method: 'GET',
    path: '/explorer/addresses/{address_hash}/transactions',
    group: 'explorer',
    handler: 'functions/explorer/list-address-transactions.ts',
    table: READ_ONLY,
    summary: 'Transactions from, to or creating an address, newest first, filtered by direction',
    example: { pathParameters: { address_hash: DEMO.busyAccount }, query: { filter: 'from' } },
  },
  {
    id: 'ListAddressInternalTransactions',
    method: 'GET',
    path: '/explorer/addresses/{address_hash}/internal-transactions',
    group: 'explorer',
    handler: 'functions/explorer/list-address-internal-transactions.ts',
    table: READ_ONLY,
    summary: 'Internal transactions (calls, creations, self-destructs) from or to an address, newest first',
    example: { pathParameters: { address_hash: DEMO.splitPayee }, query: { filter: 'to' } },
  },
  {
    id: 'ListAddressWithdrawals',
    method: 'GET',
    path: '/explorer/addresses/{address_hash}/withdrawals',
    group: 'explorer',
    handler: 'functions/explorer/list-address-withdrawals.ts',
    table: READ_ONLY,
    summary: 'Beacon chain withdrawals received by an address, newest index first',
    example: { pathParameters: { address_hash: DEMO.busyAccount } },
  },
  {
    id: 'GetAddress',
    method: 'GET',
    path: '/explorer/addresses/{address_hash}',
    group: 'explorer',
    handler: 'functions/explorer/get-address.ts',
    table: READ_ONLY,
    summary:
      'An address as the address page shows it: contract or not, creator and creation transaction, token details, which tabs have data',
    example: { pathParameters: { address_hash: DEMO.token } },
  },
  {
    id: 'GetAddressCounters',
    method: 'GET',
    path: '/explorer/addresses/{address_hash}/counters',
    group: 'explorer',
    handler: 'functions/explorer/get-address-counters.ts',
    table: READ_ONLY,
    summary:
      'Counts of an address: transactions, token transfers, gas used by the transactions it sent (exact, from range positions and running totals)',
    example: { pathParameters: { address_hash: DEMO.busyAccount } },
  },
  {
    id: 'GetAddressTabsCounters',
    method: 'GET',
    path: '/explorer/addresses/{address_hash}/tabs-counters',
    group: 'explorer',
    handler: 'functions/explorer/get-address-tabs-counters.ts',
    table: READ_ONLY,
    summary: "Counts of the address page's tabs, each capped at 51 as Blockscout caps them",
    example: { pathParameters: { address_hash: DEMO.busyAccount } },
  },
  {
    id: 'ListAddressNfts',
    method: 'GET',
    path: '/explorer/addresses/{address_hash}/nft',
    group: 'explorer',
    handler: 'functions/explorer/list-address-nfts.ts',
    table: READ_ONLY,
    summary: 'NFT instances an address holds, one item per token id (ERC-721, then ERC-1155), filtered by type',
    example: { pathParameters: { address_hash: DEMO.busyAccount }, query: { type: 'ERC-721,ERC-1155' } },
  },
  // ----- insights (base URL; thirdweb Insight API v1 compatible, many chains per request) -----
  {
    id: 'GetIndexingStatus',
    method: 'GET',
    path: '/explorer/main-page/indexing-status',
    group: 'explorer',
    handler: 'functions/explorer/get-indexing-status.ts',
    table: READ_ONLY,
    summary:
      "Whether the explorer's chain is indexed up to the node's head (Blockscout's indexing status), with its state, lag and capabilities",
    example: {},
  },
  {
    id: 'ListContractTransactions',
    method: 'GET',
    path: '/insights/v1/transactions/{contractAddress}/{signature}',
    group: 'insights',
    handler: 'functions/insights/list-contract-transactions.ts',
    table: READ_ONLY,
    summary: 'Transactions sent to a contract calling one function (text signature or selector), with filters, aggregation and decoding',
    example: {
      pathParameters: { contractAddress: DEMO.token, signature: 'transfer(address to,uint256 amount)' },
      query: { chain_id: [DEMO.chainId], decode: 'true', limit: '5', sort_order: 'desc' },
    },
  },
  {
    id: 'ListContractEvents',
    method: 'GET',
    path: '/insights/v1/events/{contractAddress}',
    group: 'insights',
    handler: 'functions/insights/list-contract-events.ts',
    table: READ_ONLY,
    summary: 'Events (logs) a contract emitted, with topic filters, aggregation and decoding of well-known events',
    example: {
      pathParameters: { contractAddress: DEMO.token },
      query: {
        chain_id: [DEMO.chainId],
        filter_topic_0: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
        decode: 'true',
      },
    },
  },
  {
    id: 'ListBlocks',
    method: 'GET',
    path: '/insights/v1/blocks',
    group: 'insights',
    handler: 'functions/insights/list-blocks.ts',
    table: READ_ONLY,
    summary: 'Blocks of one or more chains, filtered by number, timestamp or hash',
    example: { query: { chain_id: [DEMO.chainId], filter_block_number_gte: '1', limit: '10', sort_order: 'asc' } },
  },
  {
    id: 'Resolve',
    method: 'GET',
    path: '/insights/v1/resolve/{input}',
    group: 'insights',
    handler: 'functions/insights/resolve.ts',
    table: READ_ONLY,
    summary: 'Classify an input (block number, transaction or block hash, address, selector, signature) and list what it names',
    example: { pathParameters: { input: '0xa9059cbb' }, query: { chain_id: [DEMO.chainId] } },
  },
  {
    id: 'ResolveWithoutInput',
    method: 'GET',
    path: '/insights/v1/resolve',
    group: 'insights',
    handler: 'functions/insights/resolve.ts',
    table: READ_ONLY,
    summary: 'Resolve with an empty input: a 400 in the insights format',
    example: { query: { chain_id: [DEMO.chainId] } },
  },
  {
    id: 'GetChainStatus',
    method: 'GET',
    path: '/insights/v1/chains/{chainId}/status',
    group: 'insights',
    handler: 'functions/insights/get-chain-status.ts',
    table: READ_ONLY,
    summary:
      "Whether a chain's data is current: indexed head, node head, lag, state (following, catching up, repairing, stopped) and why, capabilities",
    example: { pathParameters: { chainId: DEMO.chainId } },
  },
  {
    id: 'ListTokenTransfers',
    method: 'GET',
    path: '/insights/v1/tokens/transfers',
    group: 'insights',
    handler: 'functions/insights/list-token-transfers.ts',
    table: READ_ONLY,
    summary: 'Token transfers of an owner and / or a token contract, by block and time range, transfer type and token type',
    example: {
      query: {
        chain_id: [DEMO.chainId],
        owner_address: DEMO.busyAccount,
        token_types: ['erc20', 'erc721'],
        metadata: 'true',
      },
    },
  },
  {
    id: 'ListTransactionTokenTransfers',
    method: 'GET',
    path: '/insights/v1/tokens/transfers/transaction/{transaction_hash}',
    group: 'insights',
    handler: 'functions/insights/list-transaction-token-transfers.ts',
    table: READ_ONLY,
    summary: 'Token transfers of one transaction, by log index',
    example: {
      pathParameters: { transaction_hash: DEMO.transferThroughContract },
      query: { chain_id: [DEMO.chainId] },
    },
  },
  {
    id: 'ListContractTokenTransfers',
    method: 'GET',
    path: '/insights/v1/tokens/transfers/{contract_address}',
    group: 'insights',
    handler: 'functions/insights/list-contract-token-transfers.ts',
    table: READ_ONLY,
    summary: 'Token transfers of one token contract (address or registered name)',
    example: {
      pathParameters: { contract_address: DEMO.token },
      query: { chain_id: [DEMO.chainId], limit: '10' },
    },
  },
  // ----- insights tokens and NFTs (I6: balances and NFTs from the explorer's state items) -----
  {
    id: 'ListOwnerErc20Tokens',
    method: 'GET',
    path: '/insights/v1/tokens/erc20/{ownerAddress}',
    group: 'insights',
    handler: 'functions/insights/list-owner-erc20-tokens.ts',
    table: READ_ONLY,
    summary: "An owner's ERC-20 balances (balanceOf as last read by the ingest), largest first",
    example: { pathParameters: { ownerAddress: DEMO.busyAccount }, query: { chain_id: [DEMO.chainId], metadata: 'true' } },
  },
  {
    id: 'ListOwnerErc721Tokens',
    method: 'GET',
    path: '/insights/v1/tokens/erc721/{ownerAddress}',
    group: 'insights',
    handler: 'functions/insights/list-owner-erc721-tokens.ts',
    table: READ_ONLY,
    summary: "An owner's ERC-721 tokens, one row per token id (collections by address, ids descending)",
    example: { pathParameters: { ownerAddress: DEMO.busyAccount }, query: { chain_id: [DEMO.chainId], metadata: 'true' } },
  },
  {
    id: 'ListOwnerErc1155Tokens',
    method: 'GET',
    path: '/insights/v1/tokens/erc1155/{ownerAddress}',
    group: 'insights',
    handler: 'functions/insights/list-owner-erc1155-tokens.ts',
    table: READ_ONLY,
    summary: "An owner's ERC-1155 balances, one row per token id",
    example: { pathParameters: { ownerAddress: DEMO.busyAccount }, query: { chain_id: [DEMO.chainId] } },
  },
  {
    id: 'ListTokens',
    method: 'GET',
    path: '/insights/v1/tokens',
    group: 'insights',
    handler: 'functions/insights/list-tokens.ts',
    table: READ_ONLY,
    summary:
      'ERC-20 balances of one or more owners, optionally of named tokens, by balance or token address; with include_native=true their native balances first',
    example: { query: { chain_id: [DEMO.chainId], owner_address: [DEMO.busyAccount], metadata: 'true' } },
  },
  {
    id: 'ListOwnerNfts',
    method: 'GET',
    path: '/insights/v1/nfts/balance/{ownerAddress}',
    group: 'insights',
    handler: 'functions/insights/list-owner-nfts.ts',
    table: READ_ONLY,
    summary: 'The NFTs (ERC-721 and ERC-1155) an owner holds, one row per token id, filtered by token type',
    example: { pathParameters: { ownerAddress: DEMO.busyAccount }, query: { chain_id: [DEMO.chainId], metadata: 'true' } },
  },
  {
    id: 'ListNfts',
    method: 'GET',
    path: '/insights/v1/nfts',
    group: 'insights',
    handler: 'functions/insights/list-nfts.ts',
    table: READ_ONLY,
    summary: 'The NFTs of one or more owners, optionally of some contracts, with their on-chain metadata',
    example: { query: { chain_id: [DEMO.chainId], owner_address: [DEMO.busyAccount], contract_address: [DEMO.multi] } },
  },
  {
    id: 'ListContractNfts',
    method: 'GET',
    path: '/insights/v1/nfts/{contract_address}',
    group: 'insights',
    handler: 'functions/insights/list-contract-nfts.ts',
    table: READ_ONLY,
    summary: 'The NFTs of a contract, token id ascending, with their on-chain metadata',
    example: { pathParameters: { contract_address: DEMO.nft }, query: { chain_id: [DEMO.chainId], include_owners: 'true' } },
  },
  {
    id: 'GetNft',
    method: 'GET',
    path: '/insights/v1/nfts/{contract_address}/{token_id}',
    group: 'insights',
    handler: 'functions/insights/get-nft.ts',
    table: READ_ONLY,
    summary: 'One NFT (owner, supply, on-chain metadata) on each requested chain',
    example: { pathParameters: { contract_address: DEMO.nft, token_id: '2' }, query: { chain_id: [DEMO.chainId], include_owners: 'true' } },
  },
  {
    id: 'ListNftTransfers',
    method: 'GET',
    path: '/insights/v1/nfts/transfers',
    group: 'insights',
    handler: 'functions/insights/list-nft-transfers.ts',
    table: READ_ONLY,
    summary: 'NFT (ERC-721, ERC-1155) transfers of an owner and / or NFT contracts, by block and time range and transfer type',
    example: { query: { chain_id: [DEMO.chainId], owner_address: DEMO.busyAccount, metadata: 'true' } },
  },
  {
    id: 'ListNftTransactionTransfers',
    method: 'GET',
    path: '/insights/v1/nfts/transfers/transaction/{transaction_hash}',
    group: 'insights',
    handler: 'functions/insights/list-nft-transaction-transfers.ts',
    table: READ_ONLY,
    summary: 'NFT transfers of one transaction, by log index (ERC-1155 batches one row per id)',
    example: { pathParameters: { transaction_hash: DEMO.nftBatchTransfer }, query: { chain_id: [DEMO.chainId] } },
  },
  {
    id: 'ListNftContractTransfers',
    method: 'GET',
    path: '/insights/v1/nfts/transfers/{contract_address}',
    group: 'insights',
    handler: 'functions/insights/list-nft-contract-transfers.ts',
    table: READ_ONLY,
    summary: 'Transfers of one NFT contract (none for a contract that is not an NFT)',
    example: { pathParameters: { contract_address: DEMO.multi }, query: { chain_id: [DEMO.chainId], limit: '10' } },
  },
  {
    id: 'ListNftTokenTransfers',
    method: 'GET',
    path: '/insights/v1/nfts/transfers/{contract_address}/{token_id}',
    group: 'insights',
    handler: 'functions/insights/list-nft-token-transfers.ts',
    table: READ_ONLY,
    summary: 'Transfers of one NFT (its own range; with owner_address a bounded check of the token id in the owner’s range)',
    example: { pathParameters: { contract_address: DEMO.nft, token_id: '2' }, query: { chain_id: [DEMO.chainId], metadata: 'true' } },
  },
  {
    id: 'ListTokenOwners',
    method: 'GET',
    path: '/insights/v1/tokens/owners',
    group: 'insights',
    handler: 'functions/insights/list-token-owners.ts',
    table: READ_ONLY,
    summary: 'Holders of an ERC-20 token, largest balance first',
    example: { query: { chain_id: [DEMO.chainId], contract_address: DEMO.token } },
  },
  {
    id: 'ListNftOwners',
    method: 'GET',
    path: '/insights/v1/nfts/owners/{contract_address}',
    group: 'insights',
    handler: 'functions/insights/list-nft-owners.ts',
    table: READ_ONLY,
    summary: 'Owners of an NFT contract: addresses, or with include_balances one row per (owner, token id)',
    example: { pathParameters: { contract_address: DEMO.multi }, query: { chain_id: [DEMO.chainId], include_balances: 'true' } },
  },
  {
    id: 'ListNftTokenOwners',
    method: 'GET',
    path: '/insights/v1/nfts/owners/{contract_address}/{token_id}',
    group: 'insights',
    handler: 'functions/insights/list-nft-token-owners.ts',
    table: READ_ONLY,
    summary: 'Owners of one NFT (ERC-721: its owner; ERC-1155: holders of the id, largest balance first)',
    example: {
      pathParameters: { contract_address: DEMO.nft, token_id: '2' },
      query: { chain_id: [DEMO.chainId], include_balances: 'true' },
    },
  },
  {
    id: 'GetNftCollection',
    method: 'GET',
    path: '/insights/v1/nfts/collections/{contract_address}',
    group: 'insights',
    handler: 'functions/insights/get-nft-collection.ts',
    table: READ_ONLY,
    summary: 'An NFT contract as a collection (its on-chain name and symbol) with owner, token, mint and quantity counts on request',
    example: { pathParameters: { contract_address: DEMO.nft }, query: { chain_id: [DEMO.chainId], include_stats: 'true' } },
  },
  {
    id: 'ListContractAllTransactions',
    method: 'GET',
    path: '/insights/v1/transactions/{contractAddress}',
    group: 'insights',
    handler: 'functions/insights/list-contract-all-transactions.ts',
    table: READ_ONLY,
    summary: 'Every transaction sent to a contract (not the one that created it), any function, with filters and aggregation',
    example: { pathParameters: { contractAddress: DEMO.token }, query: { chain_id: [DEMO.chainId], limit: '5' } },
  },
  {
    id: 'ListTransactions',
    method: 'GET',
    path: '/insights/v1/transactions',
    group: 'insights',
    handler: 'functions/insights/list-transactions.ts',
    table: READ_ONLY,
    summary: 'Transactions of one or more chains by recipient, sender or function selector (one of them required)',
    example: { query: { chain_id: [DEMO.chainId], filter_from_address: DEMO.busyAccount, limit: '5' } },
  },
  {
    id: 'ListWalletTransactions',
    method: 'GET',
    path: '/insights/v1/wallets/{wallet_address}/transactions',
    group: 'insights',
    handler: 'functions/insights/list-wallet-transactions.ts',
    table: READ_ONLY,
    summary: 'Transactions sent from or to a wallet, with filters and aggregation',
    example: { pathParameters: { wallet_address: DEMO.busyAccount }, query: { chain_id: [DEMO.chainId], limit: '5' } },
  },
  {
    id: 'ListEvents',
    method: 'GET',
    path: '/insights/v1/events',
    group: 'insights',
    handler: 'functions/insights/list-events.ts',
    table: READ_ONLY,
    summary: 'Events (logs) of one or more chains by contract, topic 0 or transaction (one of them required), with decoding',
    example: {
      query: { chain_id: [DEMO.chainId], filter_topic_0: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', limit: '5' },
    },
  },
  {
    id: 'ListSignatureEvents',
    method: 'GET',
    path: '/insights/v1/events/{contractAddress}/{signature}',
    group: 'insights',
    handler: 'functions/insights/list-signature-events.ts',
    table: READ_ONLY,
    summary: "A contract's events of one signature (text signature or topic 0), decoded with that signature",
    example: {
      pathParameters: { contractAddress: DEMO.token, signature: 'Transfer(address indexed from,address indexed to,uint256 value)' },
      query: { chain_id: [DEMO.chainId], decode: 'true', limit: '5' },
    },
  },
  // ----- insights contract ABI and decoding (I11: what the ingest and the event ABI registry know) -----
  {
    id: 'GetContractAbi',
    method: 'GET',
    path: '/insights/v1/contracts/abi/{contractAddress}',
    group: 'insights',
    handler: 'functions/insights/get-contract-abi.ts',
    table: READ_ONLY,
    summary:
      "A contract's ABI as this service knows it: its token standard's ABI, and the registry's ABIs of the events it emitted (404 when neither)",
    example: { pathParameters: { contractAddress: DEMO.token }, query: { chain_id: [DEMO.chainId] } },
  },
  {
    id: 'DecodeContractData',
    method: 'POST',
    path: '/insights/v1/decode/{contractAddress}',
    group: 'insights',
    handler: 'functions/insights/decode-contract-data.ts',
    table: READ_ONLY,
    summary: "Decode transactions' calldata and logs with the contract's ABI as GET /v1/contracts/abi gives it",
    example: {
      pathParameters: { contractAddress: DEMO.token },
      query: { chain_id: [DEMO.chainId] },
      headers: { 'content-type': 'application/json' },
      body: {
        transactions: [
          {
            data: '0xa9059cbb00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c80000000000000000000000000000000000000000000000000de0b6b3a7640000',
          },
        ],
        logs: [
          {
            topics: [
              '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
              '0x000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266',
              '0x00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8',
            ],
            data: '0x0000000000000000000000000000000000000000000000000de0b6b3a7640000',
          },
        ],
      },
    },
  },
  // ----- insights routes whose data is outside the chain (I12: 501 in Insight's error format) -----
  {
    id: 'GetTokenPrices',
    method: 'GET',
    path: '/insights/v1/tokens/price',
    group: 'insights',
    handler: 'functions/insights/get-token-prices.ts',
    table: NO_TABLE,
    summary: 'Not served (501): token prices come from markets, not from the chain',
    notServed: 'token prices come from markets, not from the chain',
    example: {},
  },
  {
    id: 'GetSupportedTokenPrices',
    method: 'GET',
    path: '/insights/v1/tokens/price/supported',
    group: 'insights',
    handler: 'functions/insights/get-token-prices.ts',
    table: NO_TABLE,
    summary: 'Not served (501): the tokens with prices come from markets, not from the chain',
    notServed: 'the tokens with prices come from markets, not from the chain',
    example: {},
  },
  {
    id: 'LookupTokens',
    method: 'GET',
    path: '/insights/v1/tokens/lookup',
    group: 'insights',
    handler: 'functions/insights/lookup-tokens.ts',
    table: READ_ONLY,
    summary: 'The indexed ERC-20 tokens carrying one or more symbols (case-insensitive) on the requested chains, most holders first',
    example: { query: { chain_id: [DEMO.chainId], symbol: ['demo'] } },
  },
  {
    id: 'GetContractMetadata',
    method: 'GET',
    path: '/insights/v1/contracts/metadata/{contractAddress}',
    group: 'insights',
    handler: 'functions/insights/get-token-prices.ts',
    table: NO_TABLE,
    summary: "Not served (501): a contract's metadata is its verified source's compiler output, which the chain does not hold",
    notServed: "a contract's metadata is its verified source's compiler output, which the chain does not hold",
    example: { pathParameters: { contractAddress: DEMO.token } },
  },
  {
    id: 'RefreshContractNftMetadata',
    method: 'GET',
    path: '/insights/v1/nfts/metadata/refresh/{contract_address}',
    group: 'insights',
    handler: 'functions/insights/refresh-contract-nft-metadata.ts',
    table: READ_ONLY,
    summary:
      'Queue a fetch of the metadata of every token of an NFT contract from the web again (ipfs://, ar://, https:// token URIs), on each requested chain that indexes it',
    example: { pathParameters: { contract_address: DEMO.nft }, query: { chain_id: [DEMO.chainId] } },
    publishesTo: ['NftMetadata'],
  },
  {
    id: 'RefreshNftMetadata',
    method: 'GET',
    path: '/insights/v1/nfts/metadata/refresh/{contract_address}/{token_id}',
    group: 'insights',
    handler: 'functions/insights/refresh-nft-metadata.ts',
    table: READ_ONLY,
    summary:
      "Queue a fetch of one NFT's metadata from the web again (ipfs://, ar://, https:// token URIs), on each requested chain that has it",
    example: { pathParameters: { contract_address: DEMO.nft, token_id: '1' }, query: { chain_id: [DEMO.chainId] } },
    publishesTo: ['NftMetadata'],
  },
  // Insight's webhook routes (I12): each needs a secret key (`npm run keys`), counted on its item (K1).
  {
    id: 'ListWebhooks',
    method: 'GET',
    path: '/insights/v1/webhooks',
    group: 'insights',
    handler: 'functions/insights/list-webhooks.ts',
    table: WEBHOOK_READER,
    summary: "List the webhooks of the secret key's project, or the one of `webhook_id`",
    example: { headers: { 'x-secret-key': EXAMPLE_SECRET_KEY } },
  },
  {
    id: 'CreateWebhook',
    method: 'POST',
    path: '/insights/v1/webhooks',
    group: 'insights',
    handler: 'functions/insights/create-webhook.ts',
    table: WEBHOOK_WRITER,
    summary: "Create a webhook for the secret key's project: its receiver's URL, its filters, its signing secret",
    example: {
      headers: { 'x-secret-key': EXAMPLE_SECRET_KEY },
      body: {
        name: 'Transfers of the demo token',
        webhook_url: 'https://example.com/webhook',
        filters: { 'v1.events': { addresses: [DEMO.token] } },
      },
    },
  },
  {
    id: 'DeleteWebhook',
    method: 'DELETE',
    path: '/insights/v1/webhooks/{webhook_id}',
    group: 'insights',
    handler: 'functions/insights/delete-webhook.ts',
    table: WEBHOOK_WRITER,
    summary: "Delete one of the secret key's project's webhooks (answers the deleted webhook)",
    example: { headers: { 'x-secret-key': EXAMPLE_SECRET_KEY }, pathParameters: { webhook_id: 'example-webhook' } },
  },
  {
    id: 'UpdateWebhook',
    method: 'PATCH',
    path: '/insights/v1/webhooks/{webhook_id}',
    group: 'insights',
    handler: 'functions/insights/update-webhook.ts',
    table: WEBHOOK_WRITER,
    summary: "Change, disable, enable or resume one of the secret key's project's webhooks",
    example: {
      headers: { 'x-secret-key': EXAMPLE_SECRET_KEY },
      pathParameters: { webhook_id: 'example-webhook' },
      body: { disabled: true },
    },
  },
  {
    id: 'TestWebhook',
    method: 'POST',
    path: '/insights/v1/webhooks/test',
    group: 'insights',
    handler: 'functions/insights/test-webhook.ts',
    table: WEBHOOK_READER,
    summary: 'Send a sample event or transaction to a URL as a delivery would, signed with the secret test123',
    example: { headers: { 'x-secret-key': EXAMPLE_SECRET_KEY }, body: { webhook_url: 'https://receiver.example.com/hook', type: 'event' } },
  },
  {
    id: 'ValidateWebhookFilters',
    method: 'POST',
    path: '/insights/service/webhooks/filters/validate',
    group: 'insights',
    handler: 'functions/insights/validate-webhook-filters.ts',
    table: WEBHOOK_READER,
    summary: 'Whether a filters object is one a webhook may have, and where it is not',
    example: {
      headers: { 'x-secret-key': EXAMPLE_SECRET_KEY },
      body: { 'v1.transactions': { to_addresses: [DEMO.token] } },
    },
  },
  // ----- orders (orders base URL) -----
  {
    id: 'CreateOrder',
    method: 'POST',
    path: '/orders',
    group: 'orders',
    handler: 'functions/orders/create-order.ts',
    // Reads partner, fee-token balance, session and idempotency key; one TransactWriteItems puts the
    // order (and the idempotency key) and updates the checkout session.
    table: {
      read: true,
      write: ['PutItem', 'UpdateItem'],
      // The order, its list pointers (every order, its creator's), its Idempotency-Key, its checkout session.
      writeKeys: ['ORDER#*', 'ORDERS', 'ORDERS#CREATOR#*', 'IDEMPOTENCY#POST /orders#*', 'CHECKOUT#*'],
    },
    summary:
      'Create an order (swap, custom, mint_nft, join_tournament, fund_tournament) with its deposit address, fee breakdown and optional onramp link',
    example: {
      headers: { 'content-type': 'application/json' },
      body: {
        type: 'swap',
        recipientAddress: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
        srcChain: 8453,
        dstChain: 1,
        srcTokenAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        dstTokenAddress: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
        srcAmount: '25000000',
        payload: { expectedDstAmount: '24900000' },
        metadata: {
          srcToken: { chainId: 8453, address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', symbol: 'USDC', name: 'USD Coin', decimals: 6 },
          dstToken: { chainId: 1, address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', symbol: 'USDC', name: 'USD Coin', decimals: 6 },
        },
        clientReferenceId: 'example-order-1',
        creatorAddress: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      },
    },
  },
  {
    id: 'GetOrder',
    method: 'GET',
    path: '/orders/{id}',
    group: 'orders',
    handler: 'functions/orders/get-order.ts',
    table: READ_ONLY,
    summary: 'One order by id with its deposit transactions; a waiting order past its expiry reads as expired',
    example: { pathParameters: { id: '0b9c2f6e-3c1d-4e8a-9f2b-7d5e1a4c6b30' } },
  },
  {
    id: 'ListOrders',
    method: 'GET',
    path: '/orders',
    group: 'orders',
    handler: 'functions/orders/list-orders.ts',
    // One Query of key-only pointers (O11 / O12), one BatchGetItem of the page's orders.
    table: READ_ONLY,
    summary: 'Orders newest first, of one creator (any letter case) or of everyone, paged by limit and offset',
    example: { query: { limit: '20', offset: '0', creatorAddress: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' } },
  },
  {
    id: 'CreateCheckoutSession',
    method: 'POST',
    path: '/checkout-sessions',
    group: 'orders',
    handler: 'functions/orders/create-checkout-session.ts',
    // Reads the idempotency key; one TransactWriteItems puts the session (and the key).
    table: { read: true, write: ['PutItem'], writeKeys: ['CHECKOUT#*', 'IDEMPOTENCY#POST /checkout-sessions#*'] },
    summary: 'Open a checkout session (expires_in 300 to 86400 seconds) that one order may name',
    example: { headers: { 'content-type': 'application/json' }, body: { expires_in: 1800, clientReferenceId: 'example-checkout-1' } },
  },
  {
    id: 'GetCheckoutSession',
    method: 'GET',
    path: '/checkout-sessions/{id}',
    group: 'orders',
    handler: 'functions/orders/get-checkout-session.ts',
    table: READ_ONLY,
    summary: 'One checkout session: status (open, processing, complete, expired) and its order',
    example: { pathParameters: { id: '5e0f8a2b-9d4c-4f1e-8b3a-2c7d6e9f0a1b' } },
  },
  // ----- collections (collections base URL) -----
  {
    id: 'ListCollections',
    method: 'GET',
    path: '/collections',
    group: 'collections',
    handler: 'functions/collections/list-collections.ts',
    table: READ_ONLY,
    summary: 'List NFT collections, newest first, filtered by creator, symbol, referrer, chainId, gameOwner or gameId',
    example: { query: { limit: '10', page: '1' } },
  },
  {
    id: 'CreateCollection',
    method: 'POST',
    path: '/collections',
    group: 'collections',
    handler: 'functions/collections/create-collection.ts',
    // Reads its list ranges' counters (strongly consistent), then one TransactWriteItems of Puts
    // (conditional on the collection) and counter Updates: the collection, its entries in the list
    // ranges and the ranges' counters.
    table: { read: true, write: ['PutItem', 'UpdateItem'], writeKeys: ['COLLECTION#*', 'COLLECTIONS#*', 'COLLECTIONS-COUNT#*'] },
    summary: 'Store a collection signed by its creator (EIP-712) and return its predicted address',
    example: {
      headers: { 'content-type': 'application/json' },
      // Signed with the anvil dev key #0 (0xac09...ff80) over the default signing domain of chain 8453;
      // its predicted address is the GetCollection example's. test/functions/collections checks both.
      // `uuid` and `tokenStandard` as the BaseMint SDK's createMetadata sends them (neither is signed).
      body: {
        uuid: '3f2a9c4e-8b1d-4e6f-a2c3-5d7e9f0b1c2d',
        name: 'Example Collection',
        symbol: 'EXMPL',
        baseURI: 'https://example.com/collections/exmpl/',
        creator: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
        gameOwner: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
        maxSupply: '10000',
        mintPrice: '1000000000000000',
        maxPerWallet: '10',
        isWhitelistEnabled: false,
        whitelistMerkleRoot: '0x0000000000000000000000000000000000000000000000000000000000000000',
        startTime: '1767225600',
        endTime: '1798761600',
        tokenStandard: 'ERC721',
        chainId: 8453,
        creatorSignature:
          '0x12be2a5dc2c8608172f899b01baebd366619db316bb243d22ef7a7fd226ae2185fb698a0339d09e1f559df89e371f6e409702e6a65d1f7028c8bc15456e219ab1b',
        gameId: 'example-game',
        referrer: 'examplepartner',
        image: 'https://example.com/collections/exmpl/cover.png',
        description: 'An example collection created from the generated sam event',
        attributes: [{ trait_type: 'Edition', value: 'First' }],
      },
    },
  },
  {
    id: 'GetCollectionSigningDomain',
    method: 'GET',
    path: '/collections/signing-domain',
    group: 'collections',
    handler: 'functions/collections/get-collection-signing-domain.ts',
    table: NO_TABLE,
    summary: 'The EIP-712 domain, types and primary type a creator signs for a chain',
    example: { query: { chainId: '8453' } },
  },
  {
    id: 'GetCollection',
    method: 'GET',
    path: '/collections/{predictedAddress}',
    group: 'collections',
    handler: 'functions/collections/get-collection.ts',
    table: READ_ONLY,
    summary: 'One collection by its predicted address',
    example: { pathParameters: { predictedAddress: '0x7164d9c6686CA801316944a00826d2Db5D1bE313' } },
  },
  // ----- platform (every base URL: its own contract and reference) -----
  {
    id: 'GetOpenApiDocument',
    method: 'GET',
    path: '/openapi.json',
    group: 'platform',
    handler: 'functions/platform/get-open-api-document.ts',
    table: NO_TABLE,
    summary: 'The OpenAPI 3.1 document of this base URL: every route, parameter, body, response and error body',
    example: {},
  },
  {
    id: 'GetApiReference',
    method: 'GET',
    path: '/docs',
    group: 'platform',
    handler: 'functions/platform/get-api-reference.ts',
    table: NO_TABLE,
    summary: 'The interactive reference of this base URL (Swagger UI, served by the service itself), with Try it out',
    assets: Object.values(REFERENCE_PAGE_ASSETS),
    example: { headers: { accept: 'text/html' } },
  },
];

/** The handler answering requests that match no route of an API: 404, or 405 for a wrong method. */
export const FALLBACK_HANDLER = 'functions/platform/route-not-found.ts';

/** The base URLs that serve a route: its group's, or all three for a platform route. */
export function apisOf(route: Route): readonly ApiName[] {
  return route.group === 'platform' ? API_NAMES : [API_OF_GROUP[route.group]];
}

/** The base URL of a route; for a platform route, the first of all (its `events/` file targets it). */
export function apiOf(route: Route): ApiName {
  return apisOf(route)[0]!;
}

/** The group whose error format a route answers in on a base URL (a platform route takes the path's there). */
export function errorGroupOf(route: Route, api: ApiName = apiOf(route)): ApiGroup {
  return route.group === 'platform' ? groupOfPath(api, route.path) : route.group;
}

export function routesOf(api: ApiName): Route[] {
  return routes.filter((route) => apisOf(route).includes(api));
}

export interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string>;
}

/** A route template split once: its segments (a parameter's name, or the literal text) and its literal count. */
interface CompiledRoute {
  route: Route;
  segments: { parameter: string | undefined; text: string }[];
}

/** Each API's routes as matchRoute tries them: most literal segments first, route table order otherwise. */
const compiledRoutes = new Map<ApiName, CompiledRoute[]>();

function compiledRoutesOf(api: ApiName): CompiledRoute[] {
  let compiled = compiledRoutes.get(api);
  if (!compiled) {
    compiled = routesOf(api)
      .map((route) => ({
        route,
        segments: route.path
          .split('/')
          .filter(Boolean)
          .map((text) => ({ parameter: text.startsWith('{') && text.endsWith('}') ? text.slice(1, -1) : undefined, text })),
      }))
      .sort((a, b) => literalWeight(b.route.path) - literalWeight(a.route.path));
    compiledRoutes.set(api, compiled);
  }
  return compiled;
}

/** Matches a request path against the route templates of an API; literal segments beat parameters. */
export function matchRoute(api: ApiName, method: string, path: string): { match?: RouteMatch; allowedMethods: HttpMethod[] } {
  const pathSegments = path.split('/').filter(Boolean);
  const upper = method.toUpperCase();
  const allowedMethods = new Set<HttpMethod>();
  let match: RouteMatch | undefined;
  for (const compiled of compiledRoutesOf(api)) {
    const pathParameters = matchTemplate(compiled, pathSegments);
    if (pathParameters === undefined) continue;
    allowedMethods.add(compiled.route.method);
    if (!match && compiled.route.method === upper) match = { route: compiled.route, pathParameters };
  }
  return { match, allowedMethods: [...allowedMethods] };
}

function matchTemplate(compiled: CompiledRoute, pathSegments: readonly string[]): Record<string, string> | undefined {
  if (compiled.segments.length !== pathSegments.length) return undefined;
  // Literal segments first: most templates fail on one, before any parameter is decoded.
  for (const [i, segment] of compiled.segments.entries()) {
    if (segment.parameter === undefined && segment.text !== pathSegments[i]) return undefined;
  }
  const parameters: Record<string, string> = {};
  for (const [i, segment] of compiled.segments.entries()) {
    if (segment.parameter === undefined) continue;
    try {
      // Same length, checked above.
      parameters[segment.parameter] = decodeURIComponent(pathSegments[i]!);
    } catch {
      return undefined;
    }
  }
  return parameters;
}

function literalWeight(template: string): number {
  return template.split('/').filter((segment) => segment && !segment.startsWith('{')).length;
}
