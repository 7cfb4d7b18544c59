/**
 * The demo contracts' own behaviour on a real anvil: access control, reverts with their reasons,
 * metadata URIs, CREATE2 collisions. (The activity that uses them is tested in
 * test/scripts/demo-activity.test.ts.)
 */
import {
  type BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  http,
  parseEther,
  zeroHash,
  type Abi,
  type Address,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../scripts/lib/anvil';
import { loadContracts, type DemoArtifacts } from '../../scripts/lib/contracts';
import { deployDemoContracts, type DemoContracts } from '../../scripts/lib/demo-activity';

const owner = privateKeyToAccount(ANVIL_PRIVATE_KEYS[0]);
const stranger = privateKeyToAccount(ANVIL_PRIVATE_KEYS[3]);

let anvil: Anvil;
let client: PublicClient;
let artifacts: DemoArtifacts;
let contracts: DemoContracts;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: foundry.id });
  client = createPublicClient({ transport: http(anvil.rpcUrl), cacheTime: 0 });
  artifacts = await loadContracts();
  contracts = (await deployDemoContracts(anvil.rpcUrl)).contracts;
});

afterAll(async () => {
  await anvil?.stop();
});

function walletFor(account: typeof owner) {
  return createWalletClient({ account, transport: http(anvil.rpcUrl), chain: foundry });
}

async function send(account: typeof owner, address: Address, abi: Abi, functionName: string, args: readonly unknown[], value?: bigint) {
  const hash = await walletFor(account).writeContract({ address, abi, functionName, args, value } as never);
  const receipt = await client.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt;
}

/** Simulates a call that must revert and returns how it reverted, as viem decodes it. */
async function revertOf(account: Address, address: Address, abi: Abi, functionName: string, args: readonly unknown[] = [], value?: bigint) {
  try {
    await client.simulateContract({ account, address, abi, functionName, args, value } as never);
  } catch (error) {
    const reverted = (error as BaseError).walk((cause) => cause instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError) return { reason: reverted.reason, errorName: reverted.data?.errorName };
    throw error;
  }
  throw new Error(`${functionName} did not revert`);
}

const read = (address: Address, abi: Abi, functionName: string, args: readonly unknown[] = []) =>
  client.readContract({ address, abi, functionName, args } as never) as Promise<unknown>;

describe('DemoToken', () => {
  it('is an 18-decimal ERC-20 that only its owner mints and burns', async () => {
    const abi = artifacts.DemoToken.abi;
    expect(await read(contracts.token, abi, 'decimals')).toBe(18);
    expect(await read(contracts.token, abi, 'symbol')).toBe('DEMO');
    expect((await revertOf(stranger.address, contracts.token, abi, 'mint', [stranger.address, 1n])).errorName).toBe(
      'OwnableUnauthorizedAccount',
    );
    await send(owner, contracts.token, abi, 'mint', [stranger.address, parseEther('5')]);
    expect((await revertOf(stranger.address, contracts.token, abi, 'burn', [stranger.address, 1n])).errorName).toBe(
      'OwnableUnauthorizedAccount',
    );
    await send(owner, contracts.token, abi, 'burn', [stranger.address, parseEther('2')]);
    expect(await read(contracts.token, abi, 'balanceOf', [stranger.address])).toBe(parseEther('3'));
    expect(await read(contracts.token, abi, 'totalSupply')).toBe(parseEther('3'));
  });
});

describe('DemoNFT', () => {
  it('serves base64 JSON for even ids, ipfs for odd ids, and refuses unknown ids', async () => {
    const abi = artifacts.DemoNFT.abi;
    await send(owner, contracts.nft, abi, 'mint', [stranger.address, 10n]);
    await send(owner, contracts.nft, abi, 'mint', [stranger.address, 11n]);
    const dataUri = (await read(contracts.nft, abi, 'tokenURI', [10n])) as string;
    const [prefix, payload] = dataUri.split(',');
    expect(prefix).toBe('data:application/json;base64');
    expect(JSON.parse(Buffer.from(payload, 'base64').toString('utf8'))).toEqual({
      name: 'Demo NFT #10',
      description: 'A demo NFT whose metadata lives on chain.',
      image: 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/10.svg',
      external_url: 'https://example.com/demo-nft/10',
      attributes: [
        { trait_type: 'Parity', value: 'even' },
        { trait_type: 'Serial', value: '10' },
      ],
    });
    expect(await read(contracts.nft, abi, 'tokenURI', [11n])).toBe(
      'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/11.json',
    );
    expect((await revertOf(stranger.address, contracts.nft, abi, 'tokenURI', [12n])).errorName).toBe('ERC721NonexistentToken');
  });

  it('lets the holder burn, not a stranger', async () => {
    const abi = artifacts.DemoNFT.abi;
    await send(owner, contracts.nft, abi, 'mint', [owner.address, 20n]);
    expect((await revertOf(stranger.address, contracts.nft, abi, 'burn', [20n])).errorName).toBe('ERC721InsufficientApproval');
    await send(owner, contracts.nft, abi, 'burn', [20n]);
    expect((await revertOf(owner.address, contracts.nft, abi, 'ownerOf', [20n])).errorName).toBe('ERC721NonexistentToken');
  });
});

describe('DemoMulti', () => {
  it('mints batches for its owner only and guards batch transfers by approval', async () => {
    const abi = artifacts.DemoMulti.abi;
    expect(await read(contracts.multi, abi, 'uri', [7n])).toMatch(/^ipfs:\/\/\w+\/multi\/\{id\}\.json$/);
    expect(await read(contracts.multi, abi, 'name')).toBe('Demo Multi');
    expect((await revertOf(stranger.address, contracts.multi, abi, 'mintBatch', [stranger.address, [1n], [1n]])).errorName).toBe(
      'OwnableUnauthorizedAccount',
    );
    await send(owner, contracts.multi, abi, 'mintBatch', [owner.address, [7n, 8n], [3n, 4n]]);
    expect(
      (
        await revertOf(stranger.address, contracts.multi, abi, 'safeBatchTransferFrom', [
          owner.address,
          stranger.address,
          [7n, 8n],
          [1n, 1n],
          '0x',
        ])
      ).errorName,
    ).toBe('ERC1155MissingApprovalForAll');
    await send(owner, contracts.multi, abi, 'safeBatchTransferFrom', [owner.address, stranger.address, [7n, 8n], [1n, 4n], '0x']);
    expect(
      await read(contracts.multi, abi, 'balanceOfBatch', [
        [owner.address, owner.address, stranger.address, stranger.address],
        [7n, 8n, 7n, 8n],
      ]),
    ).toEqual([2n, 0n, 1n, 4n]);
  });
});

describe('DemoFactory', () => {
  it('refuses a second CREATE2 child with the same salt and tag (the address is taken)', async () => {
    const abi = artifacts.DemoFactory.abi;
    const before = (await read(contracts.factory, abi, 'childCount')) as bigint;
    await send(owner, contracts.factory, abi, 'createChildDeterministic', [zeroHash, 1n]);
    expect(await read(contracts.factory, abi, 'childCount')).toBe(before + 1n);
    // The CREATE2 fails, so `new` reverts (with no reason data).
    expect((await revertOf(owner.address, contracts.factory, abi, 'createChildDeterministic', [zeroHash, 1n])).errorName).toBeUndefined();
    // Same salt, other constructor argument: other init code, other address, fine.
    await send(owner, contracts.factory, abi, 'createChildDeterministic', [zeroHash, 2n]);
    expect(await read(contracts.factory, abi, 'childCount')).toBe(before + 2n);
  });
});

describe('DemoSplitter, DemoVault, DemoReverter', () => {
  it('reverts with the documented reason strings', async () => {
    const splitter = artifacts.DemoSplitter.abi;
    expect((await revertOf(owner.address, contracts.splitter, splitter, 'split', [[stranger.address], [1n]], 2n)).reason).toBe(
      'demo: value mismatch',
    );
    expect((await revertOf(owner.address, contracts.splitter, splitter, 'split', [[contracts.reverter], [1n]], 1n)).reason).toBe(
      'demo: payment failed',
    );
    expect((await revertOf(owner.address, contracts.splitter, splitter, 'split', [[stranger.address], []], 0n)).reason).toBe(
      'demo: length mismatch',
    );
    expect((await revertOf(stranger.address, contracts.vault, artifacts.DemoVault.abi, 'destroy', [stranger.address])).reason).toBe(
      'demo: not owner',
    );
    expect((await revertOf(stranger.address, contracts.reverter, artifacts.DemoReverter.abi, 'alwaysReverts')).reason).toBe(
      'demo: always reverts',
    );
  });

  it('deploys exactly the compiled runtime code', async () => {
    expect(await client.getCode({ address: contracts.reverter })).toBe(artifacts.DemoReverter.deployedBytecode);
    expect(await client.getCode({ address: contracts.splitter })).toBe(artifacts.DemoSplitter.deployedBytecode);
  });

  it('lets the vault take deposits and hand its balance to a beneficiary when destroyed', async () => {
    const hash = await walletFor(stranger).sendTransaction({ to: contracts.vault, value: parseEther('0.5') });
    expect((await client.waitForTransactionReceipt({ hash })).logs).toHaveLength(1);
    const beneficiary = '0x000000000000000000000000000000000000bEEF';
    await send(owner, contracts.vault, artifacts.DemoVault.abi, 'destroy', [beneficiary]);
    // Deployed with DEMO_PLAN.vaultDeposit (1 ether) plus this deposit.
    expect(await client.getBalance({ address: beneficiary })).toBe(parseEther('1.5'));
    expect(await client.getBalance({ address: contracts.vault })).toBe(0n);
  });
});
