/**
 * E1 GET /explorer/addresses/{address_hash}/tokens, E2 .../nft/collections and E3 .../token-transfers
 * on one ingested demo chain, with holders built for paging: 51 ids of ONE ERC-1155 batch (a page ends
 * inside the batch), 51 ERC-1155 balances above 2^53 (the cursor's `value` is a JSON number), equal
 * balances across the page boundary, and 51 ERC-721 collections. Expected transfer listings come from
 * the chain's own logs (chain-oracle.ts), so every combination of direction, `type` and `token` is
 * checked against the chain, not against the ingest. Endpoint ids: see docs/access-patterns.md.
 */
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  encodeDeployData,
  getAddress,
  keccak256,
  parseEther,
  toBytes,
  toFunctionSelector,
  zeroAddress,
  type Address,
  type Hash,
} from 'viem';
import { requestJson } from '../../../scripts/lib/dispatch';
import { nftCollectionsResponse, tokenBalancesResponse, tokenTransfersResponse } from '../../../shared/explorer/schemas';
import {
  chainInternalTransactions,
  chainTransactions,
  chainTransfers,
  expectedInternalTransactions,
  expectedTransfers,
  transferKey,
  type ChainTransfer,
} from './chain-oracle';
import {
  allPages,
  expectPageCost,
  explorerGet,
  itemsOf,
  lower,
  nextQuery,
  PAGE_SIZE,
  useExplorerChain,
  type QueryValues,
} from './fixtures';

const chain = useExplorerChain('explorer-tokens');

const keyless = (label: string): Address => getAddress(keccak256(toBytes(`explorer tokens: ${label}`)).slice(0, 42));
/** 51 ERC-1155 ids minted in ONE TransferBatch: 51 flattened entries of one log. */
const batchHolder = keyless('batch');
const BATCH_IDS = Array.from({ length: 51 }, (_, i) => 1000n + BigInt(i));
let batchHash: Hash;
/** 51 ERC-1155 ids, amounts 10^21 + k x 10^6: distinct, but far beyond what a double holds exactly. */
const bigHolder = keyless('big balances');
const BIG_IDS = Array.from({ length: 51 }, (_, k) => 2000n + BigInt(k));
const bigAmount = (k: number): bigint => 10n ** 21n + BigInt(k) * 1_000_000n;
/** 48 distinct balances, then 5 equal ones that sort across the 50th place. */
const tieHolder = keyless('tied balances');
/** 60 ERC-1155 ids with one equal balance: more than a page tied on (value, type, name). */
const bigTieHolder = keyless('many tied balances');
const BIG_TIE_IDS = Array.from({ length: 60 }, (_, i) => 4000n + BigInt(i));
/**
 * Mixed standards for the two-standard E3 filter: an account that receives interleaved ERC-20 and
 * ERC-721 mints (and some ERC-1155, which the filter leaves out) of its own token contracts, then
 * sends some of each to `mixedSink`, in few blocks: more than a page in each direction.
 */
let mixed: Address;
const mixedSink = keyless('mixed sink');
const MIXED_MINTS = 30;
const MIXED_SENT = { erc20: 28, erc721: 24 };
/** 51 ERC-721 collections (the demo NFT with 12 ids, and 50 more contracts) and one ERC-1155. */
const collector = keyless('collector');
const nftContracts: Address[] = [];
const COLLECTOR_DEMO_NFT_IDS = Array.from({ length: 12 }, (_, i) => 500n + BigInt(i));
/**
 * Balances of two standards for the two-standard E1 filter (two ranges merged): 21 ERC-20 tokens
 * holding 1..21 units, ERC-721 collections of 2 tokens (10 of them) and of 1 token (20), so that the
 * standards interleave by value over two pages; and two ERC-1155 ids the filter leaves out.
 */
const mixedHolder = keyless('mixed balances');
const erc20Contracts: Address[] = [];
const MIXED_ERC20 = 21;
const MIXED_NFT_PAIRS = 10;
const MIXED_NFT_SINGLES = 20;
const MIXED_MULTI_IDS = [9100n, 9101n];

const mintBatch = (to: Address, ids: bigint[], amounts: bigint[]) =>
  chain.send('deployer', {
    to: chain.manifest.contracts.multi,
    abi: chain.artifacts.DemoMulti.abi,
    functionName: 'mintBatch',
    args: [to, ids, amounts],
  });
const mintNft = (contract: Address, to: Address, id: bigint) =>
  chain.send('deployer', { to: contract, abi: chain.artifacts.DemoNFT.abi, functionName: 'mint', args: [to, id] });

let transfers: ChainTransfer[];

beforeAll(async () => {
  const { accounts, contracts } = chain.manifest;
  batchHash = await mintBatch(
    batchHolder,
    BATCH_IDS,
    BATCH_IDS.map((_, i) => BigInt(i + 1)),
  );
  await mintBatch(
    bigHolder,
    BIG_IDS,
    BIG_IDS.map((_, k) => bigAmount(k)),
  );
  await mintBatch(
    tieHolder,
    Array.from({ length: 53 }, (_, i) => 3000n + BigInt(i)),
    Array.from({ length: 53 }, (_, i) => (i < 48 ? 100n + BigInt(i) : 5n)),
  );
  await mintBatch(
    bigTieHolder,
    BIG_TIE_IDS,
    BIG_TIE_IDS.map(() => 7n),
  );
  const deployHashes: Hash[] = [];
  await chain.inFewBlocks(async () => {
    const data = encodeDeployData({
      abi: chain.artifacts.DemoNFT.abi,
      bytecode: chain.artifacts.DemoNFT.bytecode,
      args: [accounts.deployer],
    });
    for (let i = 0; i < 50; i += 1) deployHashes.push(await chain.send('deployer', { data }));
    return deployHashes;
  });
  for (const hash of deployHashes)
    nftContracts.push(getAddress((await chain.publicClient.getTransactionReceipt({ hash })).contractAddress!));
  await chain.inFewBlocks(async () => {
    const hashes: Hash[] = [];
    for (const contract of nftContracts) hashes.push(await mintNft(contract, collector, 1n));
    for (const id of COLLECTOR_DEMO_NFT_IDS) hashes.push(await mintNft(contracts.nft, collector, id));
    hashes.push(await mintBatch(collector, [7n, 8n], [3n, 4n]));
    return hashes;
  });
  await mixedStandards();
  await mixedBalances();
  await chain.ingest();
  transfers = await chainTransfers(chain.publicClient);
});

async function mixedStandards(): Promise<void> {
  const { accounts, contracts } = chain.manifest;
  const account = chain.extraAccount(5);
  mixed = account.address;
  const erc20 = await chain.deploy('deployer', 'DemoToken', [accounts.deployer]);
  const erc721 = await chain.deploy('deployer', 'DemoNFT', [accounts.deployer]);
  const { DemoToken, DemoNFT, DemoMulti } = chain.artifacts;
  await chain.inFewBlocks(async () => {
    const hashes: Hash[] = [];
    for (let i = 0; i < MIXED_MINTS; i += 1) {
      hashes.push(await chain.send('deployer', { to: erc20, abi: DemoToken.abi, functionName: 'mint', args: [mixed, 100n + BigInt(i)] }));
      hashes.push(await chain.send('deployer', { to: erc721, abi: DemoNFT.abi, functionName: 'mint', args: [mixed, BigInt(i)] }));
      if (i % 5 === 0)
        hashes.push(
          await chain.send('deployer', {
            to: contracts.multi,
            abi: DemoMulti.abi,
            functionName: 'mint',
            args: [mixed, 9000n + BigInt(i), 1n],
          }),
        );
    }
    return hashes;
  });
  await chain.inFewBlocks(async () => {
    const hashes: Hash[] = [];
    for (let i = 0; i < Math.max(MIXED_SENT.erc20, MIXED_SENT.erc721); i += 1) {
      if (i < MIXED_SENT.erc20)
        hashes.push(
          await chain.send(account, { to: erc20, abi: DemoToken.abi, functionName: 'transfer', args: [mixedSink, 1n + BigInt(i)] }),
        );
      if (i < MIXED_SENT.erc721)
        hashes.push(
          await chain.send(account, { to: erc721, abi: DemoNFT.abi, functionName: 'transferFrom', args: [mixed, mixedSink, BigInt(i)] }),
        );
    }
    return hashes;
  });
}

async function mixedBalances(): Promise<void> {
  const { accounts } = chain.manifest;
  const { DemoToken, DemoNFT } = chain.artifacts;
  const deployHashes: Hash[] = [];
  await chain.inFewBlocks(async () => {
    const data = encodeDeployData({ abi: DemoToken.abi, bytecode: DemoToken.bytecode, args: [accounts.deployer] });
    for (let i = 0; i < MIXED_ERC20; i += 1) deployHashes.push(await chain.send('deployer', { data }));
    return deployHashes;
  });
  for (const hash of deployHashes)
    erc20Contracts.push(getAddress((await chain.publicClient.getTransactionReceipt({ hash })).contractAddress!));
  await chain.inFewBlocks(async () => {
    const hashes: Hash[] = [];
    for (const [i, token] of erc20Contracts.entries()) {
      hashes.push(
        await chain.send('deployer', { to: token, abi: DemoToken.abi, functionName: 'mint', args: [mixedHolder, BigInt(i + 1)] }),
      );
    }
    for (let i = 0; i < MIXED_NFT_PAIRS + MIXED_NFT_SINGLES; i += 1) {
      const ids = i < MIXED_NFT_PAIRS ? [100n, 101n] : [100n];
      for (const id of ids)
        hashes.push(await chain.send('deployer', { to: nftContracts[i], abi: DemoNFT.abi, functionName: 'mint', args: [mixedHolder, id] }));
    }
    hashes.push(await mintBatch(mixedHolder, MIXED_MULTI_IDS, [2n, 30n]));
    return hashes;
  });
}

/** E1's documented order: value desc, then type (ERC-20, ERC-404, ERC-1155, ERC-721), name, contract, id desc. */
const TYPE_ORDER = ['ERC-20', 'ERC-404', 'ERC-1155', 'ERC-721'];
interface ChainBalance {
  token: string;
  type: string;
  name: string;
  tokenId: string | null;
  value: bigint;
}

/** The balances of `holder` in the given contracts as the chain has them (balanceOf at the head), in E1's order. */
async function chainBalances(holder: Address, erc20: Address[], erc721: Address[], erc1155Ids: bigint[]): Promise<ChainBalance[]> {
  const { DemoToken, DemoNFT, DemoMulti } = chain.artifacts;
  const read = (address: Address, abi: any, args: readonly unknown[]) =>
    chain.publicClient.readContract({ address, abi, functionName: 'balanceOf', args }) as Promise<bigint>;
  const name = (address: Address, abi: any) => chain.publicClient.readContract({ address, abi, functionName: 'name' }) as Promise<string>;
  const balances: ChainBalance[] = [];
  for (const token of erc20)
    balances.push({
      token: lower(token),
      type: 'ERC-20',
      name: await name(token, DemoToken.abi),
      tokenId: null,
      value: await read(token, DemoToken.abi, [holder]),
    });
  for (const token of erc721)
    balances.push({
      token: lower(token),
      type: 'ERC-721',
      name: await name(token, DemoNFT.abi),
      tokenId: null,
      value: await read(token, DemoNFT.abi, [holder]),
    });
  const multi = chain.manifest.contracts.multi;
  for (const id of erc1155Ids)
    balances.push({
      token: lower(multi),
      type: 'ERC-1155',
      name: 'Demo Multi',
      tokenId: String(id),
      value: await read(multi, DemoMulti.abi, [holder, id]),
    });
  const descending = <T>(a: T, b: T): number => (a > b ? -1 : a < b ? 1 : 0);
  return balances
    .filter((balance) => balance.value > 0n)
    .sort(
      (a, b) =>
        descending(a.value, b.value) ||
        TYPE_ORDER.indexOf(a.type) - TYPE_ORDER.indexOf(b.type) ||
        descending(a.name, b.name) ||
        descending(a.token, b.token) ||
        descending(BigInt(a.tokenId ?? -1), BigInt(b.tokenId ?? -1)),
    );
}

const balanceKey = (item: any): string => `${lower(item.token.address)}|${item.token.type}|${item.token_id}|${item.value}`;
const chainBalanceKey = (balance: ChainBalance): string => `${balance.token}|${balance.type}|${balance.tokenId}|${balance.value}`;

const byValueDesc = (a: { value: string }, b: { value: string }): number =>
  BigInt(b.value) > BigInt(a.value) ? 1 : BigInt(b.value) < BigInt(a.value) ? -1 : 0;

describe('E3 token transfers: paging', () => {
  it('pages 51 entries of one ERC-1155 batch as 50 and 1, continuing inside the batch', async () => {
    const first = await explorerGet(batchHolder, 'token-transfers');
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(PAGE_SIZE);
    // No filter: the `all` range, the union of the `to` and `from` ranges (one Query each, in parallel).
    // 50 ERC-1155 instances (their fetched metadata, G7, on them) and the page's other details: at most two BatchGetItem requests at once.
    expectPageCost(first.calls, { batchGet: true, maxBatchGets: 2, queries: 2 });
    const cursor = first.body.next_page_params!;
    expect(Object.keys(cursor).sort()).toEqual(['block_number', 'index', 'items_count']);
    expect(Number.isSafeInteger(cursor.index)).toBe(true);
    const second = await explorerGet(batchHolder, 'token-transfers', nextQuery({}, cursor));
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
      to: { hash: batchHolder, is_contract: false },
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
    expect(items.map(transferKey)).toEqual(expectedTransfers(transfers, busy, {}));
    const batch = chain.manifest.highlights.batchTransfer;
    expect(items.filter((item) => item.transaction_hash === lower(batch.hash)).map((item) => item.total.token_id)).toEqual(
      [...batch.ids].reverse(),
    );
    for (const page of pages) {
      expect(() => v.parse(tokenTransfersResponse, page.body)).not.toThrow();
      expectPageCost(page.calls, { batchGet: true, queries: 2 });
    }
  });
});

describe('E3 token transfers: two standards, two ranges merged', () => {
  it('pages type=ERC-20,ERC-721 in every direction over several pages as the chain has them: in order, no repeat, no gap', async () => {
    let crossings = 0;
    for (const filter of [undefined, 'to', 'from'] as const) {
      const want = expectedTransfers(transfers, mixed, { filter, types: ['ERC-20', 'ERC-721'] });
      expect(want.length, `filter ${filter}`).toBeGreaterThan(PAGE_SIZE);
      for (const type of ['ERC-20,ERC-721', '[erc-721, ERC-20, ERC-404]']) {
        const query: QueryValues = { filter, type };
        const pages = await allPages(mixed, 'token-transfers', query);
        expect(
          pages.map((page) => page.body.items.length),
          JSON.stringify(query),
        ).toEqual(Array.from({ length: Math.ceil(want.length / PAGE_SIZE) }, (_, i) => Math.min(PAGE_SIZE, want.length - i * PAGE_SIZE)));
        const keys = itemsOf(pages).map(transferKey);
        expect(new Set(keys).size).toBe(keys.length);
        expect(keys, JSON.stringify(query)).toEqual(want);
        for (const page of pages) {
          // Two ranges; without a filter each is a union of two (`to` and `from`).
          expectPageCost(page.calls, { batchGet: true, queries: filter === undefined ? 4 : 2 });
          expect(new Set(page.body.items.map((item) => item.token.type))).toEqual(new Set(['ERC-20', 'ERC-721']));
        }
        // A page that ends on one standard and a next page that starts with the other.
        for (let i = 1; i < pages.length; i += 1)
          if (pages[i - 1].body.items.at(-1).token.type !== pages[i].body.items[0].token.type) crossings += 1;
      }
    }
    expect(crossings).toBeGreaterThan(0);
  });

  it('reads one range for one standard or all three', async () => {
    for (const type of ['ERC-721', 'ERC-20,ERC-721,ERC-1155']) {
      const types = type.split(',');
      const pages = await allPages(mixed, 'token-transfers', { type });
      expect(itemsOf(pages).map(transferKey), type).toEqual(expectedTransfers(transfers, mixed, { types }));
      // One range: the `all` union of `to` and `from` (two Queries).
      for (const page of pages) expectPageCost(page.calls, { batchGet: true, queries: 2 });
    }
  });
});

describe('E3 token transfers: filters', () => {
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
    for (const address of [
      accounts.busy,
      accounts.alice,
      accounts.bob,
      accounts.carol,
      payees.payee1,
      payees.payee2,
      batchHolder,
      collector,
    ]) {
      for (const filter of [undefined, 'to', 'from'] as const) {
        for (const { type, types } of TYPE_QUERIES) {
          const query: QueryValues = { filter, type };
          const items = itemsOf(await allPages(address, 'token-transfers', query));
          expect(items.map(transferKey), JSON.stringify({ address, ...query })).toEqual(
            expectedTransfers(transfers, address, { filter, types }),
          );
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
          const want = expectedTransfers(transfers, address, { filter, token });
          expect(itemsOf(await allPages(address, 'token-transfers', { filter, token })).map(transferKey)).toEqual(want);
          // The token's own standard asked for: the same listing; another standard: nothing.
          expect(
            itemsOf(await allPages(address, 'token-transfers', { filter, token: lower(token), type: standards[token] })).map(transferKey),
          ).toEqual(want);
          const other = standards[token] === 'ERC-20' ? 'ERC-721' : 'ERC-20';
          const none = await explorerGet(address, 'token-transfers', { filter, token, type: other });
          expect(none.body).toEqual({ items: [], next_page_params: null });
          // The token's range of the other standard is empty (the standard is in its key): one Query
          // that reads nothing (two without a filter: the union's members), no BatchGetItem.
          const perRange = filter === undefined ? 2 : 1;
          expectPageCost(none.calls, { batchGet: false, queries: perRange });
          const others = Object.values(standards).filter((standard) => standard !== standards[token]);
          const neither = await explorerGet(address, 'token-transfers', { filter, token, type: others.join(',') });
          expect(neither.body).toEqual({ items: [], next_page_params: null });
          expectPageCost(neither.calls, { batchGet: false, queries: 2 * perRange });
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
      items_count: 50,
      filter: 'from',
      token: contracts.token,
    });
    const rest = itemsOf(await allPages(accounts.busy, 'token-transfers', nextQuery(query, first.body.next_page_params!)));
    expect([...first.body.items, ...rest].map(transferKey)).toEqual(
      expectedTransfers(transfers, accounts.busy, { filter: 'from', token: contracts.token }),
    );
  });
});

describe('E3 token transfers: fields', () => {
  it('shows an ERC-20 transfer, a mint and a burn as the chain has them', async () => {
    const { accounts, contracts } = chain.manifest;
    const carol = itemsOf(await allPages(accounts.carol, 'token-transfers', { type: 'ERC-20' }));
    const burn = carol.find((item) => item.to.hash === zeroAddress)!;
    expect(burn).toMatchObject({
      type: 'token_burning',
      from: { hash: accounts.carol },
      total: { decimals: '18', value: parseEther('40').toString() },
    });
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
    const mint = itemsOf(await allPages(accounts.alice, 'token-transfers', { type: 'ERC-20', filter: 'to' })).find(
      (item) => item.from.hash === zeroAddress,
    );
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

describe('E1 tokens: paging', () => {
  it('gives 51 balances above 2^53 as a page of 50 and a page of 1, exactly once each', async () => {
    const first = await explorerGet(bigHolder, 'tokens');
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(PAGE_SIZE);
    // 50 ERC-1155 instances (their fetched metadata, G7, on them) and the page's other details: at most two BatchGetItem requests at once.
    expectPageCost(first.calls, { batchGet: true, maxBatchGets: 2, queries: 3 });
    const cursor = first.body.next_page_params!;
    expect(Object.keys(cursor).sort()).toEqual(['fiat_value', 'id', 'items_count', 'token_name', 'token_type', 'value']);
    expect(cursor).toMatchObject({
      items_count: 50,
      token_name: 'Demo Multi',
      token_type: 'ERC-1155',
      value: expect.any(Number),
      fiat_value: null,
      // The tie-breaker: the last entry's exact value, contract and id.
      id: `${bigAmount(1)}-${lower(chain.manifest.contracts.multi)}-2001`,
    });
    const second = await explorerGet(bigHolder, 'tokens', nextQuery({}, cursor));
    expect(second.body.items).toHaveLength(1);
    expect(second.body.next_page_params).toBeNull();
    const items = [...first.body.items, ...second.body.items];
    expect(items.map((item) => item.token_id)).toEqual([...BIG_IDS].reverse().map(String));
    expect(items.map((item) => item.value)).toEqual(BIG_IDS.map((_, k) => bigAmount(50 - k).toString()));
  });

  it('reads the cursor value back as a client prints it, with + encoded or not', async () => {
    const first = await explorerGet(bigHolder, 'tokens');
    const { value, token_name, token_type, items_count } = first.body.next_page_params!;
    const printed = JSON.stringify(value);
    expect(printed).toMatch(/e\+21$/);
    const url = `/explorer/addresses/${bigHolder}/tokens?value=${printed}&token_name=${encodeURIComponent(String(token_name))}&token_type=${token_type}&items_count=${items_count}`;
    const raw = await requestJson('base', 'GET', url);
    expect(raw.status).toBe(200);
    expect(raw.body.items.map((item: any) => item.token_id)).toEqual(['2000']);
  });

  it('splits balances that tie on value, type and name across pages with the id tie-breaker, nothing skipped or repeated', async () => {
    const pages = await allPages(tieHolder, 'tokens');
    expect(pages.map((page) => page.body.items.length)).toEqual([50, 3]);
    expect(pages[0].body.next_page_params).toMatchObject({
      items_count: 50,
      value: 5,
      id: expect.stringMatching(/^5-0x[0-9a-f]{40}-30\d\d$/),
    });
    const items = itemsOf(pages);
    expect(new Set(items.map((item) => item.token_id)).size).toBe(53);
    expect(items.slice(48).every((item) => item.value === '5')).toBe(true);
  });

  it('pages more than 50 balances tied on (value, type, name) as the chain has them: every one once, in order', async () => {
    const truth = await chainBalances(bigTieHolder, [], [], BIG_TIE_IDS);
    expect(truth).toHaveLength(BIG_TIE_IDS.length);
    const pages = await allPages(bigTieHolder, 'tokens');
    expect(pages.map((page) => page.body.items.length)).toEqual([50, BIG_TIE_IDS.length - 50]);
    expect(itemsOf(pages).map(balanceKey)).toEqual(truth.map(chainBalanceKey));
    // 50 ERC-1155 instances (their fetched metadata, G7, on them) and the page's other details: at most two BatchGetItem requests at once.
    for (const page of pages) expectPageCost(page.calls, { batchGet: true, maxBatchGets: 2, queries: 3 });
    // A client of the spec's three fields only (no id): the old bound, which skips the rest of the tie.
    const { value, token_type, token_name } = pages[0].body.next_page_params!;
    const withoutId = await explorerGet(bigTieHolder, 'tokens', { value, token_type, token_name });
    expect(withoutId.body.items).toEqual([]);
  });
});

describe('E1 tokens: values, types and order', () => {
  it('lists the balances of alice as the demo plan left them, largest value first', async () => {
    const { accounts, contracts, expected } = chain.manifest;
    const pages = await allPages(accounts.alice, 'tokens');
    for (const page of pages) {
      expect(() => v.parse(tokenBalancesResponse, page.body)).not.toThrow();
      expectPageCost(page.calls, { batchGet: true, queries: 3 });
    }
    const items = itemsOf(pages);
    expect([...items].sort(byValueDesc)).toEqual(items);
    const erc20 = items.find((item) => item.token.type === 'ERC-20');
    expect(erc20).toMatchObject({
      value: expected.tokenBalances[accounts.alice],
      token_id: null,
      token_instance: null,
      token: { address: contracts.token, name: 'Demo Token', symbol: 'DEMO', decimals: '18', total_supply: expected.tokenTotalSupply },
    });
    const nftCount = Object.values(expected.nftOwners).filter((owner) => owner === accounts.alice).length;
    expect(items.find((item) => item.token.type === 'ERC-721')).toMatchObject({
      value: String(nftCount),
      token_id: null,
      token_instance: null,
      token: { address: contracts.nft, name: 'Demo NFT' },
    });
    const held = expected.multiBalances.filter((b) => b.owner === accounts.alice && b.amount !== '0');
    const multi = items.filter((item) => item.token.type === 'ERC-1155');
    expect(multi.map((item) => [item.token_id, item.value]).sort()).toEqual(held.map((b) => [b.id, b.amount]).sort());
    expect(multi[0].token_instance).toMatchObject({
      id: multi[0].token_id,
      is_unique: false,
      owner: null,
      holder_address_hash: accounts.alice,
      token: { address: contracts.multi, type: 'ERC-1155', name: 'Demo Multi' },
    });
  });

  it('filters by type: one standard, several, in brackets, ERC-404, unknown labels', async () => {
    const alice = chain.manifest.accounts.alice;
    const all = itemsOf(await allPages(alice, 'tokens'));
    const only = (...types: string[]) => all.filter((item) => types.includes(item.token.type));
    const cases: [string, unknown[]][] = [
      ['ERC-20', only('ERC-20')],
      ['erc-721', only('ERC-721')],
      ['ERC-1155', only('ERC-1155')],
      ['ERC-20,ERC-1155', only('ERC-20', 'ERC-1155')],
      ['[ERC-721,ERC-1155]', only('ERC-721', 'ERC-1155')],
      ['ERC-404', []],
      ['SOMETHING-ELSE', all],
    ];
    for (const [type, want] of cases) {
      const pages = await allPages(alice, 'tokens', { type });
      expect(itemsOf(pages), type).toEqual(want);
      // One range (gsi3) per indexed standard asked for, merged; every standard without a (known) one.
      const standards = ['ERC-20', 'ERC-721', 'ERC-1155'].filter((standard) => type.toUpperCase().includes(standard)).length;
      const queries = type === 'ERC-404' ? 0 : standards === 0 ? 3 : standards;
      for (const page of pages) expectPageCost(page.calls, { batchGet: want.length > 0, queries });
    }
  });
});

describe('E1 tokens: two standards, two ranges merged', () => {
  it('pages type=ERC-20,ERC-721 as the chain has the balances: in order, no repeat, no gap, two Queries a page', async () => {
    const nfts = nftContracts.slice(0, MIXED_NFT_PAIRS + MIXED_NFT_SINGLES);
    const truth = await chainBalances(mixedHolder, erc20Contracts, nfts, MIXED_MULTI_IDS);
    expect(itemsOf(await allPages(mixedHolder, 'tokens')).map(balanceKey)).toEqual(truth.map(chainBalanceKey));
    const want = truth.filter((balance) => balance.type !== 'ERC-1155').map(chainBalanceKey);
    expect(want.length).toBeGreaterThan(PAGE_SIZE);
    let crossings = 0;
    for (const type of ['ERC-20,ERC-721', '[erc-721, ERC-20, ERC-404]']) {
      const pages = await allPages(mixedHolder, 'tokens', { type });
      expect(pages.length, type).toBeGreaterThan(1);
      expect(itemsOf(pages).map(balanceKey), type).toEqual(want);
      for (const page of pages) {
        expect(() => v.parse(tokenBalancesResponse, page.body)).not.toThrow();
        expect(page.body.items.length).toBeLessThanOrEqual(PAGE_SIZE);
        expectPageCost(page.calls, { batchGet: true, queries: 2 });
      }
      // A page that ends on one standard and a next page that starts with the other, or a page of both.
      for (let i = 1; i < pages.length; i += 1)
        if (pages[i - 1].body.items.at(-1).token.type !== pages[i].body.items[0].token.type) crossings += 1;
      for (const page of pages) if (new Set(page.body.items.map((item) => item.token.type)).size > 1) crossings += 1;
    }
    expect(crossings).toBeGreaterThan(0);
    // One standard: one range.
    const erc721 = await allPages(mixedHolder, 'tokens', { type: 'ERC-721' });
    expect(itemsOf(erc721).map(balanceKey)).toEqual(truth.filter((balance) => balance.type === 'ERC-721').map(chainBalanceKey));
    for (const page of erc721) expectPageCost(page.calls, { batchGet: true, queries: 1 });
  });

  it('pages without a type the ERC-20, ERC-721 and ERC-1155 ranges merged in value order: every balance once, three Queries a page', async () => {
    const nfts = nftContracts.slice(0, MIXED_NFT_PAIRS + MIXED_NFT_SINGLES);
    const truth = await chainBalances(mixedHolder, erc20Contracts, nfts, MIXED_MULTI_IDS);
    expect(new Set(truth.map((balance) => balance.type))).toEqual(new Set(['ERC-20', 'ERC-721', 'ERC-1155']));
    expect(truth.length).toBeGreaterThan(PAGE_SIZE);
    const pages = await allPages(mixedHolder, 'tokens');
    expect(pages.length).toBeGreaterThan(1);
    // The chain's order (value desc, then type, name, contract, id), computed apart from the ranges.
    expect(itemsOf(pages).map(balanceKey)).toEqual(truth.map(chainBalanceKey));
    for (const page of pages) {
      expect(() => v.parse(tokenBalancesResponse, page.body)).not.toThrow();
      expect(page.body.items.length).toBeLessThanOrEqual(PAGE_SIZE);
      // Each standard's gsi3 range, Limit 51, in parallel (at most 3 x 51 items read), and one BatchGetItem.
      expectPageCost(page.calls, { batchGet: true, queries: 3 });
    }
    // The cursor crosses the standards: some page mixes standards or ends on another than the next starts with.
    const mixing = pages.filter((page) => new Set(page.body.items.map((item) => item.token.type)).size > 1).length;
    const crossings = pages.slice(1).filter((page, i) => pages[i].body.items.at(-1).token.type !== page.body.items[0].token.type).length;
    expect(mixing + crossings).toBeGreaterThan(0);
  });
});

describe('E2 nft/collections', () => {
  it('pages 51 ERC-721 collections as 50 and 1, contract ascending, with the type filter kept by the client', async () => {
    const pages = await allPages(collector, 'nft/collections', { type: 'ERC-721' });
    expect(pages.map((page) => page.body.items.length)).toEqual([50, 1]);
    const cursor = pages[0].body.next_page_params!;
    expect(Object.keys(cursor).sort()).toEqual(['token_contract_address_hash', 'token_type']);
    expect(cursor).toEqual({ token_contract_address_hash: pages[0].body.items[49].token.address, token_type: 'ERC-721' });
    const addresses = itemsOf(pages).map((item) => item.token.address);
    expect(addresses).toEqual([...nftContracts, chain.manifest.contracts.nft].sort((a, b) => lower(a).localeCompare(lower(b))));
    for (const page of pages) {
      expect(() => v.parse(nftCollectionsResponse, page.body)).not.toThrow();
      // 50 collections' contracts and the instances whose document they do not embed: at most two BatchGetItem requests at once.
      expectPageCost(page.calls, { batchGet: true, maxBatchGets: 2 });
    }
  });

  it('pages type=ERC-721,ERC-1155 as the chain has the collections: two ranges merged, two Queries a page', async () => {
    const { contracts, expected } = chain.manifest;
    const { DemoNFT, DemoMulti } = chain.artifacts;
    const read = (address: Address, abi: any, args: readonly unknown[]) =>
      chain.publicClient.readContract({ address, abi, functionName: 'balanceOf', args }) as Promise<bigint>;
    // What the chain says the collector holds: ERC-721 contracts (contract ascending), then ERC-1155.
    const erc721: string[] = [];
    for (const contract of [...nftContracts, contracts.nft]) {
      const held = await read(contract, DemoNFT.abi, [collector]);
      if (held > 0n) erc721.push(`${lower(contract)}|ERC-721|${held}`);
    }
    const multiIds = [...new Set([...expected.multiBalances.map((b) => BigInt(b.id)), 7n, 8n])];
    let idsHeld = 0;
    for (const id of multiIds) if ((await read(contracts.multi, DemoMulti.abi, [collector, id])) > 0n) idsHeld += 1;
    const want = [...erc721.sort(), ...(idsHeld > 0 ? [`${lower(contracts.multi)}|ERC-1155|${idsHeld}`] : [])];
    expect(want.length).toBeGreaterThan(PAGE_SIZE);
    for (const type of ['ERC-721,ERC-1155', '[erc-1155, ERC-721]']) {
      const pages = await allPages(collector, 'nft/collections', { type });
      expect(
        pages.map((page) => page.body.items.length),
        type,
      ).toEqual([PAGE_SIZE, want.length - PAGE_SIZE]);
      expect(
        itemsOf(pages).map((item) => `${lower(item.token.address)}|${item.token.type}|${item.amount}`),
        type,
      ).toEqual(want);
      // The last page holds both standards: the ERC-1155 range is read past the ERC-721 cursor.
      expect(new Set(pages[1].body.items.map((item) => item.token.type))).toEqual(new Set(['ERC-721', 'ERC-1155']));
      for (const page of pages) {
        expect(() => v.parse(nftCollectionsResponse, page.body)).not.toThrow();
        // 50 collections' contracts and the instances whose document they do not embed: at most two BatchGetItem requests at once.
        expectPageCost(page.calls, { batchGet: true, maxBatchGets: 2, queries: 2 });
      }
    }
  });

  it('orders ERC-721 collections before ERC-1155 and filters by type', async () => {
    const all = itemsOf(await allPages(collector, 'nft/collections'));
    expect(all.map((item) => item.token.type)).toEqual([...Array(51).fill('ERC-721'), 'ERC-1155']);
    expect(itemsOf(await allPages(collector, 'nft/collections', { type: 'ERC-1155' })).map((item) => item.token.address)).toEqual([
      chain.manifest.contracts.multi,
    ]);
    expect(itemsOf(await allPages(collector, 'nft/collections', { type: '[erc-721, ERC-1155]' }))).toEqual(all);
    expect((await explorerGet(collector, 'nft/collections', { type: 'ERC-20' })).body).toEqual({ items: [], next_page_params: null });
    expect((await explorerGet(collector, 'nft/collections', { type: 'ERC-404' })).body).toEqual({ items: [], next_page_params: null });
  });

  it('shows at most 9 instances per collection, highest token id first, and the amount held', async () => {
    const { contracts } = chain.manifest;
    const all = itemsOf(await allPages(collector, 'nft/collections'));
    const demo = all.find((item) => item.token.address === contracts.nft)!;
    expect(demo.amount).toBe('12');
    expect(demo.token_instances.map((instance: any) => instance.id)).toEqual([...COLLECTOR_DEMO_NFT_IDS].reverse().slice(0, 9).map(String));
    expect(demo.token_instances[0]).toMatchObject({
      is_unique: true,
      owner: { hash: collector, is_contract: false },
      token: null,
      token_type: 'ERC-721',
      value: '1',
      holder_address_hash: collector,
    });
    const multi = all.find((item) => item.token.address === contracts.multi)!;
    // ERC-1155: the number of distinct ids held.
    expect(multi.amount).toBe('2');
    expect(multi.token_instances.map((instance: any) => [instance.id, instance.value, instance.owner])).toEqual([
      ['8', '4', null],
      ['7', '3', null],
    ]);
  });

  it('shows the collections of alice with resolved on-chain metadata', async () => {
    const { accounts, contracts, expected, highlights } = chain.manifest;
    const items = itemsOf(await allPages(accounts.alice, 'nft/collections'));
    expect(items.map((item) => item.token.address)).toEqual([contracts.nft, contracts.multi]);
    const owned = Object.entries(expected.nftOwners)
      .filter(([, owner]) => owner === accounts.alice)
      .map(([id]) => id);
    expect(items[0].amount).toBe(String(owned.length));
    expect(items[0].token_instances.map((instance: any) => instance.id)).toEqual(owned.sort((a, b) => Number(b) - Number(a)));
    const onChain = items[0].token_instances.find((instance: any) => Number(instance.id) % 2 === 0)!;
    expect(onChain.metadata).toMatchObject({ name: `Demo NFT #${onChain.id}` });
    // ipfs:// through the IPFS gateway (NFT_METADATA_IPFS_GATEWAY, https://ipfs.io/ipfs/ by default), as Blockscout shows it.
    expect(onChain.image_url).toEqual(onChain.metadata.image.replace(/^ipfs:\/\//, 'https://ipfs.io/ipfs/'));
    expect(onChain.external_app_url).toEqual(onChain.metadata.external_url);
    expect(items[0].token_instances.find((instance: any) => instance.id === highlights.nftIpfsMetadataId)?.metadata ?? null).toBeNull();
    const heldIds = expected.multiBalances.filter((b) => b.owner === accounts.alice && b.amount !== '0');
    expect(items[1]).toMatchObject({ amount: String(heldIds.length), token: { type: 'ERC-1155', name: 'Demo Multi', symbol: 'DMULTI' } });
  });
});

describe('an unknown address', () => {
  it('answers 200 with no items and a null cursor, after one Query a range (E1: one a standard)', async () => {
    const unknown = keyless('never used');
    // Two standards read two ranges: two Queries. A token's ranges are one per standard (its standard is
    // in the key): without `type` all three, with `type` those asked for (ERC-404 alone: none).
    const queries: [Parameters<typeof explorerGet>[1], QueryValues, number][] = [
      ['tokens', {}, 3],
      ['tokens', { type: 'ERC-20' }, 1],
      ['tokens', { type: 'ERC-20,ERC-721' }, 2],
      ['tokens', { type: 'ERC-404' }, 0],
      ['nft/collections', {}, 1],
      ['nft/collections', { type: 'ERC-721,ERC-1155' }, 2],
      // Without a filter E3 reads `all` ranges: unions of `to` and `from`, two Queries each.
      ['token-transfers', {}, 2],
      ['token-transfers', { filter: 'to', type: 'ERC-721' }, 1],
      ['token-transfers', { token: chain.manifest.contracts.token }, 6],
      ['token-transfers', { token: chain.manifest.contracts.token, type: 'ERC-20' }, 2],
      ['token-transfers', { token: chain.manifest.contracts.token, type: 'ERC-404' }, 0],
    ];
    for (const [endpoint, query, count] of queries) {
      const response = await explorerGet(unknown, endpoint, query);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ items: [], next_page_params: null });
      expectPageCost(response.calls, { batchGet: false, queries: count });
    }
  });
});

describe('paging while new blocks are ingested', () => {
  it('E3: gives the rest of the listing from the cursor, with no gap and no repeat', async () => {
    const { accounts, contracts } = chain.manifest;
    const query = { type: 'ERC-20', filter: 'from' };
    const before = itemsOf(await allPages(accounts.busy, 'token-transfers', query)).map(transferKey);
    const first = await explorerGet(accounts.busy, 'token-transfers', query);
    for (const amount of [7n, 8n]) {
      await chain.send('busy', {
        to: contracts.token,
        abi: chain.artifacts.DemoToken.abi,
        functionName: 'transfer',
        args: [accounts.bob, amount],
      });
    }
    await chain.ingest();
    const rest = itemsOf(await allPages(accounts.busy, 'token-transfers', nextQuery(query, first.body.next_page_params!)));
    expect([...first.body.items.map(transferKey), ...rest.map(transferKey)]).toEqual(before);
    const now = itemsOf(await allPages(accounts.busy, 'token-transfers', query));
    expect(now.slice(0, 2).map((item) => item.total.value)).toEqual(['8', '7']);
    expect(now.slice(2).map(transferKey)).toEqual(before);
  });

  it('E1: the next page from a cursor holds the rest, with no gap and no repeat', async () => {
    const before = itemsOf(await allPages(bigHolder, 'tokens')).map((item) => item.token_id);
    const first = await explorerGet(bigHolder, 'tokens');
    await mintBatch(bigHolder, [2100n], [10n ** 22n]);
    await chain.ingest();
    const rest = itemsOf(await allPages(bigHolder, 'tokens', nextQuery({}, first.body.next_page_params!)));
    expect([...first.body.items, ...rest].map((item) => item.token_id)).toEqual(before);
    expect(itemsOf(await allPages(bigHolder, 'tokens')).map((item) => item.token_id)).toEqual(['2100', ...before]);
  });

  it('E2: the next page from a cursor holds the rest, with no gap and no repeat', async () => {
    const before = itemsOf(await allPages(collector, 'nft/collections')).map((item) => item.token.address);
    const first = await explorerGet(collector, 'nft/collections');
    await mintNft(nftContracts[0], collector, 2n);
    await mintBatch(collector, [9n], [1n]);
    await chain.ingest();
    const rest = itemsOf(await allPages(collector, 'nft/collections', nextQuery({}, first.body.next_page_params!)));
    expect([...first.body.items, ...rest].map((item) => item.token.address)).toEqual(before);
    expect(rest.at(-1).amount).toBe('3');
  });
});

describe('the address page: /nft, /addresses/{hash}, /counters, /tabs-counters', () => {
  const ownerOf = (contract: Address, id: bigint) =>
    chain.publicClient.readContract({
      address: contract,
      abi: chain.artifacts.DemoNFT.abi,
      functionName: 'ownerOf',
      args: [id],
    }) as Promise<Address>;

  it('/nft lists every NFT the collector holds, flat: ERC-721 then ERC-1155, contract asc, token id desc, paged as Blockscout', async () => {
    const { contracts } = chain.manifest;
    const { DemoMulti } = chain.artifacts;
    // The chain's truth: every NFT id the collector ever received (read again: tests above ingest
    // more), still owned (ERC-721 ownerOf) or held (ERC-1155 balanceOf) at the head.
    const received = new Map<string, ChainTransfer>();
    for (const transfer of await chainTransfers(chain.publicClient))
      if (transfer.to === lower(collector) && transfer.standard !== 'ERC-20')
        received.set(`${transfer.token}|${transfer.tokenId}`, transfer);
    const held: { token: string; standard: string; id: bigint; value: bigint }[] = [];
    for (const { token, standard, tokenId } of received.values()) {
      const id = BigInt(tokenId!);
      if (standard === 'ERC-721') {
        if (lower(await ownerOf(token as Address, id)) === lower(collector)) held.push({ token, standard, id, value: 1n });
      } else {
        const value = (await chain.publicClient.readContract({
          address: token as Address,
          abi: DemoMulti.abi,
          functionName: 'balanceOf',
          args: [collector, id],
        })) as bigint;
        if (value > 0n) held.push({ token, standard, id, value });
      }
    }
    held.sort((a, b) => a.standard.localeCompare(b.standard) * -1 || a.token.localeCompare(b.token) || (a.id > b.id ? -1 : 1));
    const erc721 = held.filter((h) => h.standard === 'ERC-721').map((h) => `${h.token}|${h.standard}|${h.id}|${h.value}`);
    const erc1155 = held.filter((h) => h.standard === 'ERC-1155').map((h) => `${h.token}|${h.standard}|${h.id}|${h.value}`);
    const key = (item: any) => `${lower(item.token.address_hash)}|${item.token_type}|${item.id}|${item.value}`;
    const pages = await allPages(collector, 'nft');
    expect(pages.map((page) => page.body.items.length)).toEqual([50, erc721.length + erc1155.length - 50]);
    expect(itemsOf(pages).map(key)).toEqual([...erc721, ...erc1155]);
    const cursor = pages[0].body.next_page_params!;
    const last = pages[0].body.items[49];
    expect(cursor).toEqual({
      items_count: 50,
      token_id: last.id,
      token_type: last.token_type,
      token_contract_address_hash: last.token.address_hash,
    });
    expect(pages[0].body.items[0]).toMatchObject({
      is_unique: true,
      owner: { hash: collector },
      holder_address_hash: collector,
      token_type: 'ERC-721',
    });
    // type filters, as on E2.
    expect(itemsOf(await allPages(collector, 'nft', { type: 'ERC-1155' })).map(key)).toEqual(erc1155);
    expect(itemsOf(await allPages(collector, 'nft', { type: 'ERC-721' })).map(key)).toEqual(erc721);
    expect((await explorerGet(collector, 'nft', { type: 'ERC-20' })).body).toEqual({ items: [], next_page_params: null });
    // A page that starts inside the demo NFT (more ids than a collection entry embeds).
    const demoIds = itemsOf(await allPages(collector, 'nft', { type: 'ERC-721' })).filter(
      (item) => item.token.address_hash === contracts.nft,
    );
    expect(demoIds.map((item) => item.id)).toEqual([...COLLECTOR_DEMO_NFT_IDS].reverse().map(String));
    const middle = await explorerGet(collector, 'nft', {
      items_count: 3,
      token_id: '509',
      token_type: 'ERC-721',
      token_contract_address_hash: contracts.nft,
    });
    expect(middle.body.items.slice(0, 9).map((item: any) => item.id)).toEqual([
      '508',
      '507',
      '506',
      '505',
      '504',
      '503',
      '502',
      '501',
      '500',
    ]);
    // One Query of the holder's holdings, then one BatchGetItem of the details: two round trips, however
    // many ids a collection holds (the page starts inside the demo NFT's, past a collection entry's 9).
    expect(middle.calls).toEqual({ QueryCommand: 1, BatchGetItemCommand: 1 });
    // A cursor of another standard than the one asked for: the ERC-1155 list from its start; past it, nothing.
    const fromOther = await explorerGet(collector, 'nft', {
      type: 'ERC-1155',
      items_count: 3,
      token_id: '509',
      token_type: 'ERC-721',
      token_contract_address_hash: contracts.nft,
    });
    expect(fromOther.body.items.map(key)).toEqual(erc1155.slice(0, 50));
    expect(
      (
        await explorerGet(collector, 'nft', {
          type: 'ERC-721',
          items_count: 3,
          token_id: '1',
          token_type: 'ERC-1155',
          token_contract_address_hash: contracts.multi,
        })
      ).body,
    ).toEqual({ items: [], next_page_params: null });
    // A token id no uint256 can hold is a bad cursor, not a page.
    const tooLarge = await explorerGet(collector, 'nft', {
      items_count: 3,
      token_id: String(2n ** 256n),
      token_type: 'ERC-721',
      token_contract_address_hash: contracts.nft,
    });
    expect(tooLarge.status).toBe(422);
  });

  it('/addresses/{hash} shows a token contract and an account as the chain has them', async () => {
    const { accounts, contracts } = chain.manifest;
    const creation = (await chainTransactions(chain.publicClient)).find((tx) => tx.created === lower(contracts.token))!;
    const token = await explorerGet(contracts.token, '');
    expect(token.status).toBe(200);
    const logs = await chain.publicClient.getLogs({ address: contracts.token, fromBlock: 0n });
    expect(token.body).toMatchObject({
      hash: contracts.token,
      is_contract: true,
      creator_address_hash: getAddress(creation.from),
      creation_transaction_hash: creation.hash,
      implementations: [],
      // The native balance the chain gives the contract (read by the ingest with eth_getBalance).
      coin_balance: (await chain.publicClient.getBalance({ address: contracts.token })).toString(),
      has_logs: logs.length > 0,
      has_token_transfers: transfers.some((t) => t.from === lower(contracts.token) || t.to === lower(contracts.token)),
      token: { address_hash: contracts.token, address: contracts.token, name: 'Demo Token', symbol: 'DEMO', type: 'ERC-20' },
    });
    const alice = await explorerGet(accounts.alice, '');
    expect(alice.body).toMatchObject({
      hash: accounts.alice,
      is_contract: false,
      creator_address_hash: null,
      creation_transaction_hash: null,
      token: null,
      has_tokens: true,
      has_logs: false,
      has_token_transfers: transfers.some((t) => t.from === lower(accounts.alice) || t.to === lower(accounts.alice)),
    });
  });

  it('/counters and /tabs-counters count what the chain has (tabs capped at 51)', async () => {
    const { accounts } = chain.manifest;
    const all = await chainTransactions(chain.publicClient);
    // Read again: tests above ingest more.
    const transfersNow = await chainTransfers(chain.publicClient);
    const internals = await chainInternalTransactions(chain.publicClient);
    for (const address of [accounts.alice, accounts.busy, collector, batchHolder, chain.manifest.contracts.splitter]) {
      const mine = all.filter((tx) => tx.from === lower(address) || tx.to === lower(address) || tx.created === lower(address));
      let gas = 0n;
      for (const tx of mine.filter((tx) => tx.from === lower(address)))
        gas += (await chain.publicClient.getTransactionReceipt({ hash: tx.hash as Hash })).gasUsed;
      const transferCount = expectedTransfers(transfersNow, address, {}).length;
      const counters = await explorerGet(address, 'counters');
      expect(counters.status).toBe(200);
      expect(counters.body, address).toEqual({
        transactions_count: String(mine.length),
        token_transfers_count: String(transferCount),
        gas_usage_count: String(gas),
        validations_count: null,
      });
      // Exact from the counted ranges' newest entries (their position and running gas total): Limit-1
      // Queries, two for each `all` range (a union of `to` and `from`, numbered on their entries), one for `from`.
      expect(counters.calls).toEqual({ QueryCommand: 5 });
      const balanceItems = itemsOf(await allPages(address, 'tokens'));
      const balances = balanceItems.length;
      const logs = await chain.publicClient.getLogs({ address, fromBlock: 0n });
      const tabs = await explorerGet(address, 'tabs-counters');
      expect(tabs.body, address).toMatchObject({
        transactions_count: Math.min(51, mine.length),
        token_transfers_count: Math.min(51, transferCount),
        token_balances_count: Math.min(51, balances),
        logs_count: Math.min(51, logs.length),
        internal_transactions_count: Math.min(51, expectedInternalTransactions(internals, address, undefined).length),
        withdrawals_count: 0,
        validations_count: null,
      });
      // Capped counts in two rounds of at most six Queries: transactions and token transfers (`all` unions of
      // two ranges each), the sent internal transactions and the logs, with the X10 item (token balances);
      // then withdrawals, and the received internal transactions (X5 `to`) when fewer than 51 were sent.
      const internalsSent = expectedInternalTransactions(internals, address, 'from').length;
      expect(tabs.calls).toEqual({ QueryCommand: 7 + (internalsSent >= 51 ? 0 : 1), GetItemCommand: 1 });
      // The counted ranges (transactions, token transfers, logs) from their newest entries' positions: one
      // item a member, not up to 51 (nor 51 block buckets); the internal transactions' keys, up to 51 a side.
      expect(tabs.itemsRead, address).toBeLessThanOrEqual(1 + 5 + Math.min(51, internalsSent) + (internalsSent >= 51 ? 0 : 51));
    }
  });
});
