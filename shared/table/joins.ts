/**
 * What a history entry's page joins (docs/decisions/cold-history.md, "Cold pages in two round trips"):
 * the items the explorer's address tabs read beside their entries (X7 address items, G3 NFT instances,
 * N2 canonical transactions), named by the entry alone. One definition for the two places that need it:
 * the explorer's pages (shared/explorer: the details a page asks for) and the cold tier (the compactor
 * writes, on each pointer of an address's range, the joins of the part's entries, so that a page reaching
 * the part reads them in the same round trip as the part itself: shared/db/cold-query.ts).
 */
import { expandInternalTransaction, expandTokenTransfer, expandTransaction } from './compact';
import { addressKeys, type ItemKey, nftKeys, transactionKeys } from './keys';
import {
  CONTRACT_SIDE,
  CONTRACT_SIDES_ATTRIBUTE,
  type InternalTransactionRecord,
  type TokenTransferRecord,
  type TransactionRecord,
} from './records';
import { fromMessagePack, toMessagePack } from './pack';

/** What a page joins to its entries: the address items (X7), NFT instances (G3) and canonical transactions (N2) named. */
export interface Joins {
  addresses: string[];
  instances: { contract: string; tokenId: string }[];
  transactions: string[];
}

/** The address sides of an index copy (X3, X4, X5), as its `cs` bits name them (records.ts CONTRACT_SIDE). */
export type CopySides = Partial<Record<keyof typeof CONTRACT_SIDE, string | null>>;

/**
 * The sides of a copy that have an address item (X7), from the copy's own `cs` bits: only those are
 * asked for, so no key of the page's BatchGetItem is missing. A copy written before the bits existed
 * (no `cs`) names every side, as every side was asked for then.
 */
export function contractSidesOf(copy: object, sides: CopySides): string[] {
  const flags = (copy as Record<string, unknown>)[CONTRACT_SIDES_ATTRIBUTE];
  const known = typeof flags === 'number';
  return (Object.entries(sides) as [keyof typeof CONTRACT_SIDE, string | null | undefined][]).flatMap(([side, address]) =>
    address && (!known || (flags & CONTRACT_SIDE[side]) !== 0) ? [address] : [],
  );
}

const none = (): Joins => ({ addresses: [], instances: [], transactions: [] });

/** An entry's record whole (compact.ts), by its kind; undefined for a kind that joins nothing. */
function expanded(entry: Record<string, unknown>): object | undefined {
  switch (entry.kind) {
    case 'tokenTransfer':
      return expandTokenTransfer(entry);
    case 'transaction':
      return expandTransaction(entry);
    case 'internalTransaction':
      return expandInternalTransaction(entry);
    default:
      return undefined;
  }
}

/**
 * The joins of one record, whole (compact.ts `expand*`, with its item's `cs` bits and `kind`, as the
 * explorer's pages hold it):
 *  - a token transfer (X3): its token's address item (it emitted the log: always one) and its contract
 *    sides', and, moving an NFT id, that instance (the ingest writes one for every id a transfer moves);
 *  - a transaction (X4): its contract sides' address items (sender, recipient, created contract) and,
 *    when the copy left out its input, the canonical transaction;
 *  - an internal transaction (X5): its contract sides' (caller, callee, created contract);
 *  - anything else: none.
 */
export function joinsOfRecord(whole: object): Joins {
  const record = whole as Record<string, unknown>;
  switch (record.kind) {
    case 'tokenTransfer': {
      const transfer = whole as TokenTransferRecord;
      return {
        addresses: [transfer.token, ...contractSidesOf(transfer, { from: transfer.from, to: transfer.to })],
        instances: transfer.tokenId === null ? [] : [{ contract: transfer.token, tokenId: transfer.tokenId }],
        transactions: [],
      };
    }
    case 'transaction': {
      const tx = whole as TransactionRecord;
      return {
        addresses: contractSidesOf(tx, { from: tx.from, to: tx.to, created: tx.contractAddress }),
        instances: [],
        transactions: tx.inputOmitted ? [tx.hash] : [],
      };
    }
    case 'internalTransaction': {
      const internal = whole as InternalTransactionRecord;
      return {
        addresses: contractSidesOf(internal, { from: internal.from, to: internal.to, created: internal.createdContract }),
        instances: [],
        transactions: [],
      };
    }
    default:
      return none();
  }
}

/** The joins of one entry as a reader gets it from its range (an item, compacted or whole): its record's. */
export function joinsOf(stored: object): Joins {
  const record = expanded(stored as Record<string, unknown>);
  return record === undefined ? none() : joinsOfRecord(record);
}

/** Several joins as one, each item named once (lower case), in first-seen order. */
export function mergeJoins(all: Iterable<Joins>): Joins {
  const addresses = new Set<string>();
  const instances = new Map<string, { contract: string; tokenId: string }>();
  const transactions = new Set<string>();
  for (const joins of all) {
    for (const address of joins.addresses) addresses.add(address.toLowerCase());
    for (const instance of joins.instances) {
      const contract = instance.contract.toLowerCase();
      instances.set(`${contract}#${instance.tokenId}`, { contract, tokenId: instance.tokenId });
    }
    for (const hash of joins.transactions) transactions.add(hash.toLowerCase());
  }
  return { addresses: [...addresses], instances: [...instances.values()], transactions: [...transactions] };
}

/** The joins of `entries` (items as read from their ranges), each item named once. */
export const joinsOfAll = (entries: Iterable<object>): Joins => mergeJoins([...entries].map(joinsOf));

/** The joins of whole `records` (joinsOfRecord), each item named once. */
export const joinsOfRecords = (records: Iterable<object>): Joins => mergeJoins([...records].map(joinsOfRecord));

/** The number of items `joins` names. */
export const joinCount = (joins: Joins): number => joins.addresses.length + joins.instances.length + joins.transactions.length;

/** The keys of the items `joins` names on `chainId`. */
export function joinKeys(chainId: number, joins: Joins): ItemKey[] {
  return [
    ...joins.addresses.map((address) => addressKeys.address(chainId, address)),
    ...joins.instances.map(({ contract, tokenId }) => nftKeys.instance(chainId, contract, tokenId)),
    ...joins.transactions.map((hash) => transactionKeys.transaction(chainId, hash)),
  ];
}

/**
 * The ranges whose pointers carry their parts' joins: an address's token transfers, transactions and
 * internal transactions (X3, X4, X5, `C#<chain>#A#<address>#TT|TX|ITX#…`), the explorer's tabs.
 */
export const rangeCarriesJoins = (pk: string): boolean => /^C#\d+#A#0x[0-9a-f]{40}#(?:TT|TX|ITX)#/.test(pk);

const hexBytes = (hex: string): Uint8Array => Buffer.from(hex.slice(2), 'hex');
const hexOf = (bytes: Uint8Array, from: number, length: number): string =>
  `0x${Buffer.from(bytes.buffer, bytes.byteOffset + from, length).toString('hex')}`;

/** The address an address's range belongs to (`C#<chain>#A#<address>#…`), if it is one. */
export const rangeOwner = (pk: string): string | undefined => /^C#\d+#A#(0x[0-9a-f]{40})#/.exec(pk)?.[1];

/**
 * `joins` as a pointer of `owner`'s range stores them: [addresses, 20 bytes each, as one byte string;
 * instances, each [contract, token id]; transactions, 32 bytes each, as one byte string], and, when the
 * owner is among the addresses (a contract's own range: every entry names it), the owner left out of them
 * and `true` after (about 22 B an address).
 */
export function encodeJoins(joins: Joins, owner?: string): Uint8Array {
  const own = owner?.toLowerCase();
  const owned = own !== undefined && joins.addresses.some((address) => address.toLowerCase() === own);
  const addresses = owned ? joins.addresses.filter((address) => address.toLowerCase() !== own) : joins.addresses;
  return toMessagePack([
    Buffer.concat(addresses.map(hexBytes)),
    joins.instances.map(({ contract, tokenId }) => [hexBytes(contract), tokenId]),
    Buffer.concat(joins.transactions.map(hexBytes)),
    ...(owned ? [true] : []),
  ]);
}

/**
 * A pointer's stored joins (`encodeJoins`) on `owner`'s range; undefined when the bytes are not such, or
 * name the owner and `owner` is not given.
 */
export function decodeJoins(bytes: Uint8Array, owner?: string): Joins | undefined {
  let value: unknown;
  try {
    value = fromMessagePack(bytes);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || (value.length !== 3 && !(value.length === 4 && value[3] === true))) return undefined;
  const [addresses, instances, transactions] = value as [unknown, unknown, unknown];
  if (!(addresses instanceof Uint8Array) || addresses.length % 20 !== 0) return undefined;
  if (!(transactions instanceof Uint8Array) || transactions.length % 32 !== 0) return undefined;
  if (!Array.isArray(instances)) return undefined;
  const joins = none();
  if (value.length === 4) {
    if (owner === undefined) return undefined;
    joins.addresses.push(owner.toLowerCase());
  }
  for (let at = 0; at < addresses.length; at += 20) joins.addresses.push(hexOf(addresses, at, 20));
  for (let at = 0; at < transactions.length; at += 32) joins.transactions.push(hexOf(transactions, at, 32));
  for (const instance of instances) {
    if (!Array.isArray(instance) || !(instance[0] instanceof Uint8Array) || instance[0].length !== 20 || typeof instance[1] !== 'string')
      return undefined;
    joins.instances.push({ contract: hexOf(instance[0], 0, 20), tokenId: instance[1] });
  }
  return joins;
}
