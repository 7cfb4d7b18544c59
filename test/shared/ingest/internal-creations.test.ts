/**
 * Internal transactions are stored in their sides' X5 ranges only (issue 27, lever 10: no canonical
 * `ITX#` item in the transaction's partition), and a creation's copies say whether it took effect,
 * which the reorg's creation lookup used to ask of the transaction's canonical calls. A real anvil
 * block is fetched and given a call tree: a creation under a reverted call, one beside it, and the
 * same tree in a failed transaction.
 */
import { storedEntriesOf } from '../../../shared/table/buckets';
import { createWalletClient, http, parseEther, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvil as anvilChain } from 'viem/chains';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { createChainClient } from '../../../shared/chain/client';
import { DEFAULT_RETRY_POLICY } from '../../../shared/chain/retry';
import type { TraceCall } from '../../../shared/chain/trace';
import { deriveBlock } from '../../../shared/ingest/derive';
import { BlockSource, type BlockBundle } from '../../../shared/ingest/fetch-block';
import { immutableItems } from '../../../shared/ingest/items';
import { expandInternalTransaction } from '../../../shared/table/compact';
import { addressKeys } from '../../../shared/table/keys';

const CHAIN_ID = 31337;
let anvil: Anvil;
let bundle: BlockBundle;

const address = (n: number): Address => `0x${n.toString(16).padStart(40, '0')}` as Address;
const [caller, router, child, created, sibling] = [0xa1, 0xa2, 0xa3, 0xc1, 0xc2].map(address);
const call = (index: number, traceAddress: number[], fields: Partial<TraceCall>): TraceCall => ({
  index,
  type: 'call',
  callType: 'call',
  from: router,
  to: child,
  createdContract: null,
  value: 0n,
  gas: 100_000n,
  gasUsed: 21_000n,
  input: '0x' as Hex,
  output: null,
  error: null,
  traceAddress,
  ...fields,
});
/** Top call; 1 reverts, and 2 (a creation under it) is undone with it; 3 creates beside 1 and stands. */
const tree = (top: Partial<TraceCall> = {}): TraceCall[] => [
  call(0, [], { from: caller, to: router, ...top }),
  call(1, [0], { error: 'execution reverted' }),
  call(2, [0, 0], { type: 'create', callType: null, from: child, to: null, createdContract: created }),
  call(3, [1], { type: 'create2', callType: null, to: null, createdContract: sibling }),
];

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  const account = privateKeyToAccount(ANVIL_PRIVATE_KEYS[0]);
  const wallet = createWalletClient({ chain: anvilChain, transport: http(anvil.rpcUrl), account });
  await wallet.sendTransaction({ to: address(0xb0), value: parseEther('1') });
  const source = new BlockSource(createChainClient(anvil.rpcUrl), DEFAULT_RETRY_POLICY, { warn: () => undefined });
  bundle = await source.fetch(1n);
  expect(bundle.block.transactions).toHaveLength(1);
}, 60_000);

afterAll(async () => {
  await anvil?.stop();
});

const withTrace = (calls: TraceCall[], status: 0 | 1): BlockBundle => ({
  ...bundle,
  receipts: bundle.receipts.map((receipt) => ({ ...receipt, status })),
  traces: [{ transactionHash: bundle.block.transactions[0]!.hash, calls }],
});

test('a creation says whether it took effect: not under a reverted call, nor in a failed transaction', () => {
  const tookEffect = (derived: ReturnType<typeof deriveBlock>) =>
    derived.internalTransactions.map((internal) => [internal.index, internal.createdContract, internal.tookEffect]);
  expect(tookEffect(deriveBlock(CHAIN_ID, withTrace(tree(), 1)))).toEqual([
    [1, null, undefined],
    [2, created.toLowerCase(), false],
    [3, sibling.toLowerCase(), true],
  ]);
  expect(tookEffect(deriveBlock(CHAIN_ID, withTrace(tree({ error: 'out of gas' }), 0)))).toEqual([
    [1, null, undefined],
    [2, created.toLowerCase(), false],
    [3, sibling.toLowerCase(), false],
  ]);
});

test('an internal transaction is stored once in each side’s range and nowhere else; its copies read back whole', () => {
  const derived = deriveBlock(CHAIN_ID, withTrace(tree(), 1));
  const items = immutableItems(derived).flatMap((stored) => storedEntriesOf(stored)); // buckets' entries (table/buckets.ts)
  const hash = bundle.block.transactions[0]!.hash.toLowerCase();
  // No item in the transaction's partition but the transaction itself.
  expect(items.filter((item) => item.pk.endsWith(`#TX#${hash}`)).map((item) => item.sk)).toEqual(['TX']);
  const internal = items.filter((item) => /#ITX#(to|from)$/.test(item.pk));
  const expected = derived.internalTransactions.flatMap((record) => {
    const sk = addressKeys.internalTransactionSortKey(record.blockNumber, record.transactionIndex, record.index);
    return [
      { pk: addressKeys.internalTransactions(CHAIN_ID, record.from, 'from').pk, sk },
      { pk: addressKeys.internalTransactions(CHAIN_ID, (record.to ?? record.createdContract)!, 'to').pk, sk },
    ];
  });
  expect(internal.map(({ pk, sk }) => ({ pk, sk })).sort((a, b) => (a.pk + a.sk).localeCompare(b.pk + b.sk))).toEqual(
    expected.sort((a, b) => (a.pk + a.sk).localeCompare(b.pk + b.sk)),
  );
  for (const item of internal) {
    const record = derived.internalTransactions.find(
      (entry) => item.sk === addressKeys.internalTransactionSortKey(entry.blockNumber, entry.transactionIndex, entry.index),
    );
    const { pk: _pk, sk: _sk, ...read } = expandInternalTransaction(item) as Record<string, unknown>;
    expect(read).toMatchObject({ ...record, kind: 'internalTransaction' });
  }
});
