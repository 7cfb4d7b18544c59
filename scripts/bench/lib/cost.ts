/**
 * The cost model of issue 13: what the service costs per day at DynamoDB on-demand prices for a
 * reference workload (a chain of 10 million transactions a day, indexed and kept 30 days, and 1
 * million list pages a day in the bench's mix of routes), writes, reads and storage apart, per
 * transaction and per page. Pure: its inputs are figures of the ingest bench (write units and stored
 * bytes per transaction) and of the http bench (read units per page of the mix).
 */

import { DEFAULT_MANIFEST_RETENTION_DAYS } from '../../../shared/ingest/manifest-retention';
import { heldBytesPerTransaction } from './write-families';

export const PRICES = {
  /** USD per million write request units. */
  writeUnit: 0.625,
  /** USD per million read request units. */
  readUnit: 0.125,
  /** USD per GB-month of table storage. */
  gbMonth: 0.25,
} as const;

export const WORKLOAD = { transactionsPerDay: 10_000_000, retentionDays: 30, pagesPerDay: 1_000_000 } as const;

/** DynamoDB bills 100 bytes of overhead per item on top of its attributes. */
export const ITEM_OVERHEAD_BYTES = 100;
const GB = 1024 ** 3;
const DAYS_PER_MONTH = 30;

export interface CostInputs {
  writeUnitsPerTransaction: number;
  storedBytesPerTransaction: number;
  /** Of storedBytesPerTransaction, the bytes of items with a TTL (the manifests), held `expiringRetentionDays` only. */
  expiringBytesPerTransaction?: number;
  expiringRetentionDays?: number;
  /** The expiring bytes by how long each part is held, when known (write-families.ts heldBytesPerTransaction). */
  expiringBytesByDays?: Record<string, number>;
  readUnitsPerPage: number;
  /** Where each input comes from. */
  sources: { writes: string; storage: string; reads: string };
}

export interface CostModel {
  prices: typeof PRICES;
  workload: typeof WORKLOAD;
  inputs: CostInputs;
  perDayUsd: { writes: number; reads: number; storage: number; total: number };
  perTransactionUsd: { writes: number; storageOverRetention: number };
  perPageUsd: { reads: number };
  /** Storage held at steady state (retentionDays of transactions). */
  storedGb: number;
}

export function costModel(inputs: CostInputs): CostModel {
  const writesPerDay = (WORKLOAD.transactionsPerDay * inputs.writeUnitsPerTransaction * PRICES.writeUnit) / 1e6;
  const readsPerDay = (WORKLOAD.pagesPerDay * inputs.readUnitsPerPage * PRICES.readUnit) / 1e6;
  // Items with a TTL (the manifests) are held their retention only (at most the workload's).
  const heldPerTransaction = heldBytesPerTransaction(inputs, WORKLOAD.retentionDays);
  const storedGb = (WORKLOAD.transactionsPerDay * heldPerTransaction) / GB;
  const storagePerDay = (storedGb * PRICES.gbMonth) / DAYS_PER_MONTH;
  return {
    prices: PRICES,
    workload: WORKLOAD,
    inputs,
    perDayUsd: {
      writes: money(writesPerDay),
      reads: money(readsPerDay),
      storage: money(storagePerDay),
      total: money(writesPerDay + readsPerDay + storagePerDay),
    },
    perTransactionUsd: {
      writes: (inputs.writeUnitsPerTransaction * PRICES.writeUnit) / 1e6,
      storageOverRetention: ((heldPerTransaction / GB) * PRICES.gbMonth) / DAYS_PER_MONTH,
    },
    perPageUsd: { reads: (inputs.readUnitsPerPage * PRICES.readUnit) / 1e6 },
    storedGb: Math.round(storedGb * 10) / 10,
  };
}

/** The cost-model inputs an ingest bench result gives: write units (table + GSI estimate) and bytes left, per transaction. */
export function ingestInputs(ingest: {
  chain: { transactions: number };
  ingest: { dynamo: { tableWcu: number; gsiWcuEstimate: number; averageItemBytes: number } };
  tableFloor: { items: number };
  /** The write ledger's figures (lib/write-families.ts): the bytes of items with a TTL, when it reports them. */
  writesByFamily?: { expiringRetentionDays?: number; totals?: { expiringBytesStoredPerTx?: number } };
}): {
  writeUnitsPerTransaction: number;
  storedBytesPerTransaction: number;
  expiringBytesPerTransaction?: number;
  expiringRetentionDays?: number;
} {
  const transactions = Math.max(1, ingest.chain.transactions);
  const expiring = ingest.writesByFamily?.totals?.expiringBytesStoredPerTx;
  return {
    ...(expiring
      ? {
          expiringBytesPerTransaction: expiring,
          expiringRetentionDays: ingest.writesByFamily?.expiringRetentionDays ?? DEFAULT_MANIFEST_RETENTION_DAYS,
        }
      : {}),
    writeUnitsPerTransaction: round((ingest.ingest.dynamo.tableWcu + ingest.ingest.dynamo.gsiWcuEstimate) / transactions, 2),
    storedBytesPerTransaction: Math.round(
      (ingest.tableFloor.items * (ingest.ingest.dynamo.averageItemBytes + ITEM_OVERHEAD_BYTES)) / transactions,
    ),
  };
}

const money = (value: number): number => Math.round(value * 100) / 100;
const round = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;
