/**
 * E4 GET /explorer/addresses/{address_hash}/transactions and E5 .../internal-transactions on one
 * ingested demo chain. Expected listings come from the chain itself (blocks, receipts and call traces
 * read with viem: chain-oracle.ts): paging 50 + 1, the `to` / `from` filters (a creation in the created
 * contract's `to`), every field, reverted transactions, creations, self-destructs, a failed internal
 * call, and paging while new blocks are ingested. Endpoint ids: see docs/access-patterns.md.
 */
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { getAddress, keccak256, parseEther, toBytes, toFunctionSelector, type Address, type Hash } from 'viem';
import { internalTransactionsResponse, transactionsResponse } from '../../../shared/explorer/schemas';
import {
  chainInternalTransactions,
  chainTransactions,
  expectedInternalTransactions,
  expectedTransactions,
  internalTransactionKey,
  type ChainInternal,
  type ChainTransaction,
} from './chain-oracle';
import { allPages, expectPageCost, explorerGet, itemsOf, lower, nextQuery, PAGE_SIZE, useExplorerChain } from './fixtures';

// sort=value|fee reads a history of at most this many transactions (the sender's 51 fit; the busy
// account's do not): set before the handlers load (they read it at their cold start).
process.env.EXPLORER_SORTED_HISTORY_BOUND = '51';

const chain = useExplorerChain('explorer-transactions');

/** 51 ether transfers from a fresh account to another, in few blocks. */
const sent: Hash[] = [];
let sender: Address;
let receiver: Address;
/** A keyless address paid 51 times in one transaction by the splitter (51 internal transactions). */
const payee: Address = getAddress(keccak256(toBytes('explorer internal transactions: payee')).slice(0, 42));
let splitHash: Hash;
let transactions: ChainTransaction[];
let internals: ChainInternal[];

const split = (count: number) =>
  chain.send('deployer', {
    to: chain.manifest.contracts.splitter,
    abi: chain.artifacts.DemoSplitter.abi,
    functionName: 'split',
    args: [Array(count).fill(payee), Array.from({ length: count }, (_, i) => BigInt(i + 1))],
    value: BigInt((count * (count + 1)) / 2),
  });

beforeAll(async () => {
  const from = chain.extraAccount(5);
  sender = from.address;
  receiver = chain.extraAccount(6).address;
  await chain.inFewBlocks(async () => {
    for (let i = 1; i <= 51; i += 1) sent.push(await chain.send(from, { to: receiver, value: BigInt(i) }));
    return sent;
  });
  splitHash = await split(51);
  await chain.ingest();
  [transactions, internals] = await Promise.all([chainTransactions(chain.publicClient), chainInternalTransactions(chain.publicClient)]);
});

/** Every address the demo touched, and those the tests added. */
const everyAddress = (): Address[] => {
  const { accounts, contracts, payees, highlights } = chain.manifest;
  return [
    ...Object.values(accounts),
    ...Object.values(contracts),
    ...Object.values(payees),
    highlights.factoryCreate.child,
    highlights.factoryCreate2.child,
    highlights.ephemeral.address,
    sender,
    receiver,
    payee,
  ];
};

/** Newest first: block number desc, then position desc. */
function expectNewestFirst(items: { block_number: number; position: number }[]): void {
  for (let i = 1; i < items.length; i += 1) {
    const [a, b] = [items[i - 1], items[i]];
    expect(a.block_number > b.block_number || (a.block_number === b.block_number && a.position > b.position)).toBe(true);
  }
}

describe('E4 transactions: paging', () => {
  it('gives 51 transactions as a page of 50 and a page of 1 whose next_page_params is null', async () => {
    const first = await explorerGet(sender, 'transactions');
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(PAGE_SIZE);
    // No filter: the `all` range, the union of the `to` and `from` ranges (one Query each, in parallel).
    expectPageCost(first.calls, { batchGet: true, queries: 2 });
    const cursor = first.body.next_page_params!;
    expect(Object.keys(cursor).sort()).toEqual(['block_number', 'index', 'items_count']);
    expect(cursor.items_count).toBe(50);
    const last = first.body.items[PAGE_SIZE - 1];
    expect(cursor).toMatchObject({ block_number: last.block_number, index: last.position });

    const second = await explorerGet(sender, 'transactions', nextQuery({}, cursor));
    expect(second.status).toBe(200);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.next_page_params).toBeNull();
    expectPageCost(second.calls, { batchGet: true, queries: 2 });

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
    expect(items.map((tx) => tx.hash)).toEqual(expectedTransactions(transactions, busy, undefined));
    expectNewestFirst(items);
    for (const page of pages) {
      expect(() => v.parse(transactionsResponse, page.body)).not.toThrow();
      expectPageCost(page.calls, { batchGet: true, queries: 2 });
    }
  });
});

describe('E4 transactions: filters', () => {
  it('from, to and both match the chain for every address', async () => {
    for (const address of everyAddress()) {
      for (const filter of [undefined, 'to', 'from'] as const) {
        const items = itemsOf(await allPages(address, 'transactions', { filter }));
        expect(
          items.map((tx) => tx.hash),
          `${address} ${filter ?? 'all'}`,
        ).toEqual(expectedTransactions(transactions, address, filter));
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

describe('E4 transactions: fields', () => {
  it('carries every field of a token transfer transaction as the chain has it', async () => {
    const busy = chain.manifest.accounts.busy;
    const hash = chain.manifest.transactionsByKind.tokenTransfer.find(
      (h) => chain.manifest.transactions.find((tx) => tx.hash === h)?.from === busy,
    )!;
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
      from: {
        hash: busy,
        is_contract: false,
        name: null,
        is_verified: false,
        ens_domain_name: null,
        metadata: null,
        implementation_name: null,
      },
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

describe('E5 internal transactions: paging', () => {
  it('gives 51 internal transactions of one transaction as a page of 50 and a page of 1', async () => {
    const first = await explorerGet(payee, 'internal-transactions');
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(PAGE_SIZE);
    expectPageCost(first.calls, { batchGet: true, queries: 2 });
    const cursor = first.body.next_page_params!;
    expect(Object.keys(cursor).sort()).toEqual(['block_number', 'index', 'items_count', 'transaction_index']);
    expect(cursor).toMatchObject({ index: 2, items_count: 50 });
    const second = await explorerGet(payee, 'internal-transactions', nextQuery({}, cursor));
    expect(second.body.items).toHaveLength(1);
    expect(second.body.next_page_params).toBeNull();
    const items = [...first.body.items, ...second.body.items];
    expect(items.map((item) => item.index)).toEqual(Array.from({ length: 51 }, (_, i) => 51 - i));
    expect(items.every((item) => item.transaction_hash === lower(splitHash) && item.to.hash === payee)).toBe(true);
    expect(items.map(internalTransactionKey)).toEqual(expectedInternalTransactions(internals, payee, undefined));
  });

  it('pages with a filter and keeps it in next_page_params', async () => {
    const pages = await allPages(payee, 'internal-transactions', { filter: 'to' });
    expect(pages.map((page) => page.body.items.length)).toEqual([50, 1]);
    expect(pages[0].body.next_page_params).toMatchObject({ filter: 'to' });
    expect((await explorerGet(payee, 'internal-transactions', { filter: 'from' })).body).toEqual({ items: [], next_page_params: null });
  });
});

describe('E5 internal transactions: filters', () => {
  it('from, to and both match the traces for every address', async () => {
    for (const address of everyAddress()) {
      for (const filter of [undefined, 'to', 'from'] as const) {
        const pages = await allPages(address, 'internal-transactions', { filter });
        expect(itemsOf(pages).map(internalTransactionKey), `${address} ${filter ?? 'all'}`).toEqual(
          expectedInternalTransactions(internals, address, filter),
        );
        for (const page of pages) expect(() => v.parse(internalTransactionsResponse, page.body)).not.toThrow();
      }
    }
  });
});

describe('E5 internal transactions: fields', () => {
  it('shows a value-carrying call as the chain has it', async () => {
    const { highlights, contracts } = chain.manifest;
    const payment = highlights.split.payments[0];
    const item = itemsOf(await allPages(payment.to, 'internal-transactions', { filter: 'to' })).find(
      (i) => i.transaction_hash === lower(highlights.split.hash),
    )!;
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
    expect(failed).toMatchObject({
      type: 'call',
      success: false,
      value: highlights.splitBestEffort.refused.amount,
      from: { hash: contracts.splitter },
    });
    expect(failed.error).toEqual(expect.any(String));
  });

  it('shows creations (CREATE and CREATE2) with the created contract, listed under it with filter=to', async () => {
    const { highlights, contracts } = chain.manifest;
    for (const [creation, type] of [
      [highlights.factoryCreate, 'create'],
      [highlights.factoryCreate2, 'create2'],
    ] as const) {
      const [item] = (await explorerGet(creation.child, 'internal-transactions', { filter: 'to' })).body.items;
      expect(item).toMatchObject({
        type,
        to: null,
        created_contract: { hash: creation.child, is_contract: true },
        from: { hash: contracts.factory, is_contract: true },
        transaction_hash: lower(creation.hash),
      });
    }
  });

  it('shows self-destructs with the beneficiary and the value sent', async () => {
    const { highlights, contracts } = chain.manifest;
    const { ephemeral, vaultSelfdestruct } = highlights;
    const fromEphemeral = itemsOf(await allPages(ephemeral.address, 'internal-transactions', { filter: 'from' }));
    expect(fromEphemeral).toEqual([
      expect.objectContaining({
        type: 'selfdestruct',
        value: ephemeral.value,
        to: expect.objectContaining({ hash: ephemeral.beneficiary }),
      }),
    ]);
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
  it('answers 200 with no items and a null cursor, after one Query per range read (two for a union)', async () => {
    const unknown = getAddress(keccak256(toBytes('explorer transactions: never used')).slice(0, 42));
    for (const endpoint of ['transactions', 'internal-transactions'] as const) {
      for (const query of [{}, { filter: 'to' }, { filter: 'from' }]) {
        const response = await explorerGet(unknown, endpoint, query);
        expect(response.status).toBe(200);
        expect(response.body).toEqual({ items: [], next_page_params: null });
        // Without a filter: E5 merges the `to` and `from` ranges, E4 reads the `all` union of the two.
        const queries = 'filter' in query ? 1 : 2;
        expectPageCost(response.calls, { batchGet: false, queries });
      }
    }
  });
});

describe('paging while new blocks are ingested', () => {
  it('E4: gives the rest of the listing from the cursor, with no gap and no repeat', async () => {
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

  it('E5: gives the rest of the listing from the cursor, with no gap and no repeat', async () => {
    const before = itemsOf(await allPages(payee, 'internal-transactions')).map(internalTransactionKey);
    const first = await explorerGet(payee, 'internal-transactions');
    await split(3);
    await chain.send('deployer', { to: payee, value: parseEther('0.01') });
    await chain.ingest();
    const rest = itemsOf(await allPages(payee, 'internal-transactions', nextQuery({}, first.body.next_page_params!)));
    expect([...first.body.items.map(internalTransactionKey), ...rest.map(internalTransactionKey)]).toEqual(before);
    const now = itemsOf(await allPages(payee, 'internal-transactions'));
    expect(now.slice(0, 3).map((item) => item.index)).toEqual([3, 2, 1]);
    expect(now.slice(3).map(internalTransactionKey)).toEqual(before);
  });
});

describe('E4 transactions: Blockscout sorting (sort, order)', () => {
  /** The chain's value and fee (gas used x effective gas price) of each transaction. */
  async function amounts(hashes: string[]): Promise<Map<string, { value: bigint; fee: bigint }>> {
    const found = new Map<string, { value: bigint; fee: bigint }>();
    for (const hash of hashes) {
      const [tx, receipt] = await Promise.all([
        chain.publicClient.getTransaction({ hash: hash as Hash }),
        chain.publicClient.getTransactionReceipt({ hash: hash as Hash }),
      ]);
      found.set(hash, { value: tx.value, fee: receipt.gasUsed * receipt.effectiveGasPrice });
    }
    return found;
  }

  it('sorts by value and by fee, asc and desc, paging with the cursor, as the chain has them', async () => {
    const hashes = expectedTransactions(transactions, sender, undefined);
    const chainAmounts = await amounts(hashes);
    const where = new Map(transactions.map((tx) => [tx.hash, tx]));
    for (const sort of ['value', 'fee'] as const) {
      for (const order of ['asc', 'desc'] as const) {
        const sign = order === 'asc' ? 1 : -1;
        const key = (hash: string): [bigint, number, number] => [
          chainAmounts.get(hash)![sort],
          where.get(hash)!.blockNumber,
          where.get(hash)!.position,
        ];
        const want = [...hashes].sort((a, b) => {
          const [x, y] = [key(a), key(b)];
          for (let i = 0; i < 3; i += 1) if (x[i] !== y[i]) return (x[i]! < y[i]! ? -1 : 1) * sign;
          return 0;
        });
        const pages = await allPages(sender, 'transactions', { sort, order });
        expect(
          pages.map((page) => page.body.items.length),
          `${sort} ${order}`,
        ).toEqual([50, 1]);
        expect(
          itemsOf(pages).map((tx) => tx.hash),
          `${sort} ${order}`,
        ).toEqual(want);
        const cursor = pages[0].body.next_page_params!;
        const last = pages[0].body.items[49];
        expect(cursor).toEqual({
          block_number: last.block_number,
          index: last.position,
          items_count: 50,
          sort,
          order,
          [sort]: sort === 'value' ? last.value : last.fee.value,
        });
        for (const page of pages) expect(() => v.parse(transactionsResponse, page.body)).not.toThrow();
      }
    }
    // The sender's transfers carry 1..51 wei: value desc starts at 51.
    expect((await explorerGet(sender, 'transactions', { sort: 'value', order: 'desc' })).body.items[0].value).toBe('51');
  });

  it('sorts by block_number both ways on the range itself: one Query a page (two for the `all` union; oldest first, one more a member past the first page)', async () => {
    const busy = chain.manifest.accounts.busy;
    // Read again: tests above ingest more blocks.
    const newest = expectedTransactions(await chainTransactions(chain.publicClient), busy, undefined);
    for (const [order, want] of [
      ['desc', newest],
      ['asc', [...newest].reverse()],
    ] as const) {
      const pages = await allPages(busy, 'transactions', { sort: 'block_number', order });
      expect(
        itemsOf(pages).map((tx) => tx.hash),
        order,
      ).toEqual(want);
      // Oldest first, a page that continues inside a block also reads, beside each member's page, the
      // member's bucket holding its start (table/buckets.ts: the busy address's ranges are bucketed).
      for (const [index, page] of pages.entries())
        expectPageCost(page.calls, { batchGet: true, queries: order === 'asc' && index > 0 ? 4 : 2 });
    }
    const pages = await allPages(receiver, 'transactions', { filter: 'to', sort: 'block_number', order: 'asc' });
    expect(itemsOf(pages).map((tx) => tx.hash)).toEqual(sent.map(lower));
    expect(pages[0].body.next_page_params).toMatchObject({ filter: 'to', sort: 'block_number', order: 'asc' });
  });

  it('answers a 422 on sort, saying why, for a history longer than the bound', async () => {
    const busy = chain.manifest.accounts.busy;
    expect(expectedTransactions(transactions, busy, undefined).length).toBeGreaterThan(51);
    const answer = await explorerGet(busy, 'transactions', { sort: 'fee', order: 'desc' });
    expect(answer.status).toBe(422);
    // Told by the newest entry's position (of the `all` union: one per member), not by reading the bound's worth.
    expect(answer.calls).toEqual({ QueryCommand: 2 });
    expect(answer.itemsRead).toBeLessThanOrEqual(2);
    expect(answer.body).toEqual({
      errors: [
        {
          title: 'Invalid value',
          source: { pointer: '/sort' },
          detail: expect.stringContaining('at most 51 transactions; this address has more: sort by block_number'),
        },
      ],
    });
    const bad = await explorerGet(busy, 'transactions', { sort: 'gas' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0]).toMatchObject({ source: { pointer: '/sort' }, detail: 'Invalid value for enum' });
  });
});
