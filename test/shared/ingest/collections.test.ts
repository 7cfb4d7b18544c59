/**
 * A holder's collection entries (X2: the amount, the id count and the 9 highest ids with their
 * instances) rebuilt after a batch's state writes (StateWriter.refreshCollections, issue 34 item 3):
 * with the ids read before the batch and those it moved as candidates, the instances are read with the
 * holdings in one round, then one write: two round trips in sequence, where reading the holdings, then
 * their instances, then writing took three. Candidates that miss an entry (a stale or no prefix) cost a
 * read more, never a wrong entry: each way leaves the same items, equal to what the state says.
 */
import { describe, expect, it } from 'vitest';
import { type BalanceChange, collectionId, StateWriter } from '../../../shared/ingest/state';
import { getItem } from '../../../shared/ingest/table-io';
import { addressKeys } from '../../../shared/table/keys';
import type { NftCollectionRecord } from '../../../shared/table/records';
import { roundTripsInSequence } from '../../support/table-calls';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';

const table = useTestTable('collections');
const CHAIN_ID = 8453;
const address = (n: number): string => `0x${n.toString(16).padStart(40, '0')}`;
const NFT = address(0xc);
const [ALICE, BOB] = [address(1), address(2)];
const metadata = (id: number) => `data:application/json,{"name":"Token ${id}"}`;

/** ALICE holds ids 1-12 of NFT, BOB id 13, as a batch's balances and instances leave them. */
async function holdings(writer: StateWriter): Promise<void> {
  await writer.updateAddress({ address: NFT, creation: null }, 1);
  const owners = new Map<number, string>([...Array.from({ length: 12 }, (_, i) => [i + 1, ALICE] as const), [13, BOB]]);
  for (const [id, owner] of owners)
    await writer.setNftInstance(NFT, 'ERC-721', BigInt(id), { owner, tokenUri: metadata(id), totalSupply: null }, 10);
  const changes: BalanceChange[] = [
    { balance: { holder: ALICE, token: NFT, standard: 'ERC-721', tokenId: null }, value: 12n, blockNumber: 10, tokenName: 'N' },
    { balance: { holder: BOB, token: NFT, standard: 'ERC-721', tokenId: null }, value: 1n, blockNumber: 10, tokenName: 'N' },
  ];
  await writer.setBalances(changes, { prefetched: await writer.getBalances(changes.map(({ balance }) => balance)), concurrency: 4 });
}

const entry = (holder: string) =>
  getItem<NftCollectionRecord>({
    pk: addressKeys.nftCollections(CHAIN_ID, holder, 'ALL').pk,
    sk: addressKeys.nftCollectionSortKey('ERC-721', NFT),
  });

describe('refreshCollections', () => {
  it('reads the instances with the holdings when the candidates name them: 2 round trips, the same items as without', async () => {
    const writer = new StateWriter(CHAIN_ID);
    const refresh = (candidates?: string[]) => [
      { holder: ALICE, contract: NFT, standard: 'ERC-721' as const, blockNumber: 10, candidates },
      { holder: BOB, contract: NFT, standard: 'ERC-721' as const, blockNumber: 10, candidates },
    ];
    const depths = new Map<string, number>();
    for (const [name, candidates] of [
      ['none', undefined],
      ['prefix', 'read'],
      ['stale', ['1', '2', '3']],
    ] as const) {
      await inTable(`${table.name}-${name}`, async () => {
        await holdings(writer);
        let given: string[] | undefined;
        if (candidates === 'read') {
          const prefixes = await writer.readCollectionPrefixes([
            { holder: ALICE, contract: NFT, standard: 'ERC-721', limit: 9 },
            { holder: BOB, contract: NFT, standard: 'ERC-721', limit: 9 },
          ]);
          given = [
            ...(prefixes.get(collectionId(ALICE, NFT, 'ERC-721')) ?? []),
            ...(prefixes.get(collectionId(BOB, NFT, 'ERC-721')) ?? []),
          ];
        } else given = candidates ? [...candidates] : undefined;
        const { depth } = await roundTripsInSequence(() => writer.refreshCollections(refresh(given)));
        depths.set(name, depth);
        // What the state says: ALICE's 12 ids, the 9 highest embedded with their metadata; BOB's one.
        const alice = await entry(ALICE);
        expect({ amount: alice?.amount, distinct: alice?.distinctTokenIds }).toEqual({ amount: '12', distinct: 12 });
        expect(alice?.instances.map((instance) => instance.tokenId)).toEqual(['12', '11', '10', '9', '8', '7', '6', '5', '4']);
        expect(alice?.instances.map((instance) => JSON.parse(instance.metadataJson ?? 'null')?.name)).toEqual(
          [12, 11, 10, 9, 8, 7, 6, 5, 4].map((id) => `Token ${id}`),
        );
        expect((await entry(BOB))?.instances.map((instance) => instance.tokenId)).toEqual(['13']);
      });
    }
    expect(Object.fromEntries(depths)).toEqual({ none: 3, prefix: 2, stale: 3 });
    const none = await tableSnapshot(`${table.name}-none`);
    expect(await tableSnapshot(`${table.name}-prefix`)).toEqual(none);
    expect(await tableSnapshot(`${table.name}-stale`)).toEqual(none);
  });

  it('deletes the entries of a holder left with nothing of the collection', async () => {
    const writer = new StateWriter(CHAIN_ID);
    await inTable(`${table.name}-emptied`, async () => {
      await holdings(writer);
      await writer.refreshCollections([{ holder: BOB, contract: NFT, standard: 'ERC-721', blockNumber: 10 }]);
      expect(await entry(BOB)).toBeDefined();
      await writer.setNftInstance(NFT, 'ERC-721', 13n, { owner: ALICE, tokenUri: metadata(13), totalSupply: null }, 11);
      const changes: BalanceChange[] = [
        { balance: { holder: BOB, token: NFT, standard: 'ERC-721', tokenId: null }, value: 0n, blockNumber: 11, tokenName: 'N' },
        { balance: { holder: ALICE, token: NFT, standard: 'ERC-721', tokenId: null }, value: 13n, blockNumber: 11, tokenName: 'N' },
      ];
      await writer.setBalances(changes, { prefetched: await writer.getBalances(changes.map(({ balance }) => balance)), concurrency: 4 });
      await writer.refreshCollections([
        { holder: BOB, contract: NFT, standard: 'ERC-721', blockNumber: 11, candidates: ['13'] },
        { holder: ALICE, contract: NFT, standard: 'ERC-721', blockNumber: 11, candidates: ['13'] },
      ]);
      expect(await entry(BOB)).toBeUndefined();
      expect((await entry(ALICE))?.instances[0]?.tokenId).toBe('13');
    });
  });
});
