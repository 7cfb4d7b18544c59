/**
 * Withdrawals (EIP-4895). Anvil produces none, so a real anvil block is fetched and given two
 * withdrawals before derivation: the records and the receiver's range entries must follow.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { createChainClient } from '../../../shared/chain/client';
import { DEFAULT_RETRY_POLICY } from '../../../shared/chain/retry';
import { parseBlock } from '../../../shared/chain/rpc-block';
import { addressKeys } from '../../../shared/table/keys';
import { deriveBlock } from '../../../shared/ingest/derive';
import { BlockSource } from '../../../shared/ingest/fetch-block';
import { immutableItems } from '../../../shared/ingest/items';

let anvil: Anvil;
beforeAll(async () => {
  anvil = await startAnvil({ chainId: 31337 });
});
afterAll(async () => {
  await anvil?.stop();
});

test('each withdrawal is a record in wei and Gwei, in its receiver range ordered by withdrawal index', async () => {
  const source = new BlockSource(createChainClient(anvil.rpcUrl), DEFAULT_RETRY_POLICY, { warn: () => undefined });
  const bundle = await source.fetch(0n);
  const receiver = '0x00000000000000000000000000000000000000Ab';
  // The node's JSON for withdrawals, read as the block source reads every answer.
  bundle.block.withdrawals = parseBlock({
    number: '0x0',
    hash: bundle.block.hash,
    parentHash: bundle.block.parentHash,
    timestamp: '0x0',
    transactions: [],
    withdrawals: [
      { index: '0x10', validatorIndex: '0x7', address: receiver, amount: '0x3b9aca00' },
      { index: '0x11', validatorIndex: '0x8', address: receiver, amount: '0x1' },
    ],
  })!.withdrawals;
  const derived = deriveBlock(31337, bundle);
  expect(derived.block.withdrawalCount).toBe(2);
  expect(derived.withdrawals.map((w) => [w.index, w.validatorIndex, w.address, w.amountGwei, w.amount])).toEqual([
    [16, 7, receiver.toLowerCase(), '1000000000', '1000000000000000000'],
    [17, 8, receiver.toLowerCase(), '1', '1000000000'],
  ]);
  const range = addressKeys.withdrawals(31337, receiver).pk;
  const entries = immutableItems(derived).filter((item) => item.pk === range);
  expect(entries.map((item) => item.sk)).toEqual([addressKeys.withdrawalSortKey(16), addressKeys.withdrawalSortKey(17)]);
});
