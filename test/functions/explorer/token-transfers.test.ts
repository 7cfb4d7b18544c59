/**
 * E3 GET /explorer/addresses/{address_hash}/token-transfers on an ingested demo chain. The expected
 * listings come from the chain's own logs (decoded here with viem), so every combination of
 * direction, `type` and `token` is checked against the chain, not against the ingest.
 */
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeEventLog, getAddress, keccak256, parseAbi, parseEther, toBytes, toFunctionSelector, zeroAddress, type Address, type Hash } from 'viem';
import { tokenTransfersResponse } from '../../../shared/explorer/schemas';
import { allPages, expectPageCost, explorerGet, itemsOf, lower, nextQuery, PAGE_SIZE, useExplorerChain, type QueryValues } from './fixtures';

const chain = useExplorerChain('explorer-token-transfers');

const transferEvents = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
]);
const erc721Transfer = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)']);

interface ChainTransfer {
  transactionHash: string;
  blockNumber: number;
  logIndex: number;
  position: number;
  token: string;
  standard: 'ERC-20' | 'ERC-721' | 'ERC-1155';
  from: string;
  to: string;
  value: string;
  tokenId: string | null;
}

/** Every token transfer of the chain, from its logs, batches flattened. */
async function chainTransfers(): Promise<ChainTransfer[]> {
  const logs = await chain.publicClient.getLogs({ fromBlock: 0n, toBlock: 'latest' });
  const transfers: ChainTransfer[] = [];
  for (const log of logs) {
    const base = { transactionHash: lower(log.transactionHash!), blockNumber: Number(log.blockNumber), logIndex: log.logIndex!, token: lower(log.address) };
    try {
      if (log.topics.length === 4 && log.topics[0] === keccak256(toBytes('Transfer(address,address,uint256)'))) {
        const { args } = decodeEventLog({ abi: erc721Transfer, topics: log.topics, data: log.data });
        transfers.push({ ...base, position: 0, standard: 'ERC-721', from: lower(args.from), to: lower(args.to), value: '1', tokenId: args.tokenId.toString() });
        continue;
      }
      const event = decodeEventLog({ abi: transferEvents, topics: log.topics, data: log.data });
      if (event.eventName === 'Transfer') {
        transfers.push({ ...base, position: 0, standard: 'ERC-20', from: lower(event.args.from), to: lower(event.args.to), value: event.args.value.toString(), tokenId: null });
      } else if (event.eventName === 'TransferSingle') {
        const { from, to, id, value } = event.args;
        transfers.push({ ...base, position: 0, standard: 'ERC-1155', from: lower(from), to: lower(to), value: value.toString(), tokenId: id.toString() });
      } else {
        const { from, to, ids, values } = event.args;
        ids.forEach((id, position) =>
          transfers.push({ ...base, position, standard: 'ERC-1155', from: lower(from), to: lower(to), value: values[position].toString(), tokenId: id.toString() }),
        );
      }
    } catch {
      // not a transfer event
    }
  }
  return transfers;
}

/** The listing a filter should give, newest first: block desc, log index desc, batch position desc. */
function expected(transfers: ChainTransfer[], address: string, query: { filter?: 'to' | 'from'; types?: string[]; token?: string }): string[] {
  const a = lower(address);
  return transfers
    .filter((t) => (query.filter === 'from' ? t.from === a : query.filter === 'to' ? t.to === a : t.from === a || t.to === a))
    .filter((t) => !query.types || query.types.includes(t.standard))
    .filter((t) => !query.token || t.token === lower(query.token))
    .sort((x, y) => y.blockNumber - x.blockNumber || y.logIndex - x.logIndex || y.position - x.position)
    .map((t) => `${t.transactionHash}|${t.logIndex}|${t.tokenId ?? '-'}|${t.value}`);
}

const keyOf = (item: any): string => `${item.transaction_hash}|${item.log_index}|${item.total.token_id ?? '-'}|${item.total.value}`;

let transfers: ChainTransfer[];
let holder: Address;
let batchHash: Hash;
const BATCH_IDS = Array.from({ length: 51 }, (_, i) => 1000n + BigInt(i));

beforeAll(async () => {
  // A fresh holder receives 51 ERC-1155 ids in ONE TransferBatch: 51 flattened entries of one log.
  holder = chain.extraAccount(7).address;
  batchHash = await chain.send('deployer', {
    to: chain.manifest.contracts.multi,
    abi: chain.artifacts.DemoMulti.abi,
    functionName: 'mintBatch',
    args: [holder, BATCH_IDS, BATCH_IDS.map((_, i) => BigInt(i + 1))],
  });
  await chain.ingest();
  transfers = await chainTransfers();
});

describe('paging', () => {
  it('pages 51 entries of one ERC-1155 batch as 50 and 1, continuing inside the batch', async () => {
    const first = await explorerGet(holder, 'token-transfers');
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(PAGE_SIZE);
    expectPageCost(first.calls, { batchGet: true });
    const cursor = first.body.next_page_params!;
    expect(Object.keys(cursor).sort()).toEqual(['block_number', 'index']);
    expect(Number.isSafeInteger(cursor.index)).toBe(true);
    const second = await explorerGet(holder, 'token-transfers', nextQuery({}, cursor));
    expect(second.body.items).toHaveLength(1);
    expect(second.body.next_page_params).toBeNull();

    const items = [...first.body.items, ...second.body.items];
    expect(new Set(items.map((item) => item.transaction_hash))).toEqual(new Set([lower(batchHash)]));
    expect(new Set(items.map((item) => item.log_index)).size).toBe(1);
    // Flattened batch, newest (highest position) first: ids 1050 down to 1000, each exactly once.
    expect(items.map((item) => item.total.token_id)).toEqual([...BATCH_IDS].reverse().map(String));
    expect(items.map((item) => item.total.value)).toEqual(BATCH_IDS.map((_, i) => String(51 - i)));
    expect(items[0]).toMatchObject({
      type: 'token_minting',
      from: { hash: zeroAddress, is_contract: false },
      to: { hash: holder, is_contract: false },
      token: { address: chain.manifest.contracts.multi, type: 'ERC-1155', name: 'Demo Multi', symbol: 'DMULTI', decimals: null },
      method: toFunctionSelector('mintBatch(address,uint256[],uint256[])'),
    });
  });

  it('pages the busy address: every transfer once, newest first, batches flattened', async () => {
    const busy = chain.manifest.accounts.busy;
    const pages = await allPages(busy, 'token-transfers');
    expect(pages[0].body.items).toHaveLength(50);
    const items = itemsOf(pages);
    expect(items).toHaveLength(chain.manifest.expected.tokenTransferCounts[busy]);
    expect(items.map(keyOf)).toEqual(expected(transfers, busy, {}));
    const batch = chain.manifest.highlights.batchTransfer;
    expect(items.filter((item) => item.transaction_hash === lower(batch.hash)).map((item) => item.total.token_id)).toEqual([...batch.ids].reverse());
    for (const page of pages) {
      expect(() => v.parse(tokenTransfersResponse, page.body)).not.toThrow();
      expectPageCost(page.calls, { batchGet: true });
    }
  });
});

describe('filters', () => {
  const TYPE_QUERIES: { type?: string; types?: string[] }[] = [
    {},
    { type: 'ERC-20', types: ['ERC-20'] },
    { type: 'ERC-721', types: ['ERC-721'] },
    { type: 'ERC-1155', types: ['ERC-1155'] },
    { type: 'erc-20,ERC-1155', types: ['ERC-20', 'ERC-1155'] },
    { type: '[ERC-721, ERC-1155]', types: ['ERC-721', 'ERC-1155'] },
    { type: 'ERC-20,ERC-721,ERC-1155', types: ['ERC-20', 'ERC-721', 'ERC-1155'] },
    { type: 'ERC-404', types: [] },
    // Unknown labels are ignored; nothing known left means no type filter.
    { type: 'ERC-20,NOT-A-STANDARD', types: ['ERC-20'] },
    { type: 'NOT-A-STANDARD' },
  ];

  it('every direction x type set matches the chain, for every address that moved tokens', async () => {
    const { accounts, payees } = chain.manifest;
    for (const address of [accounts.busy, accounts.alice, accounts.bob, accounts.carol, payees.payee1, payees.payee2, holder]) {
      for (const filter of [undefined, 'to', 'from'] as const) {
        for (const { type, types } of TYPE_QUERIES) {
          const query: QueryValues = { filter, type };
          const items = itemsOf(await allPages(address, 'token-transfers', query));
          expect(items.map(keyOf), JSON.stringify({ address, ...query })).toEqual(expected(transfers, address, { filter, types }));
        }
      }
    }
  });

  it('every direction x token (and token with type) matches the chain', async () => {
    const { accounts, contracts } = chain.manifest;
    const standards = { [contracts.token]: 'ERC-20', [contracts.nft]: 'ERC-721', [contracts.multi]: 'ERC-1155' };
    for (const address of [accounts.busy, accounts.alice, accounts.carol]) {
      for (const filter of [undefined, 'to', 'from'] as const) {
        for (const token of [contracts.token, contracts.nft, contracts.multi]) {
          const want = expected(transfers, address, { filter, token });
          expect(itemsOf(await allPages(address, 'token-transfers', { filter, token })).map(keyOf)).toEqual(want);
          // The token's own standard asked for: the same listing; another standard: nothing.
          expect(itemsOf(await allPages(address, 'token-transfers', { filter, token: lower(token), type: standards[token] })).map(keyOf)).toEqual(want);
          const other = standards[token] === 'ERC-20' ? 'ERC-721' : 'ERC-20';
          const none = await explorerGet(address, 'token-transfers', { filter, token, type: other });
          expect(none.body).toEqual({ items: [], next_page_params: null });
        }
      }
    }
  });

  it('puts the request own filter and token in next_page_params', async () => {
    const { accounts, contracts } = chain.manifest;
    const query = { filter: 'from', token: lower(contracts.token), type: 'ERC-20' };
    const first = await explorerGet(accounts.busy, 'token-transfers', query);
    expect(first.body.items).toHaveLength(50);
    const lastReceipt = await chain.publicClient.getTransactionReceipt({ hash: first.body.items[49].transaction_hash });
    expect(first.body.next_page_params).toEqual({
      block_number: Number(lastReceipt.blockNumber),
      index: first.body.items[49].log_index,
      filter: 'from',
      token: contracts.token,
    });
    const rest = itemsOf(await allPages(accounts.busy, 'token-transfers', nextQuery(query, first.body.next_page_params!)));
    expect([...first.body.items, ...rest].map(keyOf)).toEqual(expected(transfers, accounts.busy, { filter: 'from', token: contracts.token }));
  });
});

describe('fields', () => {
  it('shows an ERC-20 transfer, a mint and a burn as the chain has them', async () => {
    const { accounts, contracts } = chain.manifest;
    const carol = itemsOf(await allPages(accounts.carol, 'token-transfers', { type: 'ERC-20' }));
    const burn = carol.find((item) => item.to.hash === zeroAddress)!;
    expect(burn).toMatchObject({ type: 'token_burning', from: { hash: accounts.carol }, total: { decimals: '18', value: parseEther('40').toString() } });
    const received = carol.find((item) => item.from.hash === accounts.alice)!;
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: received.transaction_hash });
    const block = await chain.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    expect(received).toMatchObject({
      type: 'token_transfer',
      block_hash: receipt.blockHash,
      method: 'transfer',
      timestamp: new Date(Number(block.timestamp) * 1000).toISOString().replace('Z', '000Z'),
      total: { decimals: '18', value: parseEther('100').toString() },
      token: {
        address: contracts.token,
        name: 'Demo Token',
        symbol: 'DEMO',
        type: 'ERC-20',
        decimals: '18',
        total_supply: chain.manifest.expected.tokenTotalSupply,
        circulating_market_cap: null,
        icon_url: null,
        exchange_rate: null,
      },
    });
    expect(receipt.logs.map((log) => log.logIndex)).toContain(received.log_index);
    expect(Number(received.token.holders)).toBeGreaterThan(0);
    const mint = itemsOf(await allPages(accounts.alice, 'token-transfers', { type: 'ERC-20', filter: 'to' })).find((item) => item.from.hash === zeroAddress);
    expect(mint).toMatchObject({ type: 'token_minting', method: toFunctionSelector('mint(address,uint256)') });
  });

  it('shows an ERC-721 transfer with its token id', async () => {
    const { accounts, contracts } = chain.manifest;
    const [item] = (await explorerGet(accounts.bob, 'token-transfers', { type: 'ERC-721' })).body.items;
    expect(item).toMatchObject({
      token: { address: contracts.nft, type: 'ERC-721', name: 'Demo NFT', decimals: null },
      total: { token_id: '4', value: '1', decimals: null },
      to: { hash: accounts.bob },
      method: 'transferFrom',
    });
  });
});

describe('an unknown address', () => {
  it('answers 200 with no items and a null cursor, after one Query', async () => {
    const unknown = getAddress(keccak256(toBytes('explorer token transfers: never used')).slice(0, 42));
    for (const query of [{}, { filter: 'to', type: 'ERC-721' }, { token: chain.manifest.contracts.token }]) {
      const response = await explorerGet(unknown, 'token-transfers', query);
      expect(response.body).toEqual({ items: [], next_page_params: null });
      expectPageCost(response.calls, { batchGet: false });
    }
  });
});

describe('paging while new blocks are ingested', () => {
  it('gives the rest of the listing from the cursor, with no gap and no repeat', async () => {
    const { accounts, contracts } = chain.manifest;
    const query = { type: 'ERC-20', filter: 'from' };
    const before = itemsOf(await allPages(accounts.busy, 'token-transfers', query)).map(keyOf);
    const first = await explorerGet(accounts.busy, 'token-transfers', query);
    for (const amount of [7n, 8n]) {
      await chain.send('busy', { to: contracts.token, abi: chain.artifacts.DemoToken.abi, functionName: 'transfer', args: [accounts.bob, amount] });
    }
    await chain.ingest();
    const rest = itemsOf(await allPages(accounts.busy, 'token-transfers', nextQuery(query, first.body.next_page_params!)));
    expect([...first.body.items.map(keyOf), ...rest.map(keyOf)]).toEqual(before);
    const now = itemsOf(await allPages(accounts.busy, 'token-transfers', query));
    expect(now.slice(0, 2).map((item) => item.total.value)).toEqual(['8', '7']);
    expect(now.slice(2).map(keyOf)).toEqual(before);
  });
});
