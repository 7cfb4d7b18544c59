/**
 * Operator CLI: moves the NFT metadata a table written before 2026-11-30 holds as items of their own
 * (G7 as `C#<chain>#NFTMETA#<contract>` items) onto their instances (`fetched`), where the routes read it,
 * and deletes the old items. Until it has run, an instance's fetched document is not shown (its
 * status reads `pending`, and the fetcher fetches it again when the ingest next writes the instance or
 * a refresh asks for it); nothing else depends on it. Safe to run again, and beside the service.
 *
 *   npm run migrate:nft-metadata
 *
 * Talks to the table of TABLE_NAME (default chain-data) at DYNAMODB_ENDPOINT (unset: AWS) with the
 * caller's credentials: one Scan of the table (the old items' kind), 100 items a page. Prints JSON.
 */
import { inParallel, scanPages } from '../shared/db/operations';
import { moveLegacyState } from '../shared/nft-metadata/store';
import type { LegacyNftMetadataRecord } from '../shared/table/records';
import { runCli } from './lib/cli';

async function migrateNftMetadata(): Promise<{ found: number; moved: number }> {
  let found = 0;
  let moved = 0;
  for await (const items of scanPages<LegacyNftMetadataRecord>('nftMetadata')) {
    found += items.length;
    await inParallel(items, 16, async (item) => {
      if (await moveLegacyState(item)) moved += 1;
    });
  }
  return { found, moved };
}

runCli(async () => {
  console.log(JSON.stringify(await migrateNftMetadata()));
  return 0;
});
