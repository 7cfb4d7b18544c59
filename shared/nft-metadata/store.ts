/**
 * The fetcher's state (G7: FetchedNftMetadata) through the table layer: the `fetched` attribute of the
 * NFT instance item (G3) whose token URI is on the web, written only by the fetcher, an UpdateItem of
 * that attribute alone. On the instance, a page of NFTs reads one key an NFT (an item of its own cost a
 * second key, billed found or not) and a write for a URI the instance no longer has is refused by the
 * table itself.
 */
import { deleteItem, getItem, updateItem } from '../db/operations';
import { nftKeys } from '../table/keys';
import type { FetchedNftMetadata, LegacyNftMetadataRecord, NftInstanceRecord } from '../table/records';

export interface InstanceRef {
  chainId: number;
  contract: string;
  tokenId: string;
}

export const instanceKey = (ref: InstanceRef) => nftKeys.instance(ref.chainId, ref.contract, ref.tokenId);

/** An instance the ingest wrote (an item the ERC-1155 balance transitions created holds only their counters). */
function written(item: NftInstanceRecord | undefined): NftInstanceRecord | undefined {
  return item?.kind === 'nftInstance' && item.updatedAtBlock !== undefined ? item : undefined;
}

/** The instance with what was fetched for it, read consistently (the fetcher decides on it). */
export async function readInstance(ref: InstanceRef): Promise<NftInstanceRecord | undefined> {
  return written(await getItem<NftInstanceRecord>(instanceKey(ref), { consistent: true }));
}

/**
 * Writes the instance's `fetched` state, conditional on the instance still having the token URI it is
 * about (a reorg that deleted it, or a new URI the ingest wrote since, refuses it) and on the state
 * read before the attempt (`expected`: its `attemptedAt`; undefined when there was none): a write that
 * finds another attempt's result in between is dropped (two deliveries of one request never both
 * count an attempt). Reports whether it was written.
 */
export async function writeFetched(
  ref: InstanceRef,
  fetched: FetchedNftMetadata,
  expected: Pick<FetchedNftMetadata, 'attemptedAt'> | undefined,
): Promise<boolean> {
  return expected
    ? setFetched(ref, fetched, 'fetched.attemptedAt = :attempted', expected.attemptedAt)
    : setFetched(ref, fetched, 'attribute_not_exists(fetched)');
}

/**
 * The one write of an instance's `fetched` state: an UpdateItem of that attribute alone, conditional
 * on the instance having the URI the state is about and on `stateCondition` (`:attempted`, when given,
 * is `attempted`). Reports whether it was written.
 */
async function setFetched(ref: InstanceRef, fetched: FetchedNftMetadata, stateCondition: string, attempted?: number): Promise<boolean> {
  const outcome = await updateItem({
    Key: instanceKey(ref),
    UpdateExpression: 'SET fetched = :fetched',
    ConditionExpression: `tokenUri = :uri AND (${stateCondition})`,
    ExpressionAttributeValues: {
      ':fetched': fetched,
      ':uri': fetched.tokenUri,
      ...(attempted === undefined ? {} : { ':attempted': attempted }),
    },
  });
  return outcome.applied;
}

/**
 * Moves a G7 item of a table written before the state moved onto the instance (LegacyNftMetadataRecord)
 * onto its instance, then deletes it. The instance takes it when it still has the URI the state is about
 * and holds no state, or an older one (an attempt the fetcher made since wins); a state about another URI,
 * or of an instance a reorg deleted, is dropped as the fetcher would drop it. Run again, it changes
 * nothing more: what it moved stays, and the item is gone. Reports whether the instance took it.
 */
export async function moveLegacyState(legacy: LegacyNftMetadataRecord): Promise<boolean> {
  const { chainId, contract, tokenId } = legacy;
  const fetched: FetchedNftMetadata = {
    tokenUri: legacy.tokenUri,
    status: legacy.status,
    metadataJson: legacy.metadataJson,
    error: legacy.error,
    attempts: legacy.attempts,
    attemptedAt: legacy.attemptedAt,
    fetchedAt: legacy.fetchedAt,
    sourceUrl: legacy.sourceUrl,
  };
  const moved = await setFetched(
    { chainId, contract, tokenId },
    fetched,
    'attribute_not_exists(fetched) OR fetched.attemptedAt < :attempted',
    fetched.attemptedAt,
  );
  await deleteItem({ Key: nftKeys.legacyMetadata(chainId, contract, tokenId) });
  return moved;
}
