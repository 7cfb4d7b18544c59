import { describe, expect, it } from 'vitest';
import {
  coldTierDay,
  coldTierLines,
  coldTierOptionCost,
  coldTierProjection,
  coldTierWindowOptions,
  DEFAULT_COLD_ASSUMPTIONS,
  measuredColdAssumptions,
  DEPLOYED_POINTERS_PER_TRANSACTION,
  POINTER_SWEEP,
  STATE_GROWTH_SWEEP,
  WINDOW_STATE_GROWTH,
  WINDOW_SWEEP,
} from '../../../../scripts/bench/lib/cold-tier-projection';
import { workloadCostLines, workloadCostModel } from '../../../../scripts/bench/lib/workload-cost';

// 10 write units and 5,000 B stored a transaction, 4,000 of them canonical records and index copies.
const inputs = { writeUnitsPerTransaction: 10, storedBytesPerTransaction: 5_000, readUnitsPerPage: 2 };
const byGroup = { 'canonical record': 1_000, 'index copy': 3_000, state: 600, GSI: 400 };
const assumptions = { ...DEFAULT_COLD_ASSUMPTIONS, transactionsPerBlock: 200 };

const families = { seekChunkBytes: 200, manifestBytes: 0 };

describe('the cold tier projected as built (docs/decisions/cold-history.md, steps 3 to 5)', () => {
  it('prices a W1 day part by part', () => {
    const day = coldTierDay('W1', inputs, byGroup, assumptions, { pointersPerTransaction: 1, stateGrowth: 0.5 }, families);
    expect(day.perDayUsd).toEqual({
      // 10M x (10 + 1 pointer) WU / 86,400 s / 0.7 = 1,819 WCU x 24 h x ($150 / 8,760 h + $0.0128) / 100.
      writes: 13.06,
      // (1M pages x 2 RU + 10M x 12 RU of the compactor) / 86,400 / 0.7 = 2,018 RCU x 24 x ($30 / 8,760 + $0.0025) / 100.
      reads: 2.87,
      // 10M x (3,800 B of history x 44 days hot + 200 B of seek chunks x 365 + 1,000 B x 0.5 x 365) = 3,937 GB x $0.25 / 30.
      tableStorage: 32.81,
      // 10M x 1 x 250 B x 335 cold days = 780 GB x $0.25 / 30.
      pointers: 6.5,
      // 10M x 6.2 KB x 335 days = 19,808 GB x $0.023 / 30.
      s3Storage: 15.19,
      // 946 shards of 64 MB; 10 % of 1M pages x 4 part GETs.
      s3Requests: 0.16,
      // 80,000 s of one vCPU (1,769 MB) at arm64's $0.0000133334 a GB-second.
      compactor: 1.84,
      follower: 0,
      total: 72.43,
    });
  });

  it('keeps the manifests as long as the history they list', () => {
    const withManifests = { ...inputs, expiringBytesPerTransaction: 300, expiringRetentionDays: 7, storedBytesPerTransaction: 5_300 };
    const sweep = { pointersPerTransaction: 1, stateGrowth: 0.5 };
    const day = coldTierDay('W1', withManifests, byGroup, assumptions, sweep, { ...families, manifestBytes: 300 });
    // 10M x 300 B x 44 days more = 123 GB x $0.25 / 30.
    expect(day.perDayUsd.tableStorage).toBe(33.83);
  });

  it('costs nothing cold when the window holds the whole history', () => {
    const whole = { ...assumptions, afterDays: 365, marginDays: 14 };
    const day = coldTierDay('W1', inputs, byGroup, whole, { pointersPerTransaction: 4, stateGrowth: 1 }, families);
    expect(day.perDayUsd.pointers).toBe(0);
    expect(day.perDayUsd.s3Storage).toBe(0);
    expect(day.perDayUsd.compactor).toBeGreaterThan(0);
    // Every byte a year in the table, as the measured model holds it: 10M x 5,000 B x 365 = 16,997 GB x $0.25 / 30.
    expect(day.perDayUsd.tableStorage).toBe(141.64);
  });

  it('sweeps pointers and state growth for both workloads, cheaper with fewer of either, and reports them', () => {
    const projection = coldTierProjection(inputs, byGroup, 200, undefined, families);
    expect(projection.days).toHaveLength(2 * POINTER_SWEEP.length * STATE_GROWTH_SWEEP.length);
    expect(projection.coldBytesStoredPerTransaction).toBe(3_800);
    const w1 = (pointers: number, growth: number) =>
      projection.days.find((day) => day.workload === 'W1' && day.pointersPerTransaction === pointers && day.stateGrowth === growth)!
        .perDayUsd.total;
    expect(w1(0.5, 0.1)).toBeLessThan(w1(4, 0.1));
    expect(w1(1, 0.1)).toBeLessThan(w1(1, 1));
    const lines = coldTierLines('test', projection).join('\n');
    expect(lines).toContain('built, opt-in with the context coldAfterDays; projected, not measured');
    expect(lines).toContain(`| state growth 0.1 | $${w1(0.5, 0.1).toFixed(2)} |`);
  });

  it('prices the windows an operator can set: less table storage with a shorter one, more part GETs for the pages', () => {
    const projection = coldTierProjection(inputs, byGroup, 200, undefined, families);
    expect(projection.windows).toHaveLength(2 * WINDOW_SWEEP.length * WINDOW_STATE_GROWTH.length);
    expect(projection.windows.every((day) => day.pointersPerTransaction === DEPLOYED_POINTERS_PER_TRANSACTION)).toBe(true);
    const at = (workload: 'W1' | 'W2', afterDays: number, growth: number) =>
      projection.windows.find((day) => day.workload === workload && day.afterDays === afterDays && day.stateGrowth === growth)!;
    const [long, , short] = WINDOW_SWEEP.map((window) => window.afterDays) as [number, number, number];
    // 7 + 7 days hot instead of 30 + 14: 10M x 3,800 B of history x 30 days less = 1,062 GB x $0.25 / 30.
    expect(at('W1', long, 0.2).perDayUsd.tableStorage - at('W1', short, 0.2).perDayUsd.tableStorage).toBeCloseTo(8.85, 1);
    // More cold pages: W2's 50M pages x (0.5 - 0.1) more x 4 GETs x $0.0004 / 1,000 = $32 more a day.
    expect(at('W2', short, 0.2).perDayUsd.s3Requests - at('W2', long, 0.2).perDayUsd.s3Requests).toBeCloseTo(32, 0);
    // The same window priced directly agrees with the table.
    const direct = coldTierDay(
      'W1',
      inputs,
      byGroup,
      { ...assumptions, ...WINDOW_SWEEP[2]! },
      { pointersPerTransaction: DEPLOYED_POINTERS_PER_TRANSACTION, stateGrowth: 0.2 },
      families,
    );
    expect(at('W1', short, 0.2)).toEqual(direct);
    const lines = coldTierLines('test', projection).join('\n');
    expect(lines).toContain(
      `| 7 + 7 days (50 %) | ${WINDOW_STATE_GROWTH.map((growth) => `$${at('W1', short, growth).perDayUsd.total.toFixed(2)}`).join(' | ')} |`,
    );
  });

  it("reports the compaction as measured where the profile's build compacted itself", () => {
    const measured = { pointersPerTransaction: 11.77, spanBlocks: 6 };
    const projection = coldTierProjection(inputs, byGroup, 200, undefined, families, measured);
    const lines = coldTierLines('test', projection).join('\n');
    expect(lines).toContain(
      'compaction measured on the build (the compactor run over its 6 blocks as one span: 11.77 pointers a transaction)',
    );
    expect(lines).not.toContain('projected, not measured');
  });
});

describe('the cold tier as an option of the measured model (issue 35)', () => {
  const measured = {
    coldBytesPerTransaction: 8_335,
    compactorCpuMsPerTransaction: 8.6,
    compactorReadUnitsPerTransaction: 20.4,
    pointerBytes: 384,
  };

  it("takes the build's own compaction in place of the defaults, and the defaults for the rest", () => {
    const mine = measuredColdAssumptions(measured);
    expect(mine).toEqual({ ...DEFAULT_COLD_ASSUMPTIONS, ...measured });
  });

  it('prices the same day as the projection at state growth 1, its parts in the columns of the other options', () => {
    const tier = { ...measuredColdAssumptions(measured), transactionsPerBlock: 200 };
    const option = coldTierOptionCost('W1', inputs, byGroup, tier, { pointersPerTransaction: 2, spanBlocks: 6 }, families);
    const day = coldTierDay('W1', inputs, byGroup, tier, { pointersPerTransaction: 2, stateGrowth: 1 }, families);
    const { perDayUsd: parts } = day;
    expect(option.tableClass).toBe('STANDARD');
    expect(option.billing).toBe('reserved');
    expect(option.provisioned).toEqual(day.capacity);
    expect(option.perDayUsd.writes).toBe(parts.writes);
    expect(option.perDayUsd.reads).toBeCloseTo(parts.reads + parts.s3Requests, 2);
    expect(option.perDayUsd.storage).toBeCloseTo(parts.tableStorage + parts.pointers + parts.s3Storage, 2);
    expect(option.perDayUsd.compute).toBe(parts.compactor);
    // No follower measured: the same total as the projection's day.
    expect(option.perDayUsd.total).toBeCloseTo(parts.total, 1);
    expect(option.coldTier).toEqual({
      afterDays: 30,
      marginDays: 14,
      pointersPerTransaction: 2,
      spanBlocks: 6,
      stateGrowth: 1,
      coldPageShare: 0.1,
    });
  });

  it('is named the cheapest when it is (history the most of the bytes), and not when it is not', () => {
    const tier = { ...measuredColdAssumptions(measured), transactionsPerBlock: 200 };
    const priced = (mine: typeof inputs, groups: typeof byGroup) =>
      workloadCostModel(mine, (workload) => [
        coldTierOptionCost(workload, mine, groups, tier, { pointersPerTransaction: 1, spanBlocks: 6 }, families),
      ]);
    // 11,000 B of 12,000 history: the tier's $120.84 under Standard-IA provisioned's $168.26.
    const historyHeavy = priced(
      { ...inputs, storedBytesPerTransaction: 12_000 },
      { 'canonical record': 3_000, 'index copy': 8_000, state: 600, GSI: 400 },
    );
    expect(historyHeavy.options).toHaveLength(10);
    const w1 = historyHeavy.workloads.W1;
    const others = historyHeavy.options.filter((option) => option.workload === 'W1' && !option.coldTier);
    expect(Math.min(...others.map((option) => option.perDayUsd.total))).toBeGreaterThan(w1.cheapest.perDayUsd.total);
    expect(w1.cheapest.coldTier).toBeDefined();
    const lines = workloadCostLines(historyHeavy).join('\n');
    expect(lines).toContain('Standard, reserved for a year (');
    expect(lines).toContain('cold tier at 30 + 14 days (compaction measured on the build, 1 pointers a transaction at spans of 6 blocks');
    // 4,000 B of 5,000 history: Standard-IA provisioned stays the cheapest ($88.94 against the tier's $96.94).
    expect(priced(inputs, byGroup).workloads.W1.cheapest.coldTier).toBeUndefined();
  });

  it("offers every window, and names each workload's own: W1 the shortest (a large table, few pages), W2 the longest (many pages)", () => {
    const tier = { ...measuredColdAssumptions(measured), transactionsPerBlock: 200 };
    const mine = { ...inputs, storedBytesPerTransaction: 12_000 };
    const groups = { 'canonical record': 3_000, 'index copy': 8_000, state: 600, GSI: 400 };
    const model = workloadCostModel(mine, (workload) =>
      coldTierWindowOptions(workload, mine, groups, tier, { pointersPerTransaction: 1, spanBlocks: 6 }, families),
    );
    expect(model.options).toHaveLength(8 + 2 * WINDOW_SWEEP.length);
    const windows = model.options.filter((option) => option.workload === 'W1' && option.coldTier);
    expect(windows.map((option) => [option.coldTier!.afterDays, option.coldTier!.marginDays])).toEqual(
      WINDOW_SWEEP.map((window) => [window.afterDays, window.marginDays]),
    );
    // Each window's option is the projection's day at that window (state growth 1).
    const shortest = WINDOW_SWEEP.at(-1)!;
    const day = coldTierDay('W1', mine, groups, { ...tier, ...shortest }, { pointersPerTransaction: 1, stateGrowth: 1 }, families);
    expect(windows.at(-1)!.perDayUsd.total).toBeCloseTo(day.perDayUsd.total, 1);
    expect(model.workloads.W1.cheapest.coldTier).toMatchObject({ afterDays: shortest.afterDays, coldPageShare: shortest.coldPageShare });
    expect(model.workloads.W2.cheapest.coldTier).toMatchObject({ afterDays: WINDOW_SWEEP[0]!.afterDays });
    expect(workloadCostLines(model).join('\n')).toContain(
      `cold tier at ${shortest.afterDays} + ${shortest.marginDays} days (compaction measured on the build, 1 pointers a transaction at spans of 6 blocks, state growth 1, ${shortest.coldPageShare * 100} % of pages reading cold parts)`,
    );
  });
});
