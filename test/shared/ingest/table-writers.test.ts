/**
 * The ingest with table writers (shared/db/write-workers.ts: its item writes sent from worker threads, as
 * the ingest function does past one vCPU) writes the table a run without them writes, item for item:
 * Base-profile blocks (swaps, transfers, NFT mints, ERC-1155 ids, deposits) followed one at a time and
 * in batches, against the embedded DynamoDB.
 */
import { afterAll, expect, it } from 'vitest';
import { observeWriterWrites, startTableWriters, stopTableWriters } from '../../../shared/db/write-workers';
import { ChainIngest, registerChain } from '../../../shared/ingest/ingest';
import { smallBaseChain } from '../../support/base-chain';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';

const table = useTestTable('table-writers');
const quiet = { info: () => undefined, warn: () => undefined };
const { spec, chain } = smallBaseChain(6, 50);

afterAll(async () => {
  await stopTableWriters();
});

/** Blocks 1-3 one at a time, then the rest in batches of 3, into table `name`. */
async function ingestInto(name: string): Promise<Record<string, unknown>[]> {
  return inTable(name, async () => {
    await registerChain(spec.chainId, 1);
    const ingest = new ChainIngest({ chainId: spec.chainId, client: chain.client(), maxBatchBlocks: 1, prefetch: 1, log: quiet });
    for (let number = 1; number <= 3; number += 1) expect((await ingest.ingestRange({ from: number, to: number })).advanced).toBe(1);
    const batched = new ChainIngest({ chainId: spec.chainId, client: chain.client(), maxBatchBlocks: 3, prefetch: 3, log: quiet });
    expect((await batched.ingestRange({ from: 4, to: chain.head })).advanced).toBe(chain.head - 3);
    return tableSnapshot(name);
  });
}

it('writes, with two table writers, the table a run without them writes, item for item', async () => {
  const without = await ingestInto(`${table.name}-without`);
  let handed = 0;
  observeWriterWrites((_table, chunks) => {
    handed += chunks.length;
  });
  startTableWriters(2);
  const withWriters = await ingestInto(`${table.name}-with`);
  await stopTableWriters();
  expect(handed, 'chunks the writers sent').toBeGreaterThan(0);
  expect(without.length, 'Base-profile blocks of 50 transactions write over a thousand items').toBeGreaterThan(1_000);
  expect(withWriters).toEqual(without);
}, 300_000);
