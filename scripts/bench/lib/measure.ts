/**
 * Pure pieces of the per-request measurement (scripts/bench/http.ts): percentiles, DynamoDB round
 * trips in sequence, item sizes, the wasted-read and read-unit figures of the budgets, and the number
 * of records a response carries. No I/O: test/scripts/bench/ checks them.
 */

/** One DynamoDB call as the recorder saw it (times in ms from any common origin). */
export interface RecordedCall {
  command: string;
  start: number;
  end: number;
  /** Query / Scan: items read (ScannedCount) and items returned (Items). */
  scanned: number;
  returned: number;
  /** Get / BatchGet: keys asked for and items found. */
  keysRequested: number;
  keysFound: number;
  /** Size in bytes (DynamoDB's rules, approximately) of every item the call returned. */
  itemBytes: number[];
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const median = (values: readonly number[]): number => percentile(values, 50);

/**
 * The depth of each call: 1 + the deepest call that ended before it started. Calls in flight at the
 * same time (a merge of two ranges, a BatchGetItem split in chunks) share a depth; the largest depth
 * is the number of round trips the request waited on in sequence.
 */
export function callDepths(calls: readonly Pick<RecordedCall, 'start' | 'end'>[]): number[] {
  const order = calls.map((_, index) => index).sort((a, b) => calls[a].start - calls[b].start);
  const depths = new Array<number>(calls.length).fill(1);
  for (const index of order) {
    let depth = 1;
    for (const other of order) {
      if (other === index) continue;
      if (calls[other].end <= calls[index].start) depth = Math.max(depth, depths[other] + 1);
    }
    depths[index] = depth;
  }
  return depths;
}

export function roundTrips(calls: readonly Pick<RecordedCall, 'start' | 'end'>[]): number {
  return calls.length === 0 ? 0 : Math.max(...callDepths(calls));
}

/** The calls grouped by depth, in order: what a direct replay sends in parallel, wave after wave. */
export function waves<T extends Pick<RecordedCall, 'start' | 'end'>>(calls: readonly T[]): T[][] {
  const depths = callDepths(calls);
  const result: T[][] = [];
  calls.forEach((call, index) => {
    const wave = result[depths[index] - 1] ?? [];
    wave.push(call);
    result[depths[index] - 1] = wave;
  });
  return result.filter(Boolean);
}

/**
 * Size of an item as DynamoDB counts it (approximately): attribute name lengths plus value sizes;
 * strings in UTF-8 bytes, numbers about 1 byte per 2 significant digits + 1, binary its length,
 * booleans and null 1, lists and maps 3 bytes + 1 per element + their elements.
 */
export function itemSize(item: Record<string, unknown>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) size += Buffer.byteLength(name) + valueSize(value);
  return size;
}

function valueSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') {
    const digits = String(value).replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
    return Math.ceil(Math.max(1, digits.length) / 2) + 1;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce<number>((sum, element) => sum + valueSize(element), 0);
  if (Array.isArray(value)) return 3 + value.reduce<number>((sum, element) => sum + 1 + valueSize(element), 0);
  if (typeof value === 'object') {
    let size = 3;
    for (const [name, element] of Object.entries(value as Record<string, unknown>))
      size += 1 + Buffer.byteLength(name) + valueSize(element);
    return size;
  }
  return 1;
}

/** Read units of one eventually consistent Query returning items of these sizes. */
export function queryReadUnits(bytes: readonly number[]): number {
  const total = bytes.reduce((sum, size) => sum + size, 0);
  return total === 0 ? 0 : Math.ceil(total / 4096) * 0.5;
}

/**
 * The least read units the response's records could cost: the `records` largest items the request
 * read, as if read once by one eventually consistent Query (the records' items are among what was
 * read; taking the largest makes this minimum an upper bound of it, never stricter than the truth).
 */
export function minimumReadUnits(calls: readonly RecordedCall[], records: number): number {
  if (records <= 0) return 0;
  const sizes = calls.flatMap((call) => call.itemBytes).sort((a, b) => b - a);
  return queryReadUnits(sizes.slice(0, records));
}

/**
 * Items read that are neither returned nor needed: a Query's items beyond the records of the
 * response (the probe item of a keyset page, the skipped rows of page-number paging, entries a
 * filter or a combination check discarded, items a COUNT read) are wasted; items a GetItem or
 * BatchGetItem found are taken as needed (details joined into the records, or the records a
 * pointer led to). Query items up to the number of records are the records or their pointers.
 */
export function wastedReads(calls: readonly RecordedCall[], records: number): number {
  let scanned = 0;
  let returned = 0;
  for (const call of calls) {
    if (call.command !== 'QueryCommand' && call.command !== 'ScanCommand') continue;
    scanned += call.scanned;
    returned += call.returned;
  }
  return Math.max(0, scanned - Math.min(returned, Math.max(0, records)));
}

/** The wasted-read allowance of the issue: 0.1 x items returned + 2. */
export const wastedReadAllowance = (records: number): number => 0.1 * records + 2;

/** BatchGetItem / GetItem keys asked for that do not exist. */
export function missingKeys(calls: readonly RecordedCall[]): number {
  return calls.reduce((sum, call) => sum + Math.max(0, call.keysRequested - call.keysFound), 0);
}

/**
 * The records a response carries: explorer `items`, insights `data` (or the aggregation rows),
 * collections `collections`, resolve's lists; a single resource is 1; an error 0.
 */
export function recordsOf(status: number, body: unknown): number {
  if (status >= 400 || typeof body !== 'object' || body === null) return 0;
  const record = body as Record<string, unknown>;
  if (Array.isArray(record.items)) return record.items.length;
  if (Array.isArray(record.collections)) return record.collections.length;
  if (Array.isArray(record.data)) {
    const rows = Array.isArray(record.aggregations)
      ? (record.aggregations as unknown[]).reduce<number>((sum, chain) => sum + (Array.isArray(chain) ? chain.length : 0), 0)
      : 0;
    return record.data.length + rows;
  }
  if (record.data && typeof record.data === 'object') {
    // resolve: its blocks, transactions and events; a single resource otherwise.
    const data = record.data as Record<string, unknown>;
    const lists = [data.blocks, data.transactions, data.events].filter(Array.isArray) as unknown[][];
    return lists.length === 3 ? lists.reduce((sum, list) => sum + list.length, 0) : 1;
  }
  return 1;
}
