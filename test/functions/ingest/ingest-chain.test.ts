/**
 * The scheduled ingest Lambda against a real anvil and the embedded DynamoDB. Its RPC URL comes from
 * SSM through Powertools' getParameter and the real AWS SDK, pointed (AWS_ENDPOINT_URL_SSM) at a tiny
 * local SSM endpoint that serves one SecureString parameter and records what was asked.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'aws-lambda';
import { createWalletClient, http as viemHttp, parseEther, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvil as anvilChain } from 'viem/chains';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { readCursor } from '../../../shared/ingest/manifest';
import { useTestTable } from '../../support/table';
import { expectImmutableItems, publicClient, readChainTruth } from '../../shared/ingest/support/truth';

useTestTable('lambda');
const CHAIN_ID = 31337;
const PARAMETER = '/chain-data/rpc-url/31337';
let anvil: Anvil;
let ssm: http.Server;
const ssmRequests: { target: string; body: Record<string, unknown> }[] = [];
let handler: (event: unknown, context?: Context) => Promise<{ advanced: number; reorgs: number; cursor: number | null }>;

const context = (remainingMs: number) => ({ getRemainingTimeInMillis: () => remainingMs }) as Context;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  const wallet = createWalletClient({
    chain: { ...anvilChain, id: CHAIN_ID },
    transport: viemHttp(anvil.rpcUrl),
    account: privateKeyToAccount(ANVIL_PRIVATE_KEYS[0]),
  });
  const hashes: Hash[] = [];
  for (let i = 1; i <= 7; i += 1)
    hashes.push(
      await wallet.sendTransaction({ to: privateKeyToAccount(ANVIL_PRIVATE_KEYS[1]).address, value: parseEther('0.1') * BigInt(i) }),
    );
  await publicClient(anvil.rpcUrl).waitForTransactionReceipt({ hash: hashes.at(-1)!, pollingInterval: 20 });

  ssm = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>;
      const target = String(request.headers['x-amz-target'] ?? '');
      ssmRequests.push({ target, body });
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify({ Parameter: { Name: body.Name, Type: 'SecureString', Value: anvil.rpcUrl, Version: 1 } }));
    });
  });
  await new Promise<void>((resolve) => ssm.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SSM: `http://127.0.0.1:${(ssm.address() as AddressInfo).port}`,
    CHAIN_ID: String(CHAIN_ID),
    RPC_URL_PARAMETER: PARAMETER,
    INGEST_MAX_BLOCKS: '3',
    POWERTOOLS_METRICS_NAMESPACE: 'ChainDataApiTest',
  });
  ({ handler } = await import('../../../functions/ingest/ingest-chain'));
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => ssm?.close(() => resolve()));
  await anvil?.stop();
});

test('each run ingests at most INGEST_MAX_BLOCKS blocks from the cursor, up to the head', async () => {
  expect(await handler({}, context(300_000))).toEqual({ advanced: 3, reorgs: 0, cursor: 2 });
  expect(await handler({}, context(300_000))).toEqual({ advanced: 3, reorgs: 0, cursor: 5 });
  expect(await handler({}, context(300_000))).toEqual({ advanced: 2, reorgs: 0, cursor: 7 });
  expect(await handler({}, context(300_000))).toEqual({ advanced: 0, reorgs: 0, cursor: 7 });
  await expectImmutableItems(process.env.TABLE_NAME!, await readChainTruth(anvil.rpcUrl, 0, 7));

  // The RPC URL was read once (cached), decrypted.
  expect(ssmRequests).toEqual([{ target: 'AmazonSSM.GetParameter', body: { Name: PARAMETER, WithDecryption: true } }]);
});

test('a run with too little time left starts no block', async () => {
  const wallet = createWalletClient({
    chain: { ...anvilChain, id: CHAIN_ID },
    transport: viemHttp(anvil.rpcUrl),
    account: privateKeyToAccount(ANVIL_PRIVATE_KEYS[0]),
  });
  await publicClient(anvil.rpcUrl).waitForTransactionReceipt({
    hash: await wallet.sendTransaction({ to: wallet.account.address, value: 1n }),
    pollingInterval: 20,
  });
  const before = await readCursor(CHAIN_ID);
  expect(await handler({}, context(30_000))).toEqual({ advanced: 0, reorgs: 0, cursor: 7 });
  expect(await readCursor(CHAIN_ID)).toEqual(before);
  expect(await handler({}, context(300_000))).toEqual({ advanced: 1, reorgs: 0, cursor: 8 });
});
