/**
 * A block of more than Base's peak size stops nothing (issue 34, item 1): the Base-like profile's
 * generator (the bench's synthetic node: swaps, transfers, deposits, call traces, Multicall3) makes one
 * block of 10,000 transactions, about 380,000 entries put with their index copies, fewer items (block
 * buckets; the issue counted 500,000 items at the 55 items a transaction of then); the ingest writes it in 10 slices of 1,000
 * transactions (ingest.ts writeSlices: about 80 s alone on 2 cores, peak heap 440-490 MB against 702 built whole). Before the fix, `items.push(...blockItems)` overflowed the call stack past about 125,000
 * items (about 2,300 transactions of this profile), every attempt, and the chain's ingest stopped at
 * that block for good.
 */
import { expect, test, vi } from 'vitest';

// The ingest as deployed: without the compaction proof the other tests run (COMPACTION_CHECK, about a
// fifth of this test's time; compact.test.ts and every other ingest test keep it).
vi.hoisted(() => {
  process.env.COMPACTION_CHECK = '0';
});
import { BaseChain } from '../../../scripts/bench/dataset/base-profile';
import { baseProfileSpec } from '../../../scripts/bench/dataset/spec';
import { ChainIngest, registerChain } from '../../../shared/ingest/ingest';
import { getItem, getItems } from '../../../shared/ingest/table-io';
import { expandTransaction } from '../../../shared/table/compact';
import { storedEntriesOf } from '../../../shared/table/buckets';
import { blockKeys, keyId, transactionKeys, type TableItem } from '../../../shared/table/keys';
import type { BlockRecord } from '../../../shared/table/records';
import { useTestTable } from '../../support/table';
import { observingTable } from '../../support/table-calls';

useTestTable('large-block');

const TRANSACTIONS = 10_000;

test(`a block of ${TRANSACTIONS.toLocaleString('en')} Base-like transactions is ingested, in slices`, async () => {
  const spec = baseProfileSpec({ blocks: 1, transactionsPerBlock: TRANSACTIONS });
  const chain = new BaseChain(spec);
  const [block] = chain.blocks.filter((candidate) => candidate.txs.length > 0);
  expect(block!.txs.length).toBe(TRANSACTIONS);
  await registerChain(spec.chainId, 1);
  // Entries put, as they go out (the block's records, their index copies, the state; a block bucket's
  // entries each, table/buckets.ts).
  let puts = 0;
  const ingest = new ChainIngest({
    chainId: spec.chainId,
    client: chain.client(),
    retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 10 },
    log: { info: () => undefined, warn: () => undefined },
  });
  const result = await observingTable(
    (command, input) => {
      if (command === 'BatchWriteItemCommand')
        for (const requests of Object.values(input.RequestItems ?? {}) as { PutRequest?: { Item: Record<string, unknown> } }[][])
          for (const request of requests) if (request.PutRequest) puts += storedEntriesOf(request.PutRequest.Item).length;
    },
    () => ingest.ingestRange({ from: 1, to: chain.head }),
  );
  expect(result.advanced).toBe(chain.head);
  expect(puts).toBeGreaterThan(350_000);
  expect(result.cursor?.blockNumber).toBe(block!.number);

  // The chain's truth: the block item and every transaction, in its place, with its sender and receiver.
  const stored = await getItem<BlockRecord & TableItem>(blockKeys.block(spec.chainId, block!.number));
  expect(stored?.hash).toBe(block!.hash);
  const keys = block!.txs.map((tx) => transactionKeys.transaction(spec.chainId, tx.hash));
  const found = await getItems<TableItem>(keys);
  expect(found.size).toBe(TRANSACTIONS);
  block!.txs.forEach((tx, index) => {
    const record = expandTransaction(found.get(keyId(keys[index]!))!);
    expect({ hash: record.hash, index: record.transactionIndex, from: record.from, to: record.to }).toEqual({
      hash: tx.hash,
      index,
      from: tx.from,
      to: tx.to,
    });
  });
}, 600_000);
