/**
 * The plan of a batch's balance transactions (balance-lanes.ts): no transaction over the limit,
 * transitions sharing a counter item in one lane (run in sequence), every transition exactly once.
 */
import { describe, expect, it } from 'vitest';
import { type LaneEntry, planBalanceLanes } from '../../../shared/ingest/balance-lanes';

function operations(entries: readonly LaneEntry[], chunk: readonly number[]): number {
  const own = chunk.reduce((sum, index) => sum + (entries[index].operations ?? 1), 0);
  return own + new Set(chunk.flatMap((index) => entries[index].shared)).size;
}

function check(entries: readonly LaneEntry[], limit: number) {
  const lanes = planBalanceLanes(entries, limit);
  const all = lanes.flat(2).sort((a, b) => a - b);
  expect(all).toEqual(entries.map((_, index) => index));
  for (const chunk of lanes.flat()) expect(operations(entries, chunk)).toBeLessThanOrEqual(limit);
  // A counter item is moved in one lane only.
  const laneOf = new Map<string, number>();
  for (const [lane, chunks] of lanes.entries()) {
    for (const index of chunks.flat()) {
      for (const item of entries[index].shared) {
        expect(laneOf.get(item) ?? lane, item).toBe(lane);
        laneOf.set(item, lane);
      }
    }
  }
  return lanes;
}

describe('planBalanceLanes', () => {
  it('packs independent transitions and small components into full transactions', () => {
    const entries: LaneEntry[] = [
      ...Array.from({ length: 150 }, () => ({ shared: [] })),
      ...Array.from({ length: 20 }, (_, n) => ({ shared: [`token|${n % 4}`, `holder|${n}`] })),
    ];
    const lanes = check(entries, 100);
    // 150 + 20 transitions, 4 token items, 20 holder items: 194 operations in two transactions.
    expect(lanes.flat()).toHaveLength(2);
  });

  it('chains transitions through shared items into one lane, cut into transactions in order', () => {
    // holder h1 links tokens A and B; 300 new holders of A: one component of 300 + counters.
    const entries: LaneEntry[] = [
      { shared: ['token|A', 'holder|h1'] },
      { shared: ['token|B', 'holder|h1'] },
      ...Array.from({ length: 300 }, (_, n) => ({ shared: ['token|A', `holder|n${n}`] })),
      { shared: ['token|C', 'holder|other'] },
    ];
    const lanes = check(entries, 100);
    const big = lanes.find((lane) => lane.length > 1)!;
    expect(big.flat()).toEqual([0, 1, ...Array.from({ length: 300 }, (_, n) => n + 2)]);
    expect(big.length).toBe(7); // 302 transitions, 302 holder items, 2-3 token items per transaction of 100
  });

  it("counts an ERC-1155 id's balance as two operations (its holding item) and its id's instance as a shared item", () => {
    // 60 holders of one id (each: balance + holding, and the id's instance), 60 changes that share nothing.
    const entries: LaneEntry[] = [
      ...Array.from({ length: 60 }, (_, n) => ({ shared: ['instance|T|1', 'token|T', `holder|${n}`], operations: 2 })),
      ...Array.from({ length: 60 }, () => ({ shared: [], operations: 2 })),
    ];
    const lanes = check(entries, 100);
    // 60 x 2 + 60 holders + 2 counters = 182 operations: one lane of two transactions; 120 operations of independents.
    const big = lanes.find((lane) => lane.flat().includes(0))!;
    expect(big.length).toBe(2);
    expect(lanes.flat().length).toBe(4);
  });

  it('plans nothing for no transitions', () => {
    expect(planBalanceLanes([])).toEqual([]);
  });
});
