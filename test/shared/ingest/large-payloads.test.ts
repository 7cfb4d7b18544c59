/**
 * What a transaction carries is bounded on its way into the table: calldata, log data and revert
 * data of 200 KB each (a block may hold megabytes of calldata; a DynamoDB item at most 400 KB) are
 * ingested, cut to whole bytes under MAX_STORED_CHARS with the cut recorded, and every item stays
 * under DynamoDB's limit; the pages that show them still answer.
 */
import { createHash } from 'node:crypto';
import { itemSize } from '../../../scripts/bench/lib/write-families';
import { bytesToHex, numberToHex, type Hash, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { requestJson } from '../../../scripts/lib/dispatch';
import { createChainClient } from '../../../shared/chain/client';
import { ingestRange, registerChain } from '../../../shared/ingest/ingest';
import { getItem } from '../../../shared/ingest/table-io';
import { expandLog, expandTransaction } from '../../../shared/table/compact';
import { transactionKeys } from '../../../shared/table/keys';
import { MAX_STORED_CHARS } from '../../../shared/table/records';
import { rawReceipt, rawRpc } from '../../support/raw-rpc';
import { tableSnapshot, useTestTable } from '../../support/table';

const table = useTestTable('large-payloads');
const CHAIN_ID = 31337;
const [sender, receiver] = ANVIL_PRIVATE_KEYS.map((key) => privateKeyToAccount(key));
const SIZE = 200 * 1024;
/** Runtime code: LOG0 of the whole calldata, then STOP. */
const EMITTER_RUNTIME = '366000600037366000a000';
/** Runtime code: REVERT with the whole calldata as revert data. */
const REVERTER_RUNTIME = '366000600037366000fd';
/** Init code returning the `runtime` that follows it (12 bytes of CODECOPY / RETURN). */
const deployCode = (runtime: string): Hex => {
  const length = (runtime.length / 2).toString(16).padStart(2, '0');
  return `0x60${length}600c600039${`60${length}`}6000f3${runtime}`;
};

let anvil: Anvil;
let head: number;
const hashes: Record<'calldata' | 'log' | 'revert', Hash> = {} as never;
/**
 * 200 KB of non-zero bytes that do not compress (SHA-256 of a counter, zero bytes made 1): the table layer
 * deflates large packed fields (shared/table/pack.ts), and a repeating pattern stored as 5 KB.
 */
const payload = bytesToHex(
  Uint8Array.from(
    Buffer.concat(Array.from({ length: SIZE / 32 }, (_, block) => createHash('sha256').update(String(block)).digest())),
    (byte) => byte || 1,
  ),
);

const rpc = (method: string, params: unknown[]) => rawRpc(anvil.rpcUrl, method, params);

async function send(request: Record<string, unknown>): Promise<any> {
  const hash = (await rpc('eth_sendTransaction', [{ from: sender.address, gas: numberToHex(25_000_000), ...request }])) as Hash;
  return rawReceipt(anvil.rpcUrl, hash);
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID, args: ['--gas-limit', '60000000'] });
  const emitter = (await send({ data: deployCode(EMITTER_RUNTIME) })).contractAddress;
  const reverter = (await send({ data: deployCode(REVERTER_RUNTIME) })).contractAddress;
  hashes.calldata = (await send({ to: receiver.address, data: payload })).transactionHash;
  hashes.log = (await send({ to: emitter, data: payload })).transactionHash;
  const reverted = await send({ to: reverter, data: payload });
  expect(reverted.status).toBe('0x0');
  hashes.revert = reverted.transactionHash;
  head = Number(await rpc('eth_blockNumber', []));
  await registerChain(CHAIN_ID, 0);
  await ingestRange({ chainId: CHAIN_ID, client: createChainClient(anvil.rpcUrl), from: 0, to: head });
}, 180_000);

afterAll(async () => {
  await anvil?.stop();
});

test('every item is under DynamoDB 400 KB limit', async () => {
  const items = await tableSnapshot(table.name);
  // DynamoDB's own measure (names and values); the calldata is packed as bytes (shared/table/pack.ts).
  const largest = Math.max(...items.map((item) => itemSize(item)));
  expect(largest).toBeLessThan(400 * 1024);
  expect(largest).toBeGreaterThan((MAX_STORED_CHARS.input - 2) / 2);
});

test('calldata of 200 KB is kept to its first 96 KB, its real size and selector kept, the cut recorded', async () => {
  const stored = expandTransaction((await getItem(transactionKeys.transaction(CHAIN_ID, hashes.calldata)))!);
  expect(stored.input).toBe(payload.slice(0, MAX_STORED_CHARS.input));
  expect(stored.inputSize).toBe(SIZE);
  expect(stored.methodSelector).toBe(payload.slice(0, 10));
  expect(stored.truncated).toEqual(['input']);
  const page = await requestJson('base', 'GET', `/explorer/addresses/${receiver.address}/transactions`);
  expect(page.status, JSON.stringify(page.body).slice(0, 300)).toBe(200);
  const item = (page.body as { items: { hash: string; raw_input: string }[] }).items.find((entry) => entry.hash === hashes.calldata);
  expect(item?.raw_input).toBe(stored.input);
});

test('log data of 200 KB is cut the same way, the log still listed', async () => {
  const receipt = await rpc('eth_getTransactionReceipt', [hashes.log]);
  expect(receipt.logs[0].data).toBe(payload);
  const stored = expandLog((await getItem(transactionKeys.transactionLog(CHAIN_ID, hashes.log, Number(receipt.logs[0].logIndex))))!);
  expect(stored.data).toBe(payload.slice(0, MAX_STORED_CHARS.data));
  expect(stored.truncated).toEqual(['data']);
  const events = await requestJson('base', 'GET', `/insights/v1/events/${receipt.logs[0].address}?chain=${CHAIN_ID}`);
  expect(events.status, JSON.stringify(events.body).slice(0, 300)).toBe(200);
  expect((events.body as { data: unknown[] }).data).toHaveLength(1);
});

test('revert data of 200 KB (no Error(string)) is kept as its first 4,096 characters of hex', async () => {
  const stored = expandTransaction((await getItem(transactionKeys.transaction(CHAIN_ID, hashes.revert)))!);
  expect(stored.status).toBe(0);
  expect(stored.revertReason).toBe(payload.slice(0, MAX_STORED_CHARS.revertReason));
  expect(stored.truncated).toEqual(expect.arrayContaining(['input', 'revertReason']));
});
