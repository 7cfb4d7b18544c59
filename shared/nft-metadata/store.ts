/**
 * The fetcher's items (G7, nftKeys.metadata: NftMetadataRecord) through the table layer: one item per
 * NFT instance whose token URI is on the web, written only by the fetcher, whole (a Put).
 */
import { batchGetItems, getItem, putItem } from '../db/operations';
import { keyId, nftKeys } from '../table/keys';
import type { NftInstanceRecord, NftMetadataRecord } from '../table/records';

export interface InstanceRef {
  chainId: number;
  contract: string;
  tokenId: string;
}

export const metadataKey = (ref: InstanceRef) => nftKeys.metadata(ref.chainId, ref.contract, ref.tokenId);

/** The instance (G3) and its metadata item (G7), in one BatchGetItem. */
export async function readInstanceAndMetadata(
  ref: InstanceRef,
): Promise<{ instance: NftInstanceRecord | undefined; metadata: NftMetadataRecord | undefined }> {
  const instanceKey = nftKeys.instance(ref.chainId, ref.contract, ref.tokenId);
  const items = await batchGetItems([instanceKey, metadataKey(ref)], { consistent: true });
  const instance = items.get(keyId(instanceKey)) as NftInstanceRecord | undefined;
  return {
    // An item the ERC-1155 balance transitions created holds only their counters: not an instance yet.
    instance: instance?.kind === 'nftInstance' && instance.updatedAtBlock !== undefined ? instance : undefined,
    metadata: items.get(keyId(metadataKey(ref))) as NftMetadataRecord | undefined,
  };
}

/** The metadata items of many instances, by `keyId(metadataKey(ref))`. */
export function readMetadataItems(refs: readonly InstanceRef[]): Promise<Map<string, NftMetadataRecord>> {
  return refs.length === 0 ? Promise.resolve(new Map()) : batchGetItems<NftMetadataRecord>(refs.map(metadataKey));
}

export async function readMetadataItem(ref: InstanceRef): Promise<NftMetadataRecord | undefined> {
  return getItem<NftMetadataRecord>(metadataKey(ref), { consistent: true });
}

/**
 * Writes the item whole. `expected`: the item as read before the attempt (its `attemptedAt`), or
 * undefined when there was none: a write that finds another attempt's result in between is dropped
 * (two deliveries of one request never both count an attempt), and reports false.
 */
export async function writeMetadataItem(
  record: NftMetadataRecord,
  expected: Pick<NftMetadataRecord, 'attemptedAt'> | undefined,
): Promise<boolean> {
  const key = metadataKey(record);
  const outcome = await putItem({
    Item: { ...key, ...record },
    ...(expected
      ? { ConditionExpression: 'attemptedAt = :attempted', ExpressionAttributeValues: { ':attempted': expected.attemptedAt } }
      : { ConditionExpression: 'attribute_not_exists(pk)' }),
  });
  return outcome.applied;
}
