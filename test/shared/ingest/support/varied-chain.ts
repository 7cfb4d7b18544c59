/**
 * A small varied chain for fault tests, one block per transaction on an automining anvil: contract
 * creations (a token, a reverter), ETH transfers, token mints and transfers, a transfer that fails
 * (an overdraft, on chain with explicit gas) and a call that reverts with a reason.
 */
import { createWalletClient, http, parseEther, type Address, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvil as anvilChain } from 'viem/chains';
import { ANVIL_PRIVATE_KEYS } from '../../../../scripts/lib/anvil';
import { loadContracts } from '../../../../scripts/lib/contracts';
import { publicClient } from './truth';

const accounts = ANVIL_PRIVATE_KEYS.map((key) => privateKeyToAccount(key));

export async function variedActivity(rpcUrl: string, chainId: number, rounds: number): Promise<void> {
  const wallet = createWalletClient({ chain: { ...anvilChain, id: chainId }, transport: http(rpcUrl) });
  const client = publicClient(rpcUrl);
  const wait = async (hash: Promise<Hash>) => client.waitForTransactionReceipt({ hash: await hash, pollingInterval: 20 });
  const { DemoToken, DemoReverter } = await loadContracts();
  const [deployer] = accounts;
  const token = (
    await wait(wallet.deployContract({ abi: DemoToken.abi, bytecode: DemoToken.bytecode, args: [deployer!.address], account: deployer! }))
  ).contractAddress as Address;
  const reverter = (
    await wait(wallet.deployContract({ abi: DemoReverter.abi, bytecode: DemoReverter.bytecode, args: [], account: deployer! }))
  ).contractAddress as Address;
  for (let round = 0; round < rounds; round += 1) {
    const to = accounts[1 + (round % 4)]!;
    await wait(wallet.sendTransaction({ to: to.address, value: parseEther('0.01') * BigInt(round + 1), account: deployer! }));
    await wait(
      wallet.writeContract({
        address: token,
        abi: DemoToken.abi,
        functionName: 'mint',
        args: [to.address, BigInt(round + 1) * 10n],
        account: deployer!,
      }),
    );
    await wait(
      wallet.writeContract({ address: token, abi: DemoToken.abi, functionName: 'transfer', args: [deployer!.address, 1n], account: to }),
    );
  }
  // Fails on chain: more than the sender holds (explicit gas: no estimate refuses it first).
  await wait(
    wallet.writeContract({
      address: token,
      abi: DemoToken.abi,
      functionName: 'transfer',
      args: [deployer!.address, 10n ** 30n],
      account: accounts[4]!,
      gas: 200_000n,
    }),
  );
  await wait(
    wallet.writeContract({
      address: reverter,
      abi: DemoReverter.abi,
      functionName: 'alwaysReverts',
      args: [],
      account: deployer!,
      gas: 200_000n,
    }),
  );
}
