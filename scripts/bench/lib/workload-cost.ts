/**
 * The cost model of issue 27: the total DynamoDB cost per day of two reference workloads at steady
 * state, each keeping the chain's whole history (one year held), under each table option the stack
 * offers (table class x billing mode), with the cheapest option named, the goal and the verdict.
 *
 *  - W1, chain indexer: 10 million transactions a day, one year held, 1 million API pages a day.
 *  - W2, app backend: 1 million transactions a day, one year held, 50 million API pages a day.
 *
 * Pure: its inputs are the bench's figures (write units and stored bytes per transaction from the
 * ingest, read units per page of the http mix; for a profile the Lambda harness measured, the ingest's
 * CPU and calls to the node per transaction: followerCostPerDay). Prices: AWS list prices for DynamoDB in us-east-1
 * (on-demand after the November 2024 reduction; Standard-IA storage 60 % cheaper and requests 25 %
 * dearer than Standard, as AWS documents the class). Provisioned capacity is priced at a stated target
 * utilisation of the average rate (auto scaling's target tracking keeps consumed / provisioned near it);
 * a month is 30 days, a GB 2^30 bytes, and DynamoDB's 100 bytes of overhead per item are counted in the
 * stored bytes the ingest reports. Free tiers and backups are left out (the same for every option).
 * Items with a TTL (the write manifests, G2: DynamoDB deletes them `expiringRetentionDays`, 7, after
 * their block) are held for their retention, not the workload's history: the storage held is
 * transactions a day x (kept bytes x history days + expiring bytes x retention days).
 */
import { DEFAULT_MANIFEST_RETENTION_DAYS } from '../../../shared/ingest/manifest-retention';
import { LAMBDA_MB_PER_VCPU, lambdaCostPerChainPerDay, NODE_USD_PER_MILLION_CALLS, type LambdaCostInputs } from './lambda-cost';
import type { ColdTierProjection } from './cold-tier-projection';
import { heldBytesPerTransaction } from './write-families';

export type TableClass = 'STANDARD' | 'STANDARD_INFREQUENT_ACCESS';
/** `reserved`: provisioned capacity bought for a year (the Standard class only; the cold tier's option). */
export type BillingMode = 'on-demand' | 'provisioned' | 'reserved';
export type WorkloadId = 'W1' | 'W2';

/** USD list prices per table class. */
export const TABLE_PRICES: Record<
  TableClass,
  {
    /** On-demand: per million write / read request units. */
    writeRequestUnitPerMillion: number;
    readRequestUnitPerMillion: number;
    /** Provisioned: per write / read capacity unit-hour. */
    wcuHour: number;
    rcuHour: number;
    gbMonth: number;
  }
> = {
  STANDARD: { writeRequestUnitPerMillion: 0.625, readRequestUnitPerMillion: 0.125, wcuHour: 0.00065, rcuHour: 0.00013, gbMonth: 0.25 },
  STANDARD_INFREQUENT_ACCESS: {
    writeRequestUnitPerMillion: 0.78125,
    readRequestUnitPerMillion: 0.15625,
    wcuHour: 0.00081,
    rcuHour: 0.00016,
    gbMonth: 0.1,
  },
};

/** Consumed / provisioned capacity that auto scaling's target tracking is set to. */
export const PROVISIONED_TARGET_UTILISATION = 0.7;

export const WORKLOADS: Record<WorkloadId, { name: string; transactionsPerDay: number; historyDays: number; pagesPerDay: number }> = {
  W1: { name: 'chain indexer', transactionsPerDay: 10_000_000, historyDays: 365, pagesPerDay: 1_000_000 },
  W2: { name: 'app backend', transactionsPerDay: 1_000_000, historyDays: 365, pagesPerDay: 50_000_000 },
};

/**
 * Where the issue started (bench/results/latest.md of 2026-11-26: 23.26 write units, 13.4 KB stored per
 * transaction, 5.23 read units per page) under the default option: W1 about $525 a day, W2 about $85.
 * Neither may get worse; the goal is a quarter of W1's and half of W2's.
 */
export const BASELINE_INPUTS = { writeUnitsPerTransaction: 23.26, storedBytesPerTransaction: 13_400, readUnitsPerPage: 5.23 } as const;
export const GOAL_USD_PER_DAY: Record<WorkloadId, number> = { W1: 130, W2: 45 };

export const OPTIONS: readonly { tableClass: TableClass; billing: BillingMode }[] = [
  { tableClass: 'STANDARD', billing: 'on-demand' },
  { tableClass: 'STANDARD', billing: 'provisioned' },
  { tableClass: 'STANDARD_INFREQUENT_ACCESS', billing: 'on-demand' },
  { tableClass: 'STANDARD_INFREQUENT_ACCESS', billing: 'provisioned' },
];

export interface WorkloadInputs {
  /** Write units (table and GSIs) the ingest spends per transaction. */
  writeUnitsPerTransaction: number;
  /** Bytes the table holds per transaction (items x (size + 100 B overhead), GSIs included). */
  storedBytesPerTransaction: number;
  /**
   * Of storedBytesPerTransaction, the bytes of items with a TTL (the write ledger's
   * expiringBytesStoredPerTx: the manifests), held `expiringRetentionDays` only; absent: none.
   */
  expiringBytesPerTransaction?: number;
  /** How long the expiring bytes are held, days; default the manifests' (7). */
  expiringRetentionDays?: number;
  /** The expiring bytes by how long each part is held (a profile with zero-value calls kept N days), when known: it wins. */
  expiringBytesByDays?: Record<string, number>;
  /** Read units of one API page of the bench's route mix. */
  readUnitsPerPage: number;
  /** Read units the ingest itself spends per transaction (state reads); 0 when not measured. */
  ingestReadUnitsPerTransaction?: number;
  /**
   * The ingest's process CPU per transaction, ms, and its calls to the node per transaction, as the
   * Lambda harness measured them on this chain shape, with the deployed follower's settings its cost
   * model used (followerCostPerDay); absent: not priced.
   */
  follower?: { cpuMsPerTransaction: number; nodeCallsPerTransaction: number; deployed: LambdaCostInputs; source: string };
}

/**
 * The follower's side of a workload's day (issue 35: the model includes the ingest's compute and the
 * node's calls), the same under every table option:
 *  - the ingest Lambda: the deployed follower's day (lambda-cost.ts: its holders, handovers, requests
 *    and lease writes) at the memory whose vCPU share runs the day's transactions at
 *    FOLLOWER_CPU_UTILISATION, at least the deployed memory;
 *  - the node: its calls per transaction times the day's transactions at NODE_USD_PER_MILLION_CALLS.
 * One thread uses at most one vCPU: a load that needs more is priced at that share all the same and
 * flagged (`beyondOneThread`).
 */
export const FOLLOWER_CPU_UTILISATION = 0.8;

export interface FollowerCost {
  memoryMb: number;
  vcpuNeeded: number;
  beyondOneThread: boolean;
  computeUsd: number;
  nodeUsd: number;
}

export function followerCostPerDay(workload: WorkloadId, follower: NonNullable<WorkloadInputs['follower']>): FollowerCost {
  const load = WORKLOADS[workload];
  const vcpuNeeded = ((load.transactionsPerDay / SECONDS_PER_DAY) * follower.cpuMsPerTransaction) / 1000;
  const memoryMb = Math.max(follower.deployed.memoryMb, Math.ceil((vcpuNeeded / FOLLOWER_CPU_UTILISATION) * LAMBDA_MB_PER_VCPU));
  const computeUsd = lambdaCostPerChainPerDay({ ...follower.deployed, memoryMb }).perDay.totalUsd;
  const nodeUsd = (load.transactionsPerDay * follower.nodeCallsPerTransaction * NODE_USD_PER_MILLION_CALLS) / 1e6;
  return { memoryMb, vcpuNeeded, beyondOneThread: vcpuNeeded / FOLLOWER_CPU_UTILISATION > 1, computeUsd, nodeUsd };
}

export interface OptionCost {
  workload: WorkloadId;
  tableClass: TableClass;
  billing: BillingMode;
  /** `compute` and `node`: the follower's (followerCostPerDay; 0 when not priced), the same under every option. */
  perDayUsd: { writes: number; reads: number; storage: number; compute: number; node: number; total: number };
  /** Provisioned only: the capacity the option holds (average rate / target utilisation). */
  provisioned?: { wcu: number; rcu: number };
  /**
   * The cold tier's option (cold-tier-projection.ts coldTierOptionCost): history older than `afterDays`
   * in S3, out of the table `marginDays` later; its pointers a transaction at the compacted span's blocks.
   */
  coldTier?: {
    afterDays: number;
    marginDays: number;
    pointersPerTransaction: number;
    spanBlocks: number;
    stateGrowth: number;
    /** The share of pages assumed to read cold parts at this window (four GETs each). */
    coldPageShare: number;
  };
}

export interface WorkloadCostModel {
  inputs: WorkloadInputs;
  targetUtilisation: number;
  /** Every workload under every option. */
  options: OptionCost[];
  /** Per workload: the cheapest option, the default option (on-demand Standard), the baseline, the goal and the verdict. */
  workloads: Record<
    WorkloadId,
    {
      name: string;
      storedTb: number;
      cheapest: OptionCost;
      defaultOption: OptionCost;
      baselineUsdPerDay: number;
      goalUsdPerDay: number;
      /** The cheapest option meets the goal. */
      meetsGoal: boolean;
      /** The cheapest option costs no more than the baseline. */
      noWorse: boolean;
    }
  >;
}

export const GB = 1024 ** 3;
export const DAYS_PER_MONTH = 30;
export const SECONDS_PER_DAY = 86_400;

/**
 * Bytes a workload holds at steady state: a year (its history) of the kept bytes of its transactions,
 * and only their retention of the expiring ones (at most the history).
 */
export function heldBytes(workload: WorkloadId, inputs: WorkloadInputs): number {
  const load = WORKLOADS[workload];
  return load.transactionsPerDay * heldBytesPerTransaction(inputs, load.historyDays);
}

/** One workload under one option. */
export function optionCost(workload: WorkloadId, option: (typeof OPTIONS)[number], inputs: WorkloadInputs): OptionCost {
  const load = WORKLOADS[workload];
  const prices = TABLE_PRICES[option.tableClass];
  const writeUnitsPerDay = load.transactionsPerDay * inputs.writeUnitsPerTransaction;
  const readUnitsPerDay =
    load.pagesPerDay * inputs.readUnitsPerPage + load.transactionsPerDay * (inputs.ingestReadUnitsPerTransaction ?? 0);
  const storedGb = heldBytes(workload, inputs) / GB;
  const storage = (storedGb * prices.gbMonth) / DAYS_PER_MONTH;
  const follower = inputs.follower ? followerCostPerDay(workload, inputs.follower) : undefined;
  const compute = follower?.computeUsd ?? 0;
  const node = follower?.nodeUsd ?? 0;
  if (option.billing === 'on-demand') {
    const writes = (writeUnitsPerDay * prices.writeRequestUnitPerMillion) / 1e6;
    const reads = (readUnitsPerDay * prices.readRequestUnitPerMillion) / 1e6;
    return { workload, ...option, perDayUsd: usd({ writes, reads, storage, compute, node }) };
  }
  const wcu = Math.ceil(writeUnitsPerDay / SECONDS_PER_DAY / PROVISIONED_TARGET_UTILISATION);
  const rcu = Math.ceil(readUnitsPerDay / SECONDS_PER_DAY / PROVISIONED_TARGET_UTILISATION);
  return {
    workload,
    ...option,
    perDayUsd: usd({ writes: wcu * prices.wcuHour * 24, reads: rcu * prices.rcuHour * 24, storage, compute, node }),
    provisioned: { wcu, rcu },
  };
}

/**
 * Every workload under every table option, and under the options `more` adds (the cold tier's, where a
 * profile's build measured it), the cheapest of all named.
 */
export function workloadCostModel(inputs: WorkloadInputs, more?: (workload: WorkloadId) => OptionCost[]): WorkloadCostModel {
  const options = (Object.keys(WORKLOADS) as WorkloadId[]).flatMap((workload) => [
    ...OPTIONS.map((option) => optionCost(workload, option, inputs)),
    ...(more?.(workload) ?? []),
  ]);
  const workloads = Object.fromEntries(
    (Object.keys(WORKLOADS) as WorkloadId[]).map((workload) => {
      const mine = options.filter((option) => option.workload === workload);
      const cheapest = mine.reduce((best, option) => (option.perDayUsd.total < best.perDayUsd.total ? option : best));
      const baseline = optionCost(workload, OPTIONS[0]!, BASELINE_INPUTS).perDayUsd.total;
      const load = WORKLOADS[workload];
      return [
        workload,
        {
          name: load.name,
          storedTb: Math.round((heldBytes(workload, inputs) / 1024 ** 4) * 10) / 10,
          cheapest,
          defaultOption: mine[0]!,
          baselineUsdPerDay: baseline,
          goalUsdPerDay: GOAL_USD_PER_DAY[workload],
          meetsGoal: cheapest.perDayUsd.total <= GOAL_USD_PER_DAY[workload],
          noWorse: cheapest.perDayUsd.total <= baseline,
        },
      ];
    }),
  ) as WorkloadCostModel['workloads'];
  return { inputs, targetUtilisation: PROVISIONED_TARGET_UTILISATION, options, workloads };
}

/** The model as Markdown lines: one table of every workload and option, then the verdict per workload. */
export function workloadCostLines(
  model: WorkloadCostModel,
  title = 'Cost per day (issue 27: W1 and W2, one year of history held)',
): string[] {
  const name = (option: OptionCost) =>
    `${option.tableClass === 'STANDARD' ? 'Standard' : 'Standard-IA'}, ${option.billing === 'reserved' ? 'reserved for a year' : option.billing}${option.provisioned ? ` (${option.provisioned.wcu} WCU, ${option.provisioned.rcu} RCU at ${model.targetUtilisation * 100} %)` : ''}${option.coldTier ? `, cold tier at ${option.coldTier.afterDays} + ${option.coldTier.marginDays} days (compaction measured on the build, ${option.coldTier.pointersPerTransaction} pointers a transaction at spans of ${option.coldTier.spanBlocks} blocks, state growth ${option.coldTier.stateGrowth}, ${option.coldTier.coldPageShare * 100} % of pages reading cold parts)` : ''}`;
  const lines = [
    `### ${title}`,
    '',
    `Inputs: ${model.inputs.writeUnitsPerTransaction} write units and ${Math.round(model.inputs.storedBytesPerTransaction)} B stored per transaction${expiringClause(model.inputs)}, ${model.inputs.readUnitsPerPage} read units per page${model.inputs.ingestReadUnitsPerTransaction ? `, ${model.inputs.ingestReadUnitsPerTransaction} ingest read units per transaction` : ''}${followerClause(model.inputs)}.`,
    '',
    '| workload | option | writes $/day | reads $/day | storage $/day | ingest compute $/day | node calls $/day | total $/day |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...model.options.map(
      (option) =>
        `| ${option.workload} | ${name(option)} | ${option.perDayUsd.writes.toFixed(2)} | ${option.perDayUsd.reads.toFixed(2)} | ${option.perDayUsd.storage.toFixed(2)} | ${option.perDayUsd.compute.toFixed(2)} | ${option.perDayUsd.node.toFixed(2)} | ${option.perDayUsd.total.toFixed(2)} |`,
    ),
    '',
  ];
  for (const [id, workload] of Object.entries(model.workloads)) {
    lines.push(
      `- **${id} (${workload.name}, ${workload.storedTb} TB held)**: cheapest ${name(workload.cheapest)} at **$${workload.cheapest.perDayUsd.total.toFixed(2)} a day** (default on-demand Standard $${workload.defaultOption.perDayUsd.total.toFixed(2)}); goal <= $${workload.goalUsdPerDay}: ${workload.meetsGoal ? 'MET' : 'NOT MET'}; baseline $${workload.baselineUsdPerDay.toFixed(2)}: ${workload.noWorse ? 'no worse' : 'WORSE'}.`,
    );
  }
  return lines;
}

/** The follower's inputs and what they make of each workload's day, or '' when not priced. */
function followerClause(inputs: WorkloadInputs): string {
  const follower = inputs.follower;
  if (!follower) return '; the ingest Lambda and the node not priced (no Lambda-harness figures of this shape)';
  const parts = (Object.keys(WORKLOADS) as WorkloadId[]).map((workload) => {
    const cost = followerCostPerDay(workload, follower);
    return `${workload} a follower of ${cost.memoryMb} MB (${cost.vcpuNeeded.toFixed(2)} vCPU${cost.beyondOneThread ? ', more than one thread gives' : ''})`;
  });
  return `; the ingest's ${follower.cpuMsPerTransaction} ms of CPU and ${follower.nodeCallsPerTransaction} node calls a transaction (${follower.source}): ${parts.join(', ')}, each a deployed follower's day (${follower.deployed.architecture}, lib/lambda-cost.ts), the node at $${NODE_USD_PER_MILLION_CALLS} per million calls`;
}

/** ` (of which 348 B are manifests held 7 days, not a year: TTL)`, or '' without expiring bytes. */
function expiringClause(inputs: WorkloadInputs): string {
  const bytes = inputs.expiringBytesPerTransaction ?? 0;
  if (bytes <= 0) return '';
  const parts = otherExpiringParts(inputs);
  if (parts) return ` (of which held only until their TTL, not a year, the manifests and zero-value calls: ${parts})`;
  return ` (of which ${Math.round(bytes)} B are manifests held ${inputs.expiringRetentionDays ?? DEFAULT_MANIFEST_RETENTION_DAYS} days, not a year: TTL)`;
}

/** `412 B 7 days, 1203 B 30 days` when some expiring bytes are held other than the manifests' days; else undefined. */
function otherExpiringParts(inputs: WorkloadInputs): string | undefined {
  const classes = Object.entries(inputs.expiringBytesByDays ?? {});
  const manifests = String(inputs.expiringRetentionDays ?? DEFAULT_MANIFEST_RETENTION_DAYS);
  if (!classes.some(([days]) => days !== manifests)) return undefined;
  return classes.map(([days, bytes]) => `${Math.round(bytes)} B ${days} days`).join(', ');
}

function usd(parts: { writes: number; reads: number; storage: number; compute: number; node: number }): OptionCost['perDayUsd'] {
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    writes: round(parts.writes),
    reads: round(parts.reads),
    storage: round(parts.storage),
    compute: round(parts.compute),
    node: round(parts.node),
    total: round(parts.writes + parts.reads + parts.storage + parts.compute + parts.node),
  };
}

/** What a chain profile's row names beside its model (issue 27: W1 and W2 per chain profile). */
export interface ChainProfileFigures {
  /** The profile's short name: the ingest bench chain, the dataset's busy chains, base. */
  name: string;
  transactionsPerBlock?: number;
  itemsWrittenPerTransaction?: number;
}

export interface ProfiledWorkloadCost {
  basis: string;
  model: WorkloadCostModel;
  profile?: ChainProfileFigures;
  /** The cold tier's projection on this profile (cold-tier-projection.ts: a design, not built), where priced. */
  coldTier?: ColdTierProjection;
}

/**
 * One row per chain profile: its inputs, then per workload the cheapest option's cost per day, the
 * default option's, and the verdict against the goal and the baseline (from the profile's own figures).
 */
export function profileSummaryLines(entries: readonly ProfiledWorkloadCost[]): string[] {
  const short = (option: OptionCost) =>
    `${option.tableClass === 'STANDARD' ? 'Standard' : 'Standard-IA'} ${option.billing}${option.coldTier ? ` + cold tier ${option.coldTier.afterDays}+${option.coldTier.marginDays} d` : ''}`;
  const verdict = (workload: WorkloadCostModel['workloads'][WorkloadId]) =>
    `${workload.meetsGoal ? 'MET' : 'NOT MET'}, ${workload.noWorse ? 'no worse' : 'WORSE'}`;
  const cells = (model: WorkloadCostModel, id: WorkloadId) => {
    const workload = model.workloads[id];
    return `$${workload.cheapest.perDayUsd.total.toFixed(2)} (${short(workload.cheapest)}) | $${workload.defaultOption.perDayUsd.total.toFixed(2)} | ${verdict(workload)}`;
  };
  return [
    '### W1 and W2 per chain profile (issue 27)',
    '',
    `Goal: W1 <= $${GOAL_USD_PER_DAY.W1} a day, W2 <= $${GOAL_USD_PER_DAY.W2}, from the cheapest table option; no worse than the baseline (W1 $${optionCost('W1', OPTIONS[0]!, BASELINE_INPUTS).perDayUsd.total.toFixed(2)}, W2 $${optionCost('W2', OPTIONS[0]!, BASELINE_INPUTS).perDayUsd.total.toFixed(2)}). Every option of every profile: the sections below.`,
    '',
    '| chain profile | tx / block | WCU / tx | KB stored / tx | items written / tx | W1 cheapest $/day | W1 default $/day | W1 verdict | W2 cheapest $/day | W2 default $/day | W2 verdict |',
    '| --- | ---: | ---: | ---: | ---: | --- | ---: | --- | --- | ---: | --- |',
    ...entries.map(({ basis, model, profile }) => {
      const perBlock = profile?.transactionsPerBlock === undefined ? '-' : String(Math.round(profile.transactionsPerBlock * 10) / 10);
      const items = profile?.itemsWrittenPerTransaction === undefined ? '-' : String(profile.itemsWrittenPerTransaction);
      return `| ${profile?.name ?? basis} | ${perBlock} | ${model.inputs.writeUnitsPerTransaction} | ${(model.inputs.storedBytesPerTransaction / 1024).toFixed(2)} | ${items} | ${cells(model, 'W1')} | ${cells(model, 'W2')} |`;
    }),
    ...expiringNote(entries),
  ];
}

/** Below the profile table: which part of KB stored is held for the manifests' retention only. */
function expiringNote(entries: readonly ProfiledWorkloadCost[]): string[] {
  const expiring = entries.filter(({ model }) => (model.inputs.expiringBytesPerTransaction ?? 0) > 0);
  if (expiring.length === 0) return [];
  const parts = expiring.map(({ basis, model, profile }) => {
    const others = otherExpiringParts(model.inputs);
    if (others) return `${profile?.name ?? basis} ${others} (the manifests and zero-value calls)`;
    return `${profile?.name ?? basis} ${((model.inputs.expiringBytesPerTransaction ?? 0) / 1024).toFixed(2)} KB (${model.inputs.expiringRetentionDays ?? DEFAULT_MANIFEST_RETENTION_DAYS} days)`;
  });
  return ['', `KB stored / tx includes the write manifests, held only until their TTL, not a year: ${parts.join(', ')}.`];
}
