/**
 * The re-ingest path of a table written before the NFT metadata fetcher's state moved onto the
 * instance (`npm run migrate:nft-metadata`, scripts/migrate-nft-metadata.ts), as a child process against
 * the test file's table: each old G7 item about the instance's current URI is moved onto it and shown
 * again, one about another URI or a deleted instance is dropped, a newer state on the instance wins, no
 * old item is left, and a second run changes nothing.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../scripts/lib/dispatch';
import { getItem, writeItems } from '../../shared/db/operations';
import { shownMetadata } from '../../shared/nft-metadata/view';
import { nftKeys } from '../../shared/table/keys';
import type { FetchedNftMetadata, LegacyNftMetadataRecord, NftInstanceRecord } from '../../shared/table/records';
import { tableSnapshot, useTestTable } from '../support/table';

const table = useTestTable('migrate-nft-metadata');
const run = promisify(execFile);
const CHAIN = 8453;
const CONTRACT = '0x00000000000000000000000000000000000000c1';

async function migrate(): Promise<{ found: number; moved: number }> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(REPOSITORY_ROOT, 'scripts/migrate-nft-metadata.ts')], {
    cwd: REPOSITORY_ROOT,
    env: { ...process.env, TABLE_NAME: table.name },
  });
  return JSON.parse(stdout);
}

const instance = (tokenId: string, tokenUri: string, fetched?: FetchedNftMetadata) => ({
  ...nftKeys.instance(CHAIN, CONTRACT, tokenId),
  kind: 'nftInstance',
  chainId: CHAIN,
  contract: CONTRACT,
  tokenStandard: 'ERC-721',
  tokenId,
  owner: '0x00000000000000000000000000000000000000b0',
  tokenUri,
  metadataStatus: 'unresolved',
  metadataJson: null,
  totalSupply: null,
  totalSupplySource: null,
  firstSeenBlock: 3,
  updatedAtBlock: 9,
  ...(fetched ? { fetched } : {}),
});

const state = (tokenUri: string, name: string, attemptedAt: number): FetchedNftMetadata => ({
  tokenUri,
  status: 'fetched',
  metadataJson: JSON.stringify({ name }),
  error: null,
  attempts: 1,
  attemptedAt,
  fetchedAt: attemptedAt,
  sourceUrl: `https://meta.example/${name}`,
});

const legacy = (tokenId: string, fetched: FetchedNftMetadata) =>
  ({
    ...nftKeys.legacyMetadata(CHAIN, CONTRACT, tokenId),
    kind: 'nftMetadata',
    chainId: CHAIN,
    contract: CONTRACT,
    tokenId,
    ...fetched,
  }) satisfies LegacyNftMetadataRecord;

const fetchedOf = async (tokenId: string) => (await getItem<NftInstanceRecord>(nftKeys.instance(CHAIN, CONTRACT, tokenId)))?.fetched;

describe('npm run migrate:nft-metadata', () => {
  it('moves each old G7 item onto its instance where it still applies, deletes them all, and is idempotent', async () => {
    const uri = (id: number) => `ipfs://bafy/${id}.json`;
    await writeItems({
      put: [
        // 1: an old item about the instance's URI: moved and shown.
        instance('1', uri(1)),
        legacy('1', state(uri(1), 'One', 1_000)),
        // 2: the instance's URI changed since: the old item is dropped (the fetcher fetches the new one).
        instance('2', 'ipfs://bafy/2-revealed.json'),
        legacy('2', state(uri(2), 'Hidden', 1_000)),
        // 3: a reorg deleted the instance: dropped, no instance created.
        legacy('3', state(uri(3), 'Orphan', 1_000)),
        // 4: the fetcher already wrote a newer state onto the instance: it stays.
        instance('4', uri(4), state(uri(4), 'Newer', 5_000)),
        legacy('4', state(uri(4), 'Older', 1_000)),
      ],
    });
    expect(shownMetadata(await getItem<NftInstanceRecord>(nftKeys.instance(CHAIN, CONTRACT, '1'))).status).toBe('pending');

    expect(await migrate()).toEqual({ found: 4, moved: 1 });

    expect(await fetchedOf('1')).toEqual(state(uri(1), 'One', 1_000));
    const shown = shownMetadata(await getItem<NftInstanceRecord>(nftKeys.instance(CHAIN, CONTRACT, '1')));
    expect(shown).toEqual({ document: { name: 'One' }, status: 'resolved', error: null });
    expect(await fetchedOf('2')).toBeUndefined();
    expect(await getItem(nftKeys.instance(CHAIN, CONTRACT, '3'))).toBeUndefined();
    expect(await fetchedOf('4')).toEqual(state(uri(4), 'Newer', 5_000));
    const after = await tableSnapshot(table.name);
    expect(after.filter((item) => String(item.pk).includes('#NFTMETA#'))).toEqual([]);

    expect(await migrate()).toEqual({ found: 0, moved: 0 });
    expect(await tableSnapshot(table.name)).toEqual(after);
  });
});
