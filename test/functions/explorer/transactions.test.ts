/**
 * E4 GET /explorer/addresses/{address_hash}/transactions on an ingested demo chain: every field
 * against what the chain itself says (viem), paging 50 + 1, the `to` / `from` filters (a creation in
 * the created contract's `to`), reverted transactions, and paging while new blocks are ingested.
 */
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { getAddress, keccak256, parseEther, toBytes, toFunctionSelector, type Address, type Hash } from 'viem';
import { transactionsResponse } from '../../../shared/explorer/schemas';
import { allPages, expectPageCost, explorerGet, itemsOf, lower, nextQuery, PAGE_SIZE, useExplorerChain } from './fixtures';

const chain = useExplorerChain('explorer-transactions');

/** 51 ether transfers from a fresh account to another, in few blocks. */
const sent: Hash[] = [];
let sender: Address;
let receiver: Address;

beforeAll(async () => {
  const from = chain.extraAccount(5);
  sender = from.address;
  receiver = chain.extraAccount(6).address;
  await chain.inFewBlocks(async () => {
    for (let i = 1; i <= 51; i += 1) sent.push(await chain.send(from, { to: receiver, value: BigInt(i) }));
    return sent;
  });
  await chain.ingest();
});

/** Newest first: block number desc, then position desc. */
function expectNewestFirst(items: { block_number: number; position: number }[]): void {
  for (let i = 1; i < items.length; i += 1) {
    const [a, b] = [items[i - 1], items[i]];
    expect(a.block_number > b.block_number || (a.block_number === b.block_number && a.position > b.position)).toBe(true);
  }
}

/** The demo transactions touching an address in a direction, as the demo recorded them. */
function demoTransactions(address: Address, direction: 'all' | 'to' | 'from'): string[] {
  return chain.manifest.transactions
    .filter((tx) => {
      const isFrom = tx.from === address;
      const isTo = tx.to === address || tx.createdContract === address;
      return direction === 'from' ? isFrom : direction === 'to' ? isTo : isFrom || isTo;
    })
    .map((tx) => lower(tx.hash));
}

describe('paging', () => {
  it('gives 51 transactions as a page of 50 and a page of 1 whose next_page_params is null', async () => {
    const first = await explorerGet(sender, 'transactions');
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(PAGE_SIZE);
    expectPageCost(first.calls, { batchGet: true });
    const cursor = first.body.next_page_params!;
    expect(Object.keys(cursor).sort()).toEqual(['block_number', 'index', 'items_count']);
    expect(cursor.items_count).toBe(50);
    const last = first.body.items[PAGE_SIZE - 1];
    expect(cursor).toMatchObject({ block_number: last.block_number, index: last.position });

    const second = await explorerGet(sender, 'transactions', nextQuery({}, cursor));
    expect(second.status).toBe(200);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.next_page_params).toBeNull();
    expectPageCost(second.calls, { batchGet: true });

    const items = [...first.body.items, ...second.body.items];
    expectNewestFirst(items);
    expect(items.map((tx) => tx.hash).sort()).toEqual(sent.map(lower).sort());
    // Oldest last: the first transfer sent carried 1 wei.
    expect(items.at(-1).value).toBe('1');
  });

  it('keeps the filter in next_page_params and applies it on the next page', async () => {
    const pages = await allPages(receiver, 'transactions', { filter: 'to' });
    expect(pages.map((page) => page.body.items.length)).toEqual([50, 1]);
    expect(pages[0].body.next_page_params).toMatchObject({ filter: 'to', items_count: 50 });
    expect(itemsOf(pages).every((tx) => tx.to.hash === receiver)).toBe(true);
    expect((await explorerGet(receiver, 'transactions', { filter: 'from' })).body).toEqual({ items: [], next_page_params: null });
  });

  it('pages through the busy address: every transaction once, newest first', async () => {
    const busy = chain.manifest.accounts.busy;
    const pages = await allPages(busy, 'transactions');
    const items = itemsOf(pages);
    expect(pages[0].body.items).toHaveLength(50);
    expect(items).toHaveLength(chain.manifest.expected.transactionCounts[busy]);
    expect(new Set(items.map((tx) => tx.hash)).size).toBe(items.length);
    expect(items.map((tx) => tx.hash).sort()).toEqual(demoTransactions(busy, 'all').sort());
    expectNewestFirst(items);
    for (const page of pages) {
      expect(() => v.parse(transactionsResponse, page.body)).not.toThrow();
      expectPageCost(page.calls, { batchGet: true });
    }
  });
});

describe('filters', () => {
  it('from, to and both match the chain for every demo account and contract', async () => {
    const addresses = [...Object.values(chain.manifest.accounts), ...Object.values(chain.manifest.contracts), ...Object.values(chain.manifest.payees)];
    for (const address of addresses) {
      for (const direction of ['all', 'to', 'from'] as const) {
        const items = itemsOf(await allPages(address, 'transactions', direction === 'all' ? {} : { filter: direction }));
        expect(items.map((tx) => tx.hash).sort(), `${address} ${direction}`).toEqual(demoTransactions(address, direction).sort());
      }
    }
  });

  it('lists a contract creation under the created contract with filter=to, and under the creator with filter=from', async () => {
    const token = chain.manifest.contracts.token;
    const deployHash = lower(chain.manifest.transactionsByKind.contractCreation[0]);
    const [creation] = itemsOf(await allPages(token, 'transactions', { filter: 'to' })).filter((tx) => tx.hash === deployHash);
    expect(creation).toMatchObject({
      to: null,
      created_contract: { hash: token, is_contract: true, name: 'Demo Token' },
      from: { hash: chain.manifest.accounts.deployer, is_contract: false },
      method: null,
      decoded_input: null,
      status: 'ok',
      result: 'success',
    });
    expect(creation.transaction_types).toEqual(expect.arrayContaining(['contract_creation', 'token_creation']));
    expect(creation.raw_input.length).toBeGreaterThan(1000);
    const fromDeployer = itemsOf(await allPages(chain.manifest.accounts.deployer, 'transactions', { filter: 'from' }));
    expect(fromDeployer.map((tx) => tx.hash)).toContain(deployHash);
    expect((await explorerGet(token, 'transactions', { filter: 'from' })).body.items).toEqual([]);
  });
});

describe('fields', () => {
  it('carries every field of a token transfer transaction as the chain has it', async () => {
    const busy = chain.manifest.accounts.busy;
    const hash = chain.manifest.transactionsByKind.tokenTransfer.find((h) => chain.manifest.transactions.find((tx) => tx.hash === h)?.from === busy)!;
    const item = itemsOf(await allPages(busy, 'transactions')).find((tx) => tx.hash === lower(hash))!;
    const [tx, receipt, head] = await Promise.all([
      chain.publicClient.getTransaction({ hash }),
      chain.publicClient.getTransactionReceipt({ hash }),
      chain.publicClient.getBlockNumber(),
    ]);
    const block = await chain.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    expect(item).toMatchObject({
      hash: lower(hash),
      block_number: Number(receipt.blockNumber),
      position: receipt.transactionIndex,
      nonce: tx.nonce,
      type: 2,
      gas_limit: Number(tx.gas),
      gas_used: receipt.gasUsed.toString(),
      gas_price: receipt.effectiveGasPrice.toString(),
      max_fee_per_gas: tx.maxFeePerGas!.toString(),
      max_priority_fee_per_gas: tx.maxPriorityFeePerGas!.toString(),
      base_fee_per_gas: block.baseFeePerGas!.toString(),
      fee: { type: 'actual', value: (receipt.gasUsed * receipt.effectiveGasPrice).toString() },
      transaction_burnt_fee: (receipt.gasUsed * block.baseFeePerGas!).toString(),
      priority_fee: (receipt.gasUsed * (receipt.effectiveGasPrice - block.baseFeePerGas!)).toString(),
      value: '0',
      status: 'ok',
      result: 'success',
      revert_reason: null,
      method: 'transfer',
      confirmations: Number(head - receipt.blockNumber) + 1,
      timestamp: new Date(Number(block.timestamp) * 1000).toISOString().replace('Z', '000Z'),
      raw_input: tx.input,
      from: { hash: busy, is_contract: false, name: null, is_verified: false, ens_domain_name: null, metadata: null, implementation_name: null },
      to: { hash: chain.manifest.contracts.token, is_contract: true, name: 'Demo Token' },
      created_contract: null,
      token_transfers: null,
      token_transfers_overflow: null,
      has_error_in_internal_transactions: false,
      actions: [],
      exchange_rate: null,
      confirmation_duration: [],
      transaction_tag: null,
    });
    expect(item.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(item.transaction_types).toEqual(['token_transfer', 'contract_call']);
    expect(item.decoded_input).toEqual({
      method_call: 'transfer(address to, uint256 value)',
      method_id: 'a9059cbb',
      parameters: [
        { name: 'to', type: 'address', value: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) },
        { name: 'value', type: 'uint256', value: expect.stringMatching(/^[1-9][0-9]*$/) },
      ],
    });
    for (const address of [item.from, item.to]) {
      expect(address).toMatchObject({ private_tags: [], watchlist_names: [], public_tags: [] });
      expect(address.hash).toBe(getAddress(address.hash));
    }
  });

  it('shows a plain ether transfer as a coin transfer without method', async () => {
    const [item] = (await explorerGet(receiver, 'transactions')).body.items;
    expect(item).toMatchObject({ method: null, decoded_input: null, raw_input: '0x', transaction_types: ['coin_transfer'] });
  });

  it('shows reverted transactions with status error and their revert reason', async () => {
    const items = itemsOf(await allPages(chain.manifest.accounts.busy, 'transactions'));
    const { alwaysReverts, customErrorRevert } = chain.manifest.highlights;
    expect(items.find((tx) => tx.hash === lower(alwaysReverts.hash))).toMatchObject({
      status: 'error',
      result: 'execution reverted',
      revert_reason: alwaysReverts.reason,
      to: { hash: chain.manifest.contracts.reverter, is_contract: true },
    });
    const custom = items.find((tx) => tx.hash === lower(customErrorRevert.hash));
    expect(custom).toMatchObject({ status: 'error', method: 'transfer', transaction_types: ['contract_call'] });
    // The custom error's raw revert data: its selector, then the arguments.
    expect(custom.revert_reason.startsWith(toFunctionSelector('ERC20InsufficientBalance(address,uint256,uint256)'))).toBe(true);
  });

  it('lists the self-destruct of the vault under the vault', async () => {
    const { vaultSelfdestruct } = chain.manifest.highlights;
    const items = itemsOf(await allPages(chain.manifest.contracts.vault, 'transactions', { filter: 'to' }));
    expect(items.find((tx) => tx.hash === lower(vaultSelfdestruct.hash))).toMatchObject({
      status: 'ok',
      to: { hash: chain.manifest.contracts.vault, is_contract: true },
      transaction_types: ['contract_call'],
    });
  });
});

describe('an unknown address', () => {
  it('answers 200 with no items and a null cursor, after one Query', async () => {
    const unknown = getAddress(keccak256(toBytes('explorer transactions: never used')).slice(0, 42));
    for (const query of [{}, { filter: 'to' }, { filter: 'from' }]) {
      const response = await explorerGet(unknown, 'transactions', query);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ items: [], next_page_params: null });
      expectPageCost(response.calls, { batchGet: false });
    }
  });
});

describe('paging while new blocks are ingested', () => {
  it('gives the rest of the listing from the cursor, with no gap and no repeat', async () => {
    const busy = chain.manifest.accounts.busy;
    const before = itemsOf(await allPages(busy, 'transactions'));
    const first = await explorerGet(busy, 'transactions');
    const added = [
      await chain.send('busy', { to: chain.manifest.accounts.alice, value: parseEther('0.001') }),
      await chain.send('carol', { to: busy, value: parseEther('0.002') }),
    ];
    await chain.ingest();
    const rest = itemsOf(await allPages(busy, 'transactions', nextQuery({}, first.body.next_page_params!)));
    expect([...first.body.items, ...rest].map((tx) => tx.hash)).toEqual(before.map((tx) => tx.hash));

    const now = itemsOf(await allPages(busy, 'transactions'));
    expect(now.slice(0, 2).map((tx) => tx.hash)).toEqual([...added].reverse().map(lower));
    expect(now.slice(2).map((tx) => tx.hash)).toEqual(before.map((tx) => tx.hash));
    // The older items gained confirmations as the head moved.
    expect(now[2].confirmations).toBe(before[0].confirmations + 2);
  });
});
