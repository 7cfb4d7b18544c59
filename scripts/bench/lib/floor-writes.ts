/**
 * The table floor's input (scripts/bench/ingest.ts, floor.ts): every write the ingest sent, captured
 * at the table's edge, turned into what BatchWriteItem can put into an empty table. Pure; checked by
 * test/scripts/bench/.
 *
 *  - every item image the ingest put (BatchWriteItem puts, TransactWriteItems puts, PutItem), in the
 *    order sent, repeats included: each is work the table did;
 *  - every update (UpdateItem, TransactWriteItems updates) as a put of the item's image at the end of
 *    the run (updates of an item that is gone at the end are counted and left out);
 *  - every delete as a DeleteRequest, after the puts.
 * A BatchWriteItem may not name a key twice, so the puts are arranged in chunks of 25 distinct keys,
 * a repeated key moving to a later chunk (order within a key is kept).
 */

export type Item = Record<string, unknown> & { pk: string; sk: string };
export type Key = { pk: string; sk: string };

export interface CapturedWrites {
  puts: Item[];
  updates: Key[];
  deletes: Key[];
}

export const emptyCapture = (): CapturedWrites => ({ puts: [], updates: [], deletes: [] });

const keyOf = (key: Key): string => `${key.pk}\u0000${key.sk}`;

/** Feeds one write command's input (document-client shape, before marshalling) into the capture. */
export function captureWrite(capture: CapturedWrites, command: string, input: Record<string, any>): void {
  const name = command.replace(/Command$/, '');
  const key = (value: Record<string, any> | undefined): Key | undefined =>
    value && typeof value.pk === 'string' && typeof value.sk === 'string' ? { pk: value.pk, sk: value.sk } : undefined;
  if (name === 'BatchWriteItem' || name === 'BatchWrite') {
    for (const requests of Object.values(input.RequestItems ?? {}) as Record<string, any>[][]) {
      for (const request of requests) {
        if (request.PutRequest?.Item) capture.puts.push(request.PutRequest.Item as Item);
        const deleted = key(request.DeleteRequest?.Key);
        if (deleted) capture.deletes.push(deleted);
      }
    }
  } else if (name === 'TransactWriteItems' || name === 'TransactWrite') {
    for (const action of (input.TransactItems ?? []) as Record<string, any>[]) {
      if (action.Put?.Item) capture.puts.push(action.Put.Item as Item);
      const updated = key(action.Update?.Key);
      if (updated) capture.updates.push(updated);
      const deleted = key(action.Delete?.Key);
      if (deleted) capture.deletes.push(deleted);
    }
  } else if (name === 'PutItem' || name === 'Put') {
    if (input.Item) capture.puts.push(input.Item as Item);
  } else if (name === 'UpdateItem' || name === 'Update') {
    const updated = key(input.Key);
    if (updated) capture.updates.push(updated);
  } else if (name === 'DeleteItem' || name === 'Delete') {
    const deleted = key(input.Key);
    if (deleted) capture.deletes.push(deleted);
  }
}

export interface FloorInput {
  /** Chunks of at most 25 puts with distinct keys. */
  chunks: Item[][];
  deletes: Key[];
  counts: { puts: number; updatesAsPuts: number; updatesOfItemsGone: number; deletes: number };
}

/** The floor's requests: the puts (updates as the item's final image) in chunks of distinct keys, then the deletes. */
export function floorInput(capture: CapturedWrites, finalItems: ReadonlyMap<string, Item> | readonly Item[], size = 25): FloorInput {
  const finals = Array.isArray(finalItems)
    ? new Map((finalItems as readonly Item[]).map((item) => [keyOf(item), item]))
    : (finalItems as ReadonlyMap<string, Item>);
  const updated: Item[] = [];
  let gone = 0;
  for (const key of capture.updates) {
    const item = finals.get(keyOf(key));
    if (item) updated.push(item);
    else gone += 1;
  }
  const chunks = distinctChunks([...capture.puts, ...updated], size);
  return {
    chunks,
    deletes: capture.deletes,
    counts: { puts: capture.puts.length, updatesAsPuts: updated.length, updatesOfItemsGone: gone, deletes: capture.deletes.length },
  };
}

/** Chunks of at most `size` items, no key twice in a chunk, keys in their order of arrival. */
export function distinctChunks(items: readonly Item[], size = 25): Item[][] {
  const chunks: { items: Item[]; keys: Set<string> }[] = [];
  // The chunk after the last one holding each key: a repeat goes there or later.
  const nextChunkOf = new Map<string, number>();
  let firstOpen = 0;
  for (const item of items) {
    const key = keyOf(item);
    let index = Math.max(firstOpen, nextChunkOf.get(key) ?? 0);
    while (chunks[index] && chunks[index]!.items.length >= size) index += 1;
    const chunk = chunks[index] ?? { items: [], keys: new Set<string>() };
    chunks[index] = chunk;
    chunk.items.push(item);
    chunk.keys.add(key);
    nextChunkOf.set(key, index + 1);
    while (chunks[firstOpen] && chunks[firstOpen]!.items.length >= size) firstOpen += 1;
  }
  return chunks.map((chunk) => chunk.items);
}
