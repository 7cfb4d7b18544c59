/**
 * The ingest against a real anvil running the demo activity (ERC-20/721/1155, factory creations,
 * internal value transfers, self-destructs, reverts): the table must hold exactly what the chain
 * says, in every range, and a second run must change nothing. Also the node fallbacks: a node
 * without eth_getBlockReceipts / debug tracing (receipts one by one, parity traces) and a node with
 * no tracer at all. Pattern ids (X1, E4 ...): see docs/access-patterns.md.
 */
import { storedEntriesOf } from '../../../shared/table/buckets';
import { zeroAddress as ZERO } from 'viem';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createChainClient } from '../../../shared/chain/client';
import { expandBalance, expandInternalTransaction, expandTransaction } from '../../../shared/table/compact';
import { addressKeys, nftKeys, transactionKeys } from '../../../shared/table/keys';
import { ingestRange } from '../../../shared/ingest/ingest';
import type { BlockIngestedEvent } from '../../../shared/ingest/listeners';
import { readCursor } from '../../../shared/ingest/manifest';
import { getItem, queryRange } from '../../../shared/ingest/table-io';
import { startDemoChain, type DemoChain } from '../../support/demo-chain';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';
import { startRpcProxy } from './support/proxy';
import { expectImmutableItems, expectStateMatchesChain, readChainTruth, type ChainTruth } from './support/truth';

const table = useTestTable('ingest');
const CHAIN_ID = 31337;
let demo: DemoChain;
let truth: ChainTruth;
let head: number;
const events: BlockIngestedEvent[] = [];

beforeAll(async () => {
  demo = await startDemoChain({ chainId: CHAIN_ID });
  head = demo.manifest.blocks.last;
  truth = await readChainTruth(demo.anvil.rpcUrl, 0, head);
  const result = await ingestRange({
    chainId: CHAIN_ID,
    client: createChainClient(demo.anvil.rpcUrl),
    from: 0,
    to: head,
    listeners: [{ blocksIngested: (batch) => void events.push(...batch) }],
  });
  expect(result.advanced).toBe(head + 1);
}, 120_000);

afterAll(async () => {
  await demo?.stop();
});

describe('a demo chain ingested from block 0', () => {
  test('every transaction, log, internal transaction and token transfer is stored once, in exactly the ranges it belongs to', async () => {
    expect(truth.transfers.some((t) => t.standard === 'ERC-1155' && t.batchIndex > 0)).toBe(true);
    expect(truth.calls.length).toBeGreaterThan(0);
    await expectImmutableItems(table.name, truth);
  });

  test('an ERC-20 transfer is copied into its standard, ALL and token ranges of each side only, each copy numbered, also in its side’s union', async () => {
    const transfer = truth.transfers.find((t) => t.standard === 'ERC-20' && t.from !== ZERO && t.to !== ZERO && t.from !== t.to)!;
    expect(transfer).toBeDefined();
    const sk = `${String(transfer.blockNumber).padStart(12, '0')}#${String(transfer.logIndex).padStart(6, '0')}#0000`;
    // Entries of bucketed ranges (N8, the token's) are read out of their block buckets (table/buckets.ts).
    const snapshot = (await tableSnapshot(table.name)).flatMap((item) => storedEntriesOf(item));
    const copies = snapshot.filter((item) => item.sk === sk);
    const side = (address: string, direction: 'from' | 'to') =>
      // The `all` ranges are unions of these (union-ranges.ts): no copies of their own.
      [`${direction}#ERC-20`, `${direction}#ALL`, `${direction}#TOKEN#${transfer.token}:4`].map(
        (range) => `C#${CHAIN_ID}#A#${address}#TT#${range}`,
      );
    expect(copies.map((item) => item.pk).sort()).toEqual(
      [`C#${CHAIN_ID}#TT#${transfer.token}`, ...side(transfer.from, 'from'), ...side(transfer.to, 'to')].sort(),
    );
    // Every copy is an entry of a counted range (insights total_items from positions).
    for (const item of copies) expect(item.pos, String(item.pk)).toEqual(expect.any(Number));
    // Each side's copies are entries of its `all` unions too: numbered there.
    for (const item of copies.filter((copy) => String(copy.pk).includes('#A#')))
      expect(item.upos, String(item.pk)).toEqual(expect.any(Number));
    // No range of a two-standard set exists: not for transfers, balances (X1) or collections (X2).
    expect(snapshot.filter((item) => /#(TT#(all|to|from)|BALS|NFTCOL)#ERC-[0-9]+\+/.test(String(item.pk)))).toEqual([]);
  });

  test('a balance is listed on gsi3 in its standard range only (no listing item), an NFT collection in its standard range and ALL', async () => {
    const { accounts, contracts } = demo.manifest;
    const snapshot = await tableSnapshot(table.name);
    const holder = accounts.alice.toLowerCase();
    const rangesOf = (kind: string, token: string) =>
      snapshot
        .filter((item) => item.kind === kind && (item.token ?? item.contract) === token.toLowerCase() && item.holder === holder)
        .map((item) => String(item.pk))
        .sort();
    const listingOf = (token: string) =>
      snapshot
        .filter((item) => item.kind === 'balance')
        .map((item) => expandBalance(item))
        .filter((item) => item.token === token.toLowerCase() && item.holder === holder)
        .map((item) => item.gsi3pk);
    expect(listingOf(contracts.token)).toEqual([`C#${CHAIN_ID}#A#${holder}#BALS#ERC-20`]);
    expect(listingOf(contracts.nft)).toEqual([`C#${CHAIN_ID}#A#${holder}#BALS#ERC-721`]);
    expect(snapshot.filter((item) => item.kind === 'balanceListing' || String(item.pk).includes('#BALS#'))).toEqual([]);
    const collections = (standard: string) =>
      [`C#${CHAIN_ID}#A#${holder}#NFTCOL#${standard}`, `C#${CHAIN_ID}#A#${holder}#NFTCOL#ALL`].sort();
    expect(rangesOf('nftCollection', contracts.nft)).toEqual(collections('ERC-721'));
    expect(rangesOf('nftCollection', contracts.multi)).toEqual(collections('ERC-1155'));
  });

  test('balances, holder counts, NFT owners and collections equal what the chain says at the head', async () => {
    await expectStateMatchesChain(table.name, truth, demo.anvil.rpcUrl);
    // And what the demo plan says it did.
    for (const [holder, value] of Object.entries(demo.manifest.expected.tokenBalances)) {
      const item = await getItem(addressKeys.balance(CHAIN_ID, holder, demo.manifest.contracts.token));
      expect(item?.value ?? '0', `DEMO balance of ${holder}`).toBe(value);
    }
    const nft = demo.manifest.contracts.nft;
    for (const [id, owner] of Object.entries(demo.manifest.expected.nftOwners)) {
      const instance = await getItem(nftKeys.instance(CHAIN_ID, nft, BigInt(id)));
      expect(instance?.owner ?? null).toBe(owner?.toLowerCase() ?? null);
    }
  });

  test('the cursor is on the head and the chain is registered', async () => {
    const cursor = await readCursor(CHAIN_ID);
    expect(cursor).toMatchObject({ blockNumber: head, blockHash: truth.blocks.at(-1)!.hash, firstBlock: 0 });
    const snapshot = await tableSnapshot(table.name);
    expect(snapshot.find((item) => item.pk === 'CHAINS')).toMatchObject({ chainId: CHAIN_ID, firstBlock: 0 });
  });

  test('revert reasons, transaction types, internal transaction types and NFT metadata', async () => {
    const get = async (hash: string) => expandTransaction((await getItem(transactionKeys.transaction(CHAIN_ID, hash)))!);
    const { highlights, transactionsByKind, contracts } = demo.manifest;
    expect((await get(highlights.alwaysReverts.hash)).revertReason).toBe(highlights.alwaysReverts.reason);
    // The top-level call's tracer error (E4 `result`): the node's wording; null on success.
    expect((await get(highlights.alwaysReverts.hash)).error).toBe('execution reverted');
    expect((await get(highlights.customErrorRevert.hash)).error).toBe('execution reverted');
    expect((await get(transactionsByKind.nativeTransfer[0])).error).toBeNull();
    // A custom error (not Error/Panic) is kept as its raw revert data.
    expect((await get(highlights.customErrorRevert.hash)).revertReason).toMatch(/^0x[0-9a-f]{8}/);
    const tokenDeployment = await get(truth.transactions.find((tx) => tx.created === contracts.token.toLowerCase())!.hash);
    expect(tokenDeployment.transactionTypes).toEqual(expect.arrayContaining(['contract_creation', 'token_creation']));
    const factoryDeployment = await get(truth.transactions.find((tx) => tx.created === contracts.factory.toLowerCase())!.hash);
    expect(factoryDeployment.transactionTypes).toEqual(['contract_creation']);
    expect((await get(transactionsByKind.nativeTransfer[0])).transactionTypes).toEqual(['coin_transfer']);
    expect((await get(transactionsByKind.tokenTransfer[0])).transactionTypes).toEqual(['token_transfer', 'contract_call']);

    // A transaction's internal transactions, as their callers' X5 `from` ranges hold them (the only
    // place besides the callees' `to` ranges: no canonical items since issue 27's lever 10).
    const internals = async (hash: string) => {
      const callers = [...new Set(truth.calls.filter((call) => call.txHash === hash.toLowerCase()).map((call) => call.from))];
      const items = (
        await Promise.all(callers.map((caller) => queryRange(addressKeys.internalTransactions(CHAIN_ID, caller, 'from'))))
      ).flat();
      return items
        .map((item) => expandInternalTransaction(item))
        .filter((call) => call.transactionHash === hash.toLowerCase())
        .sort((a, b) => a.index - b.index);
    };
    const create2 = await internals(highlights.factoryCreate2.hash);
    expect(create2.find((call) => call.type === 'create2')?.createdContract).toBe(highlights.factoryCreate2.child.toLowerCase());
    expect(
      (await internals(highlights.vaultSelfdestruct.hash)).some(
        (call) => call.type === 'selfdestruct' && call.to === highlights.vaultSelfdestruct.beneficiary.toLowerCase(),
      ),
    ).toBe(true);
    const bestEffort = await internals(highlights.splitBestEffort.hash);
    expect(bestEffort.find((call) => call.to === contracts.reverter.toLowerCase())).toMatchObject({
      success: false,
      value: highlights.splitBestEffort.refused.amount,
    });
    expect((await get(highlights.splitBestEffort.hash)).hasErrorInInternalTransactions).toBe(true);
    // Indexes follow Blockscout: depth first from 1 (0 is the transaction's own call).
    expect(bestEffort.map((call) => call.index)).toEqual(bestEffort.map((_, position) => position + 1));

    const onChain = (await getItem(nftKeys.instance(CHAIN_ID, contracts.nft, BigInt(highlights.nftOnChainMetadataId))))!;
    expect(onChain.metadataStatus).toBe('resolved');
    expect(JSON.parse(onChain.metadataJson as string)).toMatchObject({ name: `Demo NFT #${highlights.nftOnChainMetadataId}` });
    const ipfs = (await getItem(nftKeys.instance(CHAIN_ID, contracts.nft, BigInt(highlights.nftIpfsMetadataId))))!;
    expect(ipfs).toMatchObject({ metadataStatus: 'unresolved', metadataJson: null });
    expect(ipfs.tokenUri).toMatch(/^ipfs:\/\//);
  });

  test('token symbols resolve to their token; the token item carries its details', async () => {
    const token = demo.manifest.contracts.token.toLowerCase();
    const snapshot = await tableSnapshot(table.name);
    const tokenItem = snapshot.find((item) => item.pk === addressKeys.address(CHAIN_ID, token).pk)!;
    expect(tokenItem).toMatchObject({ tokenType: 'ERC-20', tokenDecimals: 18, isContract: true });
    const name = snapshot.find((item) => item.pk === addressKeys.name(CHAIN_ID, String(tokenItem.tokenSymbol)).pk)!;
    expect([...(name.addresses as Set<string>)]).toEqual([token]);
    expect(snapshot.find((item) => item.pk === addressKeys.address(CHAIN_ID, demo.manifest.contracts.multi).pk)).toMatchObject({
      tokenType: 'ERC-1155',
    });
  });

  test('block listeners saw every block once, with its ERC-20 and native transfers', () => {
    expect(events.map((event) => [event.block.number, event.mode])).toEqual(truth.blocks.map((block) => [block.number, 'advance']));
    expect(events.flatMap((event) => event.erc20Transfers).length).toBe(truth.transfers.filter((t) => t.standard === 'ERC-20').length);
    const split = demo.manifest.highlights.split;
    const native = events
      .flatMap((event) => event.nativeTransfers)
      .filter((t) => t.transactionHash === split.hash && t.internalIndex !== null);
    expect(native.map((t) => [t.to, t.value])).toEqual(split.payments.map((p) => [p.to.toLowerCase(), p.amount]));
  });

  test('ingesting the same range again (skipped, then rewritten with repair) leaves identical items', async () => {
    const before = await tableSnapshot(table.name);
    const client = createChainClient(demo.anvil.rpcUrl);
    expect(await ingestRange({ chainId: CHAIN_ID, client, from: 0, to: head })).toMatchObject({ advanced: 0, repaired: 0, reorgs: 0 });
    const repaired: BlockIngestedEvent[] = [];
    const result = await ingestRange({
      chainId: CHAIN_ID,
      client,
      from: 0,
      to: head,
      repair: true,
      listeners: [{ blocksIngested: (batch) => void repaired.push(...batch) }],
    });
    expect(result).toMatchObject({ advanced: 0, repaired: head + 1, reorgs: 0 });
    // A repair run delivers its blocks to the (idempotent) listeners again.
    expect(repaired.map((event) => [event.block.number, event.mode])).toEqual(truth.blocks.map((block) => [block.number, 'repair']));
    expect(await tableSnapshot(table.name)).toEqual(before);
  });
});

describe('nodes with fewer RPC methods', () => {
  // The demo's internal calls, creations, self-destructs and reverts are in its last blocks.
  const FROM = 93;
  const truthFrom = (): ChainTruth => ({
    ...truth,
    blocks: truth.blocks.filter((b) => b.number >= FROM),
    transactions: truth.transactions.filter((t) => t.blockNumber >= FROM),
    logs: truth.logs.filter((l) => l.blockNumber >= FROM),
    transfers: truth.transfers.filter((t) => t.blockNumber >= FROM),
    calls: truth.calls.filter((c) => c.blockNumber >= FROM),
  });
  const IMMUTABLE = new Set(['block', 'transaction', 'log', 'tokenTransfer', 'internalTransaction']);
  const recent = (items: Record<string, any>[]) =>
    items.filter((item) => IMMUTABLE.has(item.kind) && (item.blockNumber ?? item.number) >= FROM);

  test('without eth_getBlockReceipts and debug_traceBlockByNumber: per-transaction receipts and trace_block give the same items', async () => {
    const proxy = await startRpcProxy(demo.anvil.rpcUrl, { unsupportedMethods: ['eth_getBlockReceipts', 'debug_traceBlockByNumber'] });
    try {
      const name = `${table.name}-parity`;
      await inTable(name, () => ingestRange({ chainId: CHAIN_ID, client: createChainClient(proxy.url), from: FROM, to: head }));
      expect(proxy.calls.get('trace_block')).toBeGreaterThan(0);
      expect(proxy.calls.get('eth_getTransactionReceipt')).toBeGreaterThan(0);
      await expectImmutableItems(name, truthFrom(), { traces: true, errors: 'presence' });
      const main = recent(await tableSnapshot(table.name));
      const parity = recent(await tableSnapshot(name));
      const transactionView = (tx: Record<string, any>) => ({
        pk: tx.pk,
        sk: tx.sk,
        revertReason: tx.revertReason,
        types: tx.transactionTypes,
        failed: tx.error !== null,
      });
      const view = (items: Record<string, any>[]) =>
        items.map((stored) => {
          const item = stored.kind === 'internalTransaction' ? expandInternalTransaction(stored) : stored;
          return item.kind === 'internalTransaction'
            ? {
                pk: item.pk,
                sk: item.sk,
                type: item.type,
                callType: item.callType,
                from: item.from,
                to: item.to,
                value: item.value,
                success: item.success,
              }
            : item.kind === 'transaction'
              ? transactionView(expandTransaction(item))
              : { pk: item.pk, sk: item.sk };
        });
      expect(view(parity)).toEqual(view(main));
    } finally {
      await proxy.close();
    }
  });

  test('without any tracer: no internal transactions, everything else stored, revert reasons by replay', async () => {
    const proxy = await startRpcProxy(demo.anvil.rpcUrl, { unsupportedMethods: ['debug_traceBlockByNumber', 'trace_block'] });
    try {
      const name = `${table.name}-notrace`;
      await inTable(name, () => ingestRange({ chainId: CHAIN_ID, client: createChainClient(proxy.url), from: FROM, to: head }));
      await expectImmutableItems(name, truthFrom(), { traces: false });
      const items = await tableSnapshot(name);
      const reverted = items
        .filter((item) => item.sk === 'TX')
        .map((item) => expandTransaction(item))
        .find((tx) => tx.hash === demo.manifest.highlights.alwaysReverts.hash);
      expect(reverted).toMatchObject({ revertReason: demo.manifest.highlights.alwaysReverts.reason, tracesAvailable: false });
    } finally {
      await proxy.close();
    }
  });
});
