/**
 * The key design of the single table: one function per access pattern, each with the request it serves.
 * Pattern ids (X1, N3, O2, C1, G1 ...) and endpoint ids (E1-E6, I1-I5c) are defined in
 * docs/access-patterns.md, which lists for each pattern its endpoints, key range and writer.
 *
 * Conventions
 * - Every chain item's partition key starts with `C#<chainId>#`, so one table serves up to 55 chains
 *   (and more) without any pattern reading another chain's items.
 * - Addresses, hashes, selectors and topics are lowercase hex in keys.
 * - Numbers in sort keys are zero-padded decimals so that string order is numeric order:
 *   block numbers 12 digits, transaction/log indexes 6, batch positions 4, uint256 values 78.
 * - A list is ONE Query on ONE key range (exceptions: NFT collections (X2) and token transfers (X3,
 *   N9) with a two-standard `type` filter, a merge of two single-standard ranges, see typeSetsToRead;
 *   token balances (X1), one range per standard on gsi3, merged when several are asked for): newest first is
 *   `ScanIndexForward: false` on an ascending sort key. Filters that a reference API offers (direction, token type, token, selector,
 *   topic0 ...) each get their own range, written by the ingest as an *index item*: a copy of the
 *   record under another key. Copies are small (well under 1 KB) and are written in the same batch as
 *   the record, so they cost write units, never read-and-discard work.
 * - Every item that ingest writes for a block is listed in that block's write manifest (G2) so that a
 *   reorg can delete exactly what an orphaned block wrote.
 */
import { createHash } from 'node:crypto';

// ---------------------------------------------------------------------------------------------------
// Encoding helpers

export const pad = (value: number | bigint, width: number): string => value.toString().padStart(width, '0');
export const blockKey = (blockNumber: number | bigint): string => pad(blockNumber, 12);
export const indexKey = (index: number): string => pad(index, 6);
export const batchKey = (position: number): string => pad(position, 4);
/** uint256 as a fixed-width decimal: 78 digits hold 2^256 - 1. */
export const uint256Key = (value: bigint | string): string => pad(BigInt(value), 78);
const MAX_UINT256 = (1n << 256n) - 1n;
export const lower = (hex: string): string => hex.toLowerCase();

/**
 * Sort-key order as DynamoDB has it: by the keys' UTF-8 bytes. JavaScript's `<` compares UTF-16 code
 * units, which puts U+E000-U+FFFF after the surrogate pairs of U+10000 and above; in UTF-8 they come
 * before. X1 keys carry token names (any text), so a merge must use this order, the order a single
 * range is read in and the order its `sk < bound` condition uses. For ASCII keys both agree.
 */
export function compareSortKeys(a: string, b: string): number {
  if (a === b) return 0;
  // Code unit by code unit up to the first difference (an equal prefix encodes to equal bytes). Where
  // neither unit there is a surrogate, both are BMP characters, whose UTF-8 order is their code points'
  // (and their units'); a surrogate there (a character from U+10000, or a lone one, which UTF-8 writes
  // as U+FFFD) is ordered by the bytes themselves. No buffers for the ASCII keys of every range read.
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index += 1) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x === y) continue;
    if ((x & 0xf800) === 0xd800 || (y & 0xf800) === 0xd800) return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

/** A full primary key. */
export interface ItemKey {
  pk: string;
  sk: string;
}

/** An item as stored: its key and its attributes. */
export type TableItem = ItemKey & Record<string, unknown>;

/** One string per primary key, for maps and sets of items. */
export const keyId = (key: ItemKey): string => `${key.pk}\n${key.sk}`;

/** A key range: all items of `pk` (optionally with `sk` between two bounds or starting with a prefix). */
export interface KeyRange {
  pk: string;
  skPrefix?: string;
  index?: 'gsi1' | 'gsi2' | 'gsi3';
}

const chain = (chainId: number): string => `C#${chainId}`;

// ---------------------------------------------------------------------------------------------------
// Chain registry and ingest (N13, G1, G2, X8)

export const chainKeys = {
  /** N13: chains indexed into this table (insights: unknown or unindexed chain -> 404). Query pk=CHAINS. */
  registry: (chainId: number): ItemKey => ({ pk: 'CHAINS', sk: pad(chainId, 12) }),
  registryRange: (): KeyRange => ({ pk: 'CHAINS' }),
  /**
   * G1 / X8: the ingest cursor of a chain: last ingested block number and hash. GetItem; updated with
   * a condition on the previous block number so that only one writer advances it. Its block number
   * is also the indexed head used for explorer `confirmations`.
   */
  cursor: (chainId: number): ItemKey => ({ pk: `${chain(chainId)}#META`, sk: 'CURSOR' }),
  /**
   * G7 / X9: the chain's ingest status (state, node head as last seen, capabilities; shared/ingest/status.ts),
   * beside the cursor in the same partition: the API reads both with one BatchGetItem.
   */
  status: (chainId: number): ItemKey => ({ pk: `${chain(chainId)}#META`, sk: 'STATUS' }),
  /**
   * G8: the chain's ingest lease: which invocation of the ingest follows the chain now, until when, and
   * when it hands over (shared/ingest/lease.ts). GetItem; taken, renewed and released by conditional
   * writes, so at most one invocation writes a chain at a time (the cursor's condition stays the net).
   */
  lease: (chainId: number): ItemKey => ({ pk: `${chain(chainId)}#META`, sk: 'LEASE' }),
  /**
   * G2: the write manifest of one block: every key the ingest wrote for it, in chunks of at most
   * 500 keys. Query pk to undo an orphaned block; sk is the chunk number.
   */
  manifest: (chainId: number, blockNumber: number | bigint, chunk: number): ItemKey => ({
    pk: `${chain(chainId)}#WROTE#${blockKey(blockNumber)}`,
    sk: pad(chunk, 4),
  }),
  manifestRange: (chainId: number, blockNumber: number | bigint): KeyRange => ({
    pk: `${chain(chainId)}#WROTE#${blockKey(blockNumber)}`,
  }),
};

// ---------------------------------------------------------------------------------------------------
// Parallel backfill (G5, G6; shared/ingest/backfill.ts)

export const backfillKeys = {
  /**
   * G5: a chain's open backfill plan: blocks `from`..`to` in segments of `segmentBlocks`, staged by
   * workers in any order and numbered by the ingest in block order. GetItem; one per chain.
   */
  plan: (chainId: number): ItemKey => ({ pk: `${chain(chainId)}#META`, sk: 'BACKFILL' }),
  /**
   * G6: one staged segment (the chain reads a worker recorded for the blocks from `fromBlock`), in
   * chunks (sk = `<attempt>#<chunk number>`: two workers on one segment never mix their chunks) and a
   * `DONE` item written last, once, naming the attempt that counts. GetItem DONE, then Query the
   * attempt's chunks; the ingest deletes the whole pk once it has numbered the segment.
   */
  staged: (chainId: number, fromBlock: number, chunk: { attempt: string; chunk: number } | 'DONE'): ItemKey => ({
    pk: `${chain(chainId)}#STAGED#${blockKey(fromBlock)}`,
    sk: chunk === 'DONE' ? 'DONE' : `${chunk.attempt}#${pad(chunk.chunk, 4)}`,
  }),
  stagedRange: (chainId: number, fromBlock: number, attempt?: string): KeyRange => ({
    pk: `${chain(chainId)}#STAGED#${blockKey(fromBlock)}`,
    ...(attempt === undefined ? {} : { skPrefix: `${attempt}#` }),
  }),
};

// ---------------------------------------------------------------------------------------------------
// Range positions: seek chunks (N15)

/**
 * Entries of a counted range per seek chunk (see rangeKeys.seekChunk). 32 (16 before issue 27): a
 * chunk's keys, packed, stay well under one write unit, and a chunk is written for every 32 entries;
 * a page inside a range's newest, unfinished chunk reads at most 31 entries above it instead.
 */
export const SEEK_CHUNK_ENTRIES = 32;

export const rangeKeys = {
  /**
   * N15: a seek chunk of a counted range (range-positions.ts): the sort keys of the range's entries at
   * positions `chunk * 32 + 1` to `chunk * 32 + 32` (SEEK_CHUNK_ENTRIES), packed, written once, with the block whose entry completes
   * it. GetItem: insights turns a page number into the sort key its page starts at, so any page reads
   * only its own entries (shared/insights/range-reader.ts). `SEEK#` never starts a range's own pk.
   */
  seekChunk: (rangePk: string, chunk: number): ItemKey => ({ pk: `SEEK#${rangePk}`, sk: pad(chunk, 10) }),
};

// ---------------------------------------------------------------------------------------------------
// Cold history (N17; docs/decisions/cold-history.md)

/** The prefix of a pointer's pk: `COLD#` never starts a range's own pk. */
export const COLD_POINTER_PREFIX = 'COLD#';

/**
 * A range's pointers' pk: `COLD#<chainId>#` and 22 base64url characters (132 bits) of the SHA-256 of the
 * range's pk, not the range's pk itself. A pointer is one item per range and span of cold history (about 5.9
 * a Base-profile transaction, kept as long as the history): its pk was most of its 385 B (an address's
 * token-transfer range spells two addresses), and the reader, which knows the range, needs only a name
 * for it. Two ranges would share pointers only if 132 bits of their digests met: for 10^10 ranges, odds
 * of about 10^-20. Pointers written before (`COLD#<range pk>`) are moved by scripts/migrate-cold-pointers.ts.
 */
const coldPointerPk = (rangePk: string): string =>
  `${COLD_POINTER_PREFIX}${/^C#(\d+)#/.exec(rangePk)?.[1] ?? '-'}#${createHash('sha256').update(rangePk).digest('base64url').slice(0, 22)}`;

export const coldKeys = {
  /**
   * N17: the pointer to one cold part of a range (or of a transaction's partition): the range's entries
   * from sort key `firstSk` to the pointer's `lastSk`, compressed in an object of the cold store
   * (shared/ingest/cold-history.ts). Query pk from a sort key, newest or oldest first: a reader finds
   * the part holding a key in one round trip. `COLD#` never starts a range's own pk (coldPointerPk).
   */
  part: (rangePk: string, firstSk: string): ItemKey => ({ pk: coldPointerPk(rangePk), sk: firstSk }),
  parts: (rangePk: string): KeyRange => ({ pk: coldPointerPk(rangePk) }),
  /** The chain's cold history cursor: the last block whose history is compacted (G1's sibling). GetItem. */
  cursor: (chainId: number): ItemKey => ({ pk: `${chain(chainId)}#META`, sk: 'COLD' }),
};

// ---------------------------------------------------------------------------------------------------
// Blocks, transactions, logs (N1, N2, N3, N4, N5, N6)

export const blockKeys = {
  /**
   * N1: blocks of a chain ordered by number. Query pk, sk BETWEEN two block keys (the block range);
   * asc or desc with ScanIndexForward. The item is the whole insights block.
   * GSI1 on the same item orders the chain's blocks by timestamp: the block-by-time lookup that
   * turns `filter_block_timestamp_*` into a block range (Query gsi1, Limit 1, from either end).
   */
  block: (chainId: number, blockNumber: number | bigint): ItemKey => ({
    pk: `${chain(chainId)}#BLOCKS`,
    sk: blockKey(blockNumber),
  }),
  blocksRange: (chainId: number): KeyRange => ({ pk: `${chain(chainId)}#BLOCKS` }),
  blockByTime: (chainId: number, timestamp: number, blockNumber: number | bigint) => ({
    gsi1pk: `${chain(chainId)}#BLOCKTIME`,
    gsi1sk: `${pad(timestamp, 12)}#${blockKey(blockNumber)}`,
  }),
  blockByTimeRange: (chainId: number): KeyRange => ({ pk: `${chain(chainId)}#BLOCKTIME`, index: 'gsi1' }),
  /** N2: block by hash. GetItem; the item is a copy of the block. */
  blockByHash: (chainId: number, blockHash: string): ItemKey => ({
    pk: `${chain(chainId)}#BLOCKHASH#${lower(blockHash)}`,
    sk: 'BLOCK',
  }),
};

export const transactionKeys = {
  /**
   * N2: transaction by hash, with its receipt fields. GetItem on sk `TX`. The same partition holds the
   * transaction's token transfers (N10, sk `TT#<log>#<batch>`) and logs (sk `LOG#<log>`), so
   * "token transfers of a transaction" is one Query with begins_with(sk, 'TT#').
   */
  transaction: (chainId: number, hash: string): ItemKey => ({ pk: `${chain(chainId)}#TX#${lower(hash)}`, sk: 'TX' }),
  transactionTokenTransfer: (chainId: number, hash: string, logIndex: number, batchPosition: number): ItemKey => ({
    pk: `${chain(chainId)}#TX#${lower(hash)}`,
    sk: `TT#${indexKey(logIndex)}#${batchKey(batchPosition)}`,
  }),
  transactionTokenTransfersRange: (chainId: number, hash: string): KeyRange => ({
    pk: `${chain(chainId)}#TX#${lower(hash)}`,
    skPrefix: 'TT#',
  }),
  transactionLog: (chainId: number, hash: string, logIndex: number): ItemKey => ({
    pk: `${chain(chainId)}#TX#${lower(hash)}`,
    sk: `LOG#${indexKey(logIndex)}`,
  }),
  /**
   * The internal transactions of a transaction (Blockscout index order), in the same partition:
   * Query begins_with(sk, 'ITX#'). The canonical copy of every internal transaction, written until
   * issue 27's lever 10: an internal transaction is now stored in its sides' X5 ranges only, and
   * these items are read only for a creation written before (did it take effect?).
   */
  transactionInternalTransaction: (chainId: number, hash: string, index: number): ItemKey => ({
    pk: `${chain(chainId)}#TX#${lower(hash)}`,
    sk: `ITX#${indexKey(index)}`,
  }),
  transactionInternalTransactionsRange: (chainId: number, hash: string): KeyRange => ({
    pk: `${chain(chainId)}#TX#${lower(hash)}`,
    skPrefix: 'ITX#',
  }),
  /**
   * N3 (I1): transactions sent to a contract calling one selector, ordered by block then index.
   * Query pk, sk BETWEEN block bounds. `selector` is the 4-byte selector (written for contract calls with
   * at least 4 bytes of calldata; a plain transfer has no range).
   * N3 with `filter_from_address`: its own range, the same key with `#FROM#<address>` appended.
   */
  callsToContract: (chainId: number, contract: string, selector: string, from?: string): KeyRange => ({
    pk: `${chain(chainId)}#CALLS#${lower(contract)}#${lower(selector)}${from ? `#FROM#${lower(from)}` : ''}`,
  }),
  /** N6: transactions with a selector across all contracts (resolve of a selector), newest first. */
  callsWithSelector: (chainId: number, selector: string): KeyRange => ({
    pk: `${chain(chainId)}#SELECTOR#${lower(selector)}`,
  }),
  /** Sort key shared by every transaction range: block, then position in the block. */
  sortKey: (blockNumber: number | bigint, transactionIndex: number): string => `${blockKey(blockNumber)}#${indexKey(transactionIndex)}`,
};

export const logKeys = {
  /** N4 (I2): logs emitted by a contract, ordered by block then log index. Query pk, sk BETWEEN block bounds. */
  contractLogs: (chainId: number, contract: string): KeyRange => ({ pk: `${chain(chainId)}#LOGS#${lower(contract)}` }),
  /** N4 with `filter_topic_0`: its own range per (contract, topic0). */
  contractLogsWithTopic0: (chainId: number, contract: string, topic0: string): KeyRange => ({
    pk: `${chain(chainId)}#LOGS#${lower(contract)}#T0#${lower(topic0)}`,
  }),
  /** N5: logs with a topic0 across contracts (resolve of an event signature), newest first. */
  logsWithTopic0: (chainId: number, topic0: string): KeyRange => ({ pk: `${chain(chainId)}#TOPIC0#${lower(topic0)}` }),
  sortKey: (blockNumber: number | bigint, logIndex: number): string => `${blockKey(blockNumber)}#${indexKey(logIndex)}`,
};

// ---------------------------------------------------------------------------------------------------
// Token transfers (X3, N8, N9, N10)

export type TokenStandard = 'ERC-20' | 'ERC-721' | 'ERC-1155' | 'ERC-404';
/**
 * The standards the ingest detects and indexes (ERC-165 and event shape). ERC-404 is accepted in
 * `type` filters (Blockscout lists it) but nothing is classified as ERC-404, so its ranges are empty.
 */
export const TOKEN_STANDARDS: readonly TokenStandard[] = ['ERC-20', 'ERC-721', 'ERC-1155'];
export type Direction = 'all' | 'to' | 'from';

/**
 * A set of token standards as a key segment: the indexed standards in canonical order joined by `+`,
 * `ALL` for no type filter (or every indexed standard), `NONE` when only unindexed standards are
 * asked for. The type-set ranges of X2 and X3 / N9 that are written hold one standard or ALL
 * (typeSetsWritten): a two-standard request merges two single-standard ranges (typeSetsToRead), and
 * no range of a two-standard key is written.
 */
export function tokenTypeSetKey(types: readonly TokenStandard[] | undefined): string {
  if (!types || types.length === 0) return 'ALL';
  const unique = TOKEN_STANDARDS.filter((standard) => types.includes(standard));
  if (unique.length === 0) return 'NONE'; // only unindexed standards asked for: an always-empty range
  return unique.length === TOKEN_STANDARDS.length ? 'ALL' : unique.join('+');
}

/**
 * X2, X3 / N9, written: the type-set ranges an entry of `standard` goes to (an NFT collection, or a
 * token transfer per address and direction): its single-standard set and `ALL`. (X1 keeps no `ALL`
 * range: one per standard on gsi3, addressKeys.balancesByValue.)
 * The two-standard sets ({20,721}, {20,1155}, {721,1155}) are not kept; typeSetsToRead merges their
 * single-standard ranges instead. (A standard nothing is indexed as, ERC-404, would only go to ALL.)
 */
export function typeSetsWritten(standard: TokenStandard): string[] {
  return TOKEN_STANDARDS.includes(standard) ? [tokenTypeSetKey([standard]), tokenTypeSetKey(undefined)] : [tokenTypeSetKey(undefined)];
}

/**
 * X2, X3 / N9, read: the type-set ranges a request for `types` reads, one Query each.
 * No filter, or every indexed standard: [`ALL`]. One indexed standard: its range. Two: both
 * single-standard ranges, merged by sort key (a bounded merge of two ranges; every sort key of these
 * lists carries its standard (X3: block and log position, one standard per log; X2: the type rank),
 * so two ranges never share one and nothing needs deduplicating). Only unindexed standards
 * (ERC-404): [`NONE`], an always-empty range.
 */
export function typeSetsToRead(types: readonly TokenStandard[] | undefined): string[] {
  if (!types || types.length === 0) return [tokenTypeSetKey(undefined)];
  const indexed = TOKEN_STANDARDS.filter((standard) => types.includes(standard));
  if (indexed.length === 0) return [tokenTypeSetKey(types)]; // NONE
  if (indexed.length === TOKEN_STANDARDS.length) return [tokenTypeSetKey(undefined)];
  return indexed.map((standard) => tokenTypeSetKey([standard]));
}

/**
 * X3 / N9 per token, and X1: the standards whose range a request for `types` reads (one Query
 * each): the indexed standards asked for; every indexed standard without a filter (X3: the token's own
 * standard is not known before reading; X1: no range holds every standard); none when only unindexed
 * standards (ERC-404) are asked for.
 */
export function standardsToRead(types: readonly TokenStandard[] | undefined): TokenStandard[] {
  if (!types || types.length === 0) return [...TOKEN_STANDARDS];
  return TOKEN_STANDARDS.filter((standard) => types.includes(standard));
}

export const tokenTransferKeys = {
  /**
   * X3 (E3) and N9 (I5a by owner): token transfers touching an address, newest first, one range per
   * (direction, type set) for the sets of typeSetsWritten (each single standard, and ALL) and
   * per (direction, token). direction: `all` (from or to), `to`, `from`. A two-standard request
   * reads two single-standard ranges with the same key condition and merges them by sort key
   * (typeSetsToRead). ERC-1155 batches are
   * flattened: one entry per (log, batch position). Copies per side of a transfer: 2 directions x
   * (single, ALL) + 2 directions x token = 6 (a self-transfer shares its `all` entries).
   */
  byAddress: (chainId: number, address: string, direction: Direction, typeSet: string): KeyRange => ({
    pk: `${chain(chainId)}#A#${lower(address)}#TT#${direction}#${typeSet}`,
  }),
  /**
   * Per (direction, token), with the token's standard (its type rank) in the key: `...#TOKEN#<token>:<rank>`.
   * A token has one standard, so a request naming the token and a `type` reads only the ranges of the
   * standards it asks for (standardsToRead): a standard the token does not have is an empty range,
   * answered without reading an item. Without a `type` the three standards' ranges are read (two
   * are empty). The rank is glued to the token (no `#`), so the key keeps its shape `...#TOKEN#<t>`.
   */
  byAddressAndToken: (chainId: number, address: string, direction: Direction, token: string, standard: TokenStandard): KeyRange => ({
    pk: `${chain(chainId)}#A#${lower(address)}#TT#${direction}#TOKEN#${lower(token)}:${TOKEN_TYPE_RANK[standard]}`,
  }),
  /** N8 (I5c): token transfers of a token contract, ordered by block. */
  byToken: (chainId: number, token: string): KeyRange => ({ pk: `${chain(chainId)}#TT#${lower(token)}` }),
  /**
   * N16 (I6k): transfers of one NFT (an ERC-721 or ERC-1155 token id), ordered by block: an index copy
   * with range positions (page numbers), written for NFT transfers only. sk as every transfer range.
   */
  byTokenId: (chainId: number, token: string, tokenId: bigint | string): KeyRange => ({
    pk: `${chain(chainId)}#TT#${lower(token)}#ID#${BigInt(tokenId).toString()}`,
  }),
  sortKey: (blockNumber: number | bigint, logIndex: number, batchPosition: number): string =>
    `${blockKey(blockNumber)}#${indexKey(logIndex)}#${batchKey(batchPosition)}`,
};

// ---------------------------------------------------------------------------------------------------
// Per-address lists of the explorer (X1, X2, X4, X5, X6, X7), balances and holdings (G3, G4), names (N11)

export const addressKeys = {
  /**
   * X7: address details for embedding (is_contract, contract creator, token name/symbol/decimals/type
   * when the address is a token). BatchGetItem of up to 100 addresses. Also G3's token contract lookup.
   */
  address: (chainId: number, address: string): ItemKey => ({ pk: `${chain(chainId)}#ADDR#${lower(address)}`, sk: 'ADDR' }),
  /**
   * G9: where each counted range the address owns stands (its transactions, token transfers and calls
   * sent: shared/ingest/range-heads.ts), in X7's partition. The ingest's BatchGetItem; no reader.
   */
  rangeHeads: (chainId: number, address: string): ItemKey => ({ pk: `${chain(chainId)}#ADDR#${lower(address)}`, sk: 'HEADS' }),
  /**
   * X4 (E4) and N7 (resolve of an address): transactions touching an address, newest first, one range
   * per direction; `to` also holds the transactions that created a contract at the address... for the
   * creator: a creation is written to the creator's `from` range and the created contract's `to` range.
   */
  transactions: (chainId: number, address: string, direction: Direction): KeyRange => ({
    pk: `${chain(chainId)}#A#${lower(address)}#TX#${direction}`,
  }),
  /**
   * X5 (E5): internal transactions touching an address, newest first; sk block#txIndex#index. Written
   * to the `from` and `to` ranges only (`to` also holds the contracts the address created); `all` is
   * their union (union-ranges.ts), which the table layer reads from both, a self-call being one entry
   * in each. Tables ingested before issue 27 also hold `all` items, no longer read.
   */
  internalTransactions: (chainId: number, address: string, direction: Direction): KeyRange => ({
    pk: `${chain(chainId)}#A#${lower(address)}#ITX#${direction}`,
  }),
  internalTransactionSortKey: (blockNumber: number | bigint, transactionIndex: number, index: number): string =>
    `${blockKey(blockNumber)}#${indexKey(transactionIndex)}#${indexKey(index)}`,
  /** X6 (E6): withdrawals received by an address, by withdrawal index; sk is the 20-digit index. */
  withdrawals: (chainId: number, address: string): KeyRange => ({ pk: `${chain(chainId)}#A#${lower(address)}#WD` }),
  withdrawalSortKey: (index: number | bigint): string => pad(index, 20),
  /**
   * G3 / O6: the current balance of one holder in one token (and token id for ERC-1155), as read with
   * balanceOf at the block. GetItem. sk `BAL#<token>#<tokenId or ->`.
   */
  balance: (chainId: number, holder: string, token: string, tokenId?: bigint | string): ItemKey => ({
    pk: `${chain(chainId)}#A#${lower(holder)}`,
    sk: `BAL#${lower(token)}#${tokenId === undefined ? '-' : BigInt(tokenId).toString()}`,
  }),
  /**
   * X1 (E1, I6a, I6e): token balances of an address, one range per standard, on gsi3 of the positive
   * balance items themselves (G3: sparse, balanceListing's attributes are set while the balance is
   * positive and the item is deleted at zero, so DynamoDB keeps the index; nothing else is written, and
   * no writer of a listing can meet another). No range of every standard: a reader of several merges
   * theirs by sort key (an entry's key carries its standard's type rank, so two never share one).
   * Order: value desc, then token type, then token name, matching the cursor (value, token_type, token_name):
   * gsi3sk `<78-digit value>#<type rank>#<token name>#<token>#<token id>`, read with ScanIndexForward false.
   * The ERC-1155 total of a holder is not listed (its ids are, one by one).
   */
  balancesByValue: (chainId: number, holder: string, standard: TokenStandard): KeyRange => ({
    pk: `${chain(chainId)}#A#${lower(holder)}#BALS#${tokenTypeSetKey([standard])}`,
    index: 'gsi3',
  }),
  /** The gsi3 attributes (X1) of a positive balance item: its standard's range, its sort key by value. */
  balanceListing: (
    chainId: number,
    holder: string,
    standard: TokenStandard,
    value: bigint | string,
    tokenName: string,
    token: string,
    tokenId?: bigint | string | null,
  ): { gsi3pk: string; gsi3sk: string } => ({
    gsi3pk: addressKeys.balancesByValue(chainId, holder, standard).pk,
    gsi3sk: addressKeys.balanceByValueSortKey(value, standard, tokenName, token, tokenId),
  }),
  /** The value an X1 sort key (balanceByValueSortKey) holds, decimal; undefined for any other string. */
  valueOfBalanceByValueSortKey: (gsi3sk: string): string | undefined => {
    const value = gsi3sk.slice(0, gsi3sk.indexOf('#'));
    return /^\d{78}$/.test(value) ? BigInt(value).toString() : undefined;
  },
  /** The X1 sort key (gsi3sk) of one (token, id) balance; the token name is cut to 64 characters. */
  balanceByValueSortKey: (
    value: bigint | string,
    standard: TokenStandard,
    tokenName: string,
    token: string,
    tokenId?: bigint | string | null,
  ): string =>
    `${uint256Key(value)}#${TOKEN_TYPE_RANK[standard]}#${tokenName.slice(0, 64)}#${lower(token)}#${tokenId === undefined || tokenId === null ? '-' : BigInt(tokenId).toString()}`,
  /**
   * X2 (E2): NFT collections held by an address, one range per type set of typeSetsWritten (its
   * standard, and ALL; two standards: typeSetsToRead merges two ranges); sk `<type rank>#<contract>`
   * gives ERC-721, then ERC-1155, then ERC-404, then contract ascending. The collection item carries
   * `amount` and its newest 9 token instances (token id desc), so a page needs no second Query.
   */
  nftCollections: (chainId: number, holder: string, typeSet: string): KeyRange => ({
    pk: `${chain(chainId)}#A#${lower(holder)}#NFTCOL#${typeSet}`,
  }),
  nftCollectionSortKey: (standard: TokenStandard, contract: string): string => `${TOKEN_TYPE_RANK[standard]}#${lower(contract)}`,
  /**
   * G4: every NFT instance an address holds, one range per holder, in the order of the flat NFT list
   * (E9, Blockscout's): ERC-721, then ERC-1155, contract ascending, token id descending; sk
   * `<type rank>#<contract>#<78-digit (2^256 - 1 - token id)>`, read forward. One Query is a page of
   * the flat list; a collection's instances are the prefix nftHoldingsOf.
   */
  nftHoldings: (chainId: number, holder: string): KeyRange => ({
    pk: `${chain(chainId)}#A#${lower(holder)}#NFT`,
  }),
  /** G4 of one collection (prefix of nftHoldings): its ids, token id descending. */
  nftHoldingsOf: (chainId: number, holder: string, standard: TokenStandard, contract: string): KeyRange => ({
    pk: `${chain(chainId)}#A#${lower(holder)}#NFT`,
    skPrefix: `${TOKEN_TYPE_RANK[standard]}#${lower(contract)}#`,
  }),
  /** G4 sort key of one holding: forward order is token id descending within the collection. */
  nftHoldingSortKey: (standard: TokenStandard, contract: string, tokenId: bigint | string): string =>
    `${TOKEN_TYPE_RANK[standard]}#${lower(contract)}#${uint256Key(MAX_UINT256 - BigInt(tokenId))}`,
  /** The token id a G4 sort key holds. */
  nftHoldingTokenId: (sk: string): string => (MAX_UINT256 - BigInt(sk.slice(sk.lastIndexOf('#') + 1))).toString(),
  /**
   * X10: how many balances an address has listed per standard (the sizes of its X1 ranges: ERC-20 and
   * ERC-721 tokens, ERC-1155 (token, id) pairs with a positive balance). One item beside its balances,
   * attributes `ERC-20`, `ERC-721`, `ERC-1155`, `ERC-404` moved with ADD by the balance transitions
   * (in the same transaction, so a re-run never counts twice). GetItem, read with a list page.
   */
  balanceCounts: (chainId: number, holder: string): ItemKey => ({ pk: `${chain(chainId)}#A#${lower(holder)}`, sk: 'BALCOUNT' }),
  /** N11: a human-readable name (token symbol, lowercased) registered on a chain -> address. GetItem. */
  name: (chainId: number, name: string): ItemKey => ({ pk: `${chain(chainId)}#NAME#${name.toLowerCase()}`, sk: 'NAME' }),
  /**
   * N11 across chains: the same name on every chain that registered it, a string set `entries` of
   * `<chainId>:<address>`, so that a request naming it on several chains asks for one key that exists
   * (instead of one per chain, missing where the name is not registered). BatchGetItem by name.
   */
  nameOnChains: (name: string): ItemKey => ({ pk: `NAME#${name.toLowerCase()}`, sk: 'CHAINS' }),
};

/**
 * T1 (I6l, I6m and I6n of ERC-1155): a token's holders with a positive balance, on gsi2 of the balance
 * items themselves (G3: sparse, the attributes are set while the balance is positive and removed when it
 * reaches zero, so DynamoDB keeps the index; nothing else is written). One partition per token:
 * gsi2sk `<token id or ->#<78-digit (2^256 - 1 - value)>#<holder>`, read forward: ERC-20 holders
 * largest balance first (holder ascending on ties); an ERC-1155 collection's (holder, id) pairs by id
 * ascending, then balance descending; one id's holders are the prefix `<id>#`. ERC-721 owners are the
 * instances' (G3), and the ERC-1155 total of a holder is not listed.
 */
export const holderKeys = {
  holders: (chainId: number, token: string): KeyRange => ({ pk: `${chain(chainId)}#HOLDERS#${lower(token)}`, index: 'gsi2' }),
  holdersOfId: (chainId: number, token: string, tokenId: bigint | string): KeyRange => ({
    pk: `${chain(chainId)}#HOLDERS#${lower(token)}`,
    index: 'gsi2',
    skPrefix: `${uint256Key(tokenId)}#`,
  }),
  /** The gsi2 attributes of a positive balance (G3 item) of `holder` in `token` (and `tokenId`, ERC-1155). */
  listing: (
    chainId: number,
    token: string,
    tokenId: bigint | string | null,
    value: bigint | string,
    holder: string,
  ): { gsi2pk: string; gsi2sk: string } => ({
    gsi2pk: `${chain(chainId)}#HOLDERS#${lower(token)}`,
    gsi2sk: `${tokenId === null ? '-' : uint256Key(tokenId)}#${uint256Key(MAX_UINT256 - BigInt(value))}#${lower(holder)}`,
  }),
  /** The value a T1 sort key (listing's gsi2sk) holds, decimal; undefined for any other string. */
  valueOfListingSortKey: (gsi2sk: string): string | undefined => {
    const parts = gsi2sk.split('#');
    return parts.length === 3 && /^\d{78}$/.test(parts[1]!) ? (MAX_UINT256 - BigInt(parts[1]!)).toString() : undefined;
  },
};

export const nftKeys = {
  /** G3: one NFT instance: owner, token URI, metadata (resolved inline for data: URIs). GetItem. */
  instance: (chainId: number, contract: string, tokenId: bigint | string): ItemKey => ({
    pk: `${chain(chainId)}#NFT#${lower(contract)}`,
    sk: uint256Key(tokenId),
  }),
  /**
   * G7 as tables written before 2026-11-30 hold it: the metadata of one NFT instance fetched from the
   * web, an item of its own in a partition per contract. G7 is now the instance item's `fetched`; only
   * the migration (scripts/migrate-nft-metadata.ts) reads these, and deletes them.
   */
  legacyMetadata: (chainId: number, contract: string, tokenId: bigint | string): ItemKey => ({
    pk: `${chain(chainId)}#NFTMETA#${lower(contract)}`,
    sk: uint256Key(tokenId),
  }),
};

/** Ranking of token standards in the NFT collection and token balance orders. */
export const TOKEN_TYPE_RANK: Record<TokenStandard, string> = { 'ERC-721': '1', 'ERC-1155': '2', 'ERC-404': '3', 'ERC-20': '4' };

// ---------------------------------------------------------------------------------------------------
// Numbered lists of the orders and collections groups (O11, O12, C1)

/** The sort-key prefix of a numbered list's entries; `P#<12-digit position>`, position 1-based. */
export const LIST_PREFIX = 'P#';
/** The sort key of an order range's counter: `~` sorts after every digit, so newest first it comes first. */
const LIST_COUNTER_SK = `${LIST_PREFIX}~COUNT`;
const listEntryKey = (range: KeyRange, position: number): ItemKey => ({ pk: range.pk, sk: `${LIST_PREFIX}${pad(position, 12)}` });
/** The position of a numbered list entry, from its sort key. */
export const listPosition = (sortKey: string): number => Number(sortKey.slice(LIST_PREFIX.length));

// ---------------------------------------------------------------------------------------------------
// Orders (O1 - O12)

export const orderKeys = {
  /** O1: an order by id. GetItem. */
  order: (orderId: string): ItemKey => ({ pk: `ORDER#${orderId}`, sk: 'ORDER' }),
  /**
   * O4: open orders waiting for a deposit, by (source chain, deposit address): GSI1, sparse (the
   * attributes are removed when the order leaves the waiting states). Used by deposit detection.
   */
  awaitingDeposit: (srcChain: number, globalAddress: string, orderId: string) => ({
    gsi1pk: `${chain(srcChain)}#DEPOSIT#${lower(globalAddress)}`,
    gsi1sk: `ORDER#${orderId}`,
  }),
  awaitingDepositRange: (srcChain: number, globalAddress: string): KeyRange => ({
    pk: `${chain(srcChain)}#DEPOSIT#${lower(globalAddress)}`,
    index: 'gsi1',
  }),
  /**
   * O7: a transfer seen at an order's deposit address (deposit detection, shared/orders/deposits.ts): in
   * the order's partition, one item per transfer, keyed by transaction hash and log index (ERC-20)
   * or call index (native: 0 the transaction's own value, n its n-th trace call). Conditional put.
   */
  deposit: (orderId: string, transactionHash: string, position: { logIndex: number } | { callIndex: number }): ItemKey => ({
    pk: `ORDER#${orderId}`,
    sk: `DEPOSIT#${lower(transactionHash)}#${'logIndex' in position ? `LOG#${indexKey(position.logIndex)}` : `CALL#${indexKey(position.callIndex)}`}`,
  }),
  /**
   * O10: an order with every deposit recorded for it (GET /orders/{id}): ONE consistent Query on the
   * order's partition, which holds the order item (sk `ORDER`) and its O7 deposit items (sk `DEPOSIT#...`).
   */
  orderPartition: (orderId: string): KeyRange => ({ pk: `ORDER#${orderId}` }),
  /**
   * O11 / O12: the newest-first order lists of GET /orders: O11 one range per creator (lowercase
   * address), O12 one range of every order. Each range numbers its orders 1, 2, 3 ... in creation
   * order: the order at position p is a copy of what the list shows of it (listEntry, sk `P#<12-digit
   * p>`), written in the order's creation transaction together with the range's counter (listCounter)
   * moved from p - 1 to p on condition (no two orders share a position, none is lost). Offset N of
   * a range counted C is position C - N: a page is a GetItem of the counter and a Query of positions
   * [C - N - limit + 1, C - N] (offset 0: one Query of the counter and the newest copies, the
   * counter sorting above them). See shared/orders/order-list.ts.
   */
  creatorOrders: (creatorAddress: string): KeyRange => ({ pk: `ORDERS#CREATOR#${lower(creatorAddress)}`, skPrefix: LIST_PREFIX }),
  allOrders: (): KeyRange => ({ pk: 'ORDERS', skPrefix: LIST_PREFIX }),
  /** The list copy of the order at `position` (1-based) of an O11 / O12 range. */
  listEntry: (range: KeyRange, position: number): ItemKey => listEntryKey(range, position),
  /** The counter of an O11 / O12 range (`count`: positions given so far); it sorts above every entry. */
  listCounter: (range: KeyRange): ItemKey => ({ pk: range.pk, sk: LIST_COUNTER_SK }),
  /** O7: every deposit recorded for an order (refunds, reconciliation). Query pk, begins_with(sk). */
  depositsRange: (orderId: string): KeyRange => ({ pk: `ORDER#${orderId}`, skPrefix: 'DEPOSIT#' }),
  /** O8: GSI1 on a deposit item: the deposits recorded from one block of a chain (undone when a reorg orphans it). */
  depositInBlock: (chainId: number, blockNumber: number, orderId: string, depositSk: string) => ({
    gsi1pk: `${chain(chainId)}#DEPOSITS#${blockKey(blockNumber)}`,
    gsi1sk: `${orderId}#${depositSk}`,
  }),
  depositsInBlockRange: (chainId: number, blockNumber: number): KeyRange => ({
    pk: `${chain(chainId)}#DEPOSITS#${blockKey(blockNumber)}`,
    index: 'gsi1',
  }),
  /**
   * O5: orders still waiting, ordered by expiry: GSI2, sparse, sharded in 8 partitions by the order
   * id's first hex digit (mod 8) so that creation never funnels into one hot key. The sweeper queries
   * each shard with gsi2sk <= now.
   */
  expiryShards: 8,
  pendingExpiry: (orderId: string, expiredAt: number) => ({
    gsi2pk: `ORDERS#PENDING#${parseInt(orderId[0] ?? '0', 16) % 8}`,
    gsi2sk: `${pad(expiredAt, 15)}#${orderId}`,
  }),
  pendingExpiryRange: (shard: number): KeyRange => ({ pk: `ORDERS#PENDING#${shard}`, index: 'gsi2' }),
  /** O2: a checkout session; its `orderId` attribute links its single order (set in a transaction). */
  checkoutSession: (sessionId: string): ItemKey => ({ pk: `CHECKOUT#${sessionId}`, sk: 'SESSION' }),
  /** O3: an idempotency key and the first response it produced; conditional put, 24 h TTL. */
  idempotencyKey: (scope: string, key: string): ItemKey => ({ pk: `IDEMPOTENCY#${scope}#${key}`, sk: 'KEY' }),
  /** O6: a partner record (discount). GetItem. The fee token balance is addressKeys.balance (G3). */
  partner: (partnerId: string): ItemKey => ({ pk: `PARTNER#${partnerId}`, sk: 'PARTNER' }),
  /** O9: every partner record, by id (operator CLI listing): GSI1 on the partner item. Query gsi1pk=PARTNERS. */
  partnerListing: (partnerId: string) => ({ gsi1pk: 'PARTNERS', gsi1sk: partnerId }),
  partnersRange: (): KeyRange => ({ pk: 'PARTNERS', index: 'gsi1' }),
};

// ---------------------------------------------------------------------------------------------------
// Collections (C1 - C3)

export type CollectionFilter = 'creator' | 'symbol' | 'referrer' | 'chainId' | 'gameOwner' | 'gameId';

export const collectionKeys = {
  /** C2: a collection by predicted address. GetItem; created with attribute_not_exists(pk) (409 on a duplicate). */
  collection: (predictedAddress: string): ItemKey => ({ pk: `COLLECTION#${lower(predictedAddress)}`, sk: 'COLLECTION' }),
  /**
   * C1: the newest-first list, one range per filter value, one per (filter value, chainId) pair and one
   * unfiltered range (`filter` absent). Each range numbers its collections 1, 2, 3 ... in creation
   * order: position p holds a full copy of the collection (listEntry, sk `P#<12-digit p>`), written
   * in the collection's creation transaction together with the range's counter (counter), moved from
   * p - 1 to p on condition. Page n of a range counted C is positions [C - n * limit + 1, C - (n - 1) * limit]:
   * one GetItem of the counter, then one Query of exactly those copies (page 1: both at once).
   * C3: a combination without a range of its own reads the smallest range that covers part of it
   * (counters with one BatchGetItem) and checks the other filters on its copies (bounded: see
   * shared/collections/config.ts).
   */
  list: (filter?: { field: CollectionFilter; value: string | number }): KeyRange => ({
    pk: filter ? `COLLECTIONS#${filter.field}#${normaliseCollectionFilter(filter.field, filter.value)}` : 'COLLECTIONS#ALL',
    skPrefix: LIST_PREFIX,
  }),
  /**
   * C1: the range of a filter value on one chain (`creator` + `chainId` ...). The chain id (digits)
   * comes first, so that no single-filter range (`COLLECTIONS#chainId#<digits>` included) shares its pk.
   */
  listOnChain: (chainId: number, filter: { field: Exclude<CollectionFilter, 'chainId'>; value: string }): KeyRange => ({
    pk: `COLLECTIONS#chainId#${chainId}#${filter.field}#${normaliseCollectionFilter(filter.field, filter.value)}`,
    skPrefix: LIST_PREFIX,
  }),
  /** The copy of the collection at `position` (1-based) of a list range. */
  listEntry: (range: KeyRange, position: number): ItemKey => listEntryKey(range, position),
  /**
   * The counter of one list range (`count` = positions given = collections in the range), each in
   * its own partition. GetItem for one range, BatchGetItem for the candidates of a combination.
   */
  counter: (range: KeyRange): ItemKey => ({ pk: `COLLECTIONS-COUNT#${range.pk}`, sk: 'COUNT' }),
};

function normaliseCollectionFilter(field: CollectionFilter, value: string | number): string {
  const text = String(value);
  return field === 'creator' || field === 'gameOwner' ? text.toLowerCase() : text;
}

// ---------------------------------------------------------------------------------------------------
// Insights only (added by the insights group): the event ABI registry (N14)

export const abiKeys = {
  /**
   * N14 (I2 `decode=true`): the event ABIs an operator registered for one topic0 with `npm run abi`
   * (scripts/abi-registry.ts), beside the well-known ones built into shared/insights/event-abis.ts.
   * `abis` is a string set of ABI event items as JSON. BatchGetItem by the topic0s of a page.
   */
  event: (topic0: string): ItemKey => ({ pk: `ABI#EVENT#${lower(topic0)}`, sk: 'ABI' }),
};

// ---------------------------------------------------------------------------------------------------
// Insights' secret keys (K1, K2) and webhooks (H1 - H4)

export const apiKeyKeys = {
  /**
   * K1: a secret key, by the SHA-256 (hex) of the key: the key itself is never stored. GetItem on every
   * request of a route that needs a key.
   */
  key: (hash: string): ItemKey => ({ pk: `APIKEY#${hash}`, sk: 'KEY' }),
  /** K1: the requests a key sent in one minute (a fixed window): UpdateItem ADD, expired by TTL. */
  window: (hash: string, minute: number): ItemKey => ({ pk: `APIKEY#${hash}`, sk: `RATE#${minute}` }),
  /** K2: every key, by project and key id (the operator CLI's list and revoke): GSI1 on the key item. */
  listing: (project: string, keyId: string) => ({ gsi1pk: 'APIKEYS', gsi1sk: `${project}#${keyId}` }),
  listRange: (project?: string): KeyRange => ({ pk: 'APIKEYS', index: 'gsi1', ...(project ? { skPrefix: `${project}#` } : {}) }),
};

export const webhookKeys = {
  /** H1: one webhook of a project. GetItem; created, changed and deleted in a transaction with H3 and H4. */
  webhook: (project: string, webhookId: string): ItemKey => ({ pk: `WEBHOOKS#${project}`, sk: `HOOK#${webhookId}` }),
  /** H2: a project's webhooks, by id (at most the project's limit of them). Query. */
  projectRange: (project: string): KeyRange => ({ pk: `WEBHOOKS#${project}`, skPrefix: 'HOOK#' }),
  /** H3: how many webhooks a project has: moved on condition in the creating and deleting transactions. */
  count: (project: string): ItemKey => ({ pk: `WEBHOOKS#${project}`, sk: 'COUNT' }),
  /**
   * H4: what delivery matches a chain's blocks against: one item per webhook and chain its filters name
   * (`any`: filters without chain ids), holding the webhook's compiled filters. Query per chain.
   */
  filter: (chain: number | 'any', webhookId: string): ItemKey => ({ pk: `WEBHOOK-FILTERS#${chain}`, sk: webhookId }),
  filterRange: (chain: number | 'any'): KeyRange => ({ pk: `WEBHOOK-FILTERS#${chain}` }),
  /**
   * H5: what one block of a chain sent to one webhook (its items, in parts), kept for the reorg window
   * (`ttl`): a reorg that orphans the block sends them again as `reverted`. Query by block, begins_with hash.
   */
  sent: (chainId: number, blockNumber: number, blockHash: string, webhookId: string, part: number): ItemKey => ({
    pk: `WEBHOOK-SENT#${chainId}#${blockKey(blockNumber)}`,
    sk: `${lower(blockHash)}#${webhookId}#${pad(part, 4)}`,
  }),
  sentRange: (chainId: number, blockNumber: number, blockHash: string): KeyRange => ({
    pk: `WEBHOOK-SENT#${chainId}#${blockKey(blockNumber)}`,
    skPrefix: `${lower(blockHash)}#`,
  }),
};
