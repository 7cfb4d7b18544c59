/**
 * Write manifests (G2) and the ingest cursor (G1); ids: see docs/access-patterns.md.
 *
 * A block's manifest lists every immutable item key the block writes and every state entity it
 * touches; it is written BEFORE any of the block's items, so whatever a crash leaves half-written is
 * listed somewhere. (A block written in slices, ingest.ts writeSlices, writes it in parts, each before
 * the items it lists, and its block item after the last part: the rules below hold.) The cursor names the last block whose items are ALL written; it moves with a
 * conditional update on the block it replaces, so two writers can never both advance it. Before a
 * batch of several blocks is written, the cursor records the batch's last block (`pendingTo`), so that
 * a restart or a reorg knows which manifests past the cursor a crash may have left.
 *
 * A chunk stores its entries packed: `packed` is the raw DEFLATE of the JSON `{"i": [[pk, sk], ...],
 * "t": [touched, ...]}` (a binary attribute). Keys repeat the chain prefix, addresses and hashes many
 * times, so a block's manifest shrinks about tenfold (the benchmark chain's 5.2 KB, 5-6 write units,
 * to about 0.6 KB, one). Chunks written before packing (`items` and `touched` as lists) read as before.
 *
 * Manifests are needed only while a reorg or a restart may undo their block: each chunk carries the
 * table's TTL attribute (`ttl`, epoch seconds) = the block's timestamp + the retention
 * (`manifestRetentionDays`, default 7; 0: no `ttl`, kept forever), so DynamoDB deletes it for free
 * once no reorg within the window can reach the block. Block time, not the clock: a manifest written
 * again is the same item. A block whose manifest is gone but whose block item (N1) is stored had its
 * manifest expire (the manifest is written before any of the block's items): `manifestsExpired` tells
 * it from a block never written, and the reorg and the restart check stop there (ManifestExpiredError)
 * rather than leave the block's items behind.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { updateItem, writeItems } from '../db/operations';
import { TABLE } from '../table/definition';
import { blockKeys, chainKeys, type ItemKey, type TableItem } from '../table/keys';
import type { BlockRecord, CursorRecord, ManifestRecord } from '../table/records';
import { DEFAULT_MANIFEST_RETENTION_DAYS, manifestExpiry } from './manifest-retention';
import { getItem, queryRange } from './table-io';

export const MANIFEST_CHUNK_ENTRIES = 500;

export { DEFAULT_MANIFEST_RETENTION_DAYS, manifestExpiry };

export interface BlockManifest {
  blockNumber: number;
  blockHash: string;
  /** The block's timestamp (epoch seconds): its expiry is counted from it (none: kept forever). */
  blockTimestamp?: number;
  items: ItemKey[];
  touched: string[];
  /** Chunks stored (when read from the table): one past the highest chunk index found. */
  chunkCount?: number;
  /**
   * When read from the table: every chunk it names is there. An incomplete manifest is the leftover of
   * a write a crash cut (none of the block's items written then: they come after), or of one whose
   * chunks DynamoDB's TTL deleted one by one (its items stored): `manifestsExpired` tells them apart.
   */
  complete?: boolean;
}

/**
 * Writes a block's manifest; `storedChunks` is the chunk count of a manifest already there (0: none).
 * With `retentionDays` > 0 its chunks expire that long after the block's timestamp (`ttl`).
 */
export async function writeManifest(
  chainId: number,
  manifest: BlockManifest,
  storedChunks: number,
  retentionDays: number = DEFAULT_MANIFEST_RETENTION_DAYS,
): Promise<void> {
  const written = await writeManifestChunks(chainId, manifest, { firstChunk: 0, last: true }, retentionDays);
  await deleteManifestChunksPast(chainId, manifest.blockNumber, written, storedChunks);
}

/**
 * Writes part of a block's manifest (`manifest.items` and `touched` of that part) as chunks numbered
 * from `firstChunk`; returns the chunk index after them. A block written in slices (ingest.ts) writes
 * its manifest part by part, each before the items it lists. Each chunk records the chunk count known
 * when it is written: the part's own chunks plus one more until the `last` part, whose chunks carry
 * the manifest's whole count, so a manifest a crash cut between parts reads as incomplete (isComplete).
 */
export async function writeManifestChunks(
  chainId: number,
  manifest: BlockManifest,
  part: { firstChunk: number; last: boolean },
  retentionDays: number = DEFAULT_MANIFEST_RETENTION_DAYS,
): Promise<number> {
  const expiresAt = manifestExpiry(manifest.blockTimestamp, retentionDays);
  const entries: ({ item: ItemKey } | { touched: string })[] = [
    ...manifest.items.map((item) => ({ item: { pk: item.pk, sk: item.sk } })),
    ...manifest.touched.map((touched) => ({ touched })),
  ];
  // (The last part writes a chunk even when empty: the one that records the whole count.)
  const count = Math.max(part.last ? 1 : 0, Math.ceil(entries.length / MANIFEST_CHUNK_ENTRIES));
  const end = part.firstChunk + count;
  const chunkCount = part.last ? end : end + 1;
  const records: TableItem[] = [];
  for (let offset = 0; offset < count; offset += 1) {
    const chunk = part.firstChunk + offset;
    const slice = entries.slice(offset * MANIFEST_CHUNK_ENTRIES, (offset + 1) * MANIFEST_CHUNK_ENTRIES);
    const record: ManifestRecord = {
      kind: 'manifest',
      chainId,
      blockNumber: manifest.blockNumber,
      blockHash: manifest.blockHash,
      chunk,
      chunkCount,
      packed: packEntries(
        slice.flatMap((entry) => ('item' in entry ? [entry.item] : [])),
        slice.flatMap((entry) => ('touched' in entry ? [entry.touched] : [])),
      ),
    };
    if (expiresAt !== undefined) record[TABLE.ttlAttribute] = expiresAt;
    records.push({ ...chainKeys.manifest(chainId, manifest.blockNumber, chunk), ...record });
  }
  if (records.length > 0) await writeItems({ put: records });
  return end;
}

/** Deletes a block's manifest chunks `from` .. `storedChunks` - 1: those of an earlier write of it with more chunks. */
export async function deleteManifestChunksPast(chainId: number, blockNumber: number, from: number, storedChunks: number): Promise<void> {
  const stale: ItemKey[] = [];
  for (let chunk = from; chunk < storedChunks; chunk += 1) stale.push(chainKeys.manifest(chainId, blockNumber, chunk));
  if (stale.length > 0) await writeItems({ delete: stale });
}

/**
 * The manifest stored for a block number (any block hash), or undefined; `complete` false when some of
 * its chunks are missing (a write a crash cut, or chunks DynamoDB's TTL deleted one by one).
 */
export async function readManifest(chainId: number, blockNumber: number): Promise<BlockManifest | undefined> {
  const chunks = await queryRange<ManifestRecord>(chainKeys.manifestRange(chainId, blockNumber));
  const [first] = chunks;
  if (first === undefined) return undefined;
  const entries = chunks.map(unpackEntries);
  return {
    blockNumber,
    blockHash: first.blockHash,
    items: entries.flatMap((chunk) => chunk.items),
    touched: entries.flatMap((chunk) => chunk.touched),
    chunkCount: Math.max(...chunks.map((chunk) => chunk.chunk + 1)),
    complete: isComplete(chunks),
  };
}

/** Whether a block's manifest is stored whole (its entries not unpacked): false when absent or incomplete. */
export async function hasManifest(chainId: number, blockNumber: number): Promise<boolean> {
  return isComplete(await queryRange<ManifestRecord>(chainKeys.manifestRange(chainId, blockNumber)));
}

/**
 * Every chunk of one manifest is there: chunks 0 .. n - 1 of one block hash, where n is the count the
 * last of them records. (A chunk records the count known when it was written, at most the whole: a
 * manifest written in parts whose last part a crash cut ends in a chunk that expects more.)
 */
function isComplete(chunks: readonly ManifestRecord[]): boolean {
  const [first] = chunks;
  const last = chunks.at(-1);
  if (first === undefined || last === undefined || chunks.length !== last.chunkCount) return false;
  return chunks.every(
    (chunk, position) => chunk.chunk === position && chunk.chunkCount <= last.chunkCount && chunk.blockHash === first.blockHash,
  );
}

/**
 * Of `blockNumbers`, read without a (complete) manifest, those whose manifest expired: their block
 * item (N1) is stored, and it is written only after the block's whole manifest (a block never
 * written, or whose manifest write a crash cut, has none; N1 is a counted entry, which a backfill
 * worker never writes). One GetItem per block; with `hashes` (the blocks' hashes as the caller knows them), a
 * block stored with that very hash is left out (written again identically, it needs no manifest).
 * Reorg and restart paths only.
 */
export async function manifestsExpired(
  chainId: number,
  blockNumbers: readonly number[],
  hashes: ReadonlyMap<number, string> = new Map(),
): Promise<number[]> {
  const stored = await Promise.all(blockNumbers.map((number) => getItem<BlockRecord>(blockKeys.block(chainId, number))));
  return blockNumbers.filter((number, position) => {
    const block = stored[position];
    return block !== undefined && block.hash !== hashes.get(number);
  });
}

/**
 * A chunk's entries as stored: DEFLATE (raw) of `{"i": [[pk, sk], ...], "t": [...]}`, at zlib's default
 * level: on Base-profile blocks level 9 took 1.09 ms a chunk for 875 write units over 112 chunks, the
 * default 0.45 ms for 896 (a manifest is written once and kept a week).
 */
export function packEntries(items: readonly ItemKey[], touched: readonly string[]): Uint8Array {
  return deflateRawSync(JSON.stringify({ i: items.map((key) => [key.pk, key.sk]), t: touched }));
}

/** A chunk's entries, packed or (written before packing) as lists. */
export function unpackEntries(chunk: ManifestRecord): { items: ItemKey[]; touched: string[] } {
  if (chunk.packed === undefined) return { items: chunk.items ?? [], touched: chunk.touched ?? [] };
  const { i, t } = JSON.parse(inflateRawSync(chunk.packed).toString('utf8')) as { i: [string, string][]; t: string[] };
  return { items: i.map(([pk, sk]) => ({ pk, sk })), touched: t };
}

export async function deleteManifest(chainId: number, blockNumber: number): Promise<void> {
  const chunks = await queryRange<ManifestRecord & ItemKey>(chainKeys.manifestRange(chainId, blockNumber));
  await writeItems({ delete: chunks });
}

// ---------------------------------------------------------------------------------------------------

export async function readCursor(chainId: number): Promise<CursorRecord | undefined> {
  return getItem<CursorRecord>(chainKeys.cursor(chainId));
}

/** Thrown when the cursor is not where this writer left it: another writer is ingesting the chain. */
export class CursorMovedError extends Error {
  override name = 'CursorMovedError';
}

/**
 * Moves the cursor from `previous` (undefined: no cursor yet) to `next`, with `next.pendingTo` the
 * blocks still announced past it (none: removed). Fails with CursorMovedError when the stored cursor
 * is not `previous`, or announces blocks past what this writer knows of (another writer's batch).
 */
export async function moveCursor(
  chainId: number,
  previous: CursorRecord | undefined,
  next: { blockNumber: number; blockHash: string; blockTimestamp?: number; pendingTo?: number },
  firstBlock: number,
): Promise<CursorRecord> {
  const record: CursorRecord = {
    kind: 'cursor',
    chainId,
    blockNumber: next.blockNumber,
    blockHash: next.blockHash,
    firstBlock: previous?.firstBlock ?? firstBlock,
  };
  const pending = next.pendingTo !== undefined && next.pendingTo > next.blockNumber ? next.pendingTo : undefined;
  if (pending !== undefined) record.pendingTo = pending;
  if (next.blockTimestamp !== undefined) record.blockTimestamp = next.blockTimestamp;
  // A new cursor: the chain's every batch writes range heads (range-heads.ts); an existing one keeps what it says.
  const created = previous === undefined;
  if (created) record.rangeHeads = true;
  const removed = [...(pending === undefined ? ['pendingTo'] : []), ...(next.blockTimestamp === undefined ? ['blockTimestamp'] : [])];
  await updateCursor(chainId, previous, Math.max(next.blockNumber, pending ?? 0, previous?.pendingTo ?? 0), {
    UpdateExpression: `SET #kind = :kind, chainId = :chainId, blockNumber = :number, blockHash = :hash, firstBlock = :first${pending === undefined ? '' : ', pendingTo = :pendingTo'}${next.blockTimestamp === undefined ? '' : ', blockTimestamp = :timestamp'}${created ? ', rangeHeads = :heads' : ''}${removed.length > 0 ? ` REMOVE ${removed.join(', ')}` : ''}`,
    ExpressionAttributeNames: { '#kind': 'kind' },
    ExpressionAttributeValues: {
      ':kind': 'cursor',
      ':chainId': chainId,
      ':number': record.blockNumber,
      ':hash': record.blockHash,
      ':first': record.firstBlock,
      ...(pending === undefined ? {} : { ':pendingTo': pending }),
      ...(next.blockTimestamp === undefined ? {} : { ':timestamp': next.blockTimestamp }),
      ...(created ? { ':heads': true } : {}),
    },
  });
  return record;
}

/**
 * Records that blocks up to `pendingTo` are about to be written past the cursor (conditional on the
 * cursor being where this writer left it, and never lowering what is announced).
 */
export async function markPending(chainId: number, cursor: CursorRecord, pendingTo: number): Promise<CursorRecord> {
  await updateCursor(chainId, cursor, Math.max(pendingTo, cursor.pendingTo ?? 0), {
    UpdateExpression: 'SET pendingTo = :pendingTo',
    ExpressionAttributeValues: { ':pendingTo': pendingTo },
  });
  return { ...cursor, pendingTo };
}

/**
 * One conditional update of the cursor item: it must still be `expected` (absent: no cursor yet), and
 * announce no block past `announcedAtMost` (what this writer read or announces itself; more would be
 * another writer's batch).
 */
async function updateCursor(
  chainId: number,
  expected: CursorRecord | undefined,
  announcedAtMost: number,
  update: {
    UpdateExpression: string;
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues: Record<string, unknown>;
  },
): Promise<void> {
  const outcome = await updateItem({
    Key: chainKeys.cursor(chainId),
    ...update,
    ConditionExpression: expected
      ? 'blockNumber = :expectedNumber AND blockHash = :expectedHash AND (attribute_not_exists(pendingTo) OR pendingTo <= :announcedAtMost)'
      : 'attribute_not_exists(pk)',
    ExpressionAttributeValues: {
      ...update.ExpressionAttributeValues,
      ...(expected
        ? { ':expectedNumber': expected.blockNumber, ':expectedHash': expected.blockHash, ':announcedAtMost': announcedAtMost }
        : {}),
    },
  });
  if (!outcome.applied)
    throw new CursorMovedError(`chain ${chainId}: the cursor moved under this writer (expected block ${expected?.blockNumber ?? 'none'})`);
}

/** The last block past the cursor that an interrupted run may have left half written. */
export function lastPossiblyWritten(cursor: CursorRecord): number {
  return Math.max(cursor.blockNumber + 1, cursor.pendingTo ?? 0);
}
