/**
 * A block that mints many tokens of one collection (issue 34, item 3: a block's commit path). Each new
 * instance moves its contract's `nftInstances` counter, so the ingest wrote them one transaction after
 * another: a block of 100 mints of one contract waited on 100 round trips in sequence (about a second
 * in AWS, for one block). Now one contract's new instances share transactions (state.ts
 * setNewNftInstances). On a real anvil: one block mints 40 ERC-721 tokens in 40 transactions and 60
 * ERC-1155 ids in one mintBatch; the next transfers some and mints more. Ingested block by block, the
 * table equals a single-batch ingest of the same blocks, the state equals the chain's, and the minting
 * block's commit waits on about as many round trips as a block without mints.
 */
import { createWalletClient, defineChain, http, type Address, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { loadContracts, type DemoArtifacts } from '../../../scripts/lib/contracts';
import { createChainClient } from '../../../shared/chain/client';
import { ChainIngest, ingestRange, registerChain } from '../../../shared/ingest/ingest';
import { recordTransactions } from '../../support/transactions';
import { observingTable, roundTripsInSequence } from '../../support/table-calls';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';
import { expectImmutableItems, expectStateMatchesChain, publicClient, readChainTruth } from './support/truth';

const table = useTestTable('nft-mints');
const CHAIN_ID = 31337;
const quiet = { info: () => undefined, warn: () => undefined };
const accounts = ANVIL_PRIVATE_KEYS.map((key) => privateKeyToAccount(key));
const [deployer, alice, bob, carol] = accounts.map((account) => account.address) as [Address, Address, Address, Address];
let anvil: Anvil;
let artifacts: DemoArtifacts;
const transactions = recordTransactions('nftMintsTransactions');
const chain = defineChain({
  id: CHAIN_ID,
  name: 'mints',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [] } },
});

beforeAll(async () => {
  [anvil, artifacts] = await Promise.all([startAnvil({ chainId: CHAIN_ID }), loadContracts()]);
}, 60_000);
afterAll(async () => {
  await anvil?.stop();
});

type Call = { address: Address; name: 'DemoNFT' | 'DemoMulti'; functionName: string; args: unknown[]; from?: number };

/** Sends the calls into ONE block (automine off, explicit nonces), and returns its number. */
async function inOneBlock(calls: readonly Call[]): Promise<number> {
  const client = publicClient(anvil.rpcUrl);
  const wallet = createWalletClient({ chain, transport: http(anvil.rpcUrl) });
  await client.request({ method: 'evm_setAutomine' as never, params: [false] as never });
  const hashes: Hash[] = [];
  try {
    const nonces = new Map<number, number>();
    for (const { address, name, functionName, args, from = 0 } of calls) {
      const account = accounts[from]!;
      const nonce = nonces.get(from) ?? (await client.getTransactionCount({ address: account.address, blockTag: 'pending' }));
      nonces.set(from, nonce + 1);
      hashes.push(
        await wallet.writeContract({
          address,
          abi: artifacts[name].abi,
          functionName,
          args,
          account,
          chain,
          nonce,
          gas: 3_000_000n,
        } as never),
      );
    }
    await client.request({ method: 'evm_mine' as never, params: [] as never });
  } finally {
    await client.request({ method: 'evm_setAutomine' as never, params: [true] as never });
  }
  const receipts = await Promise.all(hashes.map((hash) => client.waitForTransactionReceipt({ hash, pollingInterval: 20 })));
  expect(receipts.every((receipt) => receipt.status === 'success')).toBe(true);
  expect(new Set(receipts.map((receipt) => receipt.blockNumber)).size).toBe(1);
  return Number(receipts[0]!.blockNumber);
}

async function deploy(name: 'DemoNFT' | 'DemoMulti'): Promise<Address> {
  const client = publicClient(anvil.rpcUrl);
  const wallet = createWalletClient({ transport: http(anvil.rpcUrl) });
  const hash = await wallet.deployContract({
    abi: artifacts[name].abi,
    bytecode: artifacts[name].bytecode,
    args: [deployer],
    account: accounts[0]!,
    chain,
  });
  return (await client.waitForTransactionReceipt({ hash, pollingInterval: 20 })).contractAddress!;
}

test('a block of 100 mints of two collections is written in a few transactions, its commit as deep as a plain block', async () => {
  const nft = await deploy('DemoNFT');
  const multi = await deploy('DemoMulti');
  const ids = Array.from({ length: 60 }, (_, index) => BigInt(index + 1));
  const mintBlock = await inOneBlock([
    ...Array.from(
      { length: 40 },
      (_, index): Call => ({ address: nft, name: 'DemoNFT', functionName: 'mint', args: [alice, BigInt(index + 1)] }),
    ),
    { address: multi, name: 'DemoMulti', functionName: 'mintBatch', args: [bob, ids, ids.map((id) => id * 10n)] },
  ]);
  const nextBlock = await inOneBlock([
    ...[1n, 2n, 3n].map(
      (tokenId): Call => ({ address: nft, name: 'DemoNFT', functionName: 'transferFrom', args: [alice, carol, tokenId], from: 1 }),
    ),
    { address: multi, name: 'DemoMulti', functionName: 'safeTransferFrom', args: [bob, carol, 5n, 7n, '0x'], from: 2 },
    ...[41n, 42n].map((tokenId): Call => ({ address: nft, name: 'DemoNFT', functionName: 'mint', args: [carol, tokenId] })),
  ]);
  const plainBlock = await inOneBlock([{ address: nft, name: 'DemoNFT', functionName: 'transferFrom', args: [alice, bob, 10n], from: 1 }]);

  await registerChain(CHAIN_ID, 0);
  const ingest = new ChainIngest({
    chainId: CHAIN_ID,
    client: createChainClient(anvil.rpcUrl),
    maxBatchBlocks: 1,
    prefetch: 1,
    log: quiet,
  });
  await ingest.ingestRange({ from: 0, to: mintBlock - 1 });
  const depths = new Map<number, number>();
  const instanceTransactions = new Map<number, number>();
  const paths = new Map<number, string[]>();
  // NFT instances read (BatchGetItem keys) by each block's ingest.
  const instancesRead = new Map<number, number>();
  for (const number of [mintBlock, nextBlock, plainBlock]) {
    const before = transactions.length;
    const { result, depth, path } = await roundTripsInSequence(() =>
      observingTable(
        (command, input) => {
          if (command !== 'BatchGetItemCommand') return;
          for (const request of Object.values(input.RequestItems ?? {}) as { Keys: { pk: string }[] }[])
            instancesRead.set(number, (instancesRead.get(number) ?? 0) + request.Keys.filter((key) => key.pk.includes('#NFT#')).length);
        },
        () => ingest.ingestRange({ from: number, to: number }),
      ),
    );
    expect(result.advanced).toBe(1);
    depths.set(number, depth);
    paths.set(number, path);
    instanceTransactions.set(
      number,
      transactions.slice(before).filter((operations) => operations.some((key) => key.includes('#NFT#'))).length,
    );
  }

  // Transactions that write NFT items: the 40 ERC-721 instances (instance and holding each) in one,
  // the 60 ids in one, and the two of bob's 60 id balances (each moves its id's held supply and writes
  // its holding). With one transaction an instance: 102.
  expect(instanceTransactions.get(mintBlock), JSON.stringify(Object.fromEntries(instanceTransactions))).toBeLessThanOrEqual(5);
  // Instances read: the 100 the block touches, with the batch's state; the 60 ids whose held supply the
  // balances' transactions move (their read of it); then, for the two collections rebuilt, only the
  // instances their entries may embed (9 each: the mints only add ids), not every id minted (with them: 260).
  expect(instancesRead.get(mintBlock)).toBeLessThanOrEqual(100 + 60 + 2 * 9);
  // The minting block waits on no more round trips in sequence than a followed Base-profile block may
  // (commit-round-trips.test.ts): 18 here; with one transaction an instance, 77.
  expect(depths.get(mintBlock)!, paths.get(mintBlock)!.join('\n')).toBeLessThanOrEqual(22);

  // The state is the chain's: owners, balances, the contracts' nftInstances and holder counts.
  const truth = await readChainTruth(anvil.rpcUrl, 0, plainBlock);
  await expectImmutableItems(table.name, truth);
  await expectStateMatchesChain(table.name, truth, anvil.rpcUrl);
  const counted = (await tableSnapshot(table.name)).filter(
    (item) => item.kind === 'address' && (item.address === nft.toLowerCase() || item.address === multi.toLowerCase()),
  );
  expect(Object.fromEntries(counted.map((item) => [item.address, item.nftInstances]))).toEqual({
    [nft.toLowerCase()]: 42,
    [multi.toLowerCase()]: 60,
  });

  // A single batch of the same blocks writes the same table.
  const whole = `${table.name}-whole`;
  await inTable(whole, async () => {
    await registerChain(CHAIN_ID, 0);
    await ingestRange({ chainId: CHAIN_ID, client: createChainClient(anvil.rpcUrl), from: 0, to: plainBlock });
  });
  expect(await tableSnapshot(whole)).toEqual(await tableSnapshot(table.name));
}, 120_000);
