/**
 * Real chain shapes, each on its own anvil, ingested by the real ingest and read back through the
 * explorer and insights handlers as a client reads them:
 *  - an OP-stack chain (`--network optimism`): a deposit transaction (type 0x7e, sent with
 *    sourceHash and mint) pays no fee, has no burnt or priority fee, and carries its deposit fields;
 *  - a Prague chain: an account nonce of 2^64 - 3 (EIP-2681 allows up to 2^64 - 2) and an EIP-7702
 *    authorization with chain id 2^256 - 1 and nonce 2^64 - 2 are stored and served exactly;
 *  - a pre-EIP-1559 chain (Berlin): no base fee, so no burnt fee (null, as Blockscout).
 */
import {
  createPublicClient,
  createWalletClient,
  http,
  keccak256,
  numberToHex,
  parseEther,
  parseSignature,
  serializeTransaction,
  toRlp,
  type Address,
  type Hash,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { requestJson } from '../../../scripts/lib/dispatch';
import { createChainClient } from '../../../shared/chain/client';
import { ingestRange, registerChain } from '../../../shared/ingest/ingest';
import { rawReceipt, rawRpc } from '../../support/raw-rpc';
import { useTestTable } from '../../support/table';

// The explorer serves one chain (EXPLORER_CHAIN_ID, 31337 in tests): each chain below has that id,
// in a table of its own (useTestTable in each describe block: its beforeAll switches to it).
const CHAIN_ID = 31337;
const [sender, receiver, nonceHolder] = ANVIL_PRIVATE_KEYS.map((key) => privateKeyToAccount(key));

const rpc = rawRpc;

async function ingestAll(anvil: Anvil): Promise<number> {
  const head = Number(await rpc(anvil.rpcUrl, 'eth_blockNumber', []));
  await registerChain(CHAIN_ID, 0);
  await ingestRange({ chainId: CHAIN_ID, client: createChainClient(anvil.rpcUrl), from: 0, to: head });
  return head;
}

async function explorerTransactions(address: string): Promise<any[]> {
  const response = await requestJson('base', 'GET', `/explorer/addresses/${address}/transactions`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return (response.body as { items: any[] }).items;
}

async function insightsTransaction(hash: string): Promise<any> {
  const response = await requestJson('base', 'GET', `/insights/v1/resolve/${hash}?chain=${CHAIN_ID}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const transactions = (response.body as { data: { transactions?: any[] } }).data.transactions ?? [];
  expect(transactions).toHaveLength(1);
  return transactions[0];
}

const waitForReceipt = rawReceipt;

describe('an OP-stack chain', () => {
  useTestTable('chain-shapes');
  let anvil: Anvil;
  let depositHash: Hash;
  let ordinaryHash: Hash;
  const sourceHash = `0x${'5a'.repeat(32)}` as Hex;
  const mint = parseEther('2');

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: CHAIN_ID, args: ['--network', 'optimism'] });
    // anvil's optimism mode takes a deposit as a transaction request with sourceHash and mint.
    depositHash = await rpc(anvil.rpcUrl, 'eth_sendTransaction', [
      {
        from: sender.address,
        to: receiver.address,
        value: numberToHex(parseEther('1')),
        gas: numberToHex(100_000),
        sourceHash,
        mint: numberToHex(mint),
        isSystemTx: false,
      },
    ]);
    await waitForReceipt(anvil.rpcUrl, depositHash);
    ordinaryHash = await rpc(anvil.rpcUrl, 'eth_sendTransaction', [
      { from: sender.address, to: receiver.address, value: numberToHex(parseEther('0.5')) },
    ]);
    await waitForReceipt(anvil.rpcUrl, ordinaryHash);
    await ingestAll(anvil);
  }, 120_000);
  afterAll(async () => {
    await anvil?.stop();
  });

  test('the deposit is served with no fee, no burnt or priority fee, and its source hash and mint', async () => {
    const chainTx = await rpc(anvil.rpcUrl, 'eth_getTransactionByHash', [depositHash]);
    expect(chainTx.type).toBe('0x7e');
    const items = await explorerTransactions(receiver.address);
    const deposit = items.find((item) => item.hash === depositHash);
    expect(deposit).toMatchObject({
      type: 126,
      fee: { type: 'actual', value: '0' },
      transaction_burnt_fee: null,
      priority_fee: null,
      source_hash: sourceHash,
      mint: mint.toString(),
      status: 'ok',
      value: parseEther('1').toString(),
    });
    expect(deposit).not.toHaveProperty('l1_fee');
    const row = await insightsTransaction(depositHash);
    expect(row).toMatchObject({ transaction_type: 126, source_hash: sourceHash, mint: mint.toString(), status: 1 });
  });

  test('an ordinary transaction of the same chain pays gas used x effective price and burns the base fee', async () => {
    const receipt = await rpc(anvil.rpcUrl, 'eth_getTransactionReceipt', [ordinaryHash]);
    const block = await rpc(anvil.rpcUrl, 'eth_getBlockByHash', [receipt.blockHash, false]);
    const ordinary = (await explorerTransactions(receiver.address)).find((item) => item.hash === ordinaryHash);
    expect(ordinary.fee.value).toBe((BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice)).toString());
    expect(ordinary.transaction_burnt_fee).toBe((BigInt(receipt.gasUsed) * BigInt(block.baseFeePerGas)).toString());
    expect(ordinary).not.toHaveProperty('source_hash');
    expect(ordinary).not.toHaveProperty('mint');
  });
});

describe('a Prague chain with values at the edge of their range', () => {
  useTestTable('chain-shapes');
  let anvil: Anvil;
  let bigNonceHash: Hash;
  let delegationHash: Hash;
  const bigNonce = 2n ** 64n - 3n;
  const authorizationChainId = 2n ** 256n - 1n;
  const authorizationNonce = 2n ** 64n - 2n;
  const delegate = '0x00000000000000000000000000000000000d0d0d' as Address;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: CHAIN_ID, args: ['--hardfork', 'prague'] });
    await rpc(anvil.rpcUrl, 'anvil_setNonce', [nonceHolder.address, numberToHex(bigNonce)]);
    bigNonceHash = await rpc(anvil.rpcUrl, 'eth_sendTransaction', [{ from: nonceHolder.address, to: receiver.address, value: '0x1' }]);
    await waitForReceipt(anvil.rpcUrl, bigNonceHash);

    // An EIP-7702 authorization signed for chain id 2^256 - 1 and nonce 2^64 - 2: the chain keeps it
    // in the transaction (it applies none for another chain). viem types these as JS numbers, so the
    // tuple is hashed, signed and serialised from bigints here.
    const authorizationHash = keccak256(
      `0x05${toRlp([numberToHex(authorizationChainId), delegate, numberToHex(authorizationNonce)]).slice(2)}` as Hex,
    );
    const signature = parseSignature(await sender.sign({ hash: authorizationHash }));
    const client = createPublicClient({ transport: http(anvil.rpcUrl) });
    const fees = await client.estimateFeesPerGas();
    const unsigned = {
      type: 'eip7702' as const,
      chainId: CHAIN_ID,
      nonce: await client.getTransactionCount({ address: sender.address }),
      to: receiver.address,
      value: 0n,
      gas: 100_000n,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      authorizationList: [
        {
          address: delegate,
          chainId: authorizationChainId as unknown as number,
          nonce: authorizationNonce as unknown as number,
          r: signature.r,
          s: signature.s,
          yParity: signature.yParity ?? 0,
        },
      ],
    };
    const signed = await sender.signTransaction(unsigned, { serializer: serializeTransaction });
    delegationHash = await rpc(anvil.rpcUrl, 'eth_sendRawTransaction', [signed]);
    await waitForReceipt(anvil.rpcUrl, delegationHash);
    await ingestAll(anvil);
  }, 120_000);
  afterAll(async () => {
    await anvil?.stop();
  });

  test('a nonce of 2^64 - 3 is served exactly (a decimal string: above 2^53 a JSON number rounds)', async () => {
    const chainTx = await rpc(anvil.rpcUrl, 'eth_getTransactionByHash', [bigNonceHash]);
    expect(BigInt(chainTx.nonce)).toBe(bigNonce);
    const item = (await explorerTransactions(nonceHolder.address)).find((entry) => entry.hash === bigNonceHash);
    expect(item.nonce).toBe(bigNonce.toString());
    expect((await insightsTransaction(bigNonceHash)).nonce).toBe(bigNonce.toString());
  });

  test('an authorization with chain id 2^256 - 1 and nonce 2^64 - 2 keeps both exactly', async () => {
    const chainTx = await rpc(anvil.rpcUrl, 'eth_getTransactionByHash', [delegationHash]);
    expect(BigInt(chainTx.authorizationList[0].chainId)).toBe(authorizationChainId);
    const row = await insightsTransaction(delegationHash);
    expect(row.transaction_type).toBe(4);
    const text: string = row.authorization_list_json;
    expect(text).toContain(`"chainId":${authorizationChainId}`);
    expect(text).toContain(`"nonce":${authorizationNonce}`);
    expect(text).toContain(`"address":"${delegate}"`);
  });

  test('small numbers stay JSON numbers', async () => {
    const item = (await explorerTransactions(sender.address)).find((entry) => entry.hash === delegationHash);
    expect(typeof item.nonce).toBe('number');
    expect(typeof item.gas_limit).toBe('number');
  });
});

describe('a chain without EIP-1559 (Berlin)', () => {
  useTestTable('chain-shapes');
  let anvil: Anvil;
  let hash: Hash;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: CHAIN_ID, args: ['--hardfork', 'berlin'] });
    const wallet = createWalletClient({ account: sender, transport: http(anvil.rpcUrl) });
    hash = await wallet.sendTransaction({
      chain: null,
      to: receiver.address,
      value: parseEther('0.25'),
      type: 'legacy',
      gasPrice: 2_000_000_000n,
    });
    await waitForReceipt(anvil.rpcUrl, hash);
    await ingestAll(anvil);
  }, 120_000);
  afterAll(async () => {
    await anvil?.stop();
  });

  test('blocks have no base fee, and transactions no burnt fee (null, as Blockscout), the fee is gas used x price', async () => {
    const receipt = await rpc(anvil.rpcUrl, 'eth_getTransactionReceipt', [hash]);
    const block = await rpc(anvil.rpcUrl, 'eth_getBlockByHash', [receipt.blockHash, false]);
    expect(block.baseFeePerGas).toBeUndefined();
    const item = (await explorerTransactions(receiver.address)).find((entry) => entry.hash === hash);
    expect(item).toMatchObject({
      transaction_burnt_fee: null,
      base_fee_per_gas: null,
      fee: { type: 'actual', value: (BigInt(receipt.gasUsed) * 2_000_000_000n).toString() },
      gas_price: '2000000000',
      type: 0,
    });
  });
});
