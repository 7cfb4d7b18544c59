/**
 * E5 GET /explorer/addresses/{address_hash}/internal-transactions on an ingested demo chain. The
 * expected listings come from anvil's own call traces (debug_traceTransaction, callTracer), read
 * here: calls, creations (CREATE, CREATE2), self-destructs and a failed call.
 */
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { getAddress, keccak256, parseEther, toBytes, type Address, type Hash } from 'viem';
import { internalTransactionsResponse } from '../../../shared/explorer/schemas';
import { allPages, expectPageCost, explorerGet, itemsOf, lower, nextQuery, PAGE_SIZE, useExplorerChain } from './fixtures';

const chain = useExplorerChain('explorer-internal');

interface Frame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  error?: string;
  calls?: Frame[];
}

interface ChainInternal {
  key: string;
  from: string;
  to: string | null;
  created: string | null;
  blockNumber: number;
  transactionIndex: number;
  index: number;
}

/** Every internal transaction of the chain: the frames below the top call, depth first, numbered from 1. */
async function chainInternalTransactions(): Promise<ChainInternal[]> {
  const head = await chain.publicClient.getBlockNumber();
  const found: ChainInternal[] = [];
  for (let number = 0n; number <= head; number += 1n) {
    const block = await chain.publicClient.getBlock({ blockNumber: number });
    for (const [transactionIndex, hash] of block.transactions.entries()) {
      const top = (await chain.publicClient.request({ method: 'debug_traceTransaction', params: [hash, { tracer: 'callTracer' }] } as never)) as Frame;
      let index = 0;
      const visit = (frame: Frame): void => {
        for (const call of frame.calls ?? []) {
          index += 1;
          const type = call.type.toLowerCase();
          const creates = type === 'create' || type === 'create2';
          const created = creates && !call.error ? lower(call.to!) : null;
          const to = creates ? null : lower(call.to!);
          const value = BigInt(call.value ?? '0x0').toString();
          found.push({ key: `${lower(hash)}|${index}|${type}|${lower(call.from)}|${to ?? created}|${value}|${!call.error}`, from: lower(call.from), to, created, blockNumber: Number(number), transactionIndex, index });
          visit(call);
        }
      };
      visit(top);
    }
  }
  return found;
}

function expected(internals: ChainInternal[], address: string, filter?: 'to' | 'from'): string[] {
  const a = lower(address);
  return internals
    .filter((t) => (filter === 'from' ? t.from === a : filter === 'to' ? t.to === a || t.created === a : t.from === a || t.to === a || t.created === a))
    .sort((x, y) => y.blockNumber - x.blockNumber || y.transactionIndex - x.transactionIndex || y.index - x.index)
    .map((t) => t.key);
}

const keyOf = (item: any): string =>
  `${item.transaction_hash}|${item.index}|${item.type}|${lower(item.from.hash)}|${lower(item.to?.hash ?? item.created_contract?.hash ?? 'null')}|${item.value}|${item.success}`;

let internals: ChainInternal[];
/** A keyless address paid 51 times in one transaction by the splitter. */
const payee: Address = getAddress(keccak256(toBytes('explorer internal transactions: payee')).slice(0, 42));
let splitHash: Hash;

const split = (count: number) =>
  chain.send('deployer', {
    to: chain.manifest.contracts.splitter,
    abi: chain.artifacts.DemoSplitter.abi,
    functionName: 'split',
    args: [Array(count).fill(payee), Array.from({ length: count }, (_, i) => BigInt(i + 1))],
    value: BigInt((count * (count + 1)) / 2),
  });

beforeAll(async () => {
  splitHash = await split(51);
  await chain.ingest();
  internals = await chainInternalTransactions();
});

describe('paging', () => {
  it('gives 51 internal transactions of one transaction as a page of 50 and a page of 1', async () => {
    const first = await explorerGet(payee, 'internal-transactions');
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(PAGE_SIZE);
    expectPageCost(first.calls, { batchGet: true });
    const cursor = first.body.next_page_params!;
    expect(Object.keys(cursor).sort()).toEqual(['block_number', 'index', 'items_count', 'transaction_index']);
    expect(cursor).toMatchObject({ index: 2, items_count: 50 });
    const second = await explorerGet(payee, 'internal-transactions', nextQuery({}, cursor));
    expect(second.body.items).toHaveLength(1);
    expect(second.body.next_page_params).toBeNull();
    const items = [...first.body.items, ...second.body.items];
    expect(items.map((item) => item.index)).toEqual(Array.from({ length: 51 }, (_, i) => 51 - i));
    expect(items.every((item) => item.transaction_hash === lower(splitHash) && item.to.hash === payee)).toBe(true);
    expect(items.map(keyOf)).toEqual(expected(internals, payee));
  });

  it('pages with a filter and keeps it in next_page_params', async () => {
    const pages = await allPages(payee, 'internal-transactions', { filter: 'to' });
    expect(pages.map((page) => page.body.items.length)).toEqual([50, 1]);
    expect(pages[0].body.next_page_params).toMatchObject({ filter: 'to' });
    expect((await explorerGet(payee, 'internal-transactions', { filter: 'from' })).body).toEqual({ items: [], next_page_params: null });
  });
});

describe('filters', () => {
  it('from, to and both match the traces for every demo address', async () => {
    const { accounts, contracts, payees, highlights } = chain.manifest;
    const addresses = [
      ...Object.values(accounts),
      ...Object.values(contracts),
      ...Object.values(payees),
      highlights.factoryCreate.child,
      highlights.factoryCreate2.child,
      highlights.ephemeral.address,
      payee,
    ];
    for (const address of addresses) {
      for (const filter of [undefined, 'to', 'from'] as const) {
        const pages = await allPages(address, 'internal-transactions', { filter });
        expect(itemsOf(pages).map(keyOf), `${address} ${filter ?? 'all'}`).toEqual(expected(internals, address, filter));
        for (const page of pages) expect(() => v.parse(internalTransactionsResponse, page.body)).not.toThrow();
      }
    }
  });
});

describe('fields', () => {
  it('shows a value-carrying call as the chain has it', async () => {
    const { highlights, contracts } = chain.manifest;
    const payment = highlights.split.payments[0];
    const item = itemsOf(await allPages(payment.to, 'internal-transactions', { filter: 'to' })).find((i) => i.transaction_hash === lower(highlights.split.hash))!;
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: highlights.split.hash });
    const block = await chain.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    expect(item).toMatchObject({
      type: 'call',
      value: payment.amount,
      success: true,
      error: null,
      block_number: Number(receipt.blockNumber),
      timestamp: new Date(Number(block.timestamp) * 1000).toISOString().replace('Z', '000Z'),
      from: { hash: contracts.splitter, is_contract: true },
      to: { hash: payment.to, is_contract: false },
      created_contract: null,
    });
    expect(item.gas_limit).toMatch(/^[1-9][0-9]*$/);
  });

  it('shows a failed internal call with success false and its error', async () => {
    const { highlights, contracts } = chain.manifest;
    const [failed] = itemsOf(await allPages(contracts.reverter, 'internal-transactions', { filter: 'to' })).filter(
      (i) => i.transaction_hash === lower(highlights.splitBestEffort.hash),
    );
    expect(failed).toMatchObject({ type: 'call', success: false, value: highlights.splitBestEffort.refused.amount, from: { hash: contracts.splitter } });
    expect(failed.error).toEqual(expect.any(String));
  });

  it('shows creations (CREATE and CREATE2) with the created contract, listed under it with filter=to', async () => {
    const { highlights, contracts } = chain.manifest;
    for (const [creation, type] of [[highlights.factoryCreate, 'create'], [highlights.factoryCreate2, 'create2']] as const) {
      const [item] = (await explorerGet(creation.child, 'internal-transactions', { filter: 'to' })).body.items;
      expect(item).toMatchObject({ type, to: null, created_contract: { hash: creation.child, is_contract: true }, from: { hash: contracts.factory, is_contract: true }, transaction_hash: lower(creation.hash) });
    }
  });

  it('shows self-destructs with the beneficiary and the value sent', async () => {
    const { highlights, contracts } = chain.manifest;
    const { ephemeral, vaultSelfdestruct } = highlights;
    const fromEphemeral = itemsOf(await allPages(ephemeral.address, 'internal-transactions', { filter: 'from' }));
    expect(fromEphemeral).toEqual([expect.objectContaining({ type: 'selfdestruct', value: ephemeral.value, to: expect.objectContaining({ hash: ephemeral.beneficiary }) })]);
    const fromVault = itemsOf(await allPages(contracts.vault, 'internal-transactions', { filter: 'from' }));
    expect(fromVault.find((i) => i.transaction_hash === lower(vaultSelfdestruct.hash))).toMatchObject({
      type: 'selfdestruct',
      value: vaultSelfdestruct.value,
      to: { hash: vaultSelfdestruct.beneficiary },
      from: { hash: contracts.vault, is_contract: true },
    });
  });
});

describe('an unknown address', () => {
  it('answers 200 with no items and a null cursor, after one Query', async () => {
    const unknown = getAddress(keccak256(toBytes('explorer internal transactions: never used')).slice(0, 42));
    for (const filter of [undefined, 'to', 'from']) {
      const response = await explorerGet(unknown, 'internal-transactions', { filter });
      expect(response.body).toEqual({ items: [], next_page_params: null });
      expectPageCost(response.calls, { batchGet: false });
    }
  });
});

describe('paging while new blocks are ingested', () => {
  it('gives the rest of the listing from the cursor, with no gap and no repeat', async () => {
    const before = itemsOf(await allPages(payee, 'internal-transactions')).map(keyOf);
    const first = await explorerGet(payee, 'internal-transactions');
    await split(3);
    await chain.send('deployer', { to: payee, value: parseEther('0.01') });
    await chain.ingest();
    const rest = itemsOf(await allPages(payee, 'internal-transactions', nextQuery({}, first.body.next_page_params!)));
    expect([...first.body.items.map(keyOf), ...rest.map(keyOf)]).toEqual(before);
    const now = itemsOf(await allPages(payee, 'internal-transactions'));
    expect(now.slice(0, 3).map((item) => item.index)).toEqual([3, 2, 1]);
    expect(now.slice(3).map(keyOf)).toEqual(before);
  });
});
