/**
 * `mayWrite` (shared/ingest/ingest.ts, the follow loop's lease check): asked before every batch and again
 * right before it writes, after its blocks are read; once it says no, the ingest writes nothing more and
 * the cursor stays on the last complete block; a later run carries on from there.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { createChainClient } from '../../../shared/chain/client';
import { ChainIngest } from '../../../shared/ingest/ingest';
import { readCursor } from '../../../shared/ingest/manifest';
import { useTestTable } from '../../support/table';
import { expectImmutableItems, publicClient, readChainTruth } from './support/truth';

useTestTable('may-write');
const CHAIN_ID = 31337;
const log = { info: () => undefined, warn: () => undefined };
let anvil: Anvil;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  await publicClient(anvil.rpcUrl).request({ method: 'anvil_mine' as never, params: ['0x6'] as never });
}, 60_000);

afterAll(async () => {
  await anvil?.stop();
});

test('a batch starts only while mayWrite says yes, asked after its blocks are read; once no, nothing more is written', async () => {
  const ingest = new ChainIngest({ chainId: CHAIN_ID, client: createChainClient(anvil.rpcUrl), log, traceMethod: 'parity' });
  // Block 0 alone (a chain's first block), then the lease "expires" while the next batch's blocks are read.
  // Asked three times a batch: before it, after its first block is read, right before its write. Yes to
  // the first batch's three and the second's first two; no right before the second batch writes.
  let asked = 0;
  const first = await ingest.ingestNext(100, {
    mayWrite: () => {
      asked += 1;
      return asked <= 5;
    },
  });
  expect(asked).toBe(6);
  expect(first.advanced).toBe(1);
  expect((await readCursor(CHAIN_ID))?.blockNumber).toBe(0);

  // Never allowed: nothing at all.
  const none = await ingest.ingestNext(100, { mayWrite: () => false });
  expect(none.advanced).toBe(0);
  expect((await readCursor(CHAIN_ID))?.blockNumber).toBe(0);

  // A later run carries on from the cursor: every block's items once.
  const rest = await ingest.ingestNext(100, { mayWrite: () => true });
  expect(rest.advanced).toBe(6);
  await expectImmutableItems(process.env.TABLE_NAME!, await readChainTruth(anvil.rpcUrl, 0, 6));
});
