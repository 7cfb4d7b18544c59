/**
 * The wire format of the ingest's listener calls when they travel through a queue (an SQS FIFO queue
 * in AWS: shared/ingest/queue-listener.ts publishes, shared/ingest/queue-consumer.ts delivers). It
 * knows no listener and no API group: a message is one `blocksIngested` or `blocksOrphaned` call.
 *
 * Size: SQS takes at most 256 KiB per message (body + attributes; these messages have no attributes).
 * A `BlockIngestedEvent` is about 1.6 KB of block record plus ~0.6 KB per ERC-20 transfer and ~0.26 KB
 * per native transfer (JSON, full-length hashes and amounts), with no bound on their number: a
 * 30M-gas block can hold over ten thousand Transfer logs (a log costs ~1.8k gas), megabytes of JSON,
 * while a message holds about 400 ERC-20 transfers. A queue of a block's activity (queue-listener.ts
 * `content`) carries its transactions and logs instead: a 200-transaction Base block is about 0.5 MB of
 * them. So `encodeBlocksIngested` packs consecutive events into as few messages as fit, and splits an
 * event that alone does not fit into parts: each part carries the block record and a run of its lists
 * (merged in transaction order), so that the parts, delivered one after the other, present every entry
 * in block order. A transaction or log too large for a message alone travels without its calldata or
 * data (`inputOmitted` / `dataOmitted`, as the table's index copies). Orphaned blocks
 * (~100 bytes each) are chunked the same way. Messages keep the order of the calls.
 *
 * Dedup: each message's id is a hash of chain id, kind, the blocks (number, hash, mode) and the part,
 * so the same call published again (a retried ingest run) within SQS's 5-minute window is dropped;
 * outside it, or batched differently, it is delivered again, which listeners tolerate (idempotent).
 */
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import type { NativeTransfer } from './derive';
import type { BlockIngestedEvent, BlocksOrphanedEvent } from './listeners';
import type { LogRecord, TokenTransferRecord, TransactionRecord } from '../table/records';

/** SQS's limit for one message, in bytes. */
export const MAX_MESSAGE_BYTES = 256 * 1024;

export const MESSAGE_VERSION = 1;

export type ListenerMessage =
  | {
      v: typeof MESSAGE_VERSION;
      kind: 'blocksIngested';
      chainId: number;
      events: BlockIngestedEvent[];
      /** Present when one block's transfers are split over several messages. */
      part?: { index: number; count: number };
    }
  | { v: typeof MESSAGE_VERSION; kind: 'blocksOrphaned'; chainId: number; event: BlocksOrphanedEvent };

/** A message ready for the queue: its body and the id SQS deduplicates it by. */
export interface EncodedMessage {
  body: string;
  deduplicationId: string;
}

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

function encode(message: ListenerMessage, maxBytes: number): EncodedMessage {
  const body = JSON.stringify(message);
  if (bytes(body) > maxBytes) throw new Error(`a ${message.kind} message of ${bytes(body)} bytes exceeds ${maxBytes}`);
  const blocks =
    message.kind === 'blocksIngested'
      ? message.events.map((event) => `${event.block.number}:${event.block.hash}:${event.mode}`)
      : message.event.blocks.map((block) => `${block.number}:${block.hash}`);
  const part = message.kind === 'blocksIngested' && message.part ? `${message.part.index}/${message.part.count}` : '';
  const key = `${message.chainId}|${message.kind}|${blocks.join(',')}|${part}`;
  return { body, deduplicationId: createHash('sha256').update(key).digest('hex') };
}

/** The messages of one `blocksIngested` call, in order, each at most `maxBytes`. */
export function encodeBlocksIngested(events: readonly BlockIngestedEvent[], maxBytes = MAX_MESSAGE_BYTES): EncodedMessage[] {
  const [first] = events;
  if (first === undefined) return [];
  const chainId = first.chainId;
  const envelope = (list: BlockIngestedEvent[], part?: { index: number; count: number }): ListenerMessage => ({
    v: MESSAGE_VERSION,
    kind: 'blocksIngested',
    chainId,
    events: list,
    ...(part ? { part } : {}),
  });
  const emptySize = bytes(JSON.stringify(envelope([])));
  const messages: EncodedMessage[] = [];
  let pending: BlockIngestedEvent[] = [];
  let pendingSize = emptySize;
  const flush = () => {
    if (pending.length > 0) messages.push(encode(envelope(pending), maxBytes));
    pending = [];
    pendingSize = emptySize;
  };
  for (const event of events) {
    const size = bytes(JSON.stringify(event));
    if (emptySize + size > maxBytes) {
      flush();
      const parts = splitEvent(event, maxBytes - emptySize - bytes(',"part":{"index":000000,"count":000000}'));
      for (const [index, part] of parts.entries()) messages.push(encode(envelope([part], { index, count: parts.length }), maxBytes));
      continue;
    }
    if (pendingSize + size + (pending.length > 0 ? 1 : 0) > maxBytes) flush();
    pendingSize += size + (pending.length > 0 ? 1 : 0);
    pending.push(event);
  }
  flush();
  return messages;
}

/** One entry of a block's lists, in the order the parts carry them. */
type Entry = { native: NativeTransfer } | { erc20: TokenTransferRecord } | { transaction: TransactionRecord } | { log: LogRecord };

const transactionIndexOf = (entry: Entry): number =>
  'native' in entry
    ? entry.native.transactionIndex
    : 'erc20' in entry
      ? entry.erc20.transactionIndex
      : 'transaction' in entry
        ? entry.transaction.transactionIndex
        : entry.log.transactionIndex;

/**
 * An entry that alone fits no message: a transaction's calldata or a log's data of hundreds of KB. It
 * travels without them (`inputOmitted` / `dataOmitted`, as the table's index copies do); a consumer
 * that needs them reads the canonical item (N2). A transfer is a few hundred bytes: it always fits.
 */
function slimmed(entry: Entry): Entry {
  if ('transaction' in entry) return { transaction: { ...entry.transaction, input: null, inputOmitted: true } };
  if ('log' in entry) return { log: { ...entry.log, data: null, dataOmitted: true } };
  return entry;
}

const emptyLists = { nativeTransfers: [], erc20Transfers: [], transactions: [], logs: [] };

/** An entry's JSON bytes in a message (its comma included). */
const sizeOf = (entry: Entry): number =>
  bytes(
    JSON.stringify(
      'native' in entry ? entry.native : 'erc20' in entry ? entry.erc20 : 'transaction' in entry ? entry.transaction : entry.log,
    ),
  ) + 1;

/** One block's lists over several events of at most `budget` bytes each, in transaction order. */
function splitEvent(event: BlockIngestedEvent, budget: number): BlockIngestedEvent[] {
  // Every list merged by transaction (a stable sort keeps each list's own order).
  const entries: Entry[] = [
    ...event.transactions.map((transaction): Entry => ({ transaction })),
    ...event.nativeTransfers.map((native): Entry => ({ native })),
    ...event.erc20Transfers.map((erc20): Entry => ({ erc20 })),
    ...event.logs.map((log): Entry => ({ log })),
  ].sort((a, b) => transactionIndexOf(a) - transactionIndexOf(b));
  const base: BlockIngestedEvent = { ...event, ...emptyLists };
  const baseSize = bytes(JSON.stringify(base));
  const parts: BlockIngestedEvent[] = [];
  let current: BlockIngestedEvent = { ...base, nativeTransfers: [], erc20Transfers: [], transactions: [], logs: [] };
  let size = baseSize;
  for (const candidate of entries) {
    let entry = candidate;
    let entrySize = sizeOf(entry);
    if (baseSize + entrySize > budget) {
      entry = slimmed(entry);
      entrySize = sizeOf(entry);
    }
    if (baseSize + entrySize > budget) throw new Error(`block ${event.block.number}: one entry does not fit in a message`);
    if (size + entrySize > budget) {
      parts.push(current);
      current = { ...base, nativeTransfers: [], erc20Transfers: [], transactions: [], logs: [] };
      size = baseSize;
    }
    if ('native' in entry) current.nativeTransfers.push(entry.native);
    else if ('erc20' in entry) current.erc20Transfers.push(entry.erc20);
    else if ('transaction' in entry) current.transactions.push(entry.transaction);
    else current.logs.push(entry.log);
    size += entrySize;
  }
  parts.push(current);
  return parts;
}

/** The messages of one `blocksOrphaned` call, in order, each at most `maxBytes`. */
export function encodeBlocksOrphaned(event: BlocksOrphanedEvent, maxBytes = MAX_MESSAGE_BYTES): EncodedMessage[] {
  const envelope = (blocks: BlocksOrphanedEvent['blocks']): ListenerMessage => ({
    v: MESSAGE_VERSION,
    kind: 'blocksOrphaned',
    chainId: event.chainId,
    event: { chainId: event.chainId, blocks },
  });
  const emptySize = bytes(JSON.stringify(envelope([])));
  const messages: EncodedMessage[] = [];
  let pending: BlocksOrphanedEvent['blocks'] = [];
  let size = emptySize;
  for (const block of event.blocks) {
    const entrySize = bytes(JSON.stringify(block)) + 1;
    if (size + entrySize > maxBytes && pending.length > 0) {
      messages.push(encode(envelope(pending), maxBytes));
      pending = [];
      size = emptySize;
    }
    pending.push(block);
    size += entrySize;
  }
  if (pending.length > 0) messages.push(encode(envelope(pending), maxBytes));
  return messages;
}

const integer = v.pipe(v.number(), v.integer(), v.minValue(0));
const blockRef = v.object({ number: integer, hash: v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{64}$/)) });
const transfer = v.looseObject({ transactionHash: v.string(), transactionIndex: integer, from: v.string(), to: v.string() });
const messageSchema = v.variant('kind', [
  v.object({
    v: v.literal(MESSAGE_VERSION),
    kind: v.literal('blocksIngested'),
    chainId: integer,
    events: v.array(
      v.looseObject({
        chainId: integer,
        block: v.looseObject({ ...blockRef.entries, timestamp: integer }),
        mode: v.picklist(['advance', 'repair']),
        nativeTransfers: v.array(v.looseObject({ ...transfer.entries, value: v.string() })),
        erc20Transfers: v.array(v.looseObject({ ...transfer.entries, token: v.string(), amount: v.string(), logIndex: integer })),
        // (Absent from messages published before they were carried, and from a queue that takes transfers only.)
        transactions: v.optional(v.array(v.looseObject({ hash: v.string(), transactionIndex: integer, from: v.string() })), []),
        logs: v.optional(
          v.array(v.looseObject({ transactionHash: v.string(), logIndex: integer, address: v.string(), topics: v.array(v.string()) })),
          [],
        ),
      }),
    ),
    part: v.optional(v.object({ index: integer, count: integer })),
  }),
  v.object({
    v: v.literal(MESSAGE_VERSION),
    kind: v.literal('blocksOrphaned'),
    chainId: integer,
    event: v.object({ chainId: integer, blocks: v.array(blockRef) }),
  }),
]);

/** Parses a message body; throws (naming the problem) when it is not a message of this format. */
export function decodeListenerMessage(body: string): ListenerMessage {
  const result = v.safeParse(messageSchema, JSON.parse(body));
  if (!result.success) {
    const issues = result.issues.map((issue) => `${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`).join('; ');
    throw new Error(`not a listener message: ${issues}`);
  }
  return result.output as ListenerMessage;
}
