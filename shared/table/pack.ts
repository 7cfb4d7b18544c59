/**
 * Packed fields: the record fields of a chain item (block, transaction, log, token transfer) that no
 * reader names in an expression are stored together in ONE binary attribute, `d`, instead of one
 * attribute each. DynamoDB bills an item by the bytes of its attribute names and values, and a chain
 * record is mostly hex (hashes, signatures, calldata, log data) and long field names: as a string
 * attribute `"maxPriorityFeePerGas": "0x..."` costs every character. Packed:
 *  - the fields are a MessagePack array `[code, value, code, value, ...]`: a known field name is its
 *    small integer code (FIELD_NAMES), an unknown one stays its name;
 *  - a lowercase hex string of whole bytes (`0x` + an even number of digits) is stored as its bytes
 *    (half the size) and read back as the same string; any other string stays a string.
 * What stays an attribute of its own (never packed): the key attributes, `kind`, the fields a
 * FilterExpression, ProjectionExpression or condition of some reader names (the `top` list of each
 * family in compact.ts), and the fields the caller asks to keep. compact.ts packs after compaction;
 * packing is lossless for record values (pack.test.ts), so it never changes what a reader gets (and with
 * COMPACTION_CHECK=1, as in the tests, compact.ts proves it item by item).
 * An item without `d` (written before packing, or with nothing to pack) reads as before. Large packed
 * bytes are stored deflated (storedBytes), by the table layer when it sends the item (storedPacking):
 * an item is built with them as plain MessagePack, which reads the same.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { Decoder, Encoder } from '@msgpack/msgpack';

/**
 * One MessagePack encoder and decoder for the process. The library's `encode` function makes an encoder,
 * and its 2 KB buffer, per call and returns a view of that buffer: every packed item held 2 KB, and the
 * ingest made that garbage for each of its items. An encoder's own `encode` reuses its buffer and returns
 * an exact copy. (Both guard against re-entry: a nested call gets a clone.)
 */
const encoder = new Encoder();
const decoder = new Decoder();

/** `value` in MessagePack, as a buffer of its own. */
export const toMessagePack = (value: unknown): Uint8Array => encoder.encode(value);

/** The value MessagePack `bytes` hold. */
export const fromMessagePack = (bytes: Uint8Array): unknown => decoder.decode(bytes);

/**
 * Stored MessagePack of DEFLATE_FROM_BYTES or more (a bucket's entries, a large record's packed fields) is
 * stored deflated (raw DEFLATE, zlib level 1) behind a marker byte, when that is shorter. On the Base profile
 * that took write units from 35.9 to 31.9 a transaction and stored bytes from 17.4 to 13.3 KB (hashes and
 * addresses repeat within a bucket and a transaction), for about 0.2 ms of CPU a transaction; smaller ones
 * gain nothing a write unit would show, for the same per-call cost. A MessagePack array (what both hold)
 * never starts with the marker, so bytes stored before this read as they were.
 */
export const DEFLATE_FROM_BYTES = 512;
const DEFLATED_MARKER = 0x00;
/**
 * Fastest level, a 4 KB window and less state: each call sets up zlib's state anew, which for inputs of
 * a few KB costs more than the compression (the default 32 KB window and memLevel 8 took about a third
 * more CPU for the same write units on Base-profile items).
 */
const DEFLATE_OPTIONS = { level: 1, windowBits: 12, memLevel: 6 } as const;

/** MessagePack `bytes` as stored: deflated behind the marker when long and that is shorter, else themselves. */
export function storedBytes(bytes: Uint8Array): Uint8Array {
  if (bytes.length < DEFLATE_FROM_BYTES) return bytes;
  const deflated = deflateRawSync(bytes, DEFLATE_OPTIONS);
  if (deflated.length + 1 >= bytes.length) return bytes;
  const stored = new Uint8Array(deflated.length + 1);
  stored[0] = DEFLATED_MARKER;
  stored.set(deflated, 1);
  return stored;
}

/**
 * `bytes` (MessagePack, or bytes already stored) as stored: storedBytes of MessagePack, and stored bytes
 * as they are (a deflated value starts with the marker, which MessagePack of an array never does).
 */
export function storedOnce(bytes: Uint8Array): Uint8Array {
  return bytes.length < DEFLATE_FROM_BYTES || bytes[0] === DEFLATED_MARKER ? bytes : storedBytes(bytes);
}

/**
 * `item` with its packed attribute as the table stores it (storedOnce); the item itself when that changes
 * nothing. Packed fields are built as plain MessagePack (packFields) and deflated only here, where the
 * item is sent: the table layer's writes call it (shared/db/batch-write.ts, through buckets.ts
 * `storedItem`), on a table writer's thread when the ingest has writers, so that the ingest's main
 * thread does not deflate (about 10 % of its CPU on the Base profile).
 */
export function storedPacking<T extends Record<string, unknown>>(item: T): T {
  const packed = item[PACKED_ATTRIBUTE];
  if (!(packed instanceof Uint8Array)) return item;
  const stored = storedOnce(packed);
  return stored === packed ? item : { ...item, [PACKED_ATTRIBUTE]: stored };
}

/** The MessagePack bytes stored `bytes` hold (storedBytes' inverse). */
export function messagePackOf(bytes: Uint8Array): Uint8Array {
  return bytes[0] === DEFLATED_MARKER ? inflateRawSync(bytes.subarray(1)) : bytes;
}

/** The attribute that holds the packed fields. */
export const PACKED_ATTRIBUTE = 'd';

/**
 * The codes of field names in stored items: a name's code is its position. APPEND ONLY: items in
 * the table spell their fields with these codes, so a name never moves or goes away.
 */
const FIELD_NAMES = [
  'kind',
  'chainId',
  'number',
  'hash',
  'parentHash',
  'timestamp',
  'nonce',
  'sha3Uncles',
  'mixHash',
  'miner',
  'stateRoot',
  'transactionsRoot',
  'receiptsRoot',
  'logsBloom',
  'size',
  'extraData',
  'difficulty',
  'totalDifficulty',
  'transactionCount',
  'gasLimit',
  'gasUsed',
  'baseFeePerGas',
  'withdrawalsRoot',
  'withdrawalCount',
  'blobGasUsed',
  'excessBlobGas',
  'blockNumber',
  'blockHash',
  'blockTimestamp',
  'transactionIndex',
  'from',
  'to',
  'value',
  'input',
  'inputOmitted',
  'inputSize',
  'methodSelector',
  'gas',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'type',
  'r',
  's',
  'v',
  'yParity',
  'accessListJson',
  'authorizationListJson',
  'sourceHash',
  'mint',
  'isSystemTx',
  'otherFieldsJson',
  'status',
  'cumulativeGasUsed',
  'effectiveGasPrice',
  'contractAddress',
  'blobGasPrice',
  'logCount',
  'fee',
  'burntFee',
  'priorityFee',
  'l1Fee',
  'l1GasPrice',
  'l1GasUsed',
  'l1FeeScalar',
  'l1BaseFeeScalar',
  'l1BlobBaseFee',
  'l1BlobBaseFeeScalar',
  'revertReason',
  'transactionTypes',
  'error',
  'hasErrorInInternalTransactions',
  'tokenTransferCount',
  'tracesAvailable',
  'truncated',
  'transactionHash',
  'logIndex',
  'address',
  'data',
  'dataOmitted',
  'topics',
  'batchIndex',
  'token',
  'tokenStandard',
  'amount',
  'tokenId',
  'transferType',
  'operator',
  'index',
  'callType',
  'createdContract',
  'success',
  'traceAddress',
  'validatorIndex',
  'amountGwei',
  'tookEffect',
] as const;

const CODE_OF = new Map<string, number>(FIELD_NAMES.map((name, code) => [name, code]));

/** Lowercase hex of whole bytes, at least one: stored as bytes. */
const HEX_BYTES = /^0x(?:[0-9a-f]{2})+$/;

const packValue = (value: unknown): unknown => {
  if (typeof value === 'string') return HEX_BYTES.test(value) ? Buffer.from(value.slice(2), 'hex') : value;
  if (Array.isArray(value)) return value.map(packValue);
  return value;
};

const unpackValue = (value: unknown): unknown => {
  if (value instanceof Uint8Array) return `0x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
  if (Array.isArray(value)) return value.map(unpackValue);
  return value;
};

/**
 * The packed form of `fields` (undefined values left out), as plain MessagePack: storedOnce gives its
 * stored form (deflated when long), which the table layer makes when it writes the item (storedPacking).
 */
export function packFields(fields: Readonly<Record<string, unknown>>): Uint8Array {
  const flat: unknown[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    flat.push(CODE_OF.get(name) ?? name, packValue(value));
  }
  return toMessagePack(flat);
}

/** The fields a packed attribute holds. */
export function unpackFields(packed: Uint8Array): Record<string, unknown> {
  const flat = fromMessagePack(messagePackOf(packed));
  if (!Array.isArray(flat) || flat.length % 2 !== 0) throw new Error('packed fields: not a list of (code, value) pairs');
  const fields: Record<string, unknown> = {};
  for (let index = 0; index < flat.length; index += 2) {
    const code = flat[index];
    const name = typeof code === 'number' ? FIELD_NAMES[code] : code;
    if (typeof name !== 'string') throw new Error(`packed fields: unknown field code ${String(code)}`);
    fields[name] = unpackValue(flat[index + 1]);
  }
  return fields;
}

/**
 * `item` with every attribute not in `top` (nor a key attribute) moved into the packed attribute;
 * the item itself when there is nothing to move.
 */
export function packItem(item: Readonly<Record<string, unknown>>, top: ReadonlySet<string>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  const packed: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) {
    if (top.has(name)) kept[name] = value;
    else packed[name] = value;
  }
  if (Object.keys(packed).length === 0) return { ...item };
  kept[PACKED_ATTRIBUTE] = packFields(packed);
  return kept;
}

/** `item` with its packed attribute (if any) spread back into attributes; the item itself otherwise. */
export function unpackItem<T extends object>(item: T): T {
  const packed = (item as Record<string, unknown>)[PACKED_ATTRIBUTE];
  if (!(packed instanceof Uint8Array)) return item;
  // The packed fields, then the item's own attributes over them, in one object.
  const fields = unpackFields(packed);
  for (const [name, value] of Object.entries(item)) if (name !== PACKED_ATTRIBUTE) fields[name] = value;
  return fields as T;
}
