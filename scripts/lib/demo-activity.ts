/**
 * The demo chain's activity: deploys the contracts in contracts/ on a local anvil and drives a
 * fixed, varied plan of transactions through them with viem, one block per transaction (anvil
 * automines). Everything is deterministic (anvil's dev keys, fixed amounts, fixed order), so the
 * manifest returned says exactly what happened and tests can assert exact values.
 *
 * Roles (anvil's first five dev accounts):
 *   deployer  owns every contract; mints, burns, pays the splitter, creates through the factory
 *   busy      the address with more than 51 token transfers and more than 51 transactions
 *   alice     holds NFTs and ERC-1155 ids; sends the TransferBatch; pays the best-effort splitter
 *   bob       receives; moves an NFT as an approved operator
 *   carol     receives; burns an NFT
 * plus three payees: addresses without a key that only ever receive (ether in internal calls,
 * ether from self-destructs, tokens).
 */
import {
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  defineChain,
  getAddress,
  http,
  keccak256,
  parseEther,
  slice,
  toBytes,
  type Abi,
  type Account,
  type Address,
  type Chain,
  type Hash,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_PRIVATE_KEYS } from './anvil';
import { loadContracts, type DemoArtifacts } from './contracts';

export const DEMO_ROLES = ['deployer', 'busy', 'alice', 'bob', 'carol'] as const;
export type DemoRole = (typeof DEMO_ROLES)[number];

export const DEMO_PAYEES = ['payee1', 'payee2', 'payee3'] as const;
export type DemoPayee = (typeof DEMO_PAYEES)[number];

/** A keyless address derived from a label, so it is the same on every run. */
export function payeeAddress(label: DemoPayee): Address {
  return getAddress(slice(keccak256(toBytes(`demo-chain ${label}`)), 12));
}

/** The CREATE2 salt the factory uses for its deterministic child. */
export const DEMO_CREATE2_SALT: Hex = keccak256(toBytes('demo-chain create2 child'));

/** The amounts and ids of the plan. Tests derive expected values from these. */
export const DEMO_PLAN = {
  /** ERC-20 transfers the busy address sends, the i-th (1-based) carrying i DEMO. */
  busyTransferCount: 55,
  busyTransferUnit: parseEther('1'),
  busyTransferRecipients: ['alice', 'bob', 'carol', 'payee2'] as const,
  vaultDeposit: parseEther('1'),
  nativeTransfers: [
    { from: 'alice', to: 'busy', value: parseEther('1') },
    { from: 'busy', to: 'bob', value: parseEther('0.5') },
    { from: 'bob', to: 'carol', value: parseEther('0.25') },
    { from: 'carol', to: 'alice', value: parseEther('0.125') },
    { from: 'deployer', to: 'payee3', value: parseEther('0.1') },
    { from: 'busy', to: 'payee1', value: parseEther('0.05') },
  ] as const,
  token: {
    mintBusy: parseEther('10000'),
    mintAlice: parseEther('1000'),
    aliceToCarol: parseEther('100'),
    burnFromCarol: parseEther('40'),
    busyApprovesAlice: parseEther('50'),
    aliceTakesFromBusy: parseEther('50'),
    busyApprovesSplitter: parseEther('500'),
    distribute: [
      { to: 'alice', amount: parseEther('10') },
      { to: 'bob', amount: parseEther('20') },
      { to: 'payee1', amount: parseEther('30') },
    ] as const,
    /** More than busy ever holds: reverts with ERC20InsufficientBalance. */
    overdraft: parseEther('1000000'),
  },
  nft: {
    /** Minted to alice. Even ids have data: metadata, odd ids ipfs: metadata. */
    mintedIds: [1n, 2n, 3n, 4n, 5n, 6n],
    aliceToBusy: 2n,
    aliceToCarol: 3n,
    /** alice approves bob for this id, bob pulls it. */
    approvedForBob: 4n,
    /** carol burns the id alice gave her. */
    burnedByCarol: 3n,
  },
  multi: {
    single: { id: 1n, mint: 100n, toCarol: 5n },
    batch: { ids: [2n, 3n, 4n], mint: [10n, 20n, 30n], toBusy: [1n, 2n, 3n] },
  },
  split: [
    { to: 'payee1', amount: parseEther('1') },
    { to: 'payee2', amount: parseEther('1.5') },
    { to: 'payee3', amount: parseEther('0.5') },
  ] as const,
  splitBestEffort: { payee: 'payee2', paid: parseEther('0.4'), refused: parseEther('0.6') } as const,
  factory: { createTag: 7n, create2Tag: 8n, ephemeralValue: parseEther('0.05'), ephemeralBeneficiary: 'payee3' } as const,
  vaultBeneficiary: 'payee2',
  /** Explicit gas for the transactions meant to revert, so estimation does not refuse them. */
  revertGas: 200_000n,
} as const;

export const DEMO_TX_KINDS = [
  'contractCreation',
  'nativeTransfer',
  'tokenMint',
  'tokenTransfer',
  'tokenBurn',
  'approval',
  'nftMint',
  'nftTransfer',
  'nftBurn',
  'multiMint',
  'singleTransfer',
  'batchTransfer',
  'factoryCreate',
  'factoryCreate2',
  'internalValue',
  'failedInternalCall',
  'tokenViaContract',
  'selfdestruct',
  'reverted',
] as const;
export type DemoTxKind = (typeof DEMO_TX_KINDS)[number];

export interface DemoContracts {
  token: Address;
  nft: Address;
  multi: Address;
  factory: Address;
  splitter: Address;
  vault: Address;
  reverter: Address;
}

export interface DemoDeployment {
  chainId: number;
  contracts: DemoContracts;
  /** Deployment transaction of each contract. */
  deployTransactions: Record<keyof DemoContracts, Hash>;
  /** The deployment transactions as recorded (part of the manifest's transactions). */
  transactions: DemoTransaction[];
  firstBlock: number;
}

export interface DemoTransaction {
  hash: Hash;
  kinds: DemoTxKind[];
  blockNumber: number;
  from: Address;
  to: Address | null;
  /** The contract a top-level deployment created. */
  createdContract: Address | null;
  status: 'success' | 'reverted';
}

/** What happened on the demo chain. Amounts are decimal strings (wei / token units). */
export interface DemoManifest {
  chainId: number;
  rpcUrl: string;
  contracts: DemoContracts;
  accounts: Record<DemoRole, Address>;
  payees: Record<DemoPayee, Address>;
  /** Every transaction in order. */
  transactions: DemoTransaction[];
  /** Transaction hashes by kind; a transaction may have several kinds. */
  transactionsByKind: Record<DemoTxKind, Hash[]>;
  blocks: { first: number; last: number };
  addressesWorthQuerying: { address: Address; label: string; description: string }[];
  highlights: {
    alwaysReverts: { hash: Hash; reason: string };
    customErrorRevert: { hash: Hash; errorName: string };
    factoryCreate: { hash: Hash; child: Address; tag: string };
    factoryCreate2: { hash: Hash; child: Address; tag: string; salt: Hex };
    ephemeral: { hash: Hash; address: Address; beneficiary: Address; value: string };
    vaultSelfdestruct: { hash: Hash; beneficiary: Address; value: string };
    split: { hash: Hash; payments: { to: Address; amount: string }[] };
    splitBestEffort: { hash: Hash; paid: { to: Address; amount: string }; refused: { to: Address; amount: string } };
    tokenViaContract: { hash: Hash; transfers: { from: Address; to: Address; amount: string }[] };
    batchTransfer: { hash: Hash; from: Address; to: Address; ids: string[]; amounts: string[] };
    singleTransfer: { hash: Hash; from: Address; to: Address; id: string; amount: string };
    nftOnChainMetadataId: string;
    nftIpfsMetadataId: string;
  };
  /** The state the plan leads to, computed from the plan (not read from the chain). */
  expected: {
    tokenBalances: Record<Address, string>;
    tokenTotalSupply: string;
    /** token id → owner, null when burned. */
    nftOwners: Record<string, Address | null>;
    multiBalances: { owner: Address; id: string; amount: string }[];
    /** Ether received by each payee (they never send, so this is their balance). */
    payeeBalances: Record<Address, string>;
    /** Transactions sent from or to each address (created contracts not counted). */
    transactionCounts: Record<Address, number>;
    /** ERC-20/721/1155 transfer entries touching each address (a batch counts once per id). */
    tokenTransferCounts: Record<Address, number>;
  };
}

export interface GenerateDemoActivityOptions {
  /** Contracts already deployed by deployDemoContracts; deployed here when absent. */
  deployment?: DemoDeployment;
  /** ERC-20 transfers sent by the busy address (default DEMO_PLAN.busyTransferCount, at least 52). */
  busyTransfers?: number;
  /** Called after each transaction (for a progress bar). */
  onTransaction?: (transaction: DemoTransaction) => void;
}

type Clients = {
  chain: Chain;
  publicClient: PublicClient<Transport, Chain>;
  wallets: Record<DemoRole, WalletClient<Transport, Chain, Account>>;
  accounts: Record<DemoRole, Address>;
};

async function connect(rpcUrl: string): Promise<Clients> {
  const probe = createPublicClient({ transport: http(rpcUrl) });
  const chainId = await probe.getChainId();
  const chain = defineChain({
    id: chainId,
    name: `Demo chain ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 20 });
  const wallets = {} as Clients['wallets'];
  const accounts = {} as Clients['accounts'];
  DEMO_ROLES.forEach((role, index) => {
    const account = privateKeyToAccount(ANVIL_PRIVATE_KEYS[index]);
    wallets[role] = createWalletClient({ account, chain, transport, pollingInterval: 20 });
    accounts[role] = account.address;
  });
  return { chain, publicClient, wallets, accounts };
}

interface WriteRequest {
  address: Address;
  abi: Abi;
  functionName: string;
  args?: readonly unknown[];
  value?: bigint;
  gas?: bigint;
}

/** Sends transactions one at a time, waits for each receipt and records it. */
class Recorder {
  readonly transactions: DemoTransaction[] = [];

  constructor(
    private readonly clients: Clients,
    private readonly onTransaction?: (transaction: DemoTransaction) => void,
  ) {}

  async write(kinds: DemoTxKind[], role: DemoRole, request: WriteRequest, expect: 'success' | 'reverted' = 'success') {
    const wallet = this.clients.wallets[role];
    const hash = await wallet.writeContract({ ...request, args: request.args ?? [] } as Parameters<typeof wallet.writeContract>[0]);
    return this.settle(kinds, hash, expect);
  }

  async sendEther(role: DemoRole, to: Address, value: bigint) {
    const hash = await this.clients.wallets[role].sendTransaction({ to, value });
    return this.settle(['nativeTransfer'], hash, 'success');
  }

  async deploy(role: DemoRole, artifact: { abi: Abi; bytecode: Hex }, args: readonly unknown[], value?: bigint) {
    const wallet = this.clients.wallets[role];
    const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args, value } as Parameters<
      typeof wallet.deployContract
    >[0]);
    const receipt = await this.settle(['contractCreation'], hash, 'success');
    if (!receipt.contractAddress) throw new Error(`deployment ${hash} created no contract`);
    return { hash, address: getAddress(receipt.contractAddress), receipt };
  }

  private async settle(kinds: DemoTxKind[], hash: Hash, expect: 'success' | 'reverted'): Promise<TransactionReceipt> {
    const receipt = await this.clients.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (receipt.status !== expect) {
      throw new Error(`demo transaction ${hash} (${kinds.join(', ')}) ended ${receipt.status}, expected ${expect}`);
    }
    const transaction: DemoTransaction = {
      hash,
      kinds: expect === 'reverted' && !kinds.includes('reverted') ? [...kinds, 'reverted'] : kinds,
      blockNumber: Number(receipt.blockNumber),
      from: getAddress(receipt.from),
      to: receipt.to ? getAddress(receipt.to) : null,
      createdContract: receipt.contractAddress ? getAddress(receipt.contractAddress) : null,
      status: receipt.status,
    };
    this.transactions.push(transaction);
    this.onTransaction?.(transaction);
    return receipt;
  }
}

/** Deploys the demo contracts from the deployer account (the vault with DEMO_PLAN.vaultDeposit). */
export async function deployDemoContracts(rpcUrl: string): Promise<DemoDeployment> {
  const [artifacts, clients] = await Promise.all([loadContracts(), connect(rpcUrl)]);
  const recorder = new Recorder(clients);
  return deployWith(recorder, clients, artifacts);
}

async function deployWith(recorder: Recorder, clients: Clients, artifacts: DemoArtifacts): Promise<DemoDeployment> {
  const owner = clients.accounts.deployer;
  const token = await recorder.deploy('deployer', artifacts.DemoToken, [owner]);
  const nft = await recorder.deploy('deployer', artifacts.DemoNFT, [owner]);
  const multi = await recorder.deploy('deployer', artifacts.DemoMulti, [owner]);
  const factory = await recorder.deploy('deployer', artifacts.DemoFactory, []);
  const splitter = await recorder.deploy('deployer', artifacts.DemoSplitter, []);
  const vault = await recorder.deploy('deployer', artifacts.DemoVault, [], DEMO_PLAN.vaultDeposit);
  const reverter = await recorder.deploy('deployer', artifacts.DemoReverter, []);
  const deployed = { token, nft, multi, factory, splitter, vault, reverter };
  return {
    chainId: clients.chain.id,
    contracts: Object.fromEntries(Object.entries(deployed).map(([name, d]) => [name, d.address])) as unknown as DemoContracts,
    deployTransactions: Object.fromEntries(Object.entries(deployed).map(([name, d]) => [name, d.hash])) as unknown as Record<
      keyof DemoContracts,
      Hash
    >,
    transactions: [...recorder.transactions],
    firstBlock: Number(token.receipt.blockNumber),
  };
}

/** Expected state, kept by applying the plan's amounts (never by reading the chain). */
class Ledger {
  readonly tokens = new Map<Address, bigint>();
  tokenSupply = 0n;
  readonly nftOwners = new Map<bigint, Address | null>();
  readonly multi = new Map<string, bigint>();
  readonly payees = new Map<Address, bigint>();
  readonly txCounts = new Map<Address, number>();
  readonly transferCounts = new Map<Address, number>();

  private bump(map: Map<Address, number>, ...addresses: (Address | null)[]) {
    for (const address of new Set(addresses)) {
      if (address) map.set(address, (map.get(address) ?? 0) + 1);
    }
  }

  transaction(from: Address, to: Address | null) {
    this.bump(this.txCounts, from, to);
  }

  tokenTransfer(from: Address | null, to: Address | null, amount: bigint) {
    if (from) this.tokens.set(from, (this.tokens.get(from) ?? 0n) - amount);
    else this.tokenSupply += amount;
    if (to) this.tokens.set(to, (this.tokens.get(to) ?? 0n) + amount);
    else this.tokenSupply -= amount;
    this.bump(this.transferCounts, from, to);
  }

  nftTransfer(from: Address | null, to: Address | null, id: bigint) {
    this.nftOwners.set(id, to);
    this.bump(this.transferCounts, from, to);
  }

  multiTransfer(from: Address | null, to: Address | null, ids: readonly bigint[], amounts: readonly bigint[]) {
    ids.forEach((id, index) => {
      const amount = amounts[index];
      if (from) this.multi.set(`${from}:${id}`, (this.multi.get(`${from}:${id}`) ?? 0n) - amount);
      if (to) this.multi.set(`${to}:${id}`, (this.multi.get(`${to}:${id}`) ?? 0n) + amount);
      this.bump(this.transferCounts, from, to);
    });
  }

  payeeReceived(to: Address, amount: bigint) {
    this.payees.set(to, (this.payees.get(to) ?? 0n) + amount);
  }
}

/**
 * Runs the whole plan (deploying first unless options.deployment is given) and returns the
 * manifest. About 120 transactions, one block each.
 */
export async function generateDemoActivity(rpcUrl: string, options: GenerateDemoActivityOptions = {}): Promise<DemoManifest> {
  const busyTransferCount = options.busyTransfers ?? DEMO_PLAN.busyTransferCount;
  if (busyTransferCount < 52) throw new Error('busyTransfers must be at least 52 (explorer pages are 50 + 1)');
  const [artifacts, clients] = await Promise.all([loadContracts(), connect(rpcUrl)]);
  const recorder = new Recorder(clients, options.onTransaction);
  const deployment = options.deployment ?? (await deployWith(recorder, clients, artifacts));
  const { contracts } = deployment;
  const { accounts } = clients;
  const payees = Object.fromEntries(DEMO_PAYEES.map((label) => [label, payeeAddress(label)])) as Record<DemoPayee, Address>;
  const who = (name: DemoRole | DemoPayee): Address => (name in accounts ? accounts[name as DemoRole] : payees[name as DemoPayee]);
  const ledger = new Ledger();
  for (let i = 0; i < Object.keys(contracts).length; i++) ledger.transaction(accounts.deployer, null);

  const token = { address: contracts.token, abi: artifacts.DemoToken.abi };
  const nft = { address: contracts.nft, abi: artifacts.DemoNFT.abi };
  const multi = { address: contracts.multi, abi: artifacts.DemoMulti.abi };
  const factory = { address: contracts.factory, abi: artifacts.DemoFactory.abi };
  const splitter = { address: contracts.splitter, abi: artifacts.DemoSplitter.abi };
  const vault = { address: contracts.vault, abi: artifacts.DemoVault.abi };
  const reverter = { address: contracts.reverter, abi: artifacts.DemoReverter.abi };
  const write = async (kinds: DemoTxKind[], role: DemoRole, request: WriteRequest, expect?: 'success' | 'reverted') => {
    const receipt = await recorder.write(kinds, role, request, expect);
    ledger.transaction(accounts[role], request.address);
    return receipt;
  };

  // Native transfers between the accounts and to a payee.
  for (const transfer of DEMO_PLAN.nativeTransfers) {
    await recorder.sendEther(transfer.from, who(transfer.to), transfer.value);
    ledger.transaction(accounts[transfer.from], who(transfer.to));
    if (transfer.to.startsWith('payee')) ledger.payeeReceived(who(transfer.to), transfer.value);
  }

  // ERC-20: mints, a transfer, a burn, approvals, a transferFrom through an allowance.
  const plan = DEMO_PLAN.token;
  await write(['tokenMint'], 'deployer', { ...token, functionName: 'mint', args: [accounts.busy, plan.mintBusy] });
  ledger.tokenTransfer(null, accounts.busy, plan.mintBusy);
  await write(['tokenMint'], 'deployer', { ...token, functionName: 'mint', args: [accounts.alice, plan.mintAlice] });
  ledger.tokenTransfer(null, accounts.alice, plan.mintAlice);
  await write(['tokenTransfer'], 'alice', { ...token, functionName: 'transfer', args: [accounts.carol, plan.aliceToCarol] });
  ledger.tokenTransfer(accounts.alice, accounts.carol, plan.aliceToCarol);
  await write(['tokenBurn'], 'deployer', { ...token, functionName: 'burn', args: [accounts.carol, plan.burnFromCarol] });
  ledger.tokenTransfer(accounts.carol, null, plan.burnFromCarol);
  await write(['approval'], 'busy', { ...token, functionName: 'approve', args: [accounts.alice, plan.busyApprovesAlice] });
  await write(['tokenTransfer'], 'alice', {
    ...token,
    functionName: 'transferFrom',
    args: [accounts.busy, accounts.alice, plan.aliceTakesFromBusy],
  });
  ledger.tokenTransfer(accounts.busy, accounts.alice, plan.aliceTakesFromBusy);

  // The splitter moves DEMO from busy (internal calls to the token) with busy's approval.
  await write(['approval'], 'busy', { ...token, functionName: 'approve', args: [contracts.splitter, plan.busyApprovesSplitter] });
  const distributeReceipt = await write(['tokenViaContract'], 'busy', {
    ...splitter,
    functionName: 'distributeToken',
    args: [contracts.token, plan.distribute.map((d) => who(d.to)), plan.distribute.map((d) => d.amount)],
  });
  for (const d of plan.distribute) ledger.tokenTransfer(accounts.busy, who(d.to), d.amount);

  // ERC-721: mints (data: and ipfs: metadata), transfers, an approved operator, a burn.
  const nftPlan = DEMO_PLAN.nft;
  for (const id of nftPlan.mintedIds) {
    await write(['nftMint'], 'deployer', { ...nft, functionName: 'mint', args: [accounts.alice, id] });
    ledger.nftTransfer(null, accounts.alice, id);
  }
  await write(['nftTransfer'], 'alice', {
    ...nft,
    functionName: 'transferFrom',
    args: [accounts.alice, accounts.busy, nftPlan.aliceToBusy],
  });
  ledger.nftTransfer(accounts.alice, accounts.busy, nftPlan.aliceToBusy);
  await write(['nftTransfer'], 'alice', {
    ...nft,
    functionName: 'safeTransferFrom',
    args: [accounts.alice, accounts.carol, nftPlan.aliceToCarol],
  });
  ledger.nftTransfer(accounts.alice, accounts.carol, nftPlan.aliceToCarol);
  await write(['approval'], 'alice', { ...nft, functionName: 'approve', args: [accounts.bob, nftPlan.approvedForBob] });
  await write(['nftTransfer'], 'bob', {
    ...nft,
    functionName: 'transferFrom',
    args: [accounts.alice, accounts.bob, nftPlan.approvedForBob],
  });
  ledger.nftTransfer(accounts.alice, accounts.bob, nftPlan.approvedForBob);
  await write(['nftBurn'], 'carol', { ...nft, functionName: 'burn', args: [nftPlan.burnedByCarol] });
  ledger.nftTransfer(accounts.carol, null, nftPlan.burnedByCarol);
  await write(['approval'], 'alice', { ...nft, functionName: 'setApprovalForAll', args: [accounts.busy, true] });

  // ERC-1155: a mint, a batch mint, a TransferSingle and a TransferBatch of several ids.
  const { single, batch } = DEMO_PLAN.multi;
  await write(['multiMint'], 'deployer', { ...multi, functionName: 'mint', args: [accounts.alice, single.id, single.mint] });
  ledger.multiTransfer(null, accounts.alice, [single.id], [single.mint]);
  await write(['multiMint'], 'deployer', { ...multi, functionName: 'mintBatch', args: [accounts.alice, batch.ids, batch.mint] });
  ledger.multiTransfer(null, accounts.alice, batch.ids, batch.mint);
  const singleReceipt = await write(['singleTransfer'], 'alice', {
    ...multi,
    functionName: 'safeTransferFrom',
    args: [accounts.alice, accounts.carol, single.id, single.toCarol, '0x'],
  });
  ledger.multiTransfer(accounts.alice, accounts.carol, [single.id], [single.toCarol]);
  const batchReceipt = await write(['batchTransfer'], 'alice', {
    ...multi,
    functionName: 'safeBatchTransferFrom',
    args: [accounts.alice, accounts.busy, batch.ids, batch.toBusy, '0x'],
  });
  ledger.multiTransfer(accounts.alice, accounts.busy, batch.ids, batch.toBusy);

  // The busy address: enough ERC-20 transfers for explorer pages of 50 + 1.
  for (let i = 1; i <= busyTransferCount; i++) {
    const recipient = who(DEMO_PLAN.busyTransferRecipients[(i - 1) % DEMO_PLAN.busyTransferRecipients.length]);
    const amount = DEMO_PLAN.busyTransferUnit * BigInt(i);
    await write(['tokenTransfer'], 'busy', { ...token, functionName: 'transfer', args: [recipient, amount] });
    ledger.tokenTransfer(accounts.busy, recipient, amount);
  }

  // Value-carrying internal calls: the splitter pays three payees; a best-effort split where the
  // reverter refuses its share (failed internal call inside a successful transaction).
  const splitTotal = DEMO_PLAN.split.reduce((sum, p) => sum + p.amount, 0n);
  const splitReceipt = await write(['internalValue'], 'deployer', {
    ...splitter,
    functionName: 'split',
    args: [DEMO_PLAN.split.map((p) => who(p.to)), DEMO_PLAN.split.map((p) => p.amount)],
    value: splitTotal,
  });
  for (const p of DEMO_PLAN.split) ledger.payeeReceived(who(p.to), p.amount);
  const bestEffort = DEMO_PLAN.splitBestEffort;
  const bestEffortReceipt = await write(['internalValue', 'failedInternalCall'], 'alice', {
    ...splitter,
    functionName: 'splitBestEffort',
    args: [
      [who(bestEffort.payee), contracts.reverter],
      [bestEffort.paid, bestEffort.refused],
    ],
    value: bestEffort.paid + bestEffort.refused,
  });
  ledger.payeeReceived(who(bestEffort.payee), bestEffort.paid);

  // The factory: a CREATE child, a CREATE2 child, and a child that self-destructs at birth.
  const f = DEMO_PLAN.factory;
  const createReceipt = await write(['factoryCreate'], 'deployer', { ...factory, functionName: 'createChild', args: [f.createTag] });
  const create2Receipt = await write(['factoryCreate2'], 'deployer', {
    ...factory,
    functionName: 'createChildDeterministic',
    args: [DEMO_CREATE2_SALT, f.create2Tag],
  });
  const ephemeralReceipt = await write(['factoryCreate', 'selfdestruct', 'internalValue'], 'deployer', {
    ...factory,
    functionName: 'createEphemeral',
    args: [who(f.ephemeralBeneficiary)],
    value: f.ephemeralValue,
  });
  ledger.payeeReceived(who(f.ephemeralBeneficiary), f.ephemeralValue);

  // The vault self-destructs (post-Cancun: sends its balance, keeps its code).
  const vaultReceipt = await write(['selfdestruct'], 'deployer', {
    ...vault,
    functionName: 'destroy',
    args: [who(DEMO_PLAN.vaultBeneficiary)],
  });
  ledger.payeeReceived(who(DEMO_PLAN.vaultBeneficiary), DEMO_PLAN.vaultDeposit);

  // Reverted transactions, sent with explicit gas: a reason string and a custom error.
  const alwaysRevertsReceipt = await write(
    ['reverted'],
    'busy',
    { ...reverter, functionName: 'alwaysReverts', gas: DEMO_PLAN.revertGas },
    'reverted',
  );
  const overdraftReceipt = await write(
    ['reverted'],
    'busy',
    { ...token, functionName: 'transfer', args: [accounts.alice, plan.overdraft], gas: DEMO_PLAN.revertGas },
    'reverted',
  );

  const childOf = (receipt: TransactionReceipt, eventName: 'ChildCreated' | 'EphemeralCreated'): Address => {
    for (const log of receipt.logs) {
      if (getAddress(log.address) !== contracts.factory) continue;
      const event = decodeEventLog({ abi: artifacts.DemoFactory.abi, data: log.data, topics: log.topics, strict: false });
      if (event.eventName === eventName) {
        const args = event.args as unknown as { child?: Address; ephemeral?: Address };
        return getAddress((args.child ?? args.ephemeral) as Address);
      }
    }
    throw new Error(`${receipt.transactionHash} emitted no ${eventName}`);
  };

  // With a deployment passed in, its transactions come first; otherwise the recorder has them.
  const transactions = [...(options.deployment?.transactions ?? []), ...recorder.transactions];
  const transactionsByKind = Object.fromEntries(DEMO_TX_KINDS.map((kind) => [kind, [] as Hash[]])) as Record<DemoTxKind, Hash[]>;
  for (const transaction of transactions) {
    for (const kind of transaction.kinds) {
      if (!transactionsByKind[kind].includes(transaction.hash)) transactionsByKind[kind].push(transaction.hash);
    }
  }

  const str = (value: bigint) => value.toString();
  const manifest: DemoManifest = {
    chainId: clients.chain.id,
    rpcUrl,
    contracts,
    accounts,
    payees,
    transactions,
    transactionsByKind,
    blocks: { first: transactions[0].blockNumber, last: transactions[transactions.length - 1].blockNumber },
    addressesWorthQuerying: [],
    highlights: {
      alwaysReverts: { hash: alwaysRevertsReceipt.transactionHash, reason: 'demo: always reverts' },
      customErrorRevert: { hash: overdraftReceipt.transactionHash, errorName: 'ERC20InsufficientBalance' },
      factoryCreate: { hash: createReceipt.transactionHash, child: childOf(createReceipt, 'ChildCreated'), tag: str(f.createTag) },
      factoryCreate2: {
        hash: create2Receipt.transactionHash,
        child: childOf(create2Receipt, 'ChildCreated'),
        tag: str(f.create2Tag),
        salt: DEMO_CREATE2_SALT,
      },
      ephemeral: {
        hash: ephemeralReceipt.transactionHash,
        address: childOf(ephemeralReceipt, 'EphemeralCreated'),
        beneficiary: who(f.ephemeralBeneficiary),
        value: str(f.ephemeralValue),
      },
      vaultSelfdestruct: {
        hash: vaultReceipt.transactionHash,
        beneficiary: who(DEMO_PLAN.vaultBeneficiary),
        value: str(DEMO_PLAN.vaultDeposit),
      },
      split: {
        hash: splitReceipt.transactionHash,
        payments: DEMO_PLAN.split.map((p) => ({ to: who(p.to), amount: str(p.amount) })),
      },
      splitBestEffort: {
        hash: bestEffortReceipt.transactionHash,
        paid: { to: who(bestEffort.payee), amount: str(bestEffort.paid) },
        refused: { to: contracts.reverter, amount: str(bestEffort.refused) },
      },
      tokenViaContract: {
        hash: distributeReceipt.transactionHash,
        transfers: plan.distribute.map((d) => ({ from: accounts.busy, to: who(d.to), amount: str(d.amount) })),
      },
      batchTransfer: {
        hash: batchReceipt.transactionHash,
        from: accounts.alice,
        to: accounts.busy,
        ids: batch.ids.map(str),
        amounts: batch.toBusy.map(str),
      },
      singleTransfer: {
        hash: singleReceipt.transactionHash,
        from: accounts.alice,
        to: accounts.carol,
        id: str(single.id),
        amount: str(single.toCarol),
      },
      nftOnChainMetadataId: str(nftPlan.aliceToBusy),
      nftIpfsMetadataId: str(nftPlan.mintedIds[0]),
    },
    expected: {
      tokenBalances: Object.fromEntries([...ledger.tokens].map(([address, amount]) => [address, str(amount)])),
      tokenTotalSupply: str(ledger.tokenSupply),
      nftOwners: Object.fromEntries([...ledger.nftOwners].map(([id, owner]) => [str(id), owner])),
      multiBalances: [...ledger.multi].map(([key, amount]) => {
        const [owner, id] = key.split(':');
        return { owner: owner as Address, id, amount: str(amount) };
      }),
      payeeBalances: Object.fromEntries([...ledger.payees].map(([address, amount]) => [address, str(amount)])),
      transactionCounts: Object.fromEntries(ledger.txCounts),
      tokenTransferCounts: Object.fromEntries(ledger.transferCounts),
    },
  };
  manifest.addressesWorthQuerying = describeAddresses(manifest);
  return manifest;
}

function describeAddresses(m: DemoManifest): DemoManifest['addressesWorthQuerying'] {
  const count = (address: Address) => m.expected.transactionCounts[address] ?? 0;
  const transfers = (address: Address) => m.expected.tokenTransferCounts[address] ?? 0;
  return [
    {
      address: m.accounts.busy,
      label: 'busy account',
      description: `${transfers(m.accounts.busy)} token transfers and ${count(m.accounts.busy)} transactions: explorer pages of 50 and a next page; two reverted txs`,
    },
    {
      address: m.accounts.alice,
      label: 'alice',
      description: 'holds ERC-721 ids (data: and ipfs: metadata) and ERC-1155 ids; sent a TransferBatch and a best-effort split',
    },
    {
      address: m.contracts.token,
      label: 'DemoToken (ERC-20)',
      description: 'DEMO: mints, transfers, a burn, approvals, transfers made by the splitter',
    },
    {
      address: m.contracts.nft,
      label: 'DemoNFT (ERC-721)',
      description: 'mints, transfers, an approved operator, a burn; even ids have data: metadata',
    },
    {
      address: m.contracts.multi,
      label: 'DemoMulti (ERC-1155)',
      description: 'mint, batch mint, TransferSingle and TransferBatch of several ids',
    },
    {
      address: m.contracts.factory,
      label: 'DemoFactory',
      description: 'created a CREATE child, a CREATE2 child and a child that self-destructed at birth',
    },
    {
      address: m.contracts.splitter,
      label: 'DemoSplitter',
      description: 'internal transactions carrying ether (one failed), ERC-20 moved in internal calls',
    },
    {
      address: m.payees.payee2,
      label: 'payee2',
      description: 'keyless: only receives (internal calls, a self-destruct, tokens); never sends',
    },
    { address: m.contracts.vault, label: 'DemoVault', description: 'self-destructed after Cancun: balance sent away, code still there' },
    {
      address: m.contracts.reverter,
      label: 'DemoReverter',
      description: 'target of a reverted transaction ("demo: always reverts"); refuses ether',
    },
  ];
}

/**
 * Keeps the chain moving for `npm start`: every intervalMs a small random transaction (ether
 * between accounts, a DEMO transfer, an ERC-1155 mint or an ERC-721 mint). Returns stop(), which
 * waits for the transaction in flight.
 */
export function startActivityTicker(rpcUrl: string, manifest: DemoManifest, intervalMs = 3000): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  let warned = false;
  const clientsReady = Promise.all([loadContracts(), connect(rpcUrl)]);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)];
  const people = ['alice', 'bob', 'carol'] as const;

  const tick = async () => {
    const [artifacts, clients] = await clientsReady;
    const action = pick(['ether', 'token', 'multi', 'nft'] as const);
    let hash: Hash;
    if (action === 'ether') {
      const from = pick(people);
      const to = pick(people.filter((p) => p !== from));
      hash = await clients.wallets[from].sendTransaction({
        to: manifest.accounts[to],
        value: parseEther('0.001') * BigInt(1 + Math.floor(Math.random() * 10)),
      });
    } else if (action === 'token') {
      hash = await clients.wallets.busy.writeContract({
        address: manifest.contracts.token,
        abi: artifacts.DemoToken.abi,
        functionName: 'transfer',
        args: [manifest.accounts[pick(people)], parseEther('0.1') * BigInt(1 + Math.floor(Math.random() * 10))],
      });
    } else if (action === 'multi') {
      hash = await clients.wallets.deployer.writeContract({
        address: manifest.contracts.multi,
        abi: artifacts.DemoMulti.abi,
        functionName: 'mint',
        args: [manifest.accounts[pick(people)], BigInt(1 + Math.floor(Math.random() * 4)), BigInt(1 + Math.floor(Math.random() * 5))],
      });
    } else {
      hash = await clients.wallets.deployer.writeContract({
        address: manifest.contracts.nft,
        abi: artifacts.DemoNFT.abi,
        functionName: 'mint',
        args: [manifest.accounts[pick(people)], BigInt(10_000 + Math.floor(Math.random() * 1_000_000_000))],
      });
    }
    await clients.publicClient.waitForTransactionReceipt({ hash, timeout: 60_000 });
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      inFlight = tick()
        .catch((error: unknown) => {
          if (!warned && !stopped) {
            warned = true;
            console.warn(`demo ticker: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
          }
        })
        .finally(schedule);
    }, intervalMs);
  };
  schedule();

  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await inFlight;
  };
}
