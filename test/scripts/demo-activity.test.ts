/**
 * The demo activity on a real anvil: everything the manifest says happened is checked with viem
 * reads of the chain (receipts, logs, code, balances, eth_call replays, callTracer traces).
 */
import {
  type BaseError,
  createPublicClient,
  decodeErrorResult,
  decodeEventLog,
  encodeDeployData,
  getAddress,
  getContractAddress,
  http,
  parseAbiItem,
  parseEther,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContracts, type DemoArtifacts } from '../../scripts/lib/contracts';
import { DEMO_CREATE2_SALT, DEMO_PLAN, DEMO_TX_KINDS, payeeAddress, startActivityTicker } from '../../scripts/lib/demo-activity';
import { startDemoChain, type DemoChain } from '../support/demo-chain';

interface CallFrame {
  type: string;
  from: Address;
  to?: Address;
  value?: Hex;
  error?: string;
  calls?: CallFrame[];
}

let chain: DemoChain;
let client: PublicClient;
let artifacts: DemoArtifacts;

beforeAll(async () => {
  chain = await startDemoChain({ chainId: 31337 });
  // cacheTime 0: getBlockNumber must not answer from viem's cache while the ticker runs.
  client = createPublicClient({ transport: http(chain.anvil.rpcUrl), cacheTime: 0 });
  artifacts = await loadContracts();
});

afterAll(async () => {
  await chain?.stop();
});

async function trace(hash: Hash): Promise<CallFrame> {
  return (await client.request({
    method: 'debug_traceTransaction' as 'eth_call',
    params: [hash, { tracer: 'callTracer' }] as never,
  })) as unknown as CallFrame;
}

function frames(frame: CallFrame): CallFrame[] {
  return [frame, ...(frame.calls ?? []).flatMap(frames)];
}

/** Replays a mined transaction with eth_call on the state before its block; returns the revert data. */
async function replayRevertData(hash: Hash): Promise<Hex> {
  const transaction = await client.getTransaction({ hash });
  try {
    await client.call({
      account: transaction.from,
      to: transaction.to,
      data: transaction.input,
      value: transaction.value,
      blockNumber: transaction.blockNumber - 1n,
    });
  } catch (error) {
    // The node's JSON-RPC error carries the revert data; viem keeps it on the error chain.
    const withData = (error as BaseError).walk((cause) => typeof (cause as { data?: unknown }).data === 'string') as { data: Hex } | null;
    if (withData) return withData.data;
    throw error;
  }
  throw new Error(`${hash} did not revert on replay`);
}

describe('demo activity', () => {
  it('fills a contiguous block range, one transaction per block, every kind present', async () => {
    const { manifest } = chain;
    expect(manifest.blocks.first).toBe(1);
    expect(manifest.blocks.last - manifest.blocks.first + 1).toBe(manifest.transactions.length);
    expect(await client.getBlockNumber()).toBe(BigInt(manifest.blocks.last));
    for (const kind of DEMO_TX_KINDS) expect(manifest.transactionsByKind[kind].length, kind).toBeGreaterThan(0);
    const block = await client.getBlock({ blockNumber: BigInt(manifest.blocks.first) + 20n });
    expect(block.transactions).toEqual([manifest.transactions[20].hash]);
  });

  it('mined the reverted transaction as reverted, and its reason string reads back by eth_call replay', async () => {
    const { hash, reason } = chain.manifest.highlights.alwaysReverts;
    expect(chain.manifest.transactionsByKind.reverted).toContain(hash);
    const receipt = await client.getTransactionReceipt({ hash });
    expect(receipt.status).toBe('reverted');
    expect(receipt.gasUsed).toBeLessThan(DEMO_PLAN.revertGas);
    const decoded = decodeErrorResult({ abi: artifacts.DemoReverter.abi, data: await replayRevertData(hash) });
    expect(decoded.errorName).toBe('Error');
    expect(decoded.args).toEqual(['demo: always reverts']);
    expect(reason).toBe('demo: always reverts');
    // The reverted attempt changed nothing.
    const attempts = await client.readContract({
      address: chain.manifest.contracts.reverter,
      abi: artifacts.DemoReverter.abi,
      functionName: 'attempts',
    });
    expect(attempts).toBe(0n);
  });

  it('mined the overdraft as reverted with the ERC20InsufficientBalance custom error', async () => {
    const { hash } = chain.manifest.highlights.customErrorRevert;
    expect((await client.getTransactionReceipt({ hash })).status).toBe('reverted');
    const decoded = decodeErrorResult({ abi: artifacts.DemoToken.abi, data: await replayRevertData(hash) });
    expect(decoded.errorName).toBe('ERC20InsufficientBalance');
    expect(decoded.args?.[0]).toBe(chain.manifest.accounts.busy);
    expect(decoded.args?.[2]).toBe(DEMO_PLAN.token.overdraft);
  });

  it('emitted one TransferBatch carrying several ids in the batch transfer', async () => {
    const { hash, from, to } = chain.manifest.highlights.batchTransfer;
    const receipt = await client.getTransactionReceipt({ hash });
    const events = receipt.logs
      .filter((log) => getAddress(log.address) === chain.manifest.contracts.multi)
      .map((log) => decodeEventLog({ abi: artifacts.DemoMulti.abi, data: log.data, topics: log.topics }));
    expect(events.map((event) => event.eventName)).toEqual(['TransferBatch']);
    const args = events[0].args as unknown as { operator: Address; from: Address; to: Address; ids: bigint[]; values: bigint[] };
    expect(args.from).toBe(from);
    expect(args.to).toBe(to);
    expect(args.operator).toBe(chain.manifest.accounts.alice);
    expect(args.ids).toEqual([...DEMO_PLAN.multi.batch.ids]);
    expect(args.values).toEqual([...DEMO_PLAN.multi.batch.toBusy]);
    expect(args.ids.length).toBeGreaterThan(1);
  });

  it('has the factory children where CREATE and CREATE2 put them, with code', async () => {
    const { contracts, highlights } = chain.manifest;
    const { child: createChild } = highlights.factoryCreate;
    const { child: create2Child, salt } = highlights.factoryCreate2;
    // A contract's nonce starts at 1 (EIP-161): the first CREATE uses nonce 1.
    expect(createChild).toBe(getContractAddress({ from: contracts.factory, nonce: 1n }));
    const initCode = encodeDeployData({
      abi: artifacts.DemoChild.abi,
      bytecode: artifacts.DemoChild.bytecode,
      args: [DEMO_PLAN.factory.create2Tag],
    });
    expect(salt).toBe(DEMO_CREATE2_SALT);
    expect(create2Child).toBe(getContractAddress({ opcode: 'CREATE2', from: contracts.factory, salt, bytecode: initCode }));
    for (const [child, tag] of [
      [createChild, DEMO_PLAN.factory.createTag],
      [create2Child, DEMO_PLAN.factory.create2Tag],
    ] as const) {
      expect((await client.getCode({ address: child }))?.length ?? 0).toBeGreaterThan(2);
      expect(await client.readContract({ address: child, abi: artifacts.DemoChild.abi, functionName: 'tag' })).toBe(tag);
      expect(await client.readContract({ address: child, abi: artifacts.DemoChild.abi, functionName: 'factory' })).toBe(contracts.factory);
    }
    const createTrace = await trace(highlights.factoryCreate2.hash);
    expect(
      frames(createTrace)
        .filter((frame) => frame.type === 'CREATE2')
        .map((frame) => getAddress(frame.to!)),
    ).toEqual([create2Child]);
  });

  it('moved ether in value-carrying internal calls through the splitter', async () => {
    const { hash, payments } = chain.manifest.highlights.split;
    const top = await trace(hash);
    expect(getAddress(top.to!)).toBe(chain.manifest.contracts.splitter);
    const subcalls = (top.calls ?? []).filter((frame) => frame.type === 'CALL' && BigInt(frame.value ?? '0x0') > 0n);
    expect(subcalls.map((frame) => ({ to: getAddress(frame.to!), amount: BigInt(frame.value!).toString() }))).toEqual(payments);
    expect(payments.map((payment) => payment.to)).toEqual(DEMO_PLAN.split.map((p) => payeeAddress(p.to)));
    expect(BigInt(top.value!)).toBe(DEMO_PLAN.split.reduce((sum, p) => sum + p.amount, 0n));
  });

  it('kept the best-effort split successful around a failed internal call, refunding the refused share', async () => {
    const { hash, paid, refused } = chain.manifest.highlights.splitBestEffort;
    expect((await client.getTransactionReceipt({ hash })).status).toBe('success');
    const calls = (await trace(hash)).calls ?? [];
    const failed = calls.filter((frame) => frame.error);
    expect(failed.map((frame) => [getAddress(frame.to!), BigInt(frame.value!).toString()])).toEqual([[refused.to, refused.amount]]);
    const succeeded = calls
      .filter((frame) => !frame.error)
      .map((frame) => [getAddress(frame.to!), BigInt(frame.value ?? '0x0').toString()]);
    expect(succeeded).toEqual([
      [paid.to, paid.amount],
      [chain.manifest.accounts.alice, refused.amount],
    ]);
  });

  it('moved DEMO in internal calls from the splitter to the token', async () => {
    const { hash, transfers } = chain.manifest.highlights.tokenViaContract;
    const top = await trace(hash);
    const tokenCalls = (top.calls ?? []).filter((frame) => getAddress(frame.to!) === chain.manifest.contracts.token);
    expect(tokenCalls).toHaveLength(transfers.length);
    const logs = await client.getLogs({
      address: chain.manifest.contracts.token,
      event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
      blockHash: (await client.getTransactionReceipt({ hash })).blockHash,
    });
    expect(logs.map((log) => ({ from: log.args.from, to: log.args.to, amount: log.args.value?.toString() }))).toEqual(transfers);
  });

  it('shows both self-destructs in their traces: the vault keeps its code, the ephemeral child is gone', async () => {
    const { contracts, highlights } = chain.manifest;
    const vaultFrames = frames(await trace(highlights.vaultSelfdestruct.hash)).filter((frame) => frame.type === 'SELFDESTRUCT');
    expect(vaultFrames).toHaveLength(1);
    expect(getAddress(vaultFrames[0].from)).toBe(contracts.vault);
    expect(getAddress(vaultFrames[0].to!)).toBe(highlights.vaultSelfdestruct.beneficiary);
    expect(BigInt(vaultFrames[0].value!)).toBe(DEMO_PLAN.vaultDeposit);
    expect(await client.getBalance({ address: contracts.vault })).toBe(0n);
    expect((await client.getCode({ address: contracts.vault }))?.length ?? 0).toBeGreaterThan(2);

    const ephemeralFrames = frames(await trace(highlights.ephemeral.hash));
    const create = ephemeralFrames.find((frame) => frame.type === 'CREATE');
    expect(getAddress(create!.to!)).toBe(highlights.ephemeral.address);
    const selfdestruct = (create!.calls ?? []).find((frame) => frame.type === 'SELFDESTRUCT');
    expect(getAddress(selfdestruct!.to!)).toBe(highlights.ephemeral.beneficiary);
    expect(BigInt(selfdestruct!.value!)).toBe(DEMO_PLAN.factory.ephemeralValue);
    expect(await client.getCode({ address: highlights.ephemeral.address })).toBeUndefined();
  });

  it('ends with the balances the plan says', async () => {
    const { manifest } = chain;
    const { token, nft, multi } = manifest.contracts;
    const plan = DEMO_PLAN.token;
    // Worked out from the plan by hand, independently of the manifest's ledger.
    const n = BigInt(DEMO_PLAN.busyTransferCount);
    const busyExpected =
      plan.mintBusy -
      plan.aliceTakesFromBusy -
      plan.distribute.reduce((sum, d) => sum + d.amount, 0n) -
      (DEMO_PLAN.busyTransferUnit * n * (n + 1n)) / 2n;
    const busyBalance = await client.readContract({
      address: token,
      abi: artifacts.DemoToken.abi,
      functionName: 'balanceOf',
      args: [manifest.accounts.busy],
    });
    expect(busyBalance).toBe(busyExpected);
    expect(await client.readContract({ address: token, abi: artifacts.DemoToken.abi, functionName: 'totalSupply' })).toBe(
      plan.mintBusy + plan.mintAlice - plan.burnFromCarol,
    );
    expect(await client.getBalance({ address: payeeAddress('payee2') })).toBe(
      parseEther('1.5') + parseEther('0.4') + DEMO_PLAN.vaultDeposit,
    );

    for (const [holder, amount] of Object.entries(manifest.expected.tokenBalances)) {
      expect(
        await client.readContract({ address: token, abi: artifacts.DemoToken.abi, functionName: 'balanceOf', args: [holder] }),
        holder,
      ).toBe(BigInt(amount));
    }
    for (const [payee, amount] of Object.entries(manifest.expected.payeeBalances)) {
      expect(await client.getBalance({ address: payee as Address }), payee).toBe(BigInt(amount));
    }
    for (const [id, owner] of Object.entries(manifest.expected.nftOwners)) {
      const read = client.readContract({ address: nft, abi: artifacts.DemoNFT.abi, functionName: 'ownerOf', args: [BigInt(id)] });
      if (owner) expect(await read, `nft ${id}`).toBe(owner);
      else await expect(read, `nft ${id}`).rejects.toThrow(/ERC721NonexistentToken/);
    }
    const balances = await client.readContract({
      address: multi,
      abi: artifacts.DemoMulti.abi,
      functionName: 'balanceOfBatch',
      args: [manifest.expected.multiBalances.map((b) => b.owner), manifest.expected.multiBalances.map((b) => BigInt(b.id))],
    });
    expect(balances).toEqual(manifest.expected.multiBalances.map((b) => BigInt(b.amount)));
  });

  it('gives the busy address more than 51 token transfers and more than 51 transactions, as counted on chain', async () => {
    const { manifest } = chain;
    const busy = manifest.accounts.busy;
    const range = { fromBlock: BigInt(manifest.blocks.first), toBlock: BigInt(manifest.blocks.last) };
    const transfer = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
    const [sent, received, batchesIn] = await Promise.all([
      client.getLogs({ event: transfer, args: { from: busy }, ...range }),
      client.getLogs({ event: transfer, args: { to: busy }, ...range }),
      client.getLogs({
        event: parseAbiItem(
          'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
        ),
        args: { to: busy },
        ...range,
      }),
    ]);
    const entries = sent.length + received.length + batchesIn.reduce((sum, log) => sum + (log.args.ids?.length ?? 0), 0);
    expect(entries).toBeGreaterThan(51);
    expect(entries).toBe(manifest.expected.tokenTransferCounts[busy]);

    let transactions = 0;
    for (let number = range.fromBlock; number <= range.toBlock; number++) {
      const block = await client.getBlock({ blockNumber: number, includeTransactions: true });
      transactions += block.transactions.filter((tx) => tx.from === busy.toLowerCase() || tx.to === busy.toLowerCase()).length;
    }
    expect(transactions).toBeGreaterThan(51);
    expect(transactions).toBe(manifest.expected.transactionCounts[busy]);
  });

  it('serves on-chain JSON metadata for even NFT ids and ipfs URIs for odd ids', async () => {
    const { nft } = chain.manifest.contracts;
    const onChain = await client.readContract({
      address: nft,
      abi: artifacts.DemoNFT.abi,
      functionName: 'tokenURI',
      args: [BigInt(chain.manifest.highlights.nftOnChainMetadataId)],
    });
    expect(onChain).toMatch(/^data:application\/json;base64,/);
    const metadata = JSON.parse(Buffer.from((onChain as string).split(',')[1], 'base64').toString('utf8'));
    expect(metadata.name).toBe(`Demo NFT #${chain.manifest.highlights.nftOnChainMetadataId}`);
    expect(metadata.image).toMatch(/^ipfs:\/\//);
    expect(metadata.attributes).toContainEqual({ trait_type: 'Parity', value: 'even' });
    const ipfs = await client.readContract({
      address: nft,
      abi: artifacts.DemoNFT.abi,
      functionName: 'tokenURI',
      args: [BigInt(chain.manifest.highlights.nftIpfsMetadataId)],
    });
    expect(ipfs).toMatch(/^ipfs:\/\/\w+\/1\.json$/);
  });

  it('lists addresses worth querying that really exist on chain', async () => {
    const { addressesWorthQuerying, contracts, accounts } = chain.manifest;
    expect(addressesWorthQuerying.map((entry) => entry.address)).toEqual(
      expect.arrayContaining([accounts.busy, contracts.token, contracts.factory, contracts.splitter]),
    );
    for (const entry of addressesWorthQuerying) {
      expect(entry.description.length).toBeGreaterThan(10);
      const nonce = await client.getTransactionCount({ address: entry.address });
      const code = await client.getCode({ address: entry.address });
      const balance = await client.getBalance({ address: entry.address });
      expect(nonce > 0 || (code?.length ?? 0) > 2 || balance > 0n, entry.label).toBe(true);
    }
  });

  // Last: the ticker changes balances the tests above rely on.
  it('keeps making blocks with the ticker until stopped', async () => {
    const before = await client.getBlockNumber();
    const stop = startActivityTicker(chain.anvil.rpcUrl, chain.manifest, 50);
    const deadline = Date.now() + 15_000;
    while ((await client.getBlockNumber()) < before + 3n && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await stop();
    const stoppedAt = await client.getBlockNumber();
    expect(stoppedAt).toBeGreaterThanOrEqual(before + 3n);
    const receipt = await client.getTransactionReceipt({ hash: (await client.getBlock({ blockNumber: stoppedAt })).transactions[0] });
    expect(receipt.status).toBe('success');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await client.getBlockNumber()).toBe(stoppedAt);
  });
});
