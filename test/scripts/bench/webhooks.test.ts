/** The bench's webhooks part (scripts/bench/webhooks.ts) and its budget, on a few Base-profile blocks. */
import { expect, it } from 'vitest';
import { webhooksBudgets } from '../../../scripts/bench/lib/budgets';
import { runWebhooks } from '../../../scripts/bench/webhooks';

it('matches Base-profile blocks and the burst at 100, 1,000 and 10,000 webhooks, and judges them against the block time', async () => {
  const result = await runWebhooks({ log: () => undefined, blocks: 3 });
  expect(result.runs.map((run) => run.webhooks)).toEqual([100, 1_000, 10_000]);
  expect(result.profile.burstTransactions).toBe(3_000);
  const largest = result.runs.at(-1)!;
  // About one webhook in 55 (and the chain-less tenth) is on the profile's chain; some of them match.
  expect(largest.onThisChain).toBeGreaterThan(900);
  expect(largest.blockMs.matched).toBeGreaterThan(0);
  expect(largest.burstMs.records).toBeGreaterThan(3_000);
  const budgets = webhooksBudgets(result);
  expect(budgets.map((budget) => budget.budget)).toEqual([2_000, 2_000]);
  expect(budgets.map((budget) => budget.value)).toEqual([largest.blockMs.p99, largest.burstMs.total]);
  const slow = webhooksBudgets({ ...result, runs: result.runs.map((run) => ({ ...run, burstMs: { ...run.burstMs, total: 2_500 } })) });
  expect(slow.map((budget) => budget.pass)).toEqual([budgets[0]!.pass, false]);
  expect(webhooksBudgets({ ...result, runs: [] }).every((budget) => !budget.pass)).toBe(true);
}, 120_000);
