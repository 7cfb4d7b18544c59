/**
 * The cold tier of docs/decisions/cold-history.md, priced as built (steps 3 to 5; the stack does not
 * deploy it yet): what W1 and W2 would cost a day on a chain profile when the job compacts history once
 * it is `afterDays` old and DynamoDB's TTL deletes it from the table `marginDays` later (the ingest stamps
 * that expiry), with the table's capacity reserved for a year. Pure; a projection, reported beside the
 * measured model (workload-cost.ts), never in its place.
 *
 * From the profile's own build: its write units, its read units (pages and the ingest's), its bytes
 * stored by family group (write-families.ts: `canonical record` and `index copy` go cold; `state`,
 * `GSI` and `bookkeeping` stay), and the follower's day (followerCostPerDay). Assumed, and therefore
 * swept rather than fixed:
 *  - **pointers a transaction a day**: one pointer item per range and day of cold history (a range's
 *    part of one day); measured on the Base profile's generator it falls with the window (range-spread.ts:
 *    4.05 a transaction over 12,000 transactions, 2.10 over 120,000), and a day of Base is 10 million;
 *  - **state growth**: the share of a transaction's state bytes that are new entities held for good (1: every
 *    transaction's state bytes kept a year, as the measured model assumes; a chain whose holders and
 *    balances come back holds far less);
 * and set: the share of pages that read cold history (`coldPageShare`, 0.1: at 50 million pages a day, W2,
 * every page reading two parts would be $40 a day of GETs alone).
 * Prices (us-east-1 list): DynamoDB Standard at $0.25 a GB-month; reserved capacity for one year (100
 * WCU: $150 upfront and $0.0128 an hour; 100 RCU: $30 and $0.0025) at the measured model's 70 %
 * utilisation; S3 Standard $0.023 a GB-month, PUT $0.005 and GET $0.0004 per 1,000; the compactor's
 * compute at Lambda's arm64 price, one vCPU (1,769 MB).
 */
import { LAMBDA_MB_PER_VCPU, LAMBDA_PRICES } from './lambda-cost';
import {
  DAYS_PER_MONTH,
  followerCostPerDay,
  GB,
  PROVISIONED_TARGET_UTILISATION,
  SECONDS_PER_DAY,
  WORKLOADS,
  type OptionCost,
  type WorkloadId,
  type WorkloadInputs,
} from './workload-cost';

/** Bytes stored a transaction by family group (write-families.ts FamilyReport.groups' bytesStoredPerTx). */
export type StoredBytesByGroup = Record<string, number>;

/** Families the tier treats apart from their group (bytes stored a transaction). */
export interface TierFamilies {
  /** N15 seek chunks (an index copy, but never cold: kept in the table). */
  seekChunkBytes: number;
  /** G2 write manifests (expiring; with the tier kept as long as the history they list). */
  manifestBytes: number;
}

/** Family groups whose items go cold (immutable history); the others stay in the table. */
export const COLD_GROUPS: readonly string[] = ['canonical record', 'index copy'];

export const COLD_PRICES = {
  /** DynamoDB Standard, per GB-month (reserved capacity is sold for the Standard class only). */
  tableGbMonth: 0.25,
  /** One year reserved: per WCU-hour and RCU-hour, the upfront spread over the year's hours. */
  reservedWcuHour: (150 / 8760 + 0.0128) / 100,
  reservedRcuHour: (30 / 8760 + 0.0025) / 100,
  s3GbMonth: 0.023,
  s3Put: 0.005 / 1000,
  s3Get: 0.0004 / 1000,
} as const;

export interface ColdTierAssumptions {
  /** Days of history before the job compacts it (COLD_AFTER_DAYS). */
  afterDays: number;
  /** Days more the table keeps it, until the TTL deletes it (COLD_MARGIN_DAYS): it is hot `afterDays + marginDays`. */
  marginDays: number;
  /** The cold history's bytes in S3 a transaction (measured by scripts/bench/cold-parts.ts: 6.2 KB over spans of 160 s; hour spans give less). */
  coldBytesPerTransaction: number;
  /** The compactor's CPU a transaction, ms (measured 5.6-10: reading the items, opening, grouping, Brotli). */
  compactorCpuMsPerTransaction: number;
  /** The compactor's reads a transaction, read units (the manifests, then every listed item: about 12 measured). */
  compactorReadUnitsPerTransaction: number;
  /** A pointer item's stored bytes (about 150 B and DynamoDB's 100 B of overhead) and its write units. */
  pointerBytes: number;
  /** Transactions a block (reported). */
  transactionsPerBlock: number;
  /** Shard objects the compactor writes (about 64 MB each). */
  shardBytes: number;
  /** Of the pages, those whose range runs past the window into cold history (two part GETs each at most). */
  coldPageShare: number;
}

export const DEFAULT_COLD_ASSUMPTIONS: Omit<ColdTierAssumptions, 'transactionsPerBlock'> = {
  afterDays: 30,
  marginDays: 14,
  coldBytesPerTransaction: 6.2 * 1024,
  compactorCpuMsPerTransaction: 8,
  compactorReadUnitsPerTransaction: 12,
  pointerBytes: 250,
  shardBytes: 64 * 1024 ** 2,
  coldPageShare: 0.1,
};

export interface ColdTierDay {
  workload: WorkloadId;
  pointersPerTransaction: number;
  stateGrowth: number;
  /** The window and margin the day is priced at (the assumptions'), and the share of pages reading cold parts. */
  afterDays: number;
  marginDays: number;
  coldPageShare: number;
  /** The reserved capacity the day holds (the average rate over the target utilisation). */
  capacity: { wcu: number; rcu: number };
  perDayUsd: {
    writes: number;
    reads: number;
    tableStorage: number;
    pointers: number;
    s3Storage: number;
    s3Requests: number;
    compactor: number;
    follower: number;
    total: number;
  };
}

/** One workload's day with the cold tier, at one point of the sweep. */
export function coldTierDay(
  workload: WorkloadId,
  inputs: WorkloadInputs,
  byGroup: StoredBytesByGroup,
  assumptions: ColdTierAssumptions,
  sweep: { pointersPerTransaction: number; stateGrowth: number },
  families: TierFamilies = { seekChunkBytes: 0, manifestBytes: 0 },
): ColdTierDay {
  const load = WORKLOADS[workload];
  const tx = load.transactionsPerDay;
  const days = load.historyDays;
  // Hot until the TTL deletes it (window and margin); cold from the job's compaction (the window) on.
  const hotDays = Math.min(assumptions.afterDays + assumptions.marginDays, days);
  const coldDays = Math.max(0, days - assumptions.afterDays);
  const history = COLD_GROUPS.reduce((sum, group) => sum + (byGroup[group] ?? 0), 0);
  const seek = Math.min(families.seekChunkBytes, history);
  const cold = history - seek;
  const expiring = inputs.expiringBytesPerTransaction ?? 0;
  const manifests = Math.min(families.manifestBytes, expiring);
  const kept = Math.max(0, inputs.storedBytesPerTransaction - history - expiring);
  const expiringDays = Math.min(inputs.expiringRetentionDays ?? 7, days);
  const manifestDays = Math.max(expiringDays, hotDays);
  const pointers = sweep.pointersPerTransaction;
  // Capacity: the ingest's writes and one write unit a pointer; the pages' and the ingest's reads.
  const wcu = Math.ceil(
    (tx * (inputs.writeUnitsPerTransaction + (coldDays > 0 ? pointers : 0))) / SECONDS_PER_DAY / PROVISIONED_TARGET_UTILISATION,
  );
  const readUnits =
    load.pagesPerDay * inputs.readUnitsPerPage +
    tx * ((inputs.ingestReadUnitsPerTransaction ?? 0) + (coldDays > 0 ? assumptions.compactorReadUnitsPerTransaction : 0));
  const rcu = Math.ceil(readUnits / SECONDS_PER_DAY / PROVISIONED_TARGET_UTILISATION);
  // History hot until its TTL; seek chunks and state kept; manifests as long as the history; other expiring items their own retention.
  const tableBytes =
    tx *
    (cold * hotDays + seek * days + kept * sweep.stateGrowth * days + manifests * manifestDays + (expiring - manifests) * expiringDays);
  const pointerBytes = coldDays > 0 ? tx * pointers * assumptions.pointerBytes * coldDays : 0;
  const s3Bytes = tx * assumptions.coldBytesPerTransaction * coldDays;
  // The shards the job writes, and four part GETs on the pages that reach cold history.
  const requests =
    ((tx * assumptions.coldBytesPerTransaction) / assumptions.shardBytes) * COLD_PRICES.s3Put +
    load.pagesPerDay * assumptions.coldPageShare * 4 * COLD_PRICES.s3Get;
  const compactorSeconds = (tx * assumptions.compactorCpuMsPerTransaction) / 1000;
  const follower = inputs.follower ? followerCostPerDay(workload, inputs.follower) : undefined;
  const parts = {
    writes: wcu * COLD_PRICES.reservedWcuHour * 24,
    reads: rcu * COLD_PRICES.reservedRcuHour * 24,
    tableStorage: ((tableBytes / GB) * COLD_PRICES.tableGbMonth) / DAYS_PER_MONTH,
    pointers: ((pointerBytes / GB) * COLD_PRICES.tableGbMonth) / DAYS_PER_MONTH,
    s3Storage: ((s3Bytes / GB) * COLD_PRICES.s3GbMonth) / DAYS_PER_MONTH,
    s3Requests: requests,
    compactor: compactorSeconds * (LAMBDA_MB_PER_VCPU / 1024) * LAMBDA_PRICES.gbSecondArm,
    follower: (follower?.computeUsd ?? 0) + (follower?.nodeUsd ?? 0),
  };
  const round = (value: number) => Math.round(value * 100) / 100;
  const total = Object.values(parts).reduce((sum, value) => sum + value, 0);
  return {
    workload,
    pointersPerTransaction: pointers,
    stateGrowth: sweep.stateGrowth,
    afterDays: assumptions.afterDays,
    marginDays: assumptions.marginDays,
    coldPageShare: assumptions.coldPageShare,
    capacity: { wcu, rcu },
    perDayUsd: {
      ...(Object.fromEntries(Object.entries(parts).map(([name, value]) => [name, round(value)])) as Omit<
        ColdTierDay['perDayUsd'],
        'total'
      >),
      total: round(total),
    },
  };
}

/**
 * The tier as an option of the measured model (issue 35: the bench prices it, so the cheapest option
 * can be the tier): one workload's day at the profile's own compaction (`measured`: the compactor run
 * over its build, dataset/profile.ts) and at state growth 1, as the other options hold every stored byte
 * a year. Pointers a transaction are those of the build's one span (minutes of chain, where a deployed
 * job's span is an hour: more pointers than the job writes). In the option's columns: the table's and
 * S3's storage under storage, the S3 requests under reads, the compactor under compute.
 */
export function coldTierOptionCost(
  workload: WorkloadId,
  inputs: WorkloadInputs,
  byGroup: StoredBytesByGroup,
  assumptions: ColdTierAssumptions,
  measured: { pointersPerTransaction: number; spanBlocks: number },
  families: TierFamilies,
): OptionCost {
  const day = coldTierDay(
    workload,
    inputs,
    byGroup,
    assumptions,
    { pointersPerTransaction: measured.pointersPerTransaction, stateGrowth: 1 },
    families,
  );
  const follower = inputs.follower ? followerCostPerDay(workload, inputs.follower) : undefined;
  const { perDayUsd: parts } = day;
  const round = (value: number) => Math.round(value * 100) / 100;
  const perDayUsd = {
    writes: parts.writes,
    reads: round(parts.reads + parts.s3Requests),
    storage: round(parts.tableStorage + parts.pointers + parts.s3Storage),
    compute: round((follower?.computeUsd ?? 0) + parts.compactor),
    node: round(follower?.nodeUsd ?? 0),
    total: 0,
  };
  perDayUsd.total = round(perDayUsd.writes + perDayUsd.reads + perDayUsd.storage + perDayUsd.compute + perDayUsd.node);
  return {
    workload,
    tableClass: 'STANDARD',
    billing: 'reserved',
    perDayUsd,
    provisioned: day.capacity,
    coldTier: {
      afterDays: assumptions.afterDays,
      marginDays: assumptions.marginDays,
      pointersPerTransaction: measured.pointersPerTransaction,
      spanBlocks: measured.spanBlocks,
      stateGrowth: 1,
      coldPageShare: assumptions.coldPageShare,
    },
  };
}

/**
 * The tier as options of the measured model, one a window of WINDOW_SWEEP (coldTierOptionCost at each):
 * the operator sets the window, so the cheapest option is each workload's best window (W1's pages few,
 * its table large; W2's pages many, each cold one four GETs).
 */
export function coldTierWindowOptions(
  ...[workload, inputs, byGroup, assumptions, measured, families]: Parameters<typeof coldTierOptionCost>
): OptionCost[] {
  return WINDOW_SWEEP.map((window) => coldTierOptionCost(workload, inputs, byGroup, { ...assumptions, ...window }, measured, families));
}

/** The profile's own compaction (dataset/profile.ts ColdTierMeasured) in place of the default assumptions. */
export function measuredColdAssumptions(measured: {
  coldBytesPerTransaction: number;
  compactorCpuMsPerTransaction: number;
  compactorReadUnitsPerTransaction: number;
  pointerBytes: number;
}): Omit<ColdTierAssumptions, 'transactionsPerBlock'> {
  return {
    ...DEFAULT_COLD_ASSUMPTIONS,
    coldBytesPerTransaction: measured.coldBytesPerTransaction,
    compactorCpuMsPerTransaction: measured.compactorCpuMsPerTransaction,
    compactorReadUnitsPerTransaction: measured.compactorReadUnitsPerTransaction,
    pointerBytes: measured.pointerBytes,
  };
}

export const POINTER_SWEEP: readonly number[] = [0.5, 1, 2, 4];
export const STATE_GROWTH_SWEEP: readonly number[] = [1, 0.25, 0.1];

/**
 * The windows an operator can set (contexts coldAfterDays and coldMarginDays), each with the share of
 * pages assumed to reach past it into cold history (four part GETs each): the shorter the window, the
 * more pages read S3, which W2's 50 million pages a day pay for and W1's million barely do.
 */
export const WINDOW_SWEEP: readonly { afterDays: number; marginDays: number; coldPageShare: number }[] = [
  { afterDays: 30, marginDays: 14, coldPageShare: 0.1 },
  { afterDays: 14, marginDays: 14, coldPageShare: 0.25 },
  { afterDays: 7, marginDays: 7, coldPageShare: 0.5 },
];

/**
 * Pointers a transaction at a deployed job's spans (an hour of Base, 1,800 blocks), as measured on the
 * profile's generator (range-spread.ts over 1,800 blocks: 1.46 index ranges a transaction, and one more for
 * each transaction's own partition; about 2.5 to 3.3 with the blocks' and names' ranges): the build's one
 * span of 60 blocks gives about twice that.
 */
export const DEPLOYED_POINTERS_PER_TRANSACTION = 3;

/**
 * The state growth the windows are judged at: above the 0.03-0.13 that public Base figures give
 * (docs/decisions/cold-history.md, "The state's growth, from public figures"), with room.
 */
export const ESTIMATED_STATE_GROWTH = 0.2;

/** State growth for the windows table: 1, the sweep's, and ESTIMATED_STATE_GROWTH. */
export const WINDOW_STATE_GROWTH: readonly number[] = [1, 0.25, ESTIMATED_STATE_GROWTH, 0.1];

export interface ColdTierProjection {
  assumptions: ColdTierAssumptions;
  coldBytesStoredPerTransaction: number;
  days: ColdTierDay[];
  /** Every window of WINDOW_SWEEP at every WINDOW_STATE_GROWTH, at DEPLOYED_POINTERS_PER_TRANSACTION. */
  windows: ColdTierDay[];
  /** Where the profile's build compacted itself: the assumptions are its figures, with its pointers and span. */
  measured?: { pointersPerTransaction: number; spanBlocks: number };
}

/** Every workload at every point of the sweep. */
export function coldTierProjection(
  inputs: WorkloadInputs,
  byGroup: StoredBytesByGroup,
  transactionsPerBlock: number,
  assumptions: Omit<ColdTierAssumptions, 'transactionsPerBlock'> = DEFAULT_COLD_ASSUMPTIONS,
  families: TierFamilies = { seekChunkBytes: 0, manifestBytes: 0 },
  measured?: { pointersPerTransaction: number; spanBlocks: number },
): ColdTierProjection {
  const all = { ...assumptions, transactionsPerBlock };
  const days: ColdTierDay[] = [];
  for (const workload of Object.keys(WORKLOADS) as WorkloadId[])
    for (const stateGrowth of STATE_GROWTH_SWEEP)
      for (const pointersPerTransaction of POINTER_SWEEP)
        days.push(coldTierDay(workload, inputs, byGroup, all, { pointersPerTransaction, stateGrowth }, families));
  const windows: ColdTierDay[] = [];
  for (const workload of Object.keys(WORKLOADS) as WorkloadId[])
    for (const window of WINDOW_SWEEP)
      for (const stateGrowth of WINDOW_STATE_GROWTH)
        windows.push(
          coldTierDay(
            workload,
            inputs,
            byGroup,
            { ...all, ...window },
            { pointersPerTransaction: DEPLOYED_POINTERS_PER_TRANSACTION, stateGrowth },
            families,
          ),
        );
  return {
    assumptions: all,
    coldBytesStoredPerTransaction: COLD_GROUPS.reduce((sum, group) => sum + (byGroup[group] ?? 0), 0) - families.seekChunkBytes,
    days,
    windows,
    ...(measured ? { measured: { pointersPerTransaction: measured.pointersPerTransaction, spanBlocks: measured.spanBlocks } } : {}),
  };
}

/** The projection as Markdown: per workload, a table of totals by state growth (rows) and pointers (columns). */
export function coldTierLines(name: string, projection: ColdTierProjection): string[] {
  const { assumptions, measured } = projection;
  const basis = measured
    ? `compaction measured on the build (the compactor run over its ${measured.spanBlocks} blocks as one span: ${measured.pointersPerTransaction.toFixed(2)} pointers a transaction); state growth and pointers swept`
    : 'projected, not measured';
  const lines = [
    `### The cold tier on the ${name} profile (docs/decisions/cold-history.md: built, opt-in with the context coldAfterDays; ${basis})`,
    '',
    `The job compacts history at ${assumptions.afterDays} days and the TTL deletes it from the table ${assumptions.marginDays} days later (its ${(projection.coldBytesStoredPerTransaction / 1024).toFixed(2)} KB a transaction of canonical records and index copies; the seek chunks, state, GSI and bookkeeping stay; the manifests as long as the history), reserved for a year; older history in S3 at ${(assumptions.coldBytesPerTransaction / 1024).toFixed(2)} KB a transaction (blocks of ${Math.round(assumptions.transactionsPerBlock)}), a pointer item (${assumptions.pointerBytes} B) per range part, the compactor at ${assumptions.compactorCpuMsPerTransaction} ms and ${assumptions.compactorReadUnitsPerTransaction} read units a transaction, ${assumptions.coldPageShare * 100} % of pages reading four cold parts. Total $ a day; rows: the share of state bytes that are new entities kept for good; columns: pointers a transaction.`,
    '',
  ];
  for (const workload of Object.keys(WORKLOADS) as WorkloadId[]) {
    const mine = projection.days.filter((day) => day.workload === workload);
    lines.push(`| ${workload} | ${POINTER_SWEEP.map((pointers) => `${pointers} pointers`).join(' | ')} |`);
    lines.push(`| --- | ${POINTER_SWEEP.map(() => '---:').join(' | ')} |`);
    for (const growth of STATE_GROWTH_SWEEP) {
      const cells = POINTER_SWEEP.map(
        (pointers) => mine.find((day) => day.stateGrowth === growth && day.pointersPerTransaction === pointers)!,
      );
      lines.push(`| state growth ${growth} | ${cells.map((day) => `$${day.perDayUsd.total.toFixed(2)}`).join(' | ')} |`);
    }
    const middle = mine.find((day) => day.stateGrowth === 0.25 && day.pointersPerTransaction === 1)!;
    lines.push(
      '',
      `${workload} at state growth 0.25 and 1 pointer: ${Object.entries(middle.perDayUsd)
        .filter(([part]) => part !== 'total')
        .map(([part, value]) => `${part} $${value.toFixed(2)}`)
        .join(', ')}.`,
      '',
    );
  }
  lines.push(
    `The window an operator sets (coldAfterDays + coldMarginDays) at ${DEPLOYED_POINTERS_PER_TRANSACTION} pointers a transaction (a deployed job's hour spans, range-spread.ts) and the share of pages reading four cold parts each (assumed: more as the window shortens). Total $ a day; columns: state growth (${ESTIMATED_STATE_GROWTH}: above the 0.03-0.13 public Base figures give, docs/decisions/cold-history.md).`,
    '',
  );
  for (const workload of Object.keys(WORKLOADS) as WorkloadId[]) {
    const mine = projection.windows.filter((day) => day.workload === workload);
    lines.push(
      `| ${workload}: window + margin (pages reading cold parts) | ${WINDOW_STATE_GROWTH.map((growth) => `state growth ${growth}`).join(' | ')} |`,
    );
    lines.push(`| --- | ${WINDOW_STATE_GROWTH.map(() => '---:').join(' | ')} |`);
    for (const window of WINDOW_SWEEP) {
      const cells = WINDOW_STATE_GROWTH.map(
        (growth) =>
          mine.find((day) => day.afterDays === window.afterDays && day.marginDays === window.marginDays && day.stateGrowth === growth)!,
      );
      lines.push(
        `| ${window.afterDays} + ${window.marginDays} days (${window.coldPageShare * 100} %) | ${cells.map((day) => `$${day.perDayUsd.total.toFixed(2)}`).join(' | ')} |`,
      );
    }
    lines.push('');
  }
  return lines;
}
