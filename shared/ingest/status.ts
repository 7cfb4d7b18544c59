/**
 * A chain's ingest status (chainKeys.status, G7): the ingest's writer side.
 *
 * The ingest writes it at most once per batch, and only when its state changed or
 * `statusIntervalMs` (10 s by default) passed since its last write, plus once at the end of each run: the
 * state (`following`, `catching_up`, `repairing`, `stopped` and why), the node's head as last seen and
 * the chain's capabilities (how traces and receipts are read, Multicall3). The indexed head is the
 * cursor's (number, hash, timestamp: exact, moved by every batch).
 *
 * The readers' side (settings, the state shown, the API's shape) is shared/chain-status/status.ts:
 * the API groups load that one, never this module (the table layer and the table model only).
 */
import { batchGetItems, putItem } from '../db/operations';
import { chainKeys, keyId } from '../table/keys';
import type { ChainStatusRecord, IngestState } from '../table/records';

export type { IngestState };

/** Longest reason kept (an error's text can be long): the item stays far below DynamoDB's 400 KB. */
export const MAX_REASON_LENGTH = 1_000;

export type StatusFields = Omit<ChainStatusRecord, 'kind' | 'chainId'>;

/** One PutItem (one write unit: the item is a few hundred bytes). */
export async function writeChainStatus(chainId: number, fields: StatusFields): Promise<void> {
  const reason = fields.reason === null ? null : fields.reason.slice(0, MAX_REASON_LENGTH);
  const record: ChainStatusRecord = { kind: 'chainStatus', chainId, ...fields, reason };
  await putItem({ Item: { ...chainKeys.status(chainId), ...record } });
}

export async function readStoredStatus(chainId: number): Promise<ChainStatusRecord | undefined> {
  const items = await batchGetItems<ChainStatusRecord>([chainKeys.status(chainId)]);
  return items.get(keyId(chainKeys.status(chainId)));
}
