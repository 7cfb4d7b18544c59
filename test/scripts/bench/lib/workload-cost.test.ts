import { describe, expect, it } from 'vitest';
import {
  BASELINE_INPUTS,
  followerCostPerDay,
  heldBytes,
  optionCost,
  workloadCostLines,
  workloadCostModel,
} from '../../../../scripts/bench/lib/workload-cost';
import { lambdaCostPerChainPerDay } from '../../../../scripts/bench/lib/lambda-cost';
import { deployedFollower } from '../support/deployed-follower';

describe('the W1 / W2 cost model (issue 27)', () => {
  it('prices the baseline as the issue states it: W1 about $525 a day, W2 about $85, on-demand Standard', () => {
    const model = workloadCostModel(BASELINE_INPUTS);
    // W1: 10M tx x 23.26 WRU x $0.625/M = $145.38; 1M pages x 5.23 RRU x $0.125/M = $0.65;
    // 3.65e9 tx x 13,400 B = 45,551 GB x $0.25 / 30 = $379.59.
    expect(model.workloads.W1.defaultOption.perDayUsd).toEqual({
      writes: 145.38,
      reads: 0.65,
      storage: 379.59,
      compute: 0,
      node: 0,
      total: 525.62,
    });
    // W2: $14.54 writes, 50M pages x 5.23 x $0.125/M = $32.69 reads, $37.96 storage.
    expect(model.workloads.W2.defaultOption.perDayUsd).toEqual({
      writes: 14.54,
      reads: 32.69,
      storage: 37.96,
      compute: 0,
      node: 0,
      total: 85.18,
    });
    expect(model.workloads.W1.baselineUsdPerDay).toBe(525.62);
    expect(model.workloads.W1.noWorse).toBe(true);
  });

  it('prices Standard-IA storage 60 % lower and its requests 25 % higher', () => {
    const standard = optionCost('W1', { tableClass: 'STANDARD', billing: 'on-demand' }, BASELINE_INPUTS);
    const ia = optionCost('W1', { tableClass: 'STANDARD_INFREQUENT_ACCESS', billing: 'on-demand' }, BASELINE_INPUTS);
    expect(ia.perDayUsd.storage).toBeCloseTo(standard.perDayUsd.storage * 0.4, 1);
    expect(ia.perDayUsd.writes).toBeCloseTo(standard.perDayUsd.writes * 1.25, 1);
  });

  it('prices provisioned capacity at the average rate over the target utilisation', () => {
    const option = optionCost('W1', { tableClass: 'STANDARD', billing: 'provisioned' }, BASELINE_INPUTS);
    // 10M x 23.26 / 86,400 s = 2,692 WCU average; / 0.7 = 3,846 WCU x $0.00065 x 24 h = $60.00.
    expect(option.provisioned).toEqual({ wcu: 3846, rcu: 87 });
    expect(option.perDayUsd.writes).toBe(60);
  });

  it('holds the bytes of items with a TTL (the manifests) for their retention, not a year', () => {
    const kept = workloadCostModel({ writeUnitsPerTransaction: 10, storedBytesPerTransaction: 7_000, readUnitsPerPage: 2 });
    const expiring = workloadCostModel({
      writeUnitsPerTransaction: 10,
      storedBytesPerTransaction: 7_000,
      expiringBytesPerTransaction: 350,
      readUnitsPerPage: 2,
    });
    // W1: 10M tx a day x (6,650 B x 365 + 350 B x 7) = 2.43e13 B = 22,629 GB x $0.25 / 30 = $188.58 (a year of all: $198.28).
    expect(heldBytes('W1', expiring.inputs)).toBe(10_000_000 * (6_650 * 365 + 350 * 7));
    expect(expiring.workloads.W1.defaultOption.perDayUsd.storage).toBe(
      Math.round(((10_000_000 * (6_650 * 365 + 350 * 7)) / 1024 ** 3) * (0.25 / 30) * 100) / 100,
    );
    expect(kept.workloads.W1.defaultOption.perDayUsd.storage - expiring.workloads.W1.defaultOption.perDayUsd.storage).toBeCloseTo(
      ((10_000_000 * 350 * (365 - 7)) / 1024 ** 3) * (0.25 / 30),
      1,
    );
    // Another retention, and never more than the bytes stored or the history.
    expect(heldBytes('W2', { ...expiring.inputs, expiringRetentionDays: 30 })).toBe(1_000_000 * (6_650 * 365 + 350 * 30));
    expect(heldBytes('W2', { ...expiring.inputs, expiringBytesPerTransaction: 9_000 })).toBe(1_000_000 * 7_000 * 7);
    const lines = workloadCostLines(expiring).join('\n');
    expect(lines).toContain('7000 B stored per transaction (of which 350 B are manifests held 7 days, not a year: TTL)');
    expect(workloadCostLines(kept).join('\n')).not.toContain('manifests held');
  });

  it("prices the ingest Lambda and the node's calls a harness measured, the same under every option (issue 35)", () => {
    // The deployed follower's settings as the harness's cost model takes them (lambda-follow.ts DEPLOYED).
    const deployed = deployedFollower(0.146);
    const follower = { cpuMsPerTransaction: 6, nodeCallsPerTransaction: 0.05, deployed, source: 'a harness run' };
    // W1: 10M tx / 86,400 s = 115.7 tx/s x 6 ms = 0.694 vCPU; / 0.8 = 0.868 x 1,769 MB = 1,536 MB. The deployed day:
    // 110.8 holders of 840 s and 1,329 skipped ticks of 0.146 s = 93,240 s x 1.5 GB x $0.0000133334 = $1.865, 1,440
    // requests $0.0003, lease writes 86,400 x 0.3 x $0.625/M = $0.0162: $1.88. 10M x 0.05 calls x $0.5/M = $0.25.
    const w1 = followerCostPerDay('W1', follower);
    expect(w1.memoryMb).toBe(1536);
    expect(w1.computeUsd).toBeCloseTo(93_240 * 1.5 * 0.0000133334 + 1_440 * 0.0000002 + 86_400 * 0.3 * 0.000000625, 3);
    expect(w1.computeUsd).toBe(lambdaCostPerChainPerDay({ ...deployed, memoryMb: 1536 }).perDay.totalUsd);
    expect(w1.nodeUsd).toBeCloseTo(0.25, 6);
    expect(w1.beyondOneThread).toBe(false);
    // W2: 0.069 vCPU: the deployed 512 MB, $0.64; $0.03 of calls.
    expect(followerCostPerDay('W2', follower)).toMatchObject({ memoryMb: 512, beyondOneThread: false });
    // Three times Base's average at 6 ms: more than one thread can give, flagged.
    expect(followerCostPerDay('W1', { ...follower, cpuMsPerTransaction: 20 }).beyondOneThread).toBe(true);
    const without = workloadCostModel({ writeUnitsPerTransaction: 10, storedBytesPerTransaction: 7_000, readUnitsPerPage: 2 });
    const priced = workloadCostModel({ ...without.inputs, follower });
    for (const [index, option] of priced.options.entries()) {
      const base = without.options[index]!;
      expect(option.perDayUsd.compute).toBe(option.workload === 'W1' ? 1.88 : 0.64);
      expect(option.perDayUsd.node).toBe(option.workload === 'W1' ? 0.25 : 0.03);
      // (Each part and the total rounded to the cent apart.)
      expect(
        Math.abs(option.perDayUsd.total - (base.perDayUsd.total + option.perDayUsd.compute + option.perDayUsd.node)),
      ).toBeLessThanOrEqual(0.02);
    }
    expect(workloadCostLines(priced).join('\n')).toContain('6 ms of CPU and 0.05 node calls a transaction (a harness run)');
    expect(workloadCostLines(without).join('\n')).toContain('the ingest Lambda and the node not priced');
  });

  it('names the cheapest option and the verdict against the goal', () => {
    const cheap = workloadCostModel({ writeUnitsPerTransaction: 5, storedBytesPerTransaction: 3000, readUnitsPerPage: 2 });
    expect(cheap.workloads.W1.cheapest.tableClass).toBe('STANDARD_INFREQUENT_ACCESS');
    expect(cheap.workloads.W1.meetsGoal).toBe(true);
    const dear = workloadCostModel(BASELINE_INPUTS);
    expect(dear.workloads.W1.meetsGoal).toBe(false);
    expect(dear.options).toHaveLength(8);
    const lines = workloadCostLines(dear).join('\n');
    expect(lines).toContain('| W2 | Standard, on-demand |');
    expect(lines).toContain('NOT MET');
  });
});

describe('the report', () => {
  it('prints W1 and W2 per option for each chain profile it is given', async () => {
    const { buildReport, markdown } = await import('../../../../scripts/bench/lib/report');
    const report = buildReport({
      date: '2026-11-26T00:00:00.000Z',
      command: 'npm run bench',
      machine: { cpus: 2, cpuModel: 'test', memoryGb: 24, node: process.version, platform: 'linux-x64' },
      seconds: { total: 1 },
      parts: { http: null, cold: null, ingest: null, load: null },
      missing: {},
      cost: null,
      workloadCost: [{ basis: 'the ingest bench chain', model: workloadCostModel(BASELINE_INPUTS) }],
      budgets: [],
    });
    const text = markdown(report);
    expect(text).toContain('W1 and W2 per day, one year held (issue 27): the ingest bench chain');
    expect(text).toContain('| W1 | Standard-IA, provisioned');
    expect(text).toMatch(/\*\*W2 \(app backend, [\d.]+ TB held\)\*\*: cheapest/);
  });
});
