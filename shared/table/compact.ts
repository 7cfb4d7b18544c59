/**
 * Compact item shapes of the chain records (records.ts): what the ingest stores leaves out every
 * field a reader can derive exactly, so that an item (the canonical record or an index copy) costs
 * as few bytes, and as few write units, as it can. Readers turn an item back into the whole record
 * with the `expand*` function of its family; an item written whole (by an ingest before this
 * module) expands to itself, so old and new items read alike.
 *
 * Each family has an ordered list of rules `[field, derive]`: `derive` gives the value the field
 * has when it is absent, from the item's key and the fields restored so far. `compact*` leaves a
 * field out only when its rule gives back exactly the stored value. That the item then expands to the
 * record follows from two properties, each tested: a rule reads only fields that have no rule or come
 * before it (test/shared/table/compact.test.ts checks every family's rules), and packing is lossless for
 * record values (pack.test.ts). With COMPACTION_CHECK=1 (the tests) each item is also expanded and
 * compared, and stored unpacked, else whole, where that differs (counted: compactionFallbacks); the
 * ingest leaves that proof out (about 1 ms of CPU a Base-profile transaction). What is left out:
 *  - values derivable from the key: the chain id (`C#<id>#`), a block number, transaction, log or
 *    batch index that the sort key spells, a canonical transaction's hash (its partition key);
 *  - defaults: null fields, `false` flags, `tracesAvailable` true, `[]` access lists of typed
 *    transactions, the empty-uncles hash and zero nonce of blocks;
 *  - values derivable from other fields: a transaction's fees (gasUsed x prices), its effective gas
 *    price when it equals `gasPrice`, its calldata size and selector (from the calldata), its
 *    transaction types when they are what its fields say (see `transactionTypesGuess`);
 *  - logs blooms: an all-zero bloom is left out; a sparse one is stored as the list of its set
 *    bits (`~` then 3 hex digits per bit, 0-2047) when that is shorter than its 514 hex characters.
 * What is left is packed (pack.ts) except the few fields some table expression names (each family's
 * `top`): insights evaluates its bounded checks on the expanded record (range-reader.ts), not in a
 * FilterExpression, so a field is never stored apart only because a filter names it.
 */
import { addressKeys, holderKeys, type ItemKey } from './keys';
import { packItem, unpackItem } from './pack';
import type {
  BalanceRecord,
  BlockRecord,
  InternalTransactionRecord,
  LogRecord,
  TokenTransferRecord,
  TransactionRecord,
  TransactionTypeTag,
} from './records';

type Fields = Record<string, unknown>;
/**
 * A field the key or other fields give back: `derive` computes it from the record restored so far
 * (fields stored, and those of the rules before it) and the item's key; `needs` names the record
 * fields it reads (compact.test.ts checks them against what it does read), so that an expansion of
 * only some fields (`expand(item, wanted)`) runs the rules those fields need and no other.
 */
type Rule = readonly [field: string, derive: (record: Fields, key: ItemKey) => unknown, needs?: readonly string[]];

// ---------------------------------------------------------------------------------------------------
// Shared derivations

/** The chain id every chain key starts with (`C#<chainId>#`). */
const chainOfKey = (key: ItemKey): number | undefined => {
  const match = /^C#(\d+)#/.exec(key.pk);
  return match ? Number(match[1]) : undefined;
};

/** The numbers a sort key of `#`-separated zero-padded decimals spells (`<12-digit block>#<6-digit index>...`). */
/** The sort key last parsed: an item's rules ask for the same key several times in a row. */
let lastSortKey: { sk: string; numbers: number[] | undefined } | undefined;

const sortKeyNumbers = (sk: string): number[] | undefined => {
  if (lastSortKey?.sk !== sk) lastSortKey = { sk, numbers: /^\d{12}(#\d{4,6})*$/.test(sk) ? sk.split('#').map(Number) : undefined };
  return lastSortKey.numbers;
};

const isNull = () => null;

/** The address a per-address key names (`C#<c>#A#<address>#...`). */
const addressOfKey = (key: ItemKey): string | undefined => /^C#\d+#A#(0x[0-9a-f]{40})#/.exec(key.pk)?.[1];

/** The sender a per-address `from` or `all` range implies (`...#A#<address>#TX#from|all`, `...#CALLS#c#sel#FROM#<address>`). */
const senderOfKey = (key: ItemKey): string | undefined =>
  /#FROM#(0x[0-9a-f]{40})$/.exec(key.pk)?.[1] ?? /^C#\d+#A#(0x[0-9a-f]{40})#(?:TX|TT)#(?:from|all)(?:#|$)/.exec(key.pk)?.[1];

/** The contract a per-contract key names (`#CALLS#<c>#`, `#LOGS#<c>`, `#TT#<token>`, `#TOKEN#<token>:<rank>`). */
const contractOfKey = (key: ItemKey, family: ContractFamily): string | undefined => CONTRACT_KEY[family].exec(key.pk)?.[1];

type ContractFamily = 'CALLS' | 'LOGS' | 'TT' | 'TOKEN';
const contractKeyPattern = (family: ContractFamily) =>
  new RegExp(`^C#\\d+#(?:A#0x[0-9a-f]{40}#TT#(?:all|to|from)#)?${family}#(0x[0-9a-f]{40})(?:[#:]|$)`);
/** Built once: every item of a page asks (a page of 50 transfers spent ~0.4 ms building them anew). */
const CONTRACT_KEY: Record<ContractFamily, RegExp> = {
  CALLS: contractKeyPattern('CALLS'),
  LOGS: contractKeyPattern('LOGS'),
  TT: contractKeyPattern('TT'),
  TOKEN: contractKeyPattern('TOKEN'),
};

const ZERO_BLOOM = `0x${'0'.repeat(512)}`;

/**
 * A logs bloom as stored: undefined for the zero bloom (left out), the list of its set bits when that
 * is shorter (`~` then 3 hex digits per bit), else the bloom itself.
 */
export function encodeBloom(bloom: string): string | undefined {
  if (bloom === ZERO_BLOOM) return undefined;
  if (!/^0x[0-9a-f]{512}$/.test(bloom)) return bloom;
  // Bit g (0-2047, counted from the first hex digit) is bit 7 - g % 8 of byte g / 8, so a byte at a time.
  const bytes = Buffer.from(bloom.slice(2), 'hex');
  let bits = '';
  for (let index = 0; index < 256; index += 1) {
    const byte = bytes[index] as number;
    if (byte === 0) continue;
    for (let bit = 0; bit < 8; bit += 1) {
      if (byte & (0x80 >> bit)) bits += (index * 8 + bit).toString(16).padStart(3, '0');
    }
    if (bits.length + 1 >= bloom.length) return bloom;
  }
  return `~${bits}`;
}

/** The bloom an item stores (see encodeBloom); absent is the zero bloom, null a bloom the node did not give. */
export function decodeBloom(stored: unknown): string | null {
  if (stored === undefined) return ZERO_BLOOM;
  if (stored === null) return null;
  const text = String(stored);
  if (!text.startsWith('~')) return text;
  // Set bit by bit into 256 bytes, hex-encoded once (a string of 512 digits built a character at a
  // time cost ~35 us an item: 1.7 ms of a page of 50 transactions).
  const bytes = Buffer.alloc(256);
  for (let offset = 1; offset + 3 <= text.length; offset += 3) {
    const bit = Number.parseInt(text.slice(offset, offset + 3), 16);
    bytes[bit >> 3] = (bytes[bit >> 3] as number) | (0x80 >> (bit & 7));
  }
  return `0x${bytes.toString('hex')}`;
}

/**
 * The generic machinery: leave out what the rules give back, then pack what is left (pack.ts) except
 * the attributes a reader names in an expression (`top`); `finish` adjusts
 * the compacted fields before packing (the bloom's stored form). Restore: unpack, then the rules in order.
 */
function compactWith(
  record: object,
  key: ItemKey,
  rules: readonly Rule[],
  expand: (item: Fields) => unknown,
  top: ReadonlySet<string>,
  finish: (item: Fields) => void = () => {},
) {
  const fields = record as Fields;
  const item: Fields = { ...fields };
  for (const [field, derive] of rules) {
    if (!(field in fields)) continue;
    if (same(derive(fields, key), fields[field])) delete item[field];
  }
  finish(item);
  const packed = packItem(item, top);
  if (!PROVING) return packed;
  // The proof (tests): the item expands to the record, else it is stored unpacked, else whole.
  if (same(expand({ ...packed, pk: key.pk, sk: key.sk }), fields)) return packed;
  fallbacks += 1;
  return same(expand({ ...item, pk: key.pk, sk: key.sk }), fields) ? item : { ...fields };
}

/** COMPACTION_CHECK=1 (the tests): each compacted item is proven against its record (README, settings). */
const PROVING = process.env.COMPACTION_CHECK === '1';
let fallbacks = 0;

/** Items whose proof failed (stored unpacked or whole instead) since the process started; COMPACTION_CHECK=1 only. */
export const compactionFallbacks = (): number => fallbacks;

/**
 * The record of an item: unpacked, then the rules in order. `wanted`: only those record fields are
 * asked for (an aggregation's columns): the rules of the fields they need run, and the record holds
 * those fields only (no key attributes either).
 */
function expandWith(item: Fields, rules: readonly Rule[], wanted?: ReadonlySet<string>): Fields {
  const key = { pk: String(item.pk ?? ''), sk: String(item.sk ?? '') };
  const record: Fields = unpackItem({ ...item });
  if (wanted === undefined) {
    for (const [field, derive] of rules) if (!(field in record)) record[field] = derive(record, key);
    return record;
  }
  const needed = neededFields(rules, wanted);
  for (const [field, derive] of rules) if (needed.has(field) && !(field in record)) record[field] = derive(record, key);
  const lean: Fields = {};
  for (const field of wanted) if (field in record) lean[field] = record[field];
  return lean;
}

/** The fields `wanted` needs restored, with every field a rule of one of them reads (rules read only earlier rules' fields). */
const neededCache = new WeakMap<readonly Rule[], WeakMap<ReadonlySet<string>, ReadonlySet<string>>>();
function neededFields(rules: readonly Rule[], wanted: ReadonlySet<string>): ReadonlySet<string> {
  const byWanted = neededCache.get(rules) ?? new WeakMap<ReadonlySet<string>, ReadonlySet<string>>();
  neededCache.set(rules, byWanted);
  const known = byWanted.get(wanted);
  if (known) return known;
  const needed = new Set(wanted);
  for (let index = rules.length - 1; index >= 0; index -= 1) {
    const [field, , needs = []] = rules[index]!;
    if (needed.has(field)) for (const read of needs) needed.add(read);
  }
  byWanted.set(wanted, needed);
  return needed;
}

/**
 * The attributes every packed family keeps of its own: key attributes, `kind`, and (per family, with
 * the family's rules) the record fields some reader names in an expression.
 */
const topOf = (...fields: string[]): ReadonlySet<string> => new Set([...KEY_ATTRIBUTES, 'kind', ...fields]);

/** Deep equality of stored values (strings, numbers, booleans, null, arrays and plain objects of them). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object).filter((k) => !KEY_ATTRIBUTES.has(k));
  const kb = Object.keys(b as object).filter((k) => !KEY_ATTRIBUTES.has(k));
  if (ka.length !== kb.length) return false;
  return ka.every((k) => same((a as Fields)[k], (b as Fields)[k]));
}

/** Attributes of an item that are not part of its record (compared records leave them out). */
const KEY_ATTRIBUTES = new Set(['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'pos']);

/** Drops the key attributes an expanded item still carries when a record without them is wanted. */
const withoutKeys = (item: Fields): Fields => Object.fromEntries(Object.entries(item).filter(([name]) => !KEY_ATTRIBUTES.has(name)));

// ---------------------------------------------------------------------------------------------------
// Transactions

const big = (value: unknown): bigint => BigInt(String(value ?? '0'));

/** The selector derive.ts takes from calldata: its first 4 bytes, or null. */
const selectorOfInput = (input: unknown): string | null =>
  typeof input === 'string' && input.length >= 10 ? input.slice(0, 10).toLowerCase() : null;

/**
 * The transaction types a transaction's own fields suggest: token_transfer with token transfers,
 * contract_creation without a recipient, contract_call with a recipient and calldata (whether the
 * recipient held code is a chain fact; when it did not, or held code without calldata, the stored
 * types differ and are kept), coin_transfer with a value. token_creation is never guessed.
 */
export function transactionTypesGuess(
  tx: Pick<TransactionRecord, 'tokenTransferCount' | 'to' | 'inputSize' | 'value'>,
): TransactionTypeTag[] {
  const tags: TransactionTypeTag[] = [];
  if (tx.tokenTransferCount > 0) tags.push('token_transfer');
  if (tx.to === null) tags.push('contract_creation');
  if (tx.to !== null && tx.inputSize > 0) tags.push('contract_call');
  if (big(tx.value) > 0n) tags.push('coin_transfer');
  return tags;
}

const TRANSACTION_RULES: readonly Rule[] = [
  ['chainId', (_record, key) => chainOfKey(key)],
  ['hash', (_record, key) => (key.sk === 'TX' ? /#TX#(0x[0-9a-f]+)$/.exec(key.pk)?.[1] : undefined)],
  ['blockNumber', (_record, key) => sortKeyNumbers(key.sk)?.[0]],
  ['transactionIndex', (_record, key) => sortKeyNumbers(key.sk)?.[1]],
  // A per-address copy: the address is its sender or recipient; a N3 copy: the contract is its recipient.
  ['from', (_record, key) => senderOfKey(key)],
  [
    'to',
    (r, key) => {
      const contract = contractOfKey(key, 'CALLS');
      if (contract) return contract;
      const address = addressOfKey(key);
      return address && r.from !== address ? address : null;
    },
    ['from'],
  ],
  ['inputOmitted', () => false],
  ['inputSize', (r) => (typeof r.input === 'string' ? (r.input.length - 2) / 2 : undefined), ['input']],
  ['methodSelector', (r) => (typeof r.input === 'string' ? selectorOfInput(r.input) : undefined), ['input']],
  ['gasPrice', isNull],
  ['maxFeePerGas', isNull],
  ['maxPriorityFeePerGas', isNull],
  ['r', isNull],
  ['s', isNull],
  ['v', isNull],
  ['yParity', isNull],
  ['accessListJson', (r) => (r.type === 0 ? null : '[]'), ['type']],
  ['authorizationListJson', isNull],
  ['contractAddress', isNull],
  ['logsBloom', () => ZERO_BLOOM],
  ['blobGasUsed', isNull],
  ['blobGasPrice', isNull],
  ['baseFeePerGas', isNull],
  ['effectiveGasPrice', (r) => r.gasPrice, ['gasPrice']],
  ['fee', (r) => (big(r.gasUsed) * big(r.effectiveGasPrice) + big(r.l1Fee)).toString(), ['gasUsed', 'effectiveGasPrice', 'l1Fee']],
  // Items written before burnt fees were null without a base fee stored nothing: they read null too.
  ['burntFee', (r) => (r.baseFeePerGas === null ? null : (big(r.gasUsed) * big(r.baseFeePerGas)).toString()), ['baseFeePerGas', 'gasUsed']],
  [
    'priorityFee',
    (r) => {
      const tip = big(r.effectiveGasPrice) - big(r.baseFeePerGas);
      return (big(r.gasUsed) * (tip > 0n ? tip : 0n)).toString();
    },
    ['effectiveGasPrice', 'baseFeePerGas', 'gasUsed'],
  ],
  ['revertReason', isNull],
  ['error', isNull],
  ['hasErrorInInternalTransactions', () => false],
  ['tokenTransferCount', () => 0],
  ['tracesAvailable', () => true],
  ['transactionTypes', (r) => transactionTypesGuess(r as unknown as TransactionRecord), ['tokenTransferCount', 'to', 'inputSize', 'value']],
];

/**
 * Compaction of a record that carries a logs bloom (transactions, blocks): `rules` as every record, and
 * the bloom stored packed (encodeBloom) when the item keeps it.
 */
function withBloom<R extends { logsBloom: string | null }>(rules: readonly Rule[], top: ReadonlySet<string>) {
  const expandFields = (item: Fields): Fields => {
    const record = expandWith(item, rules);
    record.logsBloom = decodeBloom(record.logsBloom);
    return withoutKeys(record);
  };
  return {
    compact(value: R, key: ItemKey): Fields {
      const bloom = value.logsBloom === null ? undefined : encodeBloom(value.logsBloom);
      return compactWith(value, key, rules, expandFields, top, (item) => {
        if ('logsBloom' in item && bloom !== undefined) item.logsBloom = bloom;
      });
    },
    /**
     * The item with what its key gives back and its bloom unpacked (its own key attributes stay);
     * `wanted`: only those fields (expandWith).
     */
    expand<T extends object = Fields>(item: T, wanted?: ReadonlySet<string>): R & T {
      const record = expandWith(item as Fields, rules, wanted);
      if (wanted === undefined || wanted.has('logsBloom')) record.logsBloom = decodeBloom(record.logsBloom);
      return record as R & T;
    },
  };
}

/** Compaction of a record without a bloom: leave out what `rules` give back, pack what `top` does not keep. */
function plain<R extends object>(rules: readonly Rule[], top: ReadonlySet<string>) {
  const expand = <T extends object = Fields>(item: T, wanted?: ReadonlySet<string>): R & T =>
    expandWith(item as Fields, rules, wanted) as R & T;
  return {
    compact: (value: R, key: ItemKey): Fields => compactWith(value, key, rules, (item) => withoutKeys(expand(item)), top),
    /** The item with what its key gives back (its own key attributes stay, as the caller's item has them). */
    expand,
  };
}

/**
 * Fields of a transaction a table expression names: the reorg's creation lookup (`contractAddress`, a
 * FilterExpression of reorg.ts). Insights' checks read the expanded record (range-reader.ts).
 */
const TRANSACTION_TOP = topOf('contractAddress');

const transactionCompaction = withBloom<TransactionRecord>(TRANSACTION_RULES, TRANSACTION_TOP);

/** A transaction as an item at `key` stores it. */
export const compactTransaction = transactionCompaction.compact;

/** The whole transaction record of an item (any shape the ingest ever wrote); key attributes kept. */
export const expandTransaction = transactionCompaction.expand;

// ---------------------------------------------------------------------------------------------------
// Logs

const LOG_RULES: readonly Rule[] = [
  ['chainId', (_record, key) => chainOfKey(key)],
  ['blockNumber', (_record, key) => sortKeyNumbers(key.sk)?.[0]],
  ['logIndex', (_record, key) => (key.sk.startsWith('LOG#') ? Number(key.sk.slice(4)) : sortKeyNumbers(key.sk)?.[1])],
  ['dataOmitted', () => false],
  ['address', (_record, key) => contractOfKey(key, 'LOGS')],
];

/** No field of a log is named in a table expression: everything but the key is packed. */
const LOG_TOP = topOf();

const logCompaction = plain<LogRecord>(LOG_RULES, LOG_TOP);

/** A log as an item at `key` stores it (as compactTransaction). */
export const compactLog: (log: LogRecord, key: ItemKey) => Fields = logCompaction.compact;

/** The whole log record of an item; key attributes kept. */
export const expandLog = logCompaction.expand;

// ---------------------------------------------------------------------------------------------------
// Token transfers

type TransferPosition = { block?: number; log: number; batch: number } | undefined;

function parseTransferSortKey(sk: string): TransferPosition {
  const canonical = /^TT#(\d{6})#(\d{4})$/.exec(sk);
  if (canonical) return { log: Number(canonical[1]), batch: Number(canonical[2]) };
  const copy = /^(\d{12})#(\d{6})#(\d{4})$/.exec(sk);
  return copy ? { block: Number(copy[1]), log: Number(copy[2]), batch: Number(copy[3]) } : undefined;
}

/** The sort key last parsed: three rules of one item ask for the same key in a row. */
let lastTransferSortKey: { sk: string; position: TransferPosition } | undefined;

/** `TT#<log>#<batch>` (canonical) or `<block>#<log>#<batch>` (copies). */
const transferSortKey = (sk: string): TransferPosition => {
  if (lastTransferSortKey?.sk !== sk) lastTransferSortKey = { sk, position: parseTransferSortKey(sk) };
  return lastTransferSortKey.position;
};

const TOKEN_TRANSFER_RULES: readonly Rule[] = [
  ['chainId', (_record, key) => chainOfKey(key)],
  ['blockNumber', (_record, key) => transferSortKey(key.sk)?.block],
  ['logIndex', (_record, key) => transferSortKey(key.sk)?.log],
  ['batchIndex', (_record, key) => transferSortKey(key.sk)?.batch],
  ['token', (_record, key) => contractOfKey(key, 'TT') ?? contractOfKey(key, 'TOKEN')],
  // A per-address copy: the address is one side of the transfer.
  ['from', (_record, key) => senderOfKey(key)],
  [
    'to',
    (r, key) => {
      const address = addressOfKey(key);
      return address && r.from !== address ? address : undefined;
    },
    ['from'],
  ],
  ['tokenId', isNull],
  ['operator', isNull],
  ['methodSelector', isNull],
];

/** No field of a token transfer is named in a table expression: everything but the key is packed. */
const TOKEN_TRANSFER_TOP = topOf();

const tokenTransferCompaction = plain<TokenTransferRecord>(TOKEN_TRANSFER_RULES, TOKEN_TRANSFER_TOP);

/** A token transfer as an item at `key` stores it (as compactTransaction). */
export const compactTokenTransfer: (transfer: TokenTransferRecord, key: ItemKey) => Fields = tokenTransferCompaction.compact;

/** The whole token transfer record of an item; key attributes kept. */
export const expandTokenTransfer = tokenTransferCompaction.expand;

// ---------------------------------------------------------------------------------------------------
// Blocks

/** keccak256 of the RLP of an empty list: every block's sha3Uncles since the merge. */
const EMPTY_UNCLES_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';

const BLOCK_RULES: readonly Rule[] = [
  ['chainId', (_record, key) => chainOfKey(key)],
  ['nonce', () => '0x0000000000000000'],
  ['sha3Uncles', () => EMPTY_UNCLES_HASH],
  ['logsBloom', () => ZERO_BLOOM],
  ['totalDifficulty', isNull],
  ['baseFeePerGas', isNull],
  ['withdrawalsRoot', isNull],
  ['withdrawalCount', () => 0],
  ['blobGasUsed', isNull],
  ['excessBlobGas', isNull],
];

/** Fields of a block readers name in expressions: its number (checks and the by-hash projection). */
const BLOCK_TOP = topOf('number');

const blockCompaction = withBloom<BlockRecord>(BLOCK_RULES, BLOCK_TOP);

/** A block as an item at `key` stores it (as compactTransaction). */
export const compactBlock = blockCompaction.compact;

/** The whole block record of an item; key attributes kept. */
export const expandBlock = blockCompaction.expand;

// ---------------------------------------------------------------------------------------------------
// Internal transactions

const INTERNAL_TRANSACTION_RULES: readonly Rule[] = [
  ['chainId', (_record, key) => chainOfKey(key)],
  // The canonical item sits in its transaction's partition (`TX#<hash>` / `ITX#<index>`).
  ['transactionHash', (_record, key) => (key.sk.startsWith('ITX#') ? /#TX#(0x[0-9a-f]+)$/.exec(key.pk)?.[1] : undefined)],
  ['blockNumber', (_record, key) => sortKeyNumbers(key.sk)?.[0]],
  ['transactionIndex', (_record, key) => sortKeyNumbers(key.sk)?.[1]],
  ['index', (_record, key) => (key.sk.startsWith('ITX#') ? Number(key.sk.slice(4)) : sortKeyNumbers(key.sk)?.[2])],
  // An X5 `from` copy: the address its key names is the caller.
  ['from', (_record, key) => /^C#\d+#A#(0x[0-9a-f]{40})#ITX#from$/.exec(key.pk)?.[1]],
  ['createdContract', isNull],
  ['error', isNull],
  ['success', () => true],
  ['value', () => '0'],
];

/** Fields of an internal transaction readers name in expressions: the created contract (the reorg's creation lookup). */
const INTERNAL_TRANSACTION_TOP = topOf('createdContract');

const internalTransactionCompaction = plain<InternalTransactionRecord>(INTERNAL_TRANSACTION_RULES, INTERNAL_TRANSACTION_TOP);

/** An internal transaction as an item at `key` stores it (canonical, or an X5 copy). */
export const compactInternalTransaction = (internal: InternalTransactionRecord, key: ItemKey): Fields =>
  internalTransactionCompaction.compact(internal, key);

/** The whole internal transaction record of an item (any shape the ingest ever wrote); key attributes kept. */
export const expandInternalTransaction = internalTransactionCompaction.expand;

// ---------------------------------------------------------------------------------------------------
// Balances (state: kept for good, with a copy on gsi3 and most on gsi2)

/** A balance item's key: `C#<c>#A#<holder>` / `BAL#<token>#<token id or ->` (keys.ts addressKeys.balance). */
const BALANCE_PK = /^C#\d+#A#(0x[0-9a-f]{40})$/;
const BALANCE_SK = /^BAL#(0x[0-9a-f]{40})#(-|\d+)$/;
/** The standard of an X1 sort key's type rank (keys.ts TOKEN_TYPE_RANK). */
const STANDARD_OF_RANK: Readonly<Record<string, string>> = { '1': 'ERC-721', '2': 'ERC-1155', '3': 'ERC-404', '4': 'ERC-20' };
/** The parts of a listed balance's X1 sort key: `<value>#<type rank>#<token name>#<token>#<token id or ->`. */
const listingParts = (record: Fields): string[] | undefined => {
  const parts = typeof record.gsi3sk === 'string' ? record.gsi3sk.split('#') : [];
  return parts.length >= 5 ? parts : undefined;
};

/**
 * A balance item is stored in the table, with an entry of its keys on gsi3 (X1, every positive balance but
 * an ERC-1155 total) and on gsi2 (T1, ERC-20 and ERC-1155 per-id balances; whole copies on a table created
 * before those indexes projected only keys), kept as long as the balance is. Its chain, holder, token and token id are its key's; its standard and token name (up to
 * 64 characters) its X1 sort key's. `value` and `updatedAtBlock` stay attributes of their own (the ingest's
 * conditions name them), as do the index keys.
 */
const BALANCE_RULES: readonly Rule[] = [
  ['chainId', (_record, key) => chainOfKey(key)],
  ['holder', (_record, key) => BALANCE_PK.exec(key.pk)?.[1]],
  ['token', (_record, key) => BALANCE_SK.exec(key.sk)?.[1]],
  [
    'tokenId',
    (_record, key) => {
      const id = BALANCE_SK.exec(key.sk)?.[2];
      return id === '-' ? null : id;
    },
  ],
  ['tokenStandard', (record) => STANDARD_OF_RANK[listingParts(record)?.[1] ?? ''], ['gsi3sk']],
  ['tokenName', (record) => listingParts(record)?.slice(2, -2).join('#'), ['gsi3sk']],
];

const BALANCE_TOP = topOf('value', 'updatedAtBlock', 'gsi3pk', 'gsi3sk');

const balanceCompaction = plain<BalanceRecord>(BALANCE_RULES, BALANCE_TOP);

/** A balance as its item stores it (with its index keys: `record` carries gsi2 and gsi3 attributes when it is listed). */
export const compactBalance = (record: BalanceRecord, key: ItemKey): Fields => balanceCompaction.compact(record, key);

/** The whole balance record of an item (any shape the ingest ever wrote); key attributes kept. */
export const expandBalance = balanceCompaction.expand;

/** The value a balance's index keys spell: X1's sort key (gsi3sk), else T1's (gsi2sk). */
const valueOfIndexKeys = (entry: Fields): string | undefined =>
  (typeof entry.gsi3sk === 'string' ? addressKeys.valueOfBalanceByValueSortKey(entry.gsi3sk) : undefined) ??
  (typeof entry.gsi2sk === 'string' ? holderKeys.valueOfListingSortKey(entry.gsi2sk) : undefined);

/**
 * A balance as an entry of gsi2 or gsi3 gives it when the index projects only keys (definition.ts): its
 * table key (chain, holder, token, id), its value (either index's sort key), its standard and token name
 * (X1's sort key; an entry of T1 alone is an ERC-20 balance without an id, an ERC-1155 one with it:
 * state.ts isOnHolderIndex). It has no `updatedAtBlock`: no listing shows it. Undefined for anything
 * else, an item of the table among them (every item carries its `kind`).
 */
export function balanceOfIndexEntry(entry: Fields): Fields | undefined {
  if (entry.kind !== undefined || typeof entry.pk !== 'string' || typeof entry.sk !== 'string' || !entry.sk.startsWith('BAL#'))
    return undefined;
  const value = valueOfIndexKeys(entry);
  if (value === undefined) return undefined;
  const record = expandBalance({ ...entry, kind: 'balance', value }) as unknown as Fields;
  if (record.tokenStandard === undefined) record.tokenStandard = record.tokenId === null ? 'ERC-20' : 'ERC-1155';
  if (record.tokenName === undefined) record.tokenName = '';
  return record;
}

/** Families the table layer expands on every read (their readers never want only some fields). */
const EXPANDED_ON_READ: Readonly<Record<string, (item: Fields) => Fields>> = { balance: (item) => expandBalance(item) };

/**
 * An item as the table layer hands it to readers (shared/db/operations.ts, on GetItem, BatchGetItem,
 * Query of the table or an index, Scan): packed fields spread (pack.ts), and an item of a family in
 * EXPANDED_ON_READ whole again, whatever the route or index read it (a balance from gsi2 or gsi3's keys
 * alone: balanceOfIndexEntry). The other families are expanded by
 * their readers (`expand*`), which may want only some fields.
 */
export function readItem(item: Fields): Fields {
  if (item.kind === undefined) return balanceOfIndexEntry(item) ?? unpackItem(item);
  const expand = typeof item.kind === 'string' && Object.hasOwn(EXPANDED_ON_READ, item.kind) ? EXPANDED_ON_READ[item.kind] : undefined;
  return expand !== undefined && typeof item.pk === 'string' && typeof item.sk === 'string' ? expand(item) : unpackItem(item);
}

// ---------------------------------------------------------------------------------------------------
// Any chain record

/** Every family's rules, by the `kind` its items carry (the rules' order is tested: compact.test.ts). */
export const COMPACTION_RULES: Readonly<Record<string, readonly Rule[]>> = {
  block: BLOCK_RULES,
  transaction: TRANSACTION_RULES,
  log: LOG_RULES,
  tokenTransfer: TOKEN_TRANSFER_RULES,
  internalTransaction: INTERNAL_TRANSACTION_RULES,
  balance: BALANCE_RULES,
};

const EXPANDERS: Readonly<Record<string, (item: Fields) => Fields>> = {
  block: (item) => expandBlock(item),
  transaction: (item) => expandTransaction(item),
  log: (item) => expandLog(item),
  tokenTransfer: (item) => expandTokenTransfer(item),
  internalTransaction: (item) => expandInternalTransaction(item),
  balance: (item) => expandBalance(item),
};

/**
 * The whole record of an item of any family above, by its `kind` (kept on every item); an item of
 * another kind as the table layer read it (unpacked). Insights' bounded checks read records this way.
 */
export function expandChainRecord(item: Fields): Fields {
  const expand = typeof item.kind === 'string' && Object.hasOwn(EXPANDERS, item.kind) ? EXPANDERS[item.kind] : undefined;
  return expand ? expand(item) : unpackItem({ ...item });
}
