/**
 * The data every insights integration test reads: TWO real anvil chains with different chain ids,
 * ingested into the test file's table by the real ingest.
 *  - chain A (31337): the demo chain (test/support/demo-chain.ts), one block a second or faster;
 *  - chain B (8453): a second anvil with blocks 3 h 7 min 11 s apart (so time buckets differ) and
 *    a little activity of its own: the demo ERC-20 (DemoToken, deployed first so it has the same
 *    address and symbol as on chain A) minted, transferred and burned; calls of a code-less "sink"
 *    contract with calldata of every ABI value kind (one over 1 KB); and logs of well-known and
 *    unknown events from small "emitter" contracts (one per topic count, one with data over 1 KB).
 * Emitters run `LOGn(topics = calldata[0 .. 32n], data = calldata[32n ..])`; the sink accepts anything.
 * Also: a request to a handler loaded with another configuration (requestOnColdStart).
 */
import path from 'node:path';
import { expect } from 'vitest';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import {
  concat,
  createPublicClient,
  createWalletClient,
  encodeAbiParameters,
  encodeDeployData,
  encodeEventTopics,
  encodeFunctionData,
  http,
  parseAbi,
  parseAbiItem,
  type AbiEvent,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createChainClient } from '../../../shared/chain/client';
import { ingestRange, registerChain } from '../../../shared/ingest/ingest';
import { forgetChainStatuses, loadChainStatusSettings, readChainStatuses } from '../../../shared/chain-status/status';

// Lists read the chains' indexed heads from the container's copy: kept for the whole file and read once
// the fixture is ingested, so that the lists' own reads are what the tests count. (Before the handler
// modules load: they parse it at their cold start.)
// A copy is aged against now: the staleness setting is raised with it (the loader refuses a cache
// longer than it), so that a status written at the file's start does not read as `stopped`.
process.env.CHAIN_STATUS_STALE_SECONDS ??= '86400';
process.env.CHAIN_STATUS_CACHE_SECONDS ??= '600';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { localContext } from '../../../scripts/lib/api-event';
import { loadContracts } from '../../../scripts/lib/contracts';
import type { DemoManifest } from '../../../scripts/lib/demo-activity';
import { prepareRequest, readResult, REPOSITORY_ROOT } from '../../../scripts/lib/dispatch';
import { startDemoChain } from '../../support/demo-chain';

export const CHAIN_A = 31337;
export const CHAIN_B = 8453;
/** Seconds between chain B's blocks. */
export const CHAIN_B_BLOCK_INTERVAL = 3 * 3600 + 7 * 60 + 11;

/** The function the sink is called with: one parameter of every ABI value kind. */
export const SINK_FUNCTION = parseAbiItem(
  'function configure(uint8 level, int24 tick, uint48 window, uint64 nonce, uint128 liquidity, uint256 amount, int256 delta, bool enabled, address owner, bytes payload, bytes32 salt, string label, uint256[] ids, (uint16 weight, address account) entry)',
);
export const SINK_SIGNATURE_TEXT =
  'configure(uint8 level,int24 tick,uint48 window,uint64 nonce,uint128 liquidity,uint256 amount,int256 delta,bool enabled,address owner,bytes payload,bytes32 salt,string label,uint256[] ids,(uint16 weight,address account) entry)';

export interface SinkCall {
  hash: Hash;
  args: readonly unknown[];
  input: Hex;
  blockNumber: number;
}

export interface EmittedLog {
  name: string;
  event: AbiEvent;
  emitter: Address;
  hash: Hash;
  blockNumber: number;
  topics: Hex[];
  data: Hex;
  /** Values as emitted. */
  args: Record<string, unknown>;
}

export const WELL_KNOWN = {
  deposit: parseAbiItem('event Deposit(address indexed dst, uint256 wad)'),
  withdrawal: parseAbiItem('event Withdrawal(address indexed src, uint256 wad)'),
  v2Swap: parseAbiItem(
    'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
  ),
  v2Mint: parseAbiItem('event Mint(address indexed sender, uint256 amount0, uint256 amount1)'),
  v2Burn: parseAbiItem('event Burn(address indexed sender, uint256 amount0, uint256 amount1, address indexed to)'),
  v3Swap: parseAbiItem(
    'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
  ),
  v3Mint: parseAbiItem(
    'event Mint(address sender, address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)',
  ),
  v3Burn: parseAbiItem(
    'event Burn(address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)',
  ),
  approvalForAll: parseAbiItem('event ApprovalForAll(address indexed owner, address indexed operator, bool approved)'),
  nftApproval: parseAbiItem('event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)'),
} as const;

/** An event no built-in ABI knows (decoded null until an operator registers it). */
export const UNKNOWN_EVENT = parseAbiItem('event Pinged(address indexed who, uint64 round, string note)');

/** Chain B's ERC-20 activity, in order: [function, args] of DemoToken calls by the deployer or a holder. */
export interface TokenActivity {
  token: Address;
  /** Every Transfer the activity made: from, to, value (mint from zero, burn to zero). */
  transfers: { from: Address; to: Address; value: bigint; hash: Hash; blockNumber: number }[];
}

export interface ChainB extends TokenActivity {
  chainId: number;
  anvil: Anvil;
  client: PublicClient;
  sink: Address;
  sinkCalls: SinkCall[];
  /** Emitter address by topic count (2, 3, 4). */
  emitters: Record<2 | 3 | 4, Address>;
  logs: EmittedLog[];
}

export interface InsightsFixture {
  a: { chainId: number; anvil: Anvil; manifest: DemoManifest; client: PublicClient };
  b: ChainB;
  stop(): Promise<void>;
}

/** Starts both chains, runs their activity and ingests both into the current TABLE_NAME. */
export async function startInsightsFixture(): Promise<InsightsFixture> {
  const [demoA, b] = await Promise.all([startDemoChain({ chainId: CHAIN_A }), startChainB()]);
  const a = {
    chainId: CHAIN_A,
    anvil: demoA.anvil,
    manifest: demoA.manifest,
    client: createPublicClient({ transport: http(demoA.anvil.rpcUrl) }) as PublicClient,
  };
  const quiet = { info: () => {}, warn: () => {} };
  await Promise.all(
    [a, b].map(async (chain) => {
      await registerChain(chain.chainId, 0);
      await ingestRange({ chainId: chain.chainId, client: createChainClient(chain.anvil.rpcUrl), log: quiet });
    }),
  );
  forgetChainStatuses();
  await readChainStatuses([CHAIN_A, CHAIN_B], loadChainStatusSettings(), { cached: true });
  return { a, b, stop: async () => void (await Promise.all([demoA.stop(), b.anvil.stop()])) };
}

async function startChainB(): Promise<ChainB> {
  const anvil = await startAnvil({ chainId: CHAIN_B });
  try {
    const client = createPublicClient({ transport: http(anvil.rpcUrl), pollingInterval: 20 }) as PublicClient;
    await client.request({ method: 'anvil_setBlockTimestampInterval' as never, params: [CHAIN_B_BLOCK_INTERVAL] as never });
    const own = await ownActivity(anvil.rpcUrl, client);
    return { chainId: CHAIN_B, anvil, client, ...own };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

/** Init code that deploys `runtime` as is. */
function deployCode(runtime: Hex): Hex {
  const length = (runtime.length - 2) / 2;
  const size = length.toString(16).padStart(2, '0');
  return `0x60${size}600c60003960${size}6000f3${runtime.slice(2)}` as Hex;
}

/** Runtime code: LOGn with topics = calldata[0..32n], data = calldata[32n..]. */
function emitterRuntime(topics: number): Hex {
  const byte = (value: number) => value.toString(16).padStart(2, '0');
  let code = '';
  for (let index = topics - 1; index >= 0; index -= 1) code += `60${byte(32 * index)}35`; // PUSH1 32i CALLDATALOAD
  code += `60${byte(32 * topics)}3603`; // size = CALLDATASIZE - 32n
  code += `8060${byte(32 * topics)}600037`; // CALLDATACOPY(0, 32n, size)
  code += `6000${byte(0xa0 + topics)}00`; // LOGn(0, size, topics...) STOP
  return `0x${code}` as Hex;
}

async function ownActivity(rpcUrl: string, client: PublicClient) {
  const chain = {
    id: CHAIN_B,
    name: 'b',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  } as const;
  const wallets = ANVIL_PRIVATE_KEYS.map((key) =>
    createWalletClient({ account: privateKeyToAccount(key), transport: http(rpcUrl), chain }),
  );
  const [deployer, busy, alice, bob, carol] = wallets.map((wallet) => wallet.account.address.toLowerCase() as Address);
  const send = async (to: Address | null, data: Hex, from = 0) => {
    const hash = await wallets[from].sendTransaction({ to, data, gas: 3_000_000n } as Parameters<
      (typeof wallets)[number]['sendTransaction']
    >[0]);
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (receipt.status !== 'success') throw new Error(`fixture transaction ${hash} reverted`);
    return receipt;
  };
  const deploy = async (code: Hex) => (await send(null, code)).contractAddress as Address;

  // DemoToken first: the deployer's nonce 0, so the same address as on the demo chain.
  const artifacts = await loadContracts();
  const token = await deploy(encodeDeployData({ abi: artifacts.DemoToken.abi, bytecode: artifacts.DemoToken.bytecode, args: [deployer] }));
  const transfers: TokenActivity['transfers'] = [];
  const zero = '0x0000000000000000000000000000000000000000' as Address;
  const tokenCall = async (
    from: number,
    functionName: string,
    args: readonly unknown[],
    moved: { from: Address; to: Address; value: bigint },
  ) => {
    const receipt = await send(token, encodeFunctionData({ abi: artifacts.DemoToken.abi, functionName, args } as never), from);
    transfers.push({ ...moved, hash: receipt.transactionHash, blockNumber: Number(receipt.blockNumber) });
  };
  const unit = 10n ** 18n;
  await tokenCall(0, 'mint', [busy, 500n * unit], { from: zero, to: busy, value: 500n * unit });
  await tokenCall(0, 'mint', [alice, 70n * unit], { from: zero, to: alice, value: 70n * unit });
  for (const [index, to] of [alice, bob, carol, alice, bob].entries()) {
    const value = BigInt(index + 1) * 3n * unit + 1n;
    await tokenCall(1, 'transfer', [to, value], { from: busy, to, value });
  }
  await tokenCall(2, 'transfer', [carol, 9n * unit], { from: alice, to: carol, value: 9n * unit });
  await tokenCall(0, 'burn', [carol, 2n * unit], { from: carol, to: zero, value: 2n * unit });

  const sink = await deploy(deployCode('0x00'));
  const emitters = {
    2: await deploy(deployCode(emitterRuntime(2))),
    3: await deploy(deployCode(emitterRuntime(3))),
    4: await deploy(deployCode(emitterRuntime(4))),
  };

  const owner = busy;
  const sinkArgs: readonly (readonly unknown[])[] = [
    [
      7,
      -120,
      281_474_976_710_655,
      18_000_000_000_000_000_000n,
      2n ** 127n + 5n,
      2n ** 255n + 12345n,
      -(2n ** 200n),
      true,
      owner,
      '0xdeadbeef',
      `0x${'ab'.repeat(32)}`,
      'hello sink',
      [1n, 2n ** 70n],
      { weight: 65_535, account: owner },
    ],
    [
      255,
      8_388_607,
      0,
      1n,
      0n,
      1n,
      42n,
      false,
      '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
      `0x${'11'.repeat(1200)}`,
      `0x${'00'.repeat(31)}01`,
      '',
      [],
      { weight: 0, account: '0x0000000000000000000000000000000000000000' },
    ],
  ];
  const sinkCalls: SinkCall[] = [];
  for (const args of sinkArgs) {
    const input = encodeFunctionData({ abi: [SINK_FUNCTION], functionName: 'configure', args: args as never });
    const receipt = await send(sink, input);
    sinkCalls.push({ hash: receipt.transactionHash, args, input, blockNumber: Number(receipt.blockNumber) });
  }

  const someone = bob;
  const emissions: { name: string; event: AbiEvent; args: Record<string, unknown> }[] = [
    { name: 'deposit', event: WELL_KNOWN.deposit, args: { dst: owner, wad: 10n ** 18n } },
    { name: 'withdrawal', event: WELL_KNOWN.withdrawal, args: { src: owner, wad: 5n * 10n ** 17n } },
    {
      name: 'v2Swap',
      event: WELL_KNOWN.v2Swap,
      args: { sender: owner, amount0In: 1000n, amount1In: 0n, amount0Out: 0n, amount1Out: 997n, to: someone },
    },
    { name: 'v2Mint', event: WELL_KNOWN.v2Mint, args: { sender: owner, amount0: 5000n, amount1: 7000n } },
    { name: 'v2Burn', event: WELL_KNOWN.v2Burn, args: { sender: owner, amount0: 50n, amount1: 70n, to: someone } },
    {
      name: 'v3Swap',
      event: WELL_KNOWN.v3Swap,
      args: {
        sender: owner,
        recipient: someone,
        amount0: -123456789n,
        amount1: 987654321n,
        sqrtPriceX96: 2n ** 96n,
        liquidity: 10n ** 20n,
        tick: -887272,
      },
    },
    {
      name: 'v3Mint',
      event: WELL_KNOWN.v3Mint,
      args: { sender: someone, owner, tickLower: -600, tickUpper: 600, amount: 10n ** 15n, amount0: 3n, amount1: 4n },
    },
    {
      name: 'v3Burn',
      event: WELL_KNOWN.v3Burn,
      args: { owner, tickLower: -600, tickUpper: 600, amount: 10n ** 14n, amount0: 1n, amount1: 2n },
    },
    { name: 'approvalForAll', event: WELL_KNOWN.approvalForAll, args: { owner, operator: someone, approved: true } },
    { name: 'nftApproval', event: WELL_KNOWN.nftApproval, args: { owner, approved: someone, tokenId: 77n } },
    { name: 'unknown', event: UNKNOWN_EVENT, args: { who: someone, round: 3n, note: 'ping' } },
    { name: 'unknownLarge', event: UNKNOWN_EVENT, args: { who: owner, round: 4n, note: 'x'.repeat(1500) } },
  ];
  const logs: EmittedLog[] = [];
  for (const emission of emissions) {
    const topics = encodeEventTopics({ abi: [emission.event], eventName: emission.event.name, args: emission.args } as never) as Hex[];
    const nonIndexed = emission.event.inputs.filter((input) => !input.indexed);
    const data = encodeAbiParameters(nonIndexed, nonIndexed.map((input) => emission.args[input.name as string]) as never);
    const emitter = emitters[topics.length as 2 | 3 | 4];
    const receipt = await send(emitter, concat([...topics, data]));
    logs.push({ ...emission, emitter, hash: receipt.transactionHash, blockNumber: Number(receipt.blockNumber), topics, data });
  }
  return { token, transfers, sink, sinkCalls, emitters, logs };
}

/** ERC-20 Transfer events of a token, read with viem (the independent source tests compare with). */
export const erc20TransferAbi = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 value)']);

// ---------------------------------------------------------------------------------------------------
// Another configuration: a handler parses its configuration once, when its module loads (cold start).

let coldStarts = 0;

/**
 * A request answered by a fresh copy of its handler module, loaded with `env` added to the
 * environment: what a Lambda cold start with that configuration answers. The modules it imports
 * (the table client, the chain registry cache) are the process's own.
 */
export async function requestOnColdStart(env: Record<string, string>, method: string, url: string): Promise<{ status: number; body: any }> {
  const prepared = prepareRequest({ api: 'base', method, url });
  const saved = Object.entries(env).map(([name]) => [name, process.env[name]] as const);
  Object.assign(process.env, env);
  let module: { handler: (event: unknown, context: unknown) => Promise<APIGatewayProxyResultV2> };
  try {
    coldStarts += 1;
    module = await import(
      /* @vite-ignore */ `${pathToFileURL(path.join(REPOSITORY_ROOT, prepared.modulePath)).href}?cold-start=${coldStarts}`
    );
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  const response = readResult(await module.handler(prepared.event, localContext(prepared.functionName)));
  return { status: response.statusCode, body: JSON.parse(response.body) };
}

/** The meta's `indexed_heads` of a list of `chainIds` on the fixture: every chain ingested up to its node's head. */
export function indexedHeads(chainIds: readonly number[]): unknown[] {
  return chainIds.map((chainId) =>
    expect.objectContaining({
      chain_id: chainId,
      block_number: expect.any(Number),
      block_timestamp: expect.any(Number),
      state: 'following',
      lag_blocks: 0,
    }),
  );
}
