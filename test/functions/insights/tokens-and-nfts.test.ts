/**
 * I6: Insight's token and NFT routes (balances, NFTs of an owner or a contract, one NFT) through the real
 * handlers, on the two anvil chains of the insights fixture ingested by the real ingest. Expected values
 * are read from the chains with viem (balanceOf, ownerOf, tokenURI) and the demo's plan.
 * Ids of endpoints and access patterns (I6, X1, X2 ...): see docs/access-patterns.md.
 */
import { erc20Abi, parseAbi, type Address, type PublicClient } from 'viem';
import { base, foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestJson } from '../../../scripts/lib/dispatch';
import { DEMO_PLAN } from '../../../scripts/lib/demo-activity';
import { useTestTable } from '../../support/table';
import { readRules, tableWorkOf } from '../../shared/insights/table-work';
import { CHAIN_A, CHAIN_B, indexedHeads, requestOnColdStart, startInsightsFixture, type InsightsFixture } from './fixture';
import { readTruth, transfersOf, type ChainTransfer } from './truth';

useTestTable('insights-tokens-nfts');
let fx: InsightsFixture;

beforeAll(async () => {
  fx = await startInsightsFixture();
});
afterAll(async () => fx?.stop());

type Params = Record<string, string | number | readonly (string | number)[]>;
function url(pathname: string, params: Params = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, String(item));
  const query = search.toString();
  return query ? `${pathname}?${query}` : pathname;
}
const get = (pathname: string, params: Params = {}) => requestJson('base', 'GET', url(pathname, params));
const lower = (value: string) => value.toLowerCase();
const nftAbi = parseAbi([
  'function ownerOf(uint256) view returns (address)',
  'function tokenURI(uint256) view returns (string)',
  'function balanceOf(address) view returns (uint256)',
]);
const multiAbi = parseAbi(['function balanceOf(address, uint256) view returns (uint256)']);

/** Every holder the fixture's chains moved tokens to (the demo's five accounts and its payees). */
function holders(): Address[] {
  return [...new Set(Object.values(fx.a.manifest.accounts).map((address) => lower(address) as Address))];
}

async function erc20Balance(client: PublicClient, token: string, owner: string): Promise<bigint> {
  return client.readContract({ address: token as Address, abi: erc20Abi, functionName: 'balanceOf', args: [owner as Address] });
}

describe('I6a GET /insights/v1/tokens/erc20/{ownerAddress}', () => {
  it('lists the owner’s ERC-20 balances on both chains as balanceOf reads them, with metadata on request', async () => {
    const busy = lower(fx.a.manifest.accounts.busy);
    const token = lower(fx.a.manifest.contracts.token);
    const [onA, onB] = await Promise.all([erc20Balance(fx.a.client, token, busy), erc20Balance(fx.b.client, token, busy)]);
    const { status, body } = await get(`/insights/v1/tokens/erc20/${fx.a.manifest.accounts.busy}`, {
      chain_id: [CHAIN_A, CHAIN_B],
      metadata: 'true',
    });
    expect(status, JSON.stringify(body)).toBe(200);
    const expected = [
      ...(onA > 0n ? [{ chain_id: CHAIN_A, token_address: token, balance: onA.toString() }] : []),
      ...(onB > 0n ? [{ chain_id: CHAIN_B, token_address: token, balance: onB.toString() }] : []),
    ];
    expect(body.data).toEqual(expected.map((row) => ({ ...row, name: expect.any(String), symbol: expect.any(String), decimals: 18 })));
    expect(body.meta).toEqual({
      chain_ids: [CHAIN_A, CHAIN_B],
      address: busy,
      signature: '',
      page: 0,
      limit_per_chain: 20,
      total_items: expected.length,
      total_pages: 1,
      indexed_heads: indexedHeads([CHAIN_A, CHAIN_B]),
    });
    expect(body.aggregations).toBeNull();
  });

  it('matches balanceOf for every holder; pages; one Query page and the holder’s counts per chain, no Scan', async () => {
    const token = lower(fx.a.manifest.contracts.token);
    for (const holder of holders()) {
      const onChain = await erc20Balance(fx.a.client, token, holder);
      await get(`/insights/v1/tokens/erc20/${holder}`, { chain_id: CHAIN_A }); // (the chain registry, read once a minute)
      const { result, usage } = await tableWorkOf(() => get(`/insights/v1/tokens/erc20/${holder}`, { chain_id: CHAIN_A }));
      expect(result.status).toBe(200);
      expect(result.body.data).toEqual(onChain > 0n ? [{ chain_id: CHAIN_A, token_address: token, balance: onChain.toString() }] : []);
      expect(result.body.meta.total_items).toBe(onChain > 0n ? 1 : 0);
      // One round trip: the page's Query and the holder's balance counts (X10), in parallel; nothing else.
      expect(usage.calls).toEqual({ QueryCommand: 1, BatchGetItemCommand: 1 });
    }
    const page1 = await get(`/insights/v1/tokens/erc20/${fx.a.manifest.accounts.busy}`, { chain_id: CHAIN_A, page: 1, limit: 1 });
    expect(page1.status).toBe(200);
    expect(page1.body.data).toEqual([]);
    expect(page1.body.meta.total_items).toBe(1);
  });

  it('400 for a bad owner or parameter, 404 for an unknown name or an unindexed chain', async () => {
    expect((await get(`/insights/v1/tokens/erc20/${'x'.repeat(65)}`, { chain_id: CHAIN_A })).status).toBe(400);
    expect((await get('/insights/v1/tokens/erc20/0x12', { chain_id: CHAIN_A })).status).toBe(404);
    expect((await get(`/insights/v1/tokens/erc20/${fx.a.manifest.accounts.busy}`, { chain_id: 999 })).status).toBe(404);
    expect((await get(`/insights/v1/tokens/erc20/${fx.a.manifest.accounts.busy}`, { chain_id: CHAIN_A, bogus: '1' })).status).toBe(400);
  });
});

describe('I6e GET /insights/v1/tokens', () => {
  it('lists several owners’ balances by balance, by token address, and for named tokens', async () => {
    const token = lower(fx.a.manifest.contracts.token);
    const owners = holders();
    const balances = await Promise.all(owners.map(async (owner) => ({ owner, value: await erc20Balance(fx.a.client, token, owner) })));
    const held = balances.filter((b) => b.value > 0n).sort((a, b) => (a.value === b.value ? 0 : a.value > b.value ? -1 : 1));
    const { status, body } = await get('/insights/v1/tokens', { chain_id: CHAIN_A, owner_address: owners, limit: 100 });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.map((row: { balance: string }) => row.balance)).toEqual(held.map((b) => b.value.toString()));
    expect(body.meta.total_items).toBe(held.length);
    const asc = await get('/insights/v1/tokens', { chain_id: CHAIN_A, owner_address: owners.join(','), sort_order: 'asc', limit: 100 });
    expect(asc.body.data.map((row: { balance: string }) => row.balance)).toEqual(held.map((b) => b.value.toString()).reverse());
    const named = await get('/insights/v1/tokens', { chain_id: CHAIN_A, owner_address: owners, token_address: token, limit: 100 });
    expect(named.status).toBe(200);
    expect(named.body.data.map((row: { balance: string }) => row.balance)).toEqual(held.map((b) => b.value.toString()));
    const byToken = await get('/insights/v1/tokens', { chain_id: CHAIN_A, owner_address: owners, sort_by: 'token_address' });
    expect(byToken.status).toBe(200);
    expect(byToken.body.data).toHaveLength(held.length);
    // Sorting by token address reads the owners' whole ranges: past the read bound, a 400.
    const bounded = await requestOnColdStart(
      { INSIGHTS_MAX_ITEMS_READ_PER_CHAIN: '1' },
      'GET',
      `/insights/v1/tokens?chain_id=${CHAIN_A}&sort_by=token_address&${owners.map((owner) => `owner_address=${owner}`).join('&')}`,
    );
    expect(bounded.status).toBe(400);
    expect(bounded.body.error).toMatch(/Sorting by token_address/);
  });

  it('400 without an owner and for price sorting', async () => {
    expect((await get('/insights/v1/tokens', { chain_id: CHAIN_A })).status).toBe(400);
    const price = await get('/insights/v1/tokens', { chain_id: CHAIN_A, owner_address: fx.a.manifest.accounts.busy, sort_by: 'usd_value' });
    expect(price.status).toBe(400);
    expect(price.body.error).toMatch(/price/);
  });
});

describe('I6e GET /insights/v1/tokens?include_native=true: native balances', () => {
  const NATIVE = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
  /** The chains' native currencies as viem's chain definitions name them (anvil's 31337, Base's 8453). */
  const CURRENCY = { [CHAIN_A]: foundry.nativeCurrency, [CHAIN_B]: base.nativeCurrency } as const;
  const clientOf = (chainId: number) => (chainId === CHAIN_A ? fx.a.client : fx.b.client);
  /** The native row Insight gives an owner on a chain, its balance from eth_getBalance at the head. */
  const nativeRow = async (chainId: typeof CHAIN_A | typeof CHAIN_B, owner: string) => ({
    chain_id: chainId,
    token_address: NATIVE,
    balance: (await clientOf(chainId).getBalance({ address: owner as Address })).toString(),
    ...CURRENCY[chainId],
  });
  type Row = { chain_id: number; token_address: string; balance: string };

  it('as thirdweb’s SDK asks (Insight.getOwnedTokens): the native balance first on every chain, as eth_getBalance and the explorer say', async () => {
    const busy = lower(fx.a.manifest.accounts.busy);
    // getOwnedTokens' query: include_native, include_spam, limit 50, metadata, the owner, every chain.
    const sdk = {
      chain_id: [CHAIN_A, CHAIN_B],
      include_native: 'true',
      include_spam: 'false',
      limit: 50,
      metadata: 'true',
      owner_address: busy,
    };
    const { status, body } = await get('/insights/v1/tokens', sdk);
    expect(status, JSON.stringify(body)).toBe(200);
    const natives = [await nativeRow(CHAIN_A, busy), await nativeRow(CHAIN_B, busy)];
    expect(BigInt(natives[0]!.balance)).toBeGreaterThan(0n);
    expect(body.data.slice(0, 2)).toEqual(natives);
    // The ERC-20 rows follow, as without include_native; the totals count the native rows.
    const { include_native: _, ...withoutNative } = sdk;
    const erc20 = await get('/insights/v1/tokens', withoutNative);
    expect(erc20.body.data.length).toBeGreaterThan(0);
    expect(body.data.slice(2)).toEqual(erc20.body.data);
    expect(body.meta).toMatchObject({ total_items: erc20.body.meta.total_items + 2, total_pages: 1 });
    // The explorer serves the same item as the address's coin balance (chain A is its chain).
    const page = await requestJson('base', 'GET', `/explorer/addresses/${busy}`);
    expect(page.status).toBe(200);
    expect(page.body.coin_balance).toBe(natives[0]!.balance);
  });

  it('one native row per owner the chain touched (a zero balance too), first whatever the sort; paged and counted with the ERC-20 rows', async () => {
    const busy = lower(fx.a.manifest.accounts.busy);
    const token = lower(fx.a.manifest.contracts.token); // a contract the chain touched, holding no ether
    const alice = lower(fx.a.manifest.accounts.alice);
    const untouched = `0x${'ab'.repeat(20)}`; // never touched: its balance is not known, so no row
    const owners = [busy, token, untouched, alice];
    const query = { chain_id: CHAIN_A, owner_address: owners, include_native: 'true' };
    const natives = [await nativeRow(CHAIN_A, busy), await nativeRow(CHAIN_A, token), await nativeRow(CHAIN_A, alice)];
    expect(natives[1]!.balance).toBe('0');
    const erc20 = await get('/insights/v1/tokens', { chain_id: CHAIN_A, owner_address: owners, limit: 100 });
    const full = await get('/insights/v1/tokens', { ...query, limit: 100 });
    expect(full.status, JSON.stringify(full.body)).toBe(200);
    expect(full.body.data).toEqual([...natives, ...erc20.body.data]);
    const total = natives.length + erc20.body.meta.total_items;
    expect(erc20.body.meta.total_items).toBeGreaterThan(1);
    expect(full.body.meta.total_items).toBe(total);

    // Pages of 1 and of 3: the native rows count once, on the first page(s), and every row comes once.
    for (const limit of [1, 3]) {
      const paged: Row[] = [];
      for (let page = 0; page * limit < total; page++) {
        const { body } = await get('/insights/v1/tokens', { ...query, limit, page });
        expect(body.meta).toMatchObject({ total_items: total, total_pages: Math.ceil(total / limit) });
        paged.push(...body.data);
      }
      expect(paged, `limit ${limit}`).toEqual(full.body.data);
    }
    // Oldest ERC-20 first, or by token address: the native rows still lead.
    const ascending = await get('/insights/v1/tokens', { ...query, sort_order: 'asc', limit: 100 });
    expect(ascending.body.data).toEqual([...natives, ...[...erc20.body.data].reverse()]);
    const byToken = (page: number) => get('/insights/v1/tokens', { ...query, sort_by: 'token_address', limit: natives.length, page });
    expect((await byToken(0)).body.data).toEqual(natives);
    const second = await byToken(1);
    expect(second.body.meta.total_items).toBe(total);
    expect(second.body.data.length).toBeGreaterThan(0);
    expect(second.body.data.every((row: Row) => row.token_address !== NATIVE)).toBe(true);

    // Named tokens: the native row only when the native token is one of them.
    const named = await get('/insights/v1/tokens', { ...query, owner_address: busy, token_address: token });
    expect(named.body.data.map((row: Row) => row.token_address)).toEqual([token]);
    const withNative = await get('/insights/v1/tokens', { ...query, owner_address: busy, token_address: [NATIVE, token] });
    expect(withNative.body.data.map((row: Row) => row.token_address)).toEqual([NATIVE, token]);
    expect(withNative.body.data[0]).toEqual(natives[0]);
    expect(withNative.body.meta.total_items).toBe(2);
  });

  it('reads the native balances in the round trip of the page: one Query and one BatchGetItem', async () => {
    const busy = lower(fx.a.manifest.accounts.busy);
    const query = { chain_id: CHAIN_A, owner_address: busy, include_native: 'true' };
    await get('/insights/v1/tokens', query); // (the chain registry, read once a minute)
    for (const page of [0, 1]) {
      const { result, usage, requests } = await tableWorkOf(() => get('/insights/v1/tokens', { ...query, limit: 1, page }));
      expect(result.status).toBe(200);
      expect(result.body.data.map((row: Row) => row.token_address)).toEqual(page === 0 ? [NATIVE] : [lower(fx.a.manifest.contracts.token)]);
      expect(usage.calls).toEqual({ QueryCommand: 1, BatchGetItemCommand: 1 });
      expect(readRules(requests).roundTrips).toBe(1);
    }
  });
});

describe('I6b–d: an owner’s NFTs', () => {
  it('ERC-721: one row per token id the owner holds, as ownerOf says; with metadata', async () => {
    const nft = lower(fx.a.manifest.contracts.nft) as Address;
    for (const holder of holders()) {
      const owned: string[] = [];
      for (const id of DEMO_PLAN.nft.mintedIds) {
        const owner = await fx.a.client.readContract({ address: nft, abi: nftAbi, functionName: 'ownerOf', args: [id] }).catch(() => null);
        if (owner && lower(owner) === holder) owned.push(id.toString());
      }
      const { status, body } = await get(`/insights/v1/tokens/erc721/${holder}`, { chain_id: CHAIN_A, metadata: 'true' });
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.data.map((row: { token_id: string }) => row.token_id)).toEqual([...owned].reverse());
      for (const row of body.data) {
        expect(row).toMatchObject({ chain_id: CHAIN_A, token_address: nft, balance: '1', token_type: 'erc721' });
        const uri = await fx.a.client.readContract({ address: nft, abi: nftAbi, functionName: 'tokenURI', args: [BigInt(row.token_id)] });
        expect(row.metadata_url).toBe(uri);
        expect(row.contract).toMatchObject({ chain_id: CHAIN_A, address: nft, type: 'erc721' });
      }
      expect(body.meta.total_items).toBe(owned.length);
    }
  });

  it('ERC-1155 and both: every id with its balanceOf; paging across collections; token_types', async () => {
    const multi = lower(fx.a.manifest.contracts.multi) as Address;
    const nft = lower(fx.a.manifest.contracts.nft) as Address;
    const ids = [1n, ...DEMO_PLAN.multi.batch.ids];
    for (const holder of holders()) {
      const held: { id: string; value: string }[] = [];
      for (const id of [...ids].reverse()) {
        const value = await fx.a.client.readContract({ address: multi, abi: multiAbi, functionName: 'balanceOf', args: [holder, id] });
        if (value > 0n) held.push({ id: id.toString(), value: value.toString() });
      }
      const { body } = await get(`/insights/v1/tokens/erc1155/${holder}`, { chain_id: CHAIN_A });
      expect(body.data).toEqual(
        held.map(({ id, value }) => ({ chain_id: CHAIN_A, token_address: multi, token_id: id, balance: value, token_type: 'erc1155' })),
      );
      const nfts = await fx.a.client.readContract({ address: nft, abi: nftAbi, functionName: 'balanceOf', args: [holder] });
      const all = await get(`/insights/v1/nfts/balance/${holder}`, { chain_id: [CHAIN_A, CHAIN_B] });
      expect(all.status).toBe(200);
      expect(all.body.meta.total_items).toBe(Number(nfts) + held.length);
      // ERC-721 first, then ERC-1155; paged one row at a time, the same rows.
      const rows = all.body.data.map((row: { token_address: string; token_id: string }) => `${row.token_address}/${row.token_id}`);
      const paged: string[] = [];
      for (let page = 0; page < rows.length; page++) {
        const one = await get(`/insights/v1/nfts/balance/${holder}`, { chain_id: CHAIN_A, limit: 1, page });
        paged.push(...one.body.data.map((row: { token_address: string; token_id: string }) => `${row.token_address}/${row.token_id}`));
      }
      expect(paged).toEqual(rows);
      const only1155 = await get(`/insights/v1/nfts/balance/${holder}`, { chain_id: CHAIN_A, token_types: 'erc1155' });
      expect(only1155.body.data.map((row: { token_id: string }) => row.token_id)).toEqual(held.map(({ id }) => id));
    }
    expect(
      (await get(`/insights/v1/nfts/balance/${fx.a.manifest.accounts.busy}`, { chain_id: CHAIN_A, token_types: 'erc20' })).status,
    ).toBe(400);
  });
});

describe('I6f, I6g: a contract’s NFTs and one NFT', () => {
  it('lists every NFT of the ERC-721 contract by token id, owners as ownerOf says, 1 while owned', async () => {
    const nft = lower(fx.a.manifest.contracts.nft) as Address;
    const { status, body } = await get(`/insights/v1/nfts/${nft}`, { chain_id: CHAIN_A, include_owners: 'true' });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.map((row: { token_id: string }) => row.token_id)).toEqual(DEMO_PLAN.nft.mintedIds.map(String));
    for (const row of body.data) {
      const owner = await fx.a.client
        .readContract({ address: nft, abi: nftAbi, functionName: 'ownerOf', args: [BigInt(row.token_id)] })
        .catch(() => null);
      expect(row.owner_addresses).toEqual(owner ? [lower(owner)] : []);
      expect(row.balance).toBe(owner ? '1' : '0');
      expect(row).toMatchObject({ chain_id: CHAIN_A, contract_address: nft, token_type: 'erc721' });
    }
    expect(body.meta.total_items).toBe(DEMO_PLAN.nft.mintedIds.length);
    const second = await get(`/insights/v1/nfts/${nft}`, { chain_id: CHAIN_A, limit: 2, page: 1 });
    expect(second.body.data.map((row: { token_id: string }) => row.token_id)).toEqual(['3', '4']);
  });

  it('one NFT: ERC-721 owner and metadata; ERC-1155 supply; 404 when no chain has it', async () => {
    const nft = lower(fx.a.manifest.contracts.nft) as Address;
    const id = DEMO_PLAN.nft.aliceToBusy;
    const { status, body } = await get(`/insights/v1/nfts/${nft}/${id}`, { chain_id: [CHAIN_A, CHAIN_B], include_owners: 'true' });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data).toHaveLength(1);
    expect(body.data[0]).toMatchObject({
      chain_id: CHAIN_A,
      contract_address: nft,
      token_id: String(id),
      token_type: 'erc721',
      balance: '1',
      owner_addresses: [lower(fx.a.manifest.accounts.busy)],
      metadata_url: await fx.a.client.readContract({ address: nft, abi: nftAbi, functionName: 'tokenURI', args: [id] }),
    });
    // Even ids carry data: metadata, resolved on chain.
    expect(body.data[0].status).toBe('resolved');
    expect(body.data[0].name).toEqual(expect.any(String));
    const multi = lower(fx.a.manifest.contracts.multi);
    const one = await get(`/insights/v1/nfts/${multi}/2`, { chain_id: CHAIN_A });
    expect(one.body.data[0]).toMatchObject({ token_type: 'erc1155', balance: String(DEMO_PLAN.multi.batch.mint[0]) });
    expect((await get(`/insights/v1/nfts/${nft}/999`, { chain_id: CHAIN_A })).status).toBe(404);
    expect((await get(`/insights/v1/nfts/${nft}/abc`, { chain_id: CHAIN_A })).status).toBe(400);
  });
});

describe('I6h–k: NFT transfers', () => {
  let nftTransfers: ChainTransfer[];
  beforeAll(async () => {
    const truth = await readTruth(CHAIN_A, fx.a.client);
    const { nft, multi } = fx.a.manifest.contracts;
    nftTransfers = await transfersOf(truth, [lower(nft), lower(multi)]);
  });
  const ids = (rows: { transaction_hash: string; log_index: number; token_id?: string }[]) =>
    rows.map((row) => `${row.transaction_hash}/${row.log_index}/${row.token_id ?? ''}`);
  const idsOf = (list: ChainTransfer[]) => list.map((t) => `${t.transactionHash}/${t.logIndex}/${t.tokenId ?? ''}`);

  it('an owner’s NFT transfers, both standards, newest first, without its ERC-20 transfers', async () => {
    const busy = lower(fx.a.manifest.accounts.busy);
    const want = nftTransfers.filter((t) => t.from === busy || t.to === busy);
    const { status, body } = await get('/insights/v1/nfts/transfers', { chain_id: CHAIN_A, owner_address: busy, limit: 100 });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(ids(body.data)).toEqual(idsOf(want));
    expect(body.meta.total_items).toBe(want.length);
    expect(body.data.every((row: { token_type: string }) => row.token_type !== 'erc20')).toBe(true);
    const only721 = await get('/insights/v1/nfts/transfers', { chain_id: CHAIN_A, owner_address: busy, token_types: 'erc721' });
    expect(ids(only721.body.data)).toEqual(idsOf(want.filter((t) => t.standard === 'erc721')));
  });

  it('a contract’s, a token id’s and a transaction’s NFT transfers; nothing for an ERC-20 contract', async () => {
    const nft = lower(fx.a.manifest.contracts.nft);
    const byContract = nftTransfers.filter((t) => t.token === nft);
    const contract = await get(`/insights/v1/nfts/transfers/${nft}`, { chain_id: CHAIN_A, limit: 100 });
    expect(contract.status, JSON.stringify(contract.body)).toBe(200);
    expect(ids(contract.body.data)).toEqual(idsOf(byContract));
    expect(contract.body.meta.total_items).toBe(byContract.length);
    const id = DEMO_PLAN.nft.aliceToBusy;
    const one = await get(`/insights/v1/nfts/transfers/${nft}/${id}`, { chain_id: CHAIN_A, metadata: 'true', sort_order: 'asc' });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(ids(one.body.data)).toEqual(idsOf(byContract.filter((t) => t.tokenId === id).reverse()));
    expect(one.body.data[0].nft_metadata).toMatchObject({
      owner_addresses: [lower(fx.a.manifest.accounts.busy)],
      contract: { chain_id: CHAIN_A, address: nft, type: 'erc721' },
    });
    const token = await get(`/insights/v1/nfts/transfers/${fx.a.manifest.contracts.token}`, { chain_id: CHAIN_A });
    expect(token.status).toBe(200);
    expect(token.body.data).toEqual([]);
    expect(token.body.meta.total_items).toBe(0);
    const listed = await get('/insights/v1/nfts/transfers', { chain_id: CHAIN_A, contract_address: [nft, fx.a.manifest.contracts.token] });
    expect(listed.body.meta.total_items).toBe(byContract.length);
    const batch = fx.a.manifest.transactions.find((tx) => tx.kinds.includes('batchTransfer'))!;
    const inTx = await get(`/insights/v1/nfts/transfers/transaction/${batch.hash}`, { chain_id: CHAIN_A });
    expect(inTx.status).toBe(200);
    expect(ids(inTx.body.data)).toEqual(idsOf(nftTransfers.filter((t) => t.transactionHash === batch.hash).reverse()));
    expect((await get('/insights/v1/nfts/transfers', { chain_id: CHAIN_A, owner_address: nft, transfer_type: 'sale' })).status).toBe(400);
    expect((await get('/insights/v1/nfts/transfers', { chain_id: CHAIN_A })).status).toBe(400);
  });
});

describe('I6l–n: holders', () => {
  it('ERC-20 holders: every address with a positive balanceOf, largest first', async () => {
    const token = lower(fx.a.manifest.contracts.token);
    const truth = await readTruth(CHAIN_A, fx.a.client);
    const received = [...new Set((await transfersOf(truth, [token])).map((t) => t.to))].filter((to) => !/^0x0{40}$/.test(to));
    const balances = await Promise.all(received.map(async (owner) => ({ owner, value: await erc20Balance(fx.a.client, token, owner) })));
    const held = balances.filter((b) => b.value > 0n).sort((a, b) => (a.value === b.value ? 0 : a.value > b.value ? -1 : 1));
    const { status, body } = await get('/insights/v1/tokens/owners', { chain_id: CHAIN_A, contract_address: token, limit: 100 });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.map((row: { owner_address: string; balance: string }) => [row.owner_address, row.balance])).toEqual(
      held.map((b) => [b.owner, b.value.toString()]),
    );
    expect(body.data[0]).toEqual({
      chain_id: String(CHAIN_A),
      token_address: token,
      owner_address: held[0]!.owner,
      balance: held[0]!.value.toString(),
    });
    expect(body.meta.total_items).toBe(held.length);
    // The holders range (T1) is a state list: its first page reads the page whatever the read bound; a
    // later page reads the range to its end, a 400 past the bound.
    const first = await requestOnColdStart(
      { INSIGHTS_MAX_ITEMS_READ_PER_CHAIN: '3' },
      'GET',
      `/insights/v1/tokens/owners?chain_id=${CHAIN_A}&contract_address=${token}&limit=100`,
    );
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toHaveLength(held.length);
    const bounded = await requestOnColdStart(
      { INSIGHTS_MAX_ITEMS_READ_PER_CHAIN: '3' },
      'GET',
      `/insights/v1/tokens/owners?chain_id=${CHAIN_A}&contract_address=${token}&limit=2&page=1`,
    );
    expect(bounded.status).toBe(400);
    expect((await get('/insights/v1/tokens/owners', { chain_id: CHAIN_A })).status).toBe(400);
  });

  it('NFT owners: ERC-721 by ownerOf, ERC-1155 by balanceOf(holder, id); addresses or balances', async () => {
    const nft = lower(fx.a.manifest.contracts.nft) as Address;
    const multi = lower(fx.a.manifest.contracts.multi) as Address;
    const owned: [string, string][] = [];
    for (const id of DEMO_PLAN.nft.mintedIds) {
      const owner = await fx.a.client.readContract({ address: nft, abi: nftAbi, functionName: 'ownerOf', args: [id] }).catch(() => null);
      if (owner) owned.push([lower(owner), id.toString()]);
    }
    const withBalances = await get(`/insights/v1/nfts/owners/${nft}`, { chain_id: CHAIN_A, include_balances: 'true' });
    expect(withBalances.status, JSON.stringify(withBalances.body)).toBe(200);
    expect(withBalances.body.data.map((row: { owner_address: string; token_id: string }) => [row.owner_address, row.token_id])).toEqual(
      owned,
    );
    const addresses = await get(`/insights/v1/nfts/owners/${nft}`, { chain_id: CHAIN_A });
    expect(addresses.body.data).toEqual([{ chain_id: String(CHAIN_A), owner_addresses: [...new Set(owned.map(([owner]) => owner))] }]);
    const one = await get(`/insights/v1/nfts/owners/${nft}/${DEMO_PLAN.nft.aliceToBusy}`, { chain_id: CHAIN_A, include_balances: 'true' });
    expect(one.body.data).toEqual([
      { chain_id: String(CHAIN_A), token_address: nft, owner_address: lower(fx.a.manifest.accounts.busy), token_id: '2', balance: '1' },
    ]);
    for (const id of [1n, ...DEMO_PLAN.multi.batch.ids]) {
      const expected: [string, string][] = [];
      for (const holder of holders()) {
        const value = await fx.a.client.readContract({ address: multi, abi: multiAbi, functionName: 'balanceOf', args: [holder, id] });
        if (value > 0n) expected.push([holder, value.toString()]);
      }
      const { body } = await get(`/insights/v1/nfts/owners/${multi}/${id}`, { chain_id: CHAIN_A, include_balances: 'true' });
      expect(
        body.data.map((row: { owner_address: string; balance: string }) => [row.owner_address, row.balance]).sort(),
        String(id),
      ).toEqual(expected.sort());
    }
  });
});

describe('I6o GET /insights/v1/nfts', () => {
  it('several owners’ NFTs, each row with its owner, filtered by contract', async () => {
    const nft = lower(fx.a.manifest.contracts.nft) as Address;
    const multi = lower(fx.a.manifest.contracts.multi) as Address;
    const owners = holders();
    const expected: string[] = [];
    for (const owner of owners) {
      const { body } = await get(`/insights/v1/nfts/balance/${owner}`, { chain_id: CHAIN_A, limit: 100 });
      expected.push(
        ...body.data.map((row: { token_address: string; token_id: string }) => `${owner}/${row.token_address}/${row.token_id}`),
      );
    }
    const { status, body } = await get('/insights/v1/nfts', { chain_id: CHAIN_A, owner_address: owners, limit: 100 });
    expect(status, JSON.stringify(body)).toBe(200);
    const key = (row: { owner_addresses: string[]; contract_address: string; token_id: string }) =>
      `${row.owner_addresses[0]}/${row.contract_address}/${row.token_id}`;
    expect(body.data.map(key)).toEqual(expected);
    expect(body.meta.total_items).toBe(expected.length);
    for (const row of body.data.filter((r: { token_type: string }) => r.token_type === 'erc721')) {
      const owner = await fx.a.client.readContract({ address: nft, abi: nftAbi, functionName: 'ownerOf', args: [BigInt(row.token_id)] });
      expect(row.owner_addresses).toEqual([lower(owner)]);
      expect(Number(row.last_updated_block_number)).toBeGreaterThan(0);
    }
    const onlyMulti = await get('/insights/v1/nfts', {
      chain_id: CHAIN_A,
      owner_address: owners.join(','),
      contract_address: multi,
      limit: 100,
    });
    expect(onlyMulti.body.data.map(key)).toEqual(expected.filter((entry) => entry.includes(`/${multi}/`)));
    // One owner and two contracts: prefix Queries of its holdings (the many-owner request above filters them).
    for (const owner of owners) {
      const both = await get('/insights/v1/nfts', { chain_id: CHAIN_A, owner_address: owner, contract_address: [multi, nft], limit: 100 });
      const mine = expected.filter((entry) => entry.startsWith(`${owner}/`));
      expect(both.body.data.map(key)).toEqual(mine);
      expect(both.body.meta.total_items).toBe(mine.length);
      const second = await get('/insights/v1/nfts', {
        chain_id: CHAIN_A,
        owner_address: owner,
        contract_address: multi,
        limit: 1,
        page: 1,
      });
      expect(second.body.data.map(key)).toEqual(mine.filter((entry) => entry.includes(`/${multi}/`)).slice(1, 2));
    }
    expect((await get('/insights/v1/nfts', { chain_id: CHAIN_A })).status).toBe(400);
  });

  it('joins one key an NFT (its instance, with what was fetched for it) and one a contract: no key that cannot exist', async () => {
    const owners = holders();
    await get('/insights/v1/nfts', { chain_id: CHAIN_A, owner_address: owners, limit: 100 }); // the registry, read once a minute
    const { result, requests } = await tableWorkOf(() =>
      get('/insights/v1/nfts', { chain_id: CHAIN_A, owner_address: owners, limit: 100 }),
    );
    expect(result.status).toBe(200);
    const rows: { contract_address: string; token_id: string }[] = result.body.data;
    expect(rows.length).toBeGreaterThan(2);
    const asked = requests
      .filter((request) => request.command === 'BatchGetItemCommand')
      .flatMap((request) => Object.values(request.input.RequestItems as Record<string, { Keys: { pk: string; sk: string }[] }>))
      .flatMap((entry) => entry.Keys);
    const instances = asked.filter((key) => key.pk.includes('#NFT#'));
    expect(instances).toHaveLength(new Set(rows.map((row) => `${row.contract_address}/${row.token_id}`)).size);
    expect(asked.filter((key) => !key.pk.includes('#NFT#'))).toHaveLength(new Set(rows.map((row) => row.contract_address)).size);
  });

  it('keeps the instances and contracts it joined for INSIGHTS_DETAILS_CACHE_SECONDS: the next page reads only the holdings', async () => {
    const owners = holders();
    const env = { INSIGHTS_DETAILS_CACHE_SECONDS: '3600' };
    const page = url('/insights/v1/nfts', { chain_id: CHAIN_A, owner_address: owners, limit: 100 });
    const joinedKeys = (requests: Awaited<ReturnType<typeof tableWorkOf>>['requests']) =>
      requests
        .filter((request) => request.command === 'BatchGetItemCommand')
        .flatMap((request) => Object.values(request.input.RequestItems as Record<string, { Keys: { pk: string; sk: string }[] }>))
        .flatMap((entry) => entry.Keys);

    const first = await tableWorkOf(() => requestOnColdStart(env, 'GET', page));
    expect(first.result.status).toBe(200);
    const rows: { contract_address: string; token_id: string; owner_addresses: string[] }[] = first.result.body.data;
    expect(rows.length).toBeGreaterThan(2);
    const distinct = new Set(rows.map((row) => `${row.contract_address}/${row.token_id}`)).size;
    expect(joinedKeys(first.requests).filter((key) => key.pk.includes('#NFT#'))).toHaveLength(distinct);

    // Another container start with the same setting (the copy is the process's): the same rows, the
    // holdings Queried again (owners and balances are never kept), no instance or contract asked for.
    const kept = await tableWorkOf(() => requestOnColdStart(env, 'GET', page));
    expect(kept.result.status).toBe(200);
    expect(kept.result.body.data).toEqual(rows);
    expect(joinedKeys(kept.requests), 'instances and contracts served from the copy').toEqual([]);
    expect(kept.usage.calls.QueryCommand, 'the holdings read again').toBeGreaterThan(0);

    // With the setting at 0 (the other tests' setting) every page joins them again.
    const unkept = await tableWorkOf(() => get('/insights/v1/nfts', { chain_id: CHAIN_A, owner_address: owners, limit: 100 }));
    expect(unkept.result.body.data).toEqual(rows);
    expect(joinedKeys(unkept.requests).filter((key) => key.pk.includes('#NFT#'))).toHaveLength(distinct);
  });
});

describe('I6p GET /insights/v1/nfts/collections/{contract_address}', () => {
  it('the contract’s name and symbol as the chain answers; stats from its tokens and transfers', async () => {
    const nft = lower(fx.a.manifest.contracts.nft) as Address;
    const meta = parseAbi(['function name() view returns (string)', 'function symbol() view returns (string)']);
    const [name, symbol] = await Promise.all([
      fx.a.client.readContract({ address: nft, abi: meta, functionName: 'name' }),
      fx.a.client.readContract({ address: nft, abi: meta, functionName: 'symbol' }),
    ]);
    const owners = new Set<string>();
    for (const id of DEMO_PLAN.nft.mintedIds) {
      const owner = await fx.a.client.readContract({ address: nft, abi: nftAbi, functionName: 'ownerOf', args: [id] }).catch(() => null);
      if (owner) owners.add(lower(owner));
    }
    const { status, body } = await get(`/insights/v1/nfts/collections/${nft}`, { chain_id: [CHAIN_A, CHAIN_B], include_stats: 'true' });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data).toEqual([
      {
        chain_id: CHAIN_A,
        contract_address: nft,
        name,
        symbol,
        token_type: 'erc721',
        stats: {
          owner_count: owners.size,
          token_count: DEMO_PLAN.nft.mintedIds.length,
          mint_count: DEMO_PLAN.nft.mintedIds.length,
          total_quantity: DEMO_PLAN.nft.mintedIds.length - 1,
        },
      },
    ]);
    const multi = await get(`/insights/v1/nfts/collections/${fx.a.manifest.contracts.multi}`, { chain_id: CHAIN_A, include_stats: 'true' });
    const supply = DEMO_PLAN.multi.single.mint + DEMO_PLAN.multi.batch.mint.reduce((a, b) => a + b, 0n);
    expect(multi.body.data[0].stats).toMatchObject({ token_count: 4, total_quantity: Number(supply) });
    expect((await get(`/insights/v1/nfts/collections/${fx.a.manifest.contracts.token}`, { chain_id: CHAIN_A })).status).toBe(404);
  });
});

describe('I6: DynamoDB work per request (one chain)', () => {
  const work = async (pathname: string, params: Params) => {
    await get(pathname, { chain_id: CHAIN_A, ...params }); // the chain registry, read once a minute, is not the route's
    const { result, usage } = await tableWorkOf(() => get(pathname, { chain_id: CHAIN_A, ...params }));
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    return usage.calls;
  };
  it('reads each list’s ranges once, its completions with one BatchGetItem, never a Scan', async () => {
    const busy = fx.a.manifest.accounts.busy;
    const nft = fx.a.manifest.contracts.nft;
    // The owner's collections (X2, the total) and its holdings page (G4), in parallel.
    expect(await work(`/insights/v1/nfts/balance/${busy}`, {})).toEqual({ QueryCommand: 2 });
    // The same, then the page's instances and contracts.
    expect(await work(`/insights/v1/tokens/erc721/${busy}`, { metadata: 'true' })).toEqual({ QueryCommand: 2, BatchGetItemCommand: 1 });
    // The instance partition's page (the fetched metadata, G7, on each instance) and the contract's
    // address item (`contract`, the nftInstances total), at once.
    expect(await work(`/insights/v1/nfts/${nft}`, {})).toEqual({ QueryCommand: 1, BatchGetItemCommand: 1 });
    expect(await work(`/insights/v1/nfts/${nft}/2`, {})).toEqual({ BatchGetItemCommand: 1 });
    // The contract's address item, its transfer range's page and its last position (the count), at once.
    expect(await work(`/insights/v1/nfts/transfers/${nft}`, {})).toEqual({ BatchGetItemCommand: 1, QueryCommand: 2 });
    // One NFT's transfers (N16): the page and its last position.
    expect(await work(`/insights/v1/nfts/transfers/${nft}/2`, {})).toEqual({ QueryCommand: 2 });
    // The token's holders (T1) and its address item (the standard, the holders total).
    expect(await work('/insights/v1/tokens/owners', { contract_address: fx.a.manifest.contracts.token })).toEqual({
      QueryCommand: 1,
      BatchGetItemCommand: 1,
    });
  });
});

/**
 * The bench's read rules (scripts/bench/lib/budgets.ts) on the routes whose totals come from the
 * ingest's counters (X10, X7, the ERC-1155 instance) and whose lists from T1 and N16: a first page waits
 * on at most 2 DynamoDB round trips in sequence (1 without metadata), its Queries read at most
 * Queries x (limit + 1) items, at most 6 Queries at once, no Select COUNT; `total_items` is the chain's
 * truth. A later page of a state list reads the list to its end (2 round trips at most; a 400 past the
 * read bound).
 */
describe('I6: round trips, items read and exact totals', () => {
  type Rules = ReturnType<typeof readRules>;
  const measured = async (pathname: string, params: Params) => {
    await get(pathname, { chain_id: CHAIN_A, ...params }); // the chain registry, read once a minute, is not the route's
    const { result, requests } = await tableWorkOf(() => get(pathname, { chain_id: CHAIN_A, ...params }));
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    expect(requests.filter((request) => request.input.Select === 'COUNT')).toEqual([]);
    const rules = readRules(requests);
    return { body: result.body, rules };
  };
  /** The first page's rules: round trips, its Queries' items bounded by the page size, 6 Queries at most at once. */
  const firstPage = (rules: Rules, limit: number, roundTrips: number) => {
    expect(rules.roundTrips, JSON.stringify(rules)).toBeLessThanOrEqual(roundTrips);
    expect(rules.queryItemsRead, JSON.stringify(rules)).toBeLessThanOrEqual(rules.queries * (limit + 1));
    expect(rules.maxParallelQueries).toBeLessThanOrEqual(6);
  };
  async function erc20Holders(): Promise<{ owner: string; value: bigint }[]> {
    const token = lower(fx.a.manifest.contracts.token);
    const truth = await readTruth(CHAIN_A, fx.a.client);
    const received = [...new Set((await transfersOf(truth, [token])).map((t) => t.to))].filter((to) => !/^0x0{40}$/.test(to));
    const balances = await Promise.all(received.map(async (owner) => ({ owner, value: await erc20Balance(fx.a.client, token, owner) })));
    return balances
      .filter((b) => b.value > 0n)
      .sort((a, b) => (a.value === b.value ? (a.owner < b.owner ? -1 : 1) : a.value > b.value ? -1 : 1));
  }
  /** Every (holder, id) of the ERC-1155 collection with a positive balanceOf: id ascending, balance desc, holder. */
  async function multiPairs(): Promise<{ holder: string; id: bigint; value: bigint }[]> {
    const multi = lower(fx.a.manifest.contracts.multi) as Address;
    const pairs: { holder: string; id: bigint; value: bigint }[] = [];
    for (const id of [1n, ...DEMO_PLAN.multi.batch.ids])
      for (const holder of holders()) {
        const value = await fx.a.client.readContract({ address: multi, abi: multiAbi, functionName: 'balanceOf', args: [holder, id] });
        if (value > 0n) pairs.push({ holder, id, value });
      }
    return pairs.sort((a, b) =>
      a.id !== b.id ? (a.id < b.id ? -1 : 1) : a.value !== b.value ? (a.value > b.value ? -1 : 1) : a.holder < b.holder ? -1 : 1,
    );
  }

  it('I6a / I6e: one round trip, the page’s Query and X10; totals the owners’ positive balances', async () => {
    const token = lower(fx.a.manifest.contracts.token);
    const owners = holders();
    const held = (await Promise.all(owners.map((owner) => erc20Balance(fx.a.client, token, owner)))).filter((value) => value > 0n);
    for (const owner of owners) {
      const { body, rules } = await measured(`/insights/v1/tokens/erc20/${owner}`, { limit: 1 });
      firstPage(rules, 1, 1);
      expect(rules.queries).toBe(1);
      expect(body.meta.total_items).toBe((await erc20Balance(fx.a.client, token, owner)) > 0n ? 1 : 0);
    }
    const { body, rules } = await measured('/insights/v1/tokens', { owner_address: owners, limit: 1 });
    firstPage(rules, 1, 1);
    expect(rules.queries).toBe(owners.length);
    expect(body.data).toHaveLength(1);
    expect(body.meta).toMatchObject({ total_items: held.length, total_pages: held.length });
    const metadata = await measured('/insights/v1/tokens', { owner_address: owners, limit: 1, metadata: 'true' });
    firstPage(metadata.rules, 1, 2);
    expect(metadata.body.data[0]).toMatchObject({ decimals: 18 });
  });

  it('I6f: one round trip, the instances’ page (their fetched metadata, G7, on them) and X7; total the ids minted', async () => {
    const nft = lower(fx.a.manifest.contracts.nft);
    const { body, rules } = await measured(`/insights/v1/nfts/${nft}`, { limit: 2, include_owners: 'true' });
    firstPage(rules, 2, 1);
    expect(rules.queries).toBe(1);
    expect(body.data.map((row: { token_id: string }) => row.token_id)).toEqual(['1', '2']);
    expect(body.data[0].contract).toMatchObject({ chain_id: CHAIN_A, address: nft, type: 'erc721' });
    expect(body.meta).toMatchObject({ total_items: DEMO_PLAN.nft.mintedIds.length, total_pages: DEMO_PLAN.nft.mintedIds.length / 2 });
    const multi = await measured(`/insights/v1/nfts/${fx.a.manifest.contracts.multi}`, { limit: 1 });
    firstPage(multi.rules, 1, 1);
    expect(multi.body.meta.total_items).toBe(1 + DEMO_PLAN.multi.batch.ids.length);
  });

  it('I6j: the contract’s X7 with its N8 page, the metadata in round 2; I6k: N16, paged by position', async () => {
    const truth = await readTruth(CHAIN_A, fx.a.client);
    const { nft, multi } = fx.a.manifest.contracts;
    const transfers = await transfersOf(truth, [lower(nft), lower(multi)]);
    const ofMulti = transfers.filter((t) => t.token === lower(multi));
    const contract = await measured(`/insights/v1/nfts/transfers/${multi}`, { limit: 2, metadata: 'true' });
    firstPage(contract.rules, 2, 2);
    expect(contract.body.meta.total_items).toBe(ofMulti.length);
    expect(contract.body.data[0].nft_metadata.contract).toMatchObject({ address: lower(multi), type: 'erc1155' });
    const plain = await measured(`/insights/v1/nfts/transfers/${multi}`, { limit: 2 });
    firstPage(plain.rules, 2, 1);
    const key = (row: { transaction_hash: string; log_index: number; token_id?: string }) =>
      `${row.transaction_hash}/${row.log_index}/${row.token_id ?? ''}`;
    const tokens: [string, bigint][] = [
      ...DEMO_PLAN.nft.mintedIds.map((id): [string, bigint] => [nft, id]),
      ...[1n, ...DEMO_PLAN.multi.batch.ids].map((id): [string, bigint] => [multi, id]),
    ];
    for (const [token, id] of tokens) {
      const want = transfers.filter((t) => t.token === lower(token) && t.tokenId === id);
      const one = await measured(`/insights/v1/nfts/transfers/${token}/${id}`, { limit: 1 });
      firstPage(one.rules, 1, 1);
      expect(one.body.meta.total_items, `${token}/${id}`).toBe(want.length);
      const paged: string[] = [];
      for (let page = 0; page < want.length; page++) {
        const { body, rules } = await measured(`/insights/v1/nfts/transfers/${token}/${id}`, { limit: 1, page });
        expect(rules.roundTrips).toBeLessThanOrEqual(2);
        expect(rules.queryItemsRead).toBeLessThanOrEqual(rules.queries * 2);
        paged.push(...body.data.map(key));
      }
      expect(paged).toEqual(want.map((t) => `${t.transactionHash}/${t.logIndex}/${t.tokenId}`));
    }
    const withMetadata = await measured(`/insights/v1/nfts/transfers/${nft}/${DEMO_PLAN.nft.aliceToBusy}`, { metadata: 'true' });
    firstPage(withMetadata.rules, 20, 2);
    expect(withMetadata.body.data[0].nft_metadata).toMatchObject({ owner_addresses: [lower(fx.a.manifest.accounts.busy)] });
  });

  it('I6l: one round trip, T1’s page and X7; total the holders with a positive balanceOf', async () => {
    const held = await erc20Holders();
    const token = fx.a.manifest.contracts.token;
    const rows: [string, string][] = [];
    for (let page = 0; page < held.length; page++) {
      const { body, rules } = await measured('/insights/v1/tokens/owners', { contract_address: token, limit: 1, page });
      if (page === 0) firstPage(rules, 1, 1);
      expect(rules.roundTrips).toBeLessThanOrEqual(2);
      expect(body.meta).toMatchObject({ total_items: held.length, total_pages: held.length });
      rows.push(...body.data.map((row: { owner_address: string; balance: string }) => [row.owner_address, row.balance]));
    }
    expect(rows).toEqual(held.map((b) => [b.owner, b.value.toString()]));
    // An NFT contract has no ERC-20 holders.
    const nft = await measured('/insights/v1/tokens/owners', { contract_address: fx.a.manifest.contracts.multi });
    expect(nft.body.data).toEqual([]);
    expect(nft.body.meta.total_items).toBe(0);
  });

  it('I6m / I6n: X7 with T1 and the instances at once on the first page; totals from the counters', async () => {
    const nft = lower(fx.a.manifest.contracts.nft) as Address;
    const multi = lower(fx.a.manifest.contracts.multi);
    const pairs = await multiPairs();
    const all = await measured(`/insights/v1/nfts/owners/${multi}`, { include_balances: 'true', limit: 2 });
    firstPage(all.rules, 2, 1);
    expect(all.rules.queries).toBe(2);
    expect(all.body.meta).toMatchObject({ total_items: pairs.length, total_pages: Math.ceil(pairs.length / 2) });
    const rows: [string, string, string][] = [];
    for (let page = 0; page * 2 < pairs.length; page++) {
      const { body, rules } = await measured(`/insights/v1/nfts/owners/${multi}`, { include_balances: 'true', limit: 2, page });
      expect(rules.roundTrips).toBeLessThanOrEqual(2);
      if (page > 0) expect(rules.queries).toBe(1);
      rows.push(
        ...body.data.map((row: { owner_address: string; token_id: string; balance: string }) => [
          row.owner_address,
          row.token_id,
          row.balance,
        ]),
      );
    }
    expect(rows).toEqual(pairs.map((pair) => [pair.holder, pair.id.toString(), pair.value.toString()]));
    for (const id of [1n, ...DEMO_PLAN.multi.batch.ids]) {
      const ofId = pairs.filter((pair) => pair.id === id);
      const { body, rules } = await measured(`/insights/v1/nfts/owners/${multi}/${id}`, { include_balances: 'true', limit: 1 });
      firstPage(rules, 1, 1);
      expect(rules.queries).toBe(1);
      expect(body.meta.total_items, String(id)).toBe(ofId.length);
      expect(body.data.map((row: { owner_address: string }) => row.owner_address)).toEqual(ofId.slice(0, 1).map((pair) => pair.holder));
    }
    const erc721 = await measured(`/insights/v1/nfts/owners/${nft}`, { limit: 3 });
    firstPage(erc721.rules, 3, 1);
    // The total counts the contract's instances (a burned id among them has no row).
    expect(erc721.body.meta.total_items).toBe(DEMO_PLAN.nft.mintedIds.length);
    const one = await measured(`/insights/v1/nfts/owners/${nft}/${DEMO_PLAN.nft.aliceToBusy}`, {});
    firstPage(one.rules, 20, 1);
    expect(one.body.meta.total_items).toBe(1);
    expect(one.body.data).toEqual([{ chain_id: String(CHAIN_A), owner_addresses: [lower(fx.a.manifest.accounts.busy)] }]);
    // A later page past the read bound: a 400.
    const deep = await requestOnColdStart(
      { INSIGHTS_MAX_ITEMS_READ_PER_CHAIN: '3' },
      'GET',
      `/insights/v1/nfts/owners/${multi}?chain_id=${CHAIN_A}&limit=2&page=1`,
    );
    expect(deep.status).toBe(400);
  });
});
