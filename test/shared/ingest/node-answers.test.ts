/**
 * What real nodes and chains answer that anvil does not, put in anvil's answers by the JSON-RPC fault
 * proxy's transforms (test/support/rpc-fault-proxy.ts), then ingested and read back as a client does:
 *  - block headers without mixHash, sha3Uncles, difficulty, gasLimit, nonce or logsBloom, and
 *    receipts without effectiveGasPrice or logsBloom (some clients and chains omit them);
 *  - pre-Byzantium receipts (a state `root`, no `status`): the status comes from the trace, and is
 *    null (never "failed") where the node has no tracer;
 *  - OP-stack receipts with the L1 data fee fields (Bedrock and Ecotone forms);
 *  - a transaction type the ingest does not know, with fields of its own;
 *  - a blob transaction whose blob gas and prices are beyond 2^53 and 2^64.
 */
import { numberToHex, parseEther, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { requestJson } from '../../../scripts/lib/dispatch';
import { createChainClient } from '../../../shared/chain/client';
import { getItem } from '../../../shared/ingest/table-io';
import { ingestRange, registerChain } from '../../../shared/ingest/ingest';
import type { IngestListener } from '../../../shared/ingest/listeners';
import { blockKeys, transactionKeys } from '../../../shared/table/keys';
import { expandBlock, expandTransaction } from '../../../shared/table/compact';
import { startRpcProxy, type RpcProxy } from '../../support/rpc-fault-proxy';
import { rawReceipt, rawRpc } from '../../support/raw-rpc';
import { useTestTable } from '../../support/table';

const CHAIN_ID = 31337;
const [sender, receiver] = ANVIL_PRIVATE_KEYS.map((key) => privateKeyToAccount(key));
/** Init code that reverts (PUSH1 0 PUSH1 0 REVERT): a creation that fails. */
const REVERTING_INIT_CODE = '0x60006000fd';

type Json = Record<string, any>;

const rpc = rawRpc;

async function send(url: string, request: Json): Promise<Hash> {
  const hash = (await rpc(url, 'eth_sendTransaction', [{ from: sender.address, ...request }])) as Hash;
  await rawReceipt(url, hash);
  return hash;
}

/** Native transfers the listeners were told of, by transaction hash. */
const heardTransfers = new Set<string>();
const listener: IngestListener = {
  blocksIngested: (events) => {
    for (const event of events) for (const transfer of event.nativeTransfers) heardTransfers.add(transfer.transactionHash);
  },
};

async function ingestThrough(proxy: RpcProxy, anvil: Anvil, traceMethod?: 'none'): Promise<number> {
  const head = Number(await rpc(anvil.rpcUrl, 'eth_blockNumber', []));
  await registerChain(CHAIN_ID, 0);
  heardTransfers.clear();
  await ingestRange({
    chainId: CHAIN_ID,
    client: createChainClient(proxy.url),
    from: 0,
    to: head,
    listeners: [listener],
    ...(traceMethod ? { traceMethod } : {}),
  });
  return head;
}

async function explorerTransaction(address: string, hash: string): Promise<Json> {
  const response = await requestJson('base', 'GET', `/explorer/addresses/${address}/transactions`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const item = (response.body as { items: Json[] }).items.find((entry) => entry.hash === hash);
  expect(item, `${hash} in the explorer list`).toBeDefined();
  return item as Json;
}

async function insightsTransaction(hash: string): Promise<Json> {
  const response = await requestJson('base', 'GET', `/insights/v1/resolve/${hash}?chain=${CHAIN_ID}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return (response.body as { data: { transactions: Json[] } }).data.transactions[0] as Json;
}

/** Every receipt of a receipts answer (eth_getBlockReceipts: a list; eth_getTransactionReceipt: one). */
const eachReceipt = (result: unknown, change: (receipt: Json) => void): unknown => {
  for (const receipt of Array.isArray(result) ? result : [result]) if (receipt) change(receipt as Json);
  return result;
};
const RECEIPT_METHODS = ['eth_getBlockReceipts', 'eth_getTransactionReceipt'];

describe('headers and receipts without the optional fields', () => {
  useTestTable('node-answers');
  let anvil: Anvil;
  let proxy: RpcProxy;
  let hash: Hash;
  let head: number;
  const stripped = ['mixHash', 'sha3Uncles', 'difficulty', 'gasLimit', 'nonce', 'logsBloom'];

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: CHAIN_ID });
    hash = await send(anvil.rpcUrl, { to: receiver.address, value: numberToHex(parseEther('1')) });
    proxy = await startRpcProxy(anvil.rpcUrl);
    proxy.inject(
      {
        kind: 'transform',
        method: 'eth_getBlockByNumber',
        count: Number.POSITIVE_INFINITY,
        transform: (block) => {
          for (const field of stripped) delete (block as Json)[field];
          return block;
        },
      },
      {
        kind: 'transform',
        method: RECEIPT_METHODS,
        count: Number.POSITIVE_INFINITY,
        transform: (result) =>
          eachReceipt(result, (receipt) => {
            delete receipt.effectiveGasPrice;
            delete receipt.logsBloom;
          }),
      },
    );
    head = await ingestThrough(proxy, anvil);
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await anvil?.stop();
  });

  test('every block is indexed, the missing header fields stored null and served as Insight serves absent values', async () => {
    const stored = expandBlock((await getItem(blockKeys.block(CHAIN_ID, head)))!);
    expect(stored).toMatchObject({ mixHash: null, sha3Uncles: null, difficulty: null, gasLimit: null, nonce: null, logsBloom: null });
    const truth = await rpc(anvil.rpcUrl, 'eth_getBlockByNumber', [numberToHex(head), false]);
    expect(stored.hash).toBe(truth.hash);
    expect(stored.gasUsed).toBe(Number(truth.gasUsed));
    const response = await requestJson('base', 'GET', `/insights/v1/blocks?chain=${CHAIN_ID}&filter_block_number=${head}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const [row] = (response.body as { data: Json[] }).data;
    expect(row).toMatchObject({
      block_hash: truth.hash,
      mix_hash: '',
      sha3_uncles: '',
      difficulty: '0',
      gas_limit: 0,
      nonce: '',
      logs_bloom: '',
    });
  });

  test('a receipt without effectiveGasPrice is priced at the transaction gas price; without a bloom it has none', async () => {
    const tx = await rpc(anvil.rpcUrl, 'eth_getTransactionByHash', [hash]);
    const receipt = await rpc(anvil.rpcUrl, 'eth_getTransactionReceipt', [hash]);
    const item = await explorerTransaction(receiver.address, hash);
    expect(item.fee.value).toBe((BigInt(receipt.gasUsed) * BigInt(tx.gasPrice)).toString());
    expect((await insightsTransaction(hash)).logs_bloom).toBe('');
    const stored = expandTransaction((await getItem(transactionKeys.transaction(CHAIN_ID, hash)))!);
    expect(stored.logsBloom).toBeNull();
  });
});

describe('pre-Byzantium receipts (a state root, no status)', () => {
  let anvil: Anvil;
  let proxy: RpcProxy;
  let succeeded: Hash;
  let failed: Hash;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: CHAIN_ID });
    succeeded = await send(anvil.rpcUrl, { to: receiver.address, value: numberToHex(parseEther('1')) });
    failed = await send(anvil.rpcUrl, { data: REVERTING_INIT_CODE, gas: numberToHex(100_000) });
    expect((await rpc(anvil.rpcUrl, 'eth_getTransactionReceipt', [failed])).status).toBe('0x0');
    proxy = await startRpcProxy(anvil.rpcUrl);
    proxy.inject({
      kind: 'transform',
      method: RECEIPT_METHODS,
      count: Number.POSITIVE_INFINITY,
      transform: (result) =>
        eachReceipt(result, (receipt) => {
          delete receipt.status;
          receipt.root = `0x${'ab'.repeat(32)}`;
        }),
    });
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await anvil?.stop();
  });

  describe('on a node with a tracer', () => {
    useTestTable('pre-byzantium-traced');
    beforeAll(async () => {
      await ingestThrough(proxy, anvil);
    }, 120_000);

    test('the status is the trace: a reverted creation is a failure, a transfer a success', async () => {
      expect(heardTransfers.has(succeeded)).toBe(true);
      expect((await explorerTransaction(sender.address, failed)).status).toBe('error');
      expect((await explorerTransaction(receiver.address, succeeded)).status).toBe('ok');
      expect((await insightsTransaction(failed)).status).toBe(0);
      expect((await insightsTransaction(succeeded)).status).toBe(1);
    });
  });

  describe('on a node without a tracer', () => {
    useTestTable('pre-byzantium-untraced');
    beforeAll(async () => {
      await ingestThrough(proxy, anvil, 'none');
    }, 120_000);

    test('no status is never "failed": null, as Blockscout before its traces arrive', async () => {
      // Nor a success: deposit detection (a listener) is not told of a transfer not known to have happened.
      expect(heardTransfers.has(succeeded)).toBe(false);
      for (const hash of [succeeded, failed]) {
        const item = await explorerTransaction(sender.address, hash);
        expect(item.status).toBeNull();
        expect(item.result).toBe('awaiting_internal_transactions');
        expect(item.revert_reason).toBeNull();
        expect((await insightsTransaction(hash)).status).toBeNull();
      }
    });
  });
});

describe('OP-stack receipts with the L1 data fee', () => {
  useTestTable('l1-fee');
  let anvil: Anvil;
  let proxy: RpcProxy;
  let bedrock: Hash;
  let ecotone: Hash;
  const bedrockFields = { l1Fee: '0x2386f26fc10000', l1GasPrice: '0x4a817c800', l1GasUsed: '0x640', l1FeeScalar: '0.684' };
  const ecotoneFields = {
    l1Fee: '0x5af3107a4000',
    l1GasPrice: '0x3b9aca00',
    l1GasUsed: '0x700',
    l1BaseFeeScalar: '0x558',
    l1BlobBaseFee: '0x1',
    l1BlobBaseFeeScalar: '0xc5fc5',
  };

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: CHAIN_ID });
    bedrock = await send(anvil.rpcUrl, { to: receiver.address, value: numberToHex(parseEther('1')) });
    ecotone = await send(anvil.rpcUrl, { to: receiver.address, value: numberToHex(parseEther('2')) });
    proxy = await startRpcProxy(anvil.rpcUrl);
    proxy.inject({
      kind: 'transform',
      method: RECEIPT_METHODS,
      count: Number.POSITIVE_INFINITY,
      transform: (result) =>
        eachReceipt(result, (receipt) => {
          if (receipt.transactionHash === bedrock) Object.assign(receipt, bedrockFields);
          if (receipt.transactionHash === ecotone) Object.assign(receipt, ecotoneFields);
        }),
    });
    await ingestThrough(proxy, anvil);
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await anvil?.stop();
  });

  test("the fee includes the L1 data fee, and the L1 fields are served as Blockscout's OP-stack explorer does", async () => {
    const receipt = await rpc(anvil.rpcUrl, 'eth_getTransactionReceipt', [bedrock]);
    const execution = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
    const item = await explorerTransaction(receiver.address, bedrock);
    expect(item.fee.value).toBe((execution + BigInt(bedrockFields.l1Fee)).toString());
    expect(item).toMatchObject({
      l1_fee: BigInt(bedrockFields.l1Fee).toString(),
      l1_gas_price: BigInt(bedrockFields.l1GasPrice).toString(),
      l1_gas_used: BigInt(bedrockFields.l1GasUsed).toString(),
      l1_fee_scalar: '0.684',
    });
    expect(item).not.toHaveProperty('l1_base_fee_scalar');
  });

  test('Ecotone receipts carry their scalars instead of the Bedrock fee scalar', async () => {
    const item = await explorerTransaction(receiver.address, ecotone);
    const receipt = await rpc(anvil.rpcUrl, 'eth_getTransactionReceipt', [ecotone]);
    expect(item.fee.value).toBe((BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice) + BigInt(ecotoneFields.l1Fee)).toString());
    expect(item).toMatchObject({
      l1_fee: BigInt(ecotoneFields.l1Fee).toString(),
      l1_base_fee_scalar: BigInt(ecotoneFields.l1BaseFeeScalar).toString(),
      l1_blob_base_fee: '1',
      l1_blob_base_fee_scalar: BigInt(ecotoneFields.l1BlobBaseFeeScalar).toString(),
    });
    expect(item).not.toHaveProperty('l1_fee_scalar');
  });
});

describe('a transaction type the ingest does not know', () => {
  useTestTable('unknown-type');
  let anvil: Anvil;
  let proxy: RpcProxy;
  let hash: Hash;
  const extra = { chainSpecific: '0x1234', routing: { lane: 7 } };

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: CHAIN_ID });
    hash = await send(anvil.rpcUrl, { to: receiver.address, value: numberToHex(parseEther('1')) });
    proxy = await startRpcProxy(anvil.rpcUrl);
    const retype = (tx: Json) => {
      if (tx?.hash === hash) Object.assign(tx, { type: '0x99' }, extra);
    };
    proxy.inject(
      {
        kind: 'transform',
        method: 'eth_getBlockByNumber',
        count: Number.POSITIVE_INFINITY,
        transform: (block) => {
          for (const tx of ((block as Json)?.transactions ?? []) as Json[]) retype(tx);
          return block;
        },
      },
      {
        kind: 'transform',
        method: RECEIPT_METHODS,
        count: Number.POSITIVE_INFINITY,
        transform: (result) =>
          eachReceipt(result, (receipt) => receipt.transactionHash === hash && Object.assign(receipt, { type: '0x99' })),
      },
    );
    await ingestThrough(proxy, anvil);
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await anvil?.stop();
  });

  test('it is indexed with its type number, and its own fields are kept as the node sent them', async () => {
    expect((await insightsTransaction(hash)).transaction_type).toBe(0x99);
    expect((await explorerTransaction(receiver.address, hash)).type).toBe(0x99);
    const stored = expandTransaction((await getItem(transactionKeys.transaction(CHAIN_ID, hash)))!);
    expect(JSON.parse(stored.otherFieldsJson as string)).toEqual(extra);
    expect(stored.value).toBe(parseEther('1').toString());
  });
});

describe('a blob transaction with values at the edge of their range', () => {
  useTestTable('blob-edges');
  let anvil: Anvil;
  let proxy: RpcProxy;
  let hash: Hash;
  let blockNumber: number;
  const blobGasUsed = 2n ** 60n;
  const blobGasPrice = 2n ** 200n;
  const maxFeePerBlobGas = 2n ** 256n - 1n;
  const excessBlobGas = 2n ** 63n + 1n;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: CHAIN_ID, args: ['--hardfork', 'prague'] });
    hash = await send(anvil.rpcUrl, { to: receiver.address, value: numberToHex(parseEther('1')) });
    blockNumber = Number((await rpc(anvil.rpcUrl, 'eth_getTransactionReceipt', [hash])).blockNumber);
    proxy = await startRpcProxy(anvil.rpcUrl);
    // anvil needs a KZG library to take a blob transaction: its answers are made into one instead.
    proxy.inject(
      {
        kind: 'transform',
        method: 'eth_getBlockByNumber',
        count: Number.POSITIVE_INFINITY,
        transform: (block) => {
          const answer = block as Json;
          if (Number(answer?.number) !== blockNumber) return block;
          answer.blobGasUsed = numberToHex(blobGasUsed);
          answer.excessBlobGas = numberToHex(excessBlobGas);
          for (const tx of (answer.transactions ?? []) as Json[]) {
            if (tx.hash === hash)
              Object.assign(tx, {
                type: '0x3',
                maxFeePerBlobGas: numberToHex(maxFeePerBlobGas),
                blobVersionedHashes: [`0x01${'cd'.repeat(31)}`],
              });
          }
          return block;
        },
      },
      {
        kind: 'transform',
        method: RECEIPT_METHODS,
        count: Number.POSITIVE_INFINITY,
        transform: (result) =>
          eachReceipt(result, (receipt) => {
            if (receipt.transactionHash === hash)
              Object.assign(receipt, { type: '0x3', blobGasUsed: numberToHex(blobGasUsed), blobGasPrice: numberToHex(blobGasPrice) });
          }),
      },
    );
    await ingestThrough(proxy, anvil);
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await anvil?.stop();
  });

  test('blob gas above 2^53 and a blob gas price above 2^64 are stored and served exactly', async () => {
    const row = await insightsTransaction(hash);
    expect(row).toMatchObject({ transaction_type: 3, blob_gas_used: blobGasUsed.toString(), blob_gas_price: blobGasPrice.toString() });
    const block = expandBlock((await getItem(blockKeys.block(CHAIN_ID, blockNumber)))!);
    expect(block.blobGasUsed).toBe(blobGasUsed.toString());
    expect(block.excessBlobGas).toBe(excessBlobGas.toString());
  });
});
