/**
 * Sending the demo contracts' transactions to an anvil from its funded accounts, as the ingest tests do
 * (deep-reorg, manifest-expiry): a wallet on the anvil's chain, each call waited for until mined.
 */
import { createWalletClient, defineChain, http, type Address, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_PRIVATE_KEYS, type Anvil } from '../../../../scripts/lib/anvil';
import type { DemoArtifacts } from '../../../../scripts/lib/contracts';
import { publicClient } from './truth';

export type DemoContract = 'DemoToken' | 'DemoNFT' | 'DemoSplitter';
/** The demo contracts deployed without an owner. */
const OWNERLESS: readonly DemoContract[] = ['DemoSplitter'];

export const demoAccounts = ANVIL_PRIVATE_KEYS.map((key) => privateKeyToAccount(key));

export interface DemoWallet {
  wallet: ReturnType<typeof createWalletClient>;
  /** Waits until the transaction is mined; the contract it created, if any. */
  mined(hash: Promise<Hash>): Promise<Address | null>;
  /** Deploys a demo contract (owned by account 0, when it has an owner). */
  deploy(name: DemoContract): Promise<Address>;
  /** Calls `functionName` of a demo contract from account `from` (0 by default), paying `value` wei. */
  call(address: Address, name: DemoContract, functionName: string, args: unknown[], from?: number, value?: bigint): Promise<void>;
  /** Sends `value` wei from account 0. */
  send(to: Address, value: bigint): Promise<void>;
  rpc(method: string, params?: unknown[]): Promise<unknown>;
  /** Mines `blocks` empty blocks. */
  mine(blocks: number): Promise<unknown>;
  headNumber(): Promise<number>;
}

export function demoWallet(anvil: Anvil, artifacts: DemoArtifacts, chainId: number, name: string): DemoWallet {
  const chain = defineChain({
    id: chainId,
    name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  });
  const wallet = createWalletClient({ chain, transport: http(anvil.rpcUrl) });
  const client = () => publicClient(anvil.rpcUrl);
  const owner = demoAccounts[0]!;
  const mined = async (hash: Promise<Hash>): Promise<Address | null> =>
    (await client().waitForTransactionReceipt({ hash: await hash, pollingInterval: 20 })).contractAddress ?? null;
  const rpc = (method: string, params: unknown[] = []) => client().request({ method: method as never, params: params as never });
  return {
    wallet,
    mined,
    deploy: async (contract) => {
      const artifact = artifacts[contract];
      return (await mined(
        wallet.deployContract({
          abi: artifact.abi,
          bytecode: artifact.bytecode,
          args: OWNERLESS.includes(contract) ? [] : [owner.address],
          account: owner,
          chain,
        }),
      ))!;
    },
    call: async (address, contract, functionName, args, from = 0, value) => {
      const account = demoAccounts[from]!;
      await mined(
        wallet.writeContract({ address, abi: artifacts[contract].abi, functionName, args, account, chain, ...(value ? { value } : {}) }),
      );
    },
    send: async (to, value) => {
      await mined(wallet.sendTransaction({ to, value, account: owner, chain }));
    },
    rpc,
    mine: (blocks) => rpc('anvil_mine', [`0x${blocks.toString(16)}`]),
    headNumber: async () => Number(await client().getBlockNumber({ cacheTime: 0 })),
  };
}
