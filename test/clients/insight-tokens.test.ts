/**
 * thirdweb's published Insight client (`@thirdweb-dev/insight`), unchanged, against the service that
 * `npm start` runs: its token and NFT functions (balances, NFTs, NFT transfers, holders), configured as a
 * user would. Expected values are read from the demo chain itself (anvil, through viem: balanceOf,
 * ownerOf, tokenURI) and the demo's plan.
 */
import {
  configure,
  getV1Nfts,
  getV1NftsBalanceByOwnerAddress,
  getV1NftsByContractAddress,
  getV1NftsByContractAddressByTokenId,
  getV1NftsCollectionsByContractAddress,
  getV1NftsOwnersByContractAddress,
  getV1NftsOwnersByContractAddressByTokenId,
  getV1NftsTransfers,
  getV1NftsTransfersByContractAddress,
  getV1NftsTransfersByContractAddressByTokenId,
  getV1NftsTransfersTransactionByTransactionHash,
  getV1Tokens,
  getV1TokensErc1155ByOwnerAddress,
  getV1TokensErc20ByOwnerAddress,
  getV1TokensErc721ByOwnerAddress,
  getV1TokensOwners,
} from '@thirdweb-dev/insight';
import { createPublicClient, erc20Abi, http, parseAbi, type Address, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PLAN } from '../../scripts/lib/demo-activity';
import { type NpmStartService, startNpmStart } from '../support/npm-start';

const CHAIN = 31337;
const nftAbi = parseAbi([
  'function ownerOf(uint256) view returns (address)',
  'function tokenURI(uint256) view returns (string)',
  'function balanceOf(address) view returns (uint256)',
]);
const multiAbi = parseAbi(['function balanceOf(address, uint256) view returns (uint256)']);

let service: NpmStartService;
let chain: PublicClient;
let token: Address;
let nft: Address;
let multi: Address;
let busy: Address;

beforeAll(async () => {
  service = await startNpmStart();
  chain = createPublicClient({ transport: http(service.rpcUrl) });
  token = service.demo.contracts.token.toLowerCase() as Address;
  nft = service.demo.contracts.nft.toLowerCase() as Address;
  multi = service.demo.contracts.multi.toLowerCase() as Address;
  busy = service.demo.accounts.busy.toLowerCase() as Address;
  configure({ clientId: 'test-client-id', override: { baseUrl: `${service.urls.base}/insights` } });
}, 180_000);

afterAll(async () => {
  await service?.stop();
});

const accounts = () => [...new Set(Object.values(service.demo.accounts).map((address) => address.toLowerCase() as Address))];
const ownerOf = (id: bigint) =>
  chain.readContract({ address: nft, abi: nftAbi, functionName: 'ownerOf', args: [id] }).then(
    (owner) => owner.toLowerCase(),
    () => null,
  );

describe('@thirdweb-dev/insight token and NFT functions against npm start', () => {
  it('getV1TokensErc20ByOwnerAddress and getV1Tokens: balances equal to balanceOf', async () => {
    for (const owner of accounts()) {
      const onChain = await chain.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
      const { data, error, response } = await getV1TokensErc20ByOwnerAddress({
        path: { ownerAddress: owner },
        query: { chain_id: [CHAIN], metadata: 'true' },
      });
      expect(error, JSON.stringify(error)).toBeUndefined();
      expect(response.status).toBe(200);
      const rows = data!.data;
      expect(rows.map((row) => [row.token_address, row.balance])).toEqual(onChain > 0n ? [[token, onChain.toString()]] : []);
      if (onChain > 0n) expect(rows[0]).toMatchObject({ chain_id: CHAIN, decimals: 18 });
    }
    const { data, error } = await getV1Tokens({ query: { chain_id: [CHAIN], owner_address: accounts(), limit: 50 } });
    expect(error, JSON.stringify(error)).toBeUndefined();
    const balances = data!.data.map((row) => BigInt(row.balance));
    expect(balances).toEqual([...balances].sort((a, b) => (a === b ? 0 : a > b ? -1 : 1)));
    expect(balances.length).toBeGreaterThan(1);
  });

  it('getV1Tokens as thirdweb’s Insight.getOwnedTokens calls it (include_native): the native balance first, as eth_getBalance', async () => {
    const { data, error } = await getV1Tokens({
      query: { chain_id: [CHAIN], include_native: 'true', include_spam: 'false', limit: 50, metadata: 'true', owner_address: [busy] },
    });
    expect(error, JSON.stringify(error)).toBeUndefined();
    const [native, ...erc20] = data!.data;
    expect(native).toEqual({
      chain_id: CHAIN,
      token_address: '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
      balance: (await chain.getBalance({ address: busy })).toString(),
      name: 'Ether',
      symbol: 'ETH',
      decimals: 18,
    });
    const onChain = await chain.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [busy] });
    expect(erc20.map((row) => [row.token_address, row.balance])).toEqual([[token, onChain.toString()]]);
  });

  it('getV1TokensErc721ByOwnerAddress, getV1TokensErc1155ByOwnerAddress, getV1NftsBalanceByOwnerAddress: as ownerOf / balanceOf', async () => {
    for (const owner of accounts()) {
      const owned: string[] = [];
      for (const id of DEMO_PLAN.nft.mintedIds) if ((await ownerOf(id)) === owner) owned.push(id.toString());
      const erc721 = await getV1TokensErc721ByOwnerAddress({
        path: { ownerAddress: owner },
        query: { chain_id: [CHAIN], metadata: 'true' },
      });
      expect(erc721.error, JSON.stringify(erc721.error)).toBeUndefined();
      expect(erc721.data!.data.map((row) => row.token_id).sort()).toEqual(owned.sort());
      for (const row of erc721.data!.data) {
        expect(row.metadata_url).toBe(
          await chain.readContract({ address: nft, abi: nftAbi, functionName: 'tokenURI', args: [BigInt(row.token_id)] }),
        );
        expect(row.contract).toMatchObject({ address: nft, type: 'erc721' });
      }
      const held: [string, string][] = [];
      for (const id of [1n, ...DEMO_PLAN.multi.batch.ids]) {
        const value = await chain.readContract({ address: multi, abi: multiAbi, functionName: 'balanceOf', args: [owner, id] });
        if (value > 0n) held.push([id.toString(), value.toString()]);
      }
      const erc1155 = await getV1TokensErc1155ByOwnerAddress({ path: { ownerAddress: owner }, query: { chain_id: [CHAIN] } });
      expect(erc1155.data!.data.map((row) => [row.token_id, row.balance]).sort()).toEqual(held.sort());
      const both = await getV1NftsBalanceByOwnerAddress({ path: { ownerAddress: owner }, query: { chain_id: [CHAIN], limit: 100 } });
      expect(both.data!.data).toHaveLength(owned.length + held.length);
      const only = await getV1NftsBalanceByOwnerAddress({
        path: { ownerAddress: owner },
        query: { chain_id: [CHAIN], token_types: ['erc1155'] },
      });
      expect(only.data!.data.map((row) => row.token_address)).toEqual(held.map(() => multi));
    }
  });

  it('getV1Nfts: several owners’ NFTs, each with its owner, as ownerOf / balanceOf', async () => {
    const { data, error } = await getV1Nfts({ query: { chain_id: [CHAIN], owner_address: accounts(), limit: 100 } });
    expect(error, JSON.stringify(error)).toBeUndefined();
    for (const row of data!.data) {
      const owner = row.owner_addresses![0]! as Address;
      if (row.token_type === 'erc721') expect(await ownerOf(BigInt(row.token_id))).toBe(owner);
      else {
        const value = await chain.readContract({
          address: multi,
          abi: multiAbi,
          functionName: 'balanceOf',
          args: [owner, BigInt(row.token_id)],
        });
        expect(row.balance).toBe(value.toString());
      }
    }
    const minted = DEMO_PLAN.nft.mintedIds.length - 1; // one burned
    expect(data!.data.filter((row) => row.contract_address === nft)).toHaveLength(minted);
  });

  it('getV1NftsByContractAddress and getV1NftsByContractAddressByTokenId: every token, its owner and URI', async () => {
    const { data, error } = await getV1NftsByContractAddress({
      path: { contract_address: nft },
      query: { chain_id: [CHAIN], include_owners: 'true' },
    });
    expect(error, JSON.stringify(error)).toBeUndefined();
    expect(data!.data.map((row) => row.token_id)).toEqual(DEMO_PLAN.nft.mintedIds.map(String));
    for (const row of data!.data) {
      const owner = await ownerOf(BigInt(row.token_id));
      expect(row.owner_addresses).toEqual(owner ? [owner] : []);
    }
    const one = await getV1NftsByContractAddressByTokenId({ path: { contract_address: nft, token_id: '2' }, query: { chain_id: [CHAIN] } });
    expect(one.error, JSON.stringify(one.error)).toBeUndefined();
    expect(one.data!.data[0]).toMatchObject({ contract_address: nft, token_id: '2', token_type: 'erc721', balance: '1' });
    expect(one.data!.data[0]!.metadata_url).toBe(
      await chain.readContract({ address: nft, abi: nftAbi, functionName: 'tokenURI', args: [2n] }),
    );
  });

  it('getV1NftsCollectionsByContractAddress: name() and counts as the chain has them', async () => {
    const { data, error } = await getV1NftsCollectionsByContractAddress({
      path: { contract_address: nft },
      query: { chain_id: [CHAIN], include_stats: 'true' },
    });
    expect(error, JSON.stringify(error)).toBeUndefined();
    const name = await chain.readContract({ address: nft, abi: parseAbi(['function name() view returns (string)']), functionName: 'name' });
    expect(data!.data[0]!.name).toBe(name);
    expect(data!.data[0]!.stats).toMatchObject({ token_count: DEMO_PLAN.nft.mintedIds.length, mint_count: DEMO_PLAN.nft.mintedIds.length });
  });

  it('the NFT transfer functions: what the contracts logged', async () => {
    const mints = service.demo.transactions.filter((tx) => tx.kinds.includes('nftMint') && tx.status === 'success');
    const byContract = await getV1NftsTransfersByContractAddress({
      path: { contract_address: nft },
      query: { chain_id: [CHAIN], limit: 100 },
    });
    expect(byContract.error, JSON.stringify(byContract.error)).toBeUndefined();
    const rows = byContract.data!.data;
    expect(rows.filter((row) => row.transfer_type === 'mint')).toHaveLength(mints.length);
    for (const row of rows.slice(0, 3)) {
      const receipt = await chain.getTransactionReceipt({ hash: row.transaction_hash as `0x${string}` });
      const log = receipt.logs.find((entry) => entry.logIndex === row.log_index)!;
      expect(log.address.toLowerCase()).toBe(nft);
      expect(BigInt(log.topics[3]!).toString()).toBe(row.token_id);
    }
    const ofId = await getV1NftsTransfersByContractAddressByTokenId({
      path: { contract_address: nft, token_id: String(DEMO_PLAN.nft.aliceToBusy) },
      query: { chain_id: [CHAIN], sort_order: 'asc' },
    });
    expect(ofId.data!.data.map((row) => row.to_address)).toEqual([service.demo.accounts.alice.toLowerCase(), busy]);
    const ofOwner = await getV1NftsTransfers({ query: { chain_id: [CHAIN], owner_address: busy, limit: 100 } });
    expect(ofOwner.error, JSON.stringify(ofOwner.error)).toBeUndefined();
    expect(ofOwner.data!.data.every((row) => row.from_address === busy || row.to_address === busy)).toBe(true);
    expect(new Set(ofOwner.data!.data.map((row) => row.token_type))).toEqual(new Set(['erc721', 'erc1155']));
    const batch = service.demo.transactions.find((tx) => tx.kinds.includes('batchTransfer'))!;
    const inTx = await getV1NftsTransfersTransactionByTransactionHash({
      path: { transaction_hash: batch.hash },
      query: { chain_id: [CHAIN] },
    });
    expect(inTx.data!.data.map((row) => row.token_id)).toEqual(DEMO_PLAN.multi.batch.ids.map(String));
  });

  it('the holder functions: ERC-20 holders by balanceOf, NFT owners by ownerOf / balanceOf', async () => {
    const holders = await getV1TokensOwners({ query: { chain_id: [CHAIN], contract_address: token, limit: 100 } });
    expect(holders.error, JSON.stringify(holders.error)).toBeUndefined();
    for (const row of holders.data!.data) {
      const onChain = await chain.readContract({
        address: token,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [row.owner_address as Address],
      });
      expect(row.balance).toBe(onChain.toString());
    }
    // Insight answers the owner routes in its `data` envelope (its changelog); the client's types say a bare array.
    const owners = await getV1NftsOwnersByContractAddress({ path: { contract_address: nft }, query: { chain_id: [CHAIN] } });
    expect(owners.error, JSON.stringify(owners.error)).toBeUndefined();
    const expected = new Set<string>();
    for (const id of DEMO_PLAN.nft.mintedIds) {
      const owner = await ownerOf(id);
      if (owner) expected.add(owner);
    }
    const body = owners.data as unknown as { data: { owner_addresses: string[] }[] };
    expect(new Set(body.data[0]!.owner_addresses)).toEqual(expected);
    const ofId = await getV1NftsOwnersByContractAddressByTokenId({
      path: { contract_address: multi, token_id: '2' },
      query: { chain_id: [CHAIN], include_balances: 'true' },
    });
    const rows = (ofId.data as unknown as { data: { owner_address: string; balance: string }[] }).data;
    for (const row of rows) {
      const value = await chain.readContract({
        address: multi,
        abi: multiAbi,
        functionName: 'balanceOf',
        args: [row.owner_address as Address, 2n],
      });
      expect(row.balance).toBe(value.toString());
    }
    expect(rows.length).toBeGreaterThan(0);
  });
});
