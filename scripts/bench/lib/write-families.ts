/**
 * Write cost by item family, measured at the table's edge (scripts/bench/ingest.ts observes every
 * write command the ingest sends). Pure: the ledger is fed the write requests as they go out and the
 * table's items at the end; nothing here talks to DynamoDB. test/scripts/bench/ checks it.
 *
 * An item's family is read from its key (shared/table/keys.ts; pattern ids of
 * docs/access-patterns.md): canonical records, each index-copy range family, state items, the
 * ingest's own bookkeeping (manifests, cursor, chain registry), order items, and any other key shape
 * under its own name (so a new family shows up without a change here).
 *
 * Write units, as DynamoDB bills them on demand:
 *  - a put, update or delete costs ceil(size / 1 KB) units (at least 1) of the item's size (an
 *    update the larger of before and after; taken here as the item's size at the end of the run, or
 *    the last size put, since state items keep their shape), twice that inside TransactWriteItems;
 *  - an item that carries a GSI's key attributes costs its size again on that GSI (every GSI projects
 *    ALL attributes), counted as a family `GSI <index>: <family>` of its own (gsi3 of the balance
 *    items: `GSI gsi3: X1 balance listing (G3 balance)`, the X1 listings being those entries); a put that moves the
 *    item's GSI key, or removes it, and a delete of an item the GSI holds also delete the old GSI
 *    entry: one more unit of the old size (DynamoDB's delete-then-put when an index key changes).
 * Bytes stored: every item left in the table at the end, its size plus DynamoDB's 100 bytes of
 * per-item overhead. Of those, the bytes of items that carry the table's TTL attribute (`ttl`: the
 * write manifests, G2, kept `EXPIRING_RETENTION_DAYS` past their block) are also counted apart
 * (`expiringBytesStored`): DynamoDB deletes them, so a cost model holds them for their retention only.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import { DEFAULT_MANIFEST_RETENTION_DAYS } from '../../../shared/ingest/manifest-retention';
import { TABLE } from '../../../shared/table/definition';

/**
 * How long the items counted in `expiringBytesStored` are held: the manifests' retention as the ingest
 * writes it by default (shared/ingest/manifest.ts; the bench runs the default).
 */
export const EXPIRING_RETENTION_DAYS = DEFAULT_MANIFEST_RETENTION_DAYS;

export type FamilyGroup = 'canonical record' | 'index copy' | 'state' | 'bookkeeping' | 'orders' | 'GSI' | 'other';

export interface Family {
  /** Stable, human-readable id: the pattern id(s) and the key shape. */
  id: string;
  group: FamilyGroup;
}

const f = (id: string, group: FamilyGroup): Family => ({ id, group });

/** The family of an item by its key. */
export function familyOf(pk: string, sk: string): Family {
  if (pk === 'CHAINS') return f('N13 chain registry (CHAINS)', 'bookkeeping');
  if (pk.startsWith('SEEK#')) return f('N15 seek chunks (SEEK#<range>)', 'index copy');
  if (pk.startsWith('ORDER#')) return sk.startsWith('DEPOSIT#') ? f('O7 order deposit', 'orders') : f('O1 order', 'orders');
  if (pk.startsWith('NAME#') && sk === 'CHAINS') return f('N11 name across chains (NAME#n / CHAINS)', 'state');
  const chain = /^C#\d+#/.exec(pk);
  if (!chain) return f(`other: ${shape(pk)} | ${shape(sk)}`, 'other');
  const rest = pk.slice(chain[0].length);
  if (rest === 'BLOCKS') return f('N1 block (BLOCKS)', 'canonical record');
  if (rest.startsWith('BLOCKHASH#')) return f('N2 block by hash (BLOCKHASH)', 'canonical record');
  if (rest === 'META') return f('G1 cursor (META)', 'bookkeeping');
  if (rest.startsWith('WROTE#')) return f('G2 manifest (WROTE)', 'bookkeeping');
  if (/^TX#[^#]+$/.test(rest)) {
    if (sk === 'TX') return f('N2 transaction (TX#h / TX)', 'canonical record');
    if (sk.startsWith('LOG#')) return f('log (TX#h / LOG#)', 'canonical record');
    if (sk.startsWith('TT#')) return f('N10 token transfer (TX#h / TT#)', 'canonical record');
    if (sk.startsWith('ITX#')) return f('internal transaction (TX#h / ITX#)', 'canonical record');
    return f(`other: TX#h / ${shape(sk)}`, 'other');
  }
  if (/^CALLS#[^#]+#[^#]+#FROM#[^#]+$/.test(rest)) return f('N3 calls by sender (CALLS#c#sel#FROM#a)', 'index copy');
  if (/^CALLS#[^#]+#[^#]+$/.test(rest)) return f('N3 calls (CALLS#c#sel)', 'index copy');
  if (rest.startsWith('SELECTOR#')) return f('N6 calls by selector (SELECTOR#sel)', 'index copy');
  if (/^LOGS#[^#]+#T0#[^#]+$/.test(rest)) return f('N4 logs by topic0 (LOGS#c#T0#t)', 'index copy');
  if (/^LOGS#[^#]+$/.test(rest)) return f('N4 logs (LOGS#c)', 'index copy');
  if (rest.startsWith('TOPIC0#')) return f('N5 logs by topic0 (TOPIC0#t)', 'index copy');
  if (/^TT#[^#]+$/.test(rest)) return f('N8 transfers of a token (TT#token)', 'index copy');
  if (/^TT#[^#]+#ID#[^#]+$/.test(rest)) return f('N16 transfers of one NFT (TT#token#ID#id)', 'index copy');
  if (/^ADDR#[^#]+$/.test(rest) && sk === 'HEADS') return f('G8 range heads (ADDR#a / HEADS)', 'state');
  if (/^ADDR#[^#]+$/.test(rest)) return f('X7 address / token (ADDR#a)', 'state');
  if (rest.startsWith('NAME#')) return f('N11 name (NAME#n)', 'state');
  if (/^NFT#[^#]+$/.test(rest)) return f('G3 NFT instance (NFT#c)', 'state');
  const address = /^A#[^#]+(?:#(.*))?$/.exec(rest);
  if (address) {
    const tail = address[1];
    if (tail === undefined) {
      if (sk.startsWith('BAL#')) return f('G3 balance (A#a / BAL#)', 'state');
      if (sk === 'COIN') return f('X9 coin balance (A#a / COIN)', 'state');
      if (sk === 'BALCOUNT') return f('X10 balance counts (A#a / BALCOUNT)', 'state');
      return f(`other: A#a / ${shape(sk)}`, 'other');
    }
    const dir = (direction: string | undefined) => (direction === 'all' ? 'all' : 'to|from');
    const set = (typeSet: string | undefined) => (typeSet === 'ALL' ? 'ALL' : 'standard');
    const rules: [RegExp, (m: RegExpExecArray) => Family][] = [
      [/^TX#(all|to|from)$/, (m) => f(`X4 transactions (A#a#TX#${dir(m[1])})`, 'index copy')],
      [/^ITX#(all|to|from)$/, (m) => f(`X5 internal transactions (A#a#ITX#${dir(m[1])})`, 'index copy')],
      [/^WD$/, () => f('X6 withdrawals (A#a#WD)', 'index copy')],
      [/^TT#(all|to|from)#TOKEN#[^#]+$/, (m) => f(`X3/N9 transfers by token (A#a#TT#${dir(m[1])}#TOKEN#t)`, 'index copy')],
      [/^TT#(all|to|from)#([^#]+)$/, (m) => f(`X3/N9 transfers (A#a#TT#${dir(m[1])}#${set(m[2])})`, 'index copy')],
      [/^NFTCOL#([^#]+)$/, (m) => f(`X2 NFT collection (A#a#NFTCOL#${set(m[1])})`, 'state')],
    ];
    for (const [pattern, family] of rules) {
      const match = pattern.exec(tail);
      if (match) return family(match);
    }
    if (tail === 'NFT') return f('G4 NFT holding (A#a#NFT)', 'state');
    return f(`other: A#a#${shape(tail)} | ${shape(sk)}`, 'other');
  }
  return f(`other: ${shape(rest)} | ${shape(sk)}`, 'other');
}

/** A key with its variable parts (hex, long numbers) replaced, for families this module does not name. */
function shape(key: string): string {
  return key
    .replace(/0x[0-9a-f]+/gi, 'h')
    .replace(/\d{4,}/g, 'n')
    .slice(0, 80);
}

// ---------------------------------------------------------------------------------------------------
// Sizes and units

/** DynamoDB's item size: attribute names plus values (strings and binaries by bytes, numbers ~ digits/2 + 1). */
export function attributeSize(value: Record<string, unknown>): number {
  const [[type, inner]] = Object.entries(value) as [[string, unknown]];
  switch (type) {
    case 'S':
      return Buffer.byteLength(inner as string);
    case 'N':
      return Math.ceil((inner as string).replace(/^-|\.|^0+/g, '').length / 2) + 1;
    case 'B':
      return (inner as Uint8Array).length;
    case 'BOOL':
    case 'NULL':
      return 1;
    case 'SS':
      return (inner as string[]).reduce((sum, s) => sum + Buffer.byteLength(s), 0);
    case 'NS':
      return (inner as string[]).reduce((sum, n) => sum + Math.ceil(n.length / 2) + 1, 0);
    case 'L':
      return 3 + (inner as Record<string, unknown>[]).reduce((sum, item) => sum + 1 + attributeSize(item), 0);
    case 'M':
      return 3 + marshalledSize(inner as Record<string, Record<string, unknown>>);
    default:
      return 0;
  }
}

function marshalledSize(item: Record<string, Record<string, unknown>>): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + attributeSize(value), 0);
}

/** Size of an item in document form (as the document client takes it). */
export function itemSize(item: Record<string, unknown>): number {
  return marshalledSize(
    marshall(item, { removeUndefinedValues: true, convertClassInstanceToMap: false }) as unknown as Record<string, Record<string, unknown>>,
  );
}

export const unitsOf = (size: number): number => Math.max(1, Math.ceil(size / 1024));

/** The per-item overhead DynamoDB adds to stored bytes. */
export const STORED_OVERHEAD_BYTES = 100;

/** The table's GSIs (definition.ts), each with whether an entry holds only the keys (KEYS_ONLY) or the whole item. */
const GSIS = TABLE.globalSecondaryIndexes.map((gsi) => ({
  index: gsi.indexName as string,
  partitionKey: gsi.partitionKey as string,
  sortKey: gsi.sortKey as string,
  keysOnly: gsi.projection === 'KEYS_ONLY',
}));
type Gsi = (typeof GSIS)[number];

/** The size of an item's entry on `gsi` (`size`: the item's): the whole item, or its table and index keys. */
function entrySize(item: Record<string, unknown>, gsi: Gsi, size: number): number {
  if (!gsi.keysOnly) return size;
  return itemSize({ pk: item.pk, sk: item.sk, [gsi.partitionKey]: item[gsi.partitionKey], [gsi.sortKey]: item[gsi.sortKey] });
}

/** The family of an item's entries on a GSI: `GSI <index>: <family>`, named after the pattern the index serves where it has one. */
function gsiFamily(index: string, family: Family): Family {
  if (index === 'gsi3' && family.id === 'G3 balance (A#a / BAL#)') return f('GSI gsi3: X1 balance listing (G3 balance)', 'GSI');
  return f(`GSI ${index}: ${family.id}`, 'GSI');
}

// ---------------------------------------------------------------------------------------------------
// The ledger

export type Operation = 'put' | 'update' | 'delete' | 'conditionCheck';

/** What is fed the write requests (the ledger; partition-heat.ts's heat). */
export interface WriteRecorder {
  record(operation: Operation, itemOrKey: Record<string, unknown>, transactional: boolean): void;
}

interface Pending {
  family: Family;
  operation: Operation;
  key: string;
  transactional: boolean;
  /** Known for puts. */
  size?: number;
  /**
   * GSI entries a put writes (the index, the entry's size). An entry put again under the same index key
   * is written again on an ALL index (the item changed) and not at all on a KEYS_ONLY one (nothing it
   * holds changed: DynamoDB writes an index only when a key or a projected attribute changes).
   */
  gsis: { index: string; size: number }[];
  /** GSI entries this write deletes (the index, and the size of the entry). */
  gsiDeletes: { index: string; size: number }[];
}

export interface FamilyRow {
  family: string;
  group: FamilyGroup;
  /** Puts (and updates) of items of the family. */
  itemsWritten: number;
  puts: number;
  updates: number;
  deletes: number;
  writeUnits: number;
  /** Of writeUnits, those of TransactWriteItems (already doubled). */
  transactionalWriteUnits: number;
  /** Bytes of the items put or updated (their size after the write). */
  bytesWritten: number;
  /** Items of the family left in the table at the end. */
  itemsStored: number;
  /** Their size plus 100 bytes each. */
  bytesStored: number;
  /** Of bytesStored, those of items carrying a TTL (`ttl`): held EXPIRING_RETENTION_DAYS, not for good. */
  expiringBytesStored: number;
}

export interface FamilyReport {
  rows: FamilyRow[];
  /**
   * The expiring bytes stored (expiringBytesStored's total, GSI copies included) by how many days
   * DynamoDB holds them (WriteLedger's `retentionDaysOf`): the manifests' 7, zero-value calls' N.
   */
  expiringByDays: Record<string, number>;
  totals: Omit<FamilyRow, 'family' | 'group'>;
  /** By group (canonical record, index copy, state, bookkeeping, orders, GSI, other). */
  groups: Record<string, Omit<FamilyRow, 'family' | 'group'>>;
}

const emptyRow = () => ({
  itemsWritten: 0,
  puts: 0,
  updates: 0,
  deletes: 0,
  writeUnits: 0,
  transactionalWriteUnits: 0,
  bytesWritten: 0,
  itemsStored: 0,
  bytesStored: 0,
  expiringBytesStored: 0,
});

const keyString = (key: Record<string, unknown>): string => `${String(key.pk)}\n${String(key.sk)}`;

/**
 * Collects every write of a run (`record*`), then, given the table's items at the end (`report`),
 * prices each write and adds up writes and stored bytes by family.
 */
export class WriteLedger {
  /**
   * `retentionDaysOf`: how long the items of a family that carry the TTL attribute are held (default:
   * EXPIRING_RETENTION_DAYS, the manifests'; a profile ingested with zero-value calls kept N days says N
   * for X5).
   */
  constructor(private readonly options: { retentionDaysOf?: (family: Family) => number } = {}) {}

  private readonly pending: Pending[] = [];
  /** The last size put at each key (for deletes and updates of items gone by the end). */
  private readonly lastPut = new Map<string, number>();
  /** The GSI entries of the last put at each key, by index: its index key (`<gsi pk>\n<gsi sk>`) and size. */
  private readonly lastGsiEntries = new Map<string, Map<string, { key: string; size: number }>>();

  /** The GSI entries a write at `key` removes: those of the last put whose index key it changes or drops. */
  private gsiDeletesAt(key: string, next: Map<string, { key: string }> | undefined): { index: string; size: number }[] {
    const previous = this.lastGsiEntries.get(key);
    if (!previous) return [];
    return [...previous]
      .filter(([index, entry]) => next?.get(index)?.key !== entry.key)
      .map(([index, entry]) => ({ index, size: entry.size }));
  }

  /** One write request of a command (document form: the Item of a put, the Key of an update / delete). */
  record(operation: Operation, itemOrKey: Record<string, unknown>, transactional: boolean): void {
    const family = familyOf(String(itemOrKey.pk), String(itemOrKey.sk));
    const key = keyString(itemOrKey);
    if (operation === 'put') {
      const size = itemSize(itemOrKey);
      const entries = new Map(
        GSIS.filter((gsi) => itemOrKey[gsi.partitionKey] !== undefined).map((gsi) => [
          gsi.index,
          { key: `${String(itemOrKey[gsi.partitionKey])}\n${String(itemOrKey[gsi.sortKey])}`, size: entrySize(itemOrKey, gsi, size) },
        ]),
      );
      const previous = this.lastGsiEntries.get(key);
      const gsiDeletes = this.gsiDeletesAt(key, entries);
      const gsis = GSIS.filter((gsi) => {
        const entry = entries.get(gsi.index);
        return entry !== undefined && !(gsi.keysOnly && previous?.get(gsi.index)?.key === entry.key);
      }).map((gsi) => ({ index: gsi.index, size: entries.get(gsi.index)!.size }));
      this.lastPut.set(key, size);
      if (entries.size > 0) this.lastGsiEntries.set(key, entries);
      else this.lastGsiEntries.delete(key);
      this.pending.push({ family, operation, key, transactional, size, gsis, gsiDeletes });
    } else if (operation === 'delete') {
      const gsiDeletes = this.gsiDeletesAt(key, undefined);
      this.lastGsiEntries.delete(key);
      this.pending.push({ family, operation, key, transactional, gsis: [], gsiDeletes });
    } else {
      this.pending.push({ family, operation, key, transactional, gsis: [], gsiDeletes: [] });
    }
  }

  /** Recorded writes so far. */
  get writes(): number {
    return this.pending.length;
  }

  /** Prices the writes with the items left at the end (`finalItems`, document form) and adds up by family. */
  report(finalItems: readonly Record<string, unknown>[]): FamilyReport {
    const finalSize = new Map<string, { size: number; item: Record<string, unknown> }>();
    for (const item of finalItems) finalSize.set(keyString(item), { size: itemSize(item), item });
    const rows = new Map<string, FamilyRow>();
    const row = (family: Family): FamilyRow => {
      let entry = rows.get(family.id);
      if (!entry) {
        entry = { family: family.id, group: family.group, ...emptyRow() };
        rows.set(family.id, entry);
      }
      return entry;
    };
    for (const write of this.pending) {
      const entry = row(write.family);
      const final = finalSize.get(write.key);
      let size: number;
      let gsis = write.gsis;
      if (write.operation === 'put') size = write.size ?? 0;
      else {
        size = final?.size ?? this.lastPut.get(write.key) ?? 0;
        // An update of an item that carries GSI keys rewrites its entries on the ALL indexes (a KEYS_ONLY
        // entry changes only with its keys, which the ledger's updates do not move).
        if (write.operation === 'update' && final)
          gsis = GSIS.filter((gsi) => !gsi.keysOnly && final.item[gsi.partitionKey] !== undefined).map((gsi) => ({
            index: gsi.index,
            size,
          }));
      }
      const units = unitsOf(size) * (write.transactional ? 2 : 1);
      entry.writeUnits += units;
      if (write.transactional) entry.transactionalWriteUnits += units;
      if (write.operation === 'put') entry.puts += 1;
      if (write.operation === 'update' || write.operation === 'conditionCheck') entry.updates += 1;
      if (write.operation === 'delete') entry.deletes += 1;
      if (write.operation === 'put' || write.operation === 'update') {
        entry.itemsWritten += 1;
        entry.bytesWritten += size;
      }
      for (const { index, size: deleted } of write.gsiDeletes) {
        const gsiRow = row(gsiFamily(index, write.family));
        gsiRow.deletes += 1;
        gsiRow.writeUnits += unitsOf(deleted);
      }
      if (write.operation !== 'conditionCheck' && write.operation !== 'delete') {
        for (const { index, size: entry } of gsis) {
          const gsiRow = row(gsiFamily(index, write.family));
          gsiRow.itemsWritten += 1;
          gsiRow.puts += 1;
          gsiRow.writeUnits += unitsOf(entry);
          gsiRow.bytesWritten += entry;
        }
      }
    }
    const expiringByDays: Record<string, number> = {};
    const expiring = (family: Family, bytes: number): void => {
      const days = String(this.options.retentionDaysOf?.(family) ?? EXPIRING_RETENTION_DAYS);
      expiringByDays[days] = (expiringByDays[days] ?? 0) + bytes;
    };
    for (const { size, item } of finalSize.values()) {
      const family = familyOf(String(item.pk), String(item.sk));
      const entry = row(family);
      const expires = typeof item[TABLE.ttlAttribute] === 'number';
      entry.itemsStored += 1;
      entry.bytesStored += size + STORED_OVERHEAD_BYTES;
      if (expires) {
        entry.expiringBytesStored += size + STORED_OVERHEAD_BYTES;
        expiring(family, size + STORED_OVERHEAD_BYTES);
      }
      for (const gsi of GSIS) {
        if (item[gsi.partitionKey] === undefined) continue;
        const gsiRow = row(gsiFamily(gsi.index, family));
        const stored = entrySize(item, gsi, size) + STORED_OVERHEAD_BYTES;
        gsiRow.itemsStored += 1;
        gsiRow.bytesStored += stored;
        if (expires) {
          gsiRow.expiringBytesStored += stored;
          expiring(family, stored);
        }
      }
    }
    const sorted = [...rows.values()].sort((a, b) => b.writeUnits - a.writeUnits || a.family.localeCompare(b.family));
    const sum = (list: readonly FamilyRow[]) =>
      list.reduce(
        (total, entry) => {
          for (const name of Object.keys(total) as (keyof ReturnType<typeof emptyRow>)[]) total[name] += entry[name];
          return total;
        },
        emptyRow() as ReturnType<typeof emptyRow>,
      );
    const groups: Record<string, ReturnType<typeof emptyRow>> = {};
    for (const group of [...new Set(sorted.map((entry) => entry.group))])
      groups[group] = sum(sorted.filter((entry) => entry.group === group));
    return { rows: sorted, totals: sum(sorted), groups, expiringByDays };
  }
}

/** Feeds one write command's input (document form) to the ledger (or another recorder). */
export function recordWriteCommand(ledger: WriteRecorder, command: string, input: Record<string, any>): void {
  if (command === 'BatchWriteItem') {
    for (const requests of Object.values(input.RequestItems ?? {}) as Record<string, any>[][]) {
      for (const request of requests) {
        if (request.PutRequest) ledger.record('put', request.PutRequest.Item, false);
        if (request.DeleteRequest) ledger.record('delete', request.DeleteRequest.Key, false);
      }
    }
  } else if (command === 'TransactWriteItems') {
    for (const action of (input.TransactItems ?? []) as Record<string, any>[]) {
      if (action.Put) ledger.record('put', action.Put.Item, true);
      if (action.Update) ledger.record('update', action.Update.Key, true);
      if (action.Delete) ledger.record('delete', action.Delete.Key, true);
      if (action.ConditionCheck) ledger.record('conditionCheck', action.ConditionCheck.Key, true);
    }
  } else if (command === 'PutItem') ledger.record('put', input.Item, false);
  else if (command === 'UpdateItem') ledger.record('update', input.Key, false);
  else if (command === 'DeleteItem') ledger.record('delete', input.Key, false);
}

/** Per-transaction and per-log figures of a report, rounded for the bench's JSON and Markdown. */
export function perUnit(report: FamilyReport, transactions: number, logs: number) {
  const r = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
  const scale = (entry: Omit<FamilyRow, 'family' | 'group'>) => ({
    itemsWrittenPerTx: r(entry.itemsWritten / transactions),
    writeUnitsPerTx: r(entry.writeUnits / transactions),
    writeUnitsPerLog: r(entry.writeUnits / Math.max(1, logs)),
    transactionalWriteUnitsPerTx: r(entry.transactionalWriteUnits / transactions),
    bytesWrittenPerTx: Math.round(entry.bytesWritten / transactions),
    itemsStoredPerTx: r(entry.itemsStored / transactions),
    bytesStoredPerTx: Math.round(entry.bytesStored / transactions),
    bytesStoredPerLog: Math.round(entry.bytesStored / Math.max(1, logs)),
    /** Of bytesStoredPerTx, held EXPIRING_RETENTION_DAYS only (items with a TTL: the manifests). */
    expiringBytesStoredPerTx: Math.round(entry.expiringBytesStored / transactions),
    averageItemBytes: entry.itemsWritten > 0 ? Math.round(entry.bytesWritten / entry.itemsWritten) : 0,
  });
  return {
    transactions,
    logs,
    expiringRetentionDays: EXPIRING_RETENTION_DAYS,
    /** Of bytesStoredPerTx, those held a number of days only (items with a TTL), by that number. */
    expiringBytesStoredPerTxByDays: Object.fromEntries(
      Object.entries(report.expiringByDays).map(([days, bytes]) => [days, Math.round(bytes / transactions)]),
    ),
    rows: report.rows.map((entry) => ({ ...entry, ...scale(entry) })),
    groups: Object.fromEntries(Object.entries(report.groups).map(([group, entry]) => [group, { ...entry, ...scale(entry) }])),
    totals: { ...report.totals, ...scale(report.totals) },
  };
}

export type PerUnitReport = ReturnType<typeof perUnit>;

/**
 * What of the KB stored per transaction expires (items with a TTL: the manifests), as a clause for the
 * reports: ` (of which 0.34 KB are manifests held 7 days: TTL)`; '' when none (or a result from before).
 */
export function expiringStoredNote(figures: {
  expiringRetentionDays?: number;
  expiringBytesStoredPerTxByDays?: Record<string, number>;
  totals: { expiringBytesStoredPerTx?: number };
}): string {
  const bytes = figures.totals.expiringBytesStoredPerTx ?? 0;
  if (bytes <= 0) return '';
  const classes = Object.entries(figures.expiringBytesStoredPerTxByDays ?? {});
  if (
    classes.length > 1 ||
    (classes.length === 1 && Number(classes[0]![0]) !== (figures.expiringRetentionDays ?? EXPIRING_RETENTION_DAYS))
  ) {
    const held = classes.map(([days, part]) => `${(part / 1024).toFixed(2)} KB ${days} days`).join(', ');
    return ` (of which held only until their TTL, the manifests and zero-value calls: ${held})`;
  }
  return ` (of which ${(bytes / 1024).toFixed(2)} KB are manifests held ${figures.expiringRetentionDays ?? EXPIRING_RETENTION_DAYS} days: TTL)`;
}

/** A cost model's inputs on the bytes stored that expire (items with a TTL). */
export interface ExpiringInputs {
  storedBytesPerTransaction: number;
  /** Of storedBytesPerTransaction, the bytes of items with a TTL, held `expiringRetentionDays` only. */
  expiringBytesPerTransaction?: number;
  /** How long they are held, days; default the manifests' (7). */
  expiringRetentionDays?: number;
  /** The same by how long each part is held (the ledger's expiringBytesStoredPerTxByDays), when known: it wins. */
  expiringBytesByDays?: Record<string, number>;
}

/**
 * Bytes a workload holds per transaction of the day: `historyDays` of the kept bytes, and of each
 * expiring part, its days (at most the history).
 */
export function heldBytesPerTransaction(inputs: ExpiringInputs, historyDays: number): number {
  const classes: [number, number][] =
    inputs.expiringBytesByDays && Object.keys(inputs.expiringBytesByDays).length > 0
      ? Object.entries(inputs.expiringBytesByDays).map(([days, bytes]) => [Number(days), bytes])
      : [[inputs.expiringRetentionDays ?? EXPIRING_RETENTION_DAYS, inputs.expiringBytesPerTransaction ?? 0]];
  let kept = inputs.storedBytesPerTransaction;
  let held = 0;
  for (const [days, bytes] of classes) {
    const part = Math.min(bytes, kept);
    kept -= part;
    held += Math.min(days, historyDays) * part;
  }
  return historyDays * kept + held;
}

/** The family table as Markdown (per transaction, and write units per log). */
export function familyMarkdown(figures: PerUnitReport): string {
  const line = (name: string, group: string, e: PerUnitReport['totals']) =>
    `| ${name} | ${group} | ${e.itemsWrittenPerTx} | ${e.writeUnitsPerTx} | ${e.writeUnitsPerLog} | ${e.transactionalWriteUnitsPerTx} | ${e.averageItemBytes} | ${(e.bytesWrittenPerTx / 1024).toFixed(2)} | ${e.itemsStoredPerTx} | ${(e.bytesStoredPerTx / 1024).toFixed(2)} |`;
  const header = [
    '| family | group | items written / tx | WCU / tx | WCU / log | of which transactional / tx | avg item B | KB written / tx | items stored / tx | KB stored / tx |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  const rows = figures.rows.map((entry) => line(entry.family, entry.group, entry));
  const groups = Object.entries(figures.groups).map(([group, entry]) => line(`**${group}** (all families)`, '', entry));
  return [...header, ...rows, ...groups, line('**total**', '', figures.totals)].join('\n');
}
