/**
 * E8 GET /explorer/addresses/{address_hash} on an ingested demo chain: `coin_balance` is the native
 * balance the chain gives (eth_getBalance, at the head and at `block_number_balance_updated_at`), for
 * accounts, contracts and a contract paid in an internal call; a proxy (EIP-1967) shows its
 * implementation and the implementation's name, changed by an upgrade. Every answer is checked
 * against the Blockscout frontend's Address type (test/support/blockscout-schemas.ts).
 */
import { getAddress, parseEther, type Address } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { address as blockscoutAddress, validateJson } from '../../support/blockscout-schemas';
import { proxyArtifacts, type ProxyArtifacts } from '../../shared/ingest/support/eip1967-proxy';
import { explorerGet, useExplorerChain } from './fixtures';

const chain = useExplorerChain('explorer-address-details');
let proxyCode: ProxyArtifacts;
let proxy: Address;
let implementation: Address;
let splitter: Address;

async function deployed(code: { abi: unknown; bytecode: `0x${string}` }, args: unknown[]): Promise<Address> {
  const hash = await chain.send('deployer', encoded(code, args));
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  return receipt.contractAddress!;
}

/** Creation code with its constructor arguments (one address), as a deployment sends it. */
function encoded(code: { bytecode: `0x${string}` }, args: unknown[]): { data: `0x${string}` } {
  const words = args.map((arg) => String(arg).toLowerCase().slice(2).padStart(64, '0')).join('');
  return { data: `${code.bytecode}${words}` as `0x${string}` };
}

/** GET the address, check it against Blockscout's Address type, and return its body. */
async function addressPage(hash: string) {
  const response = await explorerGet(hash, '');
  expect(response.status).toBe(200);
  expect(validateJson(blockscoutAddress, response.body)).toEqual([]);
  return response.body as unknown as { coin_balance: string | null; block_number_balance_updated_at: number | null } & Record<
    string,
    unknown
  >;
}

/** The page's coin balance against the chain: at the head (the ingest is there) and at the block it names. */
async function expectChainBalance(hash: Address): Promise<void> {
  const body = await addressPage(hash);
  const head = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
  expect(body.coin_balance, hash).toBe((await chain.publicClient.getBalance({ address: hash, blockNumber: head })).toString());
  expect(body.block_number_balance_updated_at).not.toBeNull();
  expect(body.block_number_balance_updated_at!).toBeLessThanOrEqual(Number(head));
  const atBlock = BigInt(body.block_number_balance_updated_at!);
  expect(body.coin_balance, `${hash} at its block`).toBe(
    (await chain.publicClient.getBalance({ address: hash, blockNumber: atBlock })).toString(),
  );
}

beforeAll(async () => {
  proxyCode = await proxyArtifacts();
  implementation = await deployed(proxyCode.implementation, []);
  proxy = await deployed(proxyCode.proxy, [implementation]);
  splitter = await chain.deploy('deployer', 'DemoSplitter', []);
  // The proxy paid in an internal call (it accepts plain ether), beside an account.
  await chain.send('alice', {
    to: splitter,
    abi: chain.artifacts.DemoSplitter.abi,
    functionName: 'split',
    args: [
      [proxy, chain.manifest.accounts.bob],
      [parseEther('0.5'), parseEther('0.25')],
    ],
    value: parseEther('0.75'),
  });
  await chain.ingest();
}, 120_000);

describe('GET /explorer/addresses/{hash}', () => {
  it('coin_balance is the balance the chain gives, for accounts and contracts', async () => {
    const { accounts, contracts } = chain.manifest;
    for (const hash of [accounts.alice, accounts.bob, accounts.busy, accounts.deployer, contracts.token, splitter])
      await expectChainBalance(getAddress(hash));
  });

  it('a contract paid in an internal call shows the value it received', async () => {
    await expectChainBalance(proxy);
    expect((await addressPage(proxy)).coin_balance).toBe(parseEther('0.5').toString());
  });

  it('an address the chain never touched has no balance', async () => {
    const body = await addressPage(getAddress(`0x${'ab'.repeat(20)}`));
    expect(body).toMatchObject({ coin_balance: null, block_number_balance_updated_at: null, implementations: [] });
  });

  it('a proxy shows its EIP-1967 implementation, and the new one after an upgrade (named after its token)', async () => {
    expect(await addressPage(proxy)).toMatchObject({
      is_contract: true,
      proxy_type: 'eip1967',
      implementations: [{ address_hash: getAddress(implementation), name: null }],
      implementation_name: null,
    });
    const token = getAddress(chain.manifest.contracts.token);
    await chain.send('deployer', { to: proxy, abi: proxyCode.proxy.abi, functionName: 'upgradeTo', args: [token] });
    await chain.ingest();
    expect(await addressPage(proxy)).toMatchObject({
      proxy_type: 'eip1967',
      implementations: [{ address_hash: token, name: 'Demo Token' }],
      implementation_name: 'Demo Token',
    });
    // A contract that is no proxy names none.
    expect(await addressPage(getAddress(splitter))).toMatchObject({ proxy_type: null, implementations: [], implementation_name: null });
  });
});
