/**
 * The Lambda harness's chaos (pure bookkeeping): which running invocation to kill as a crash of its
 * execution environment would end it, and what the chain went through until the API was current again.
 *
 * - `pickHolder`: the oldest invocation in flight holds the lease (an invocation that finds it taken
 *   returns within a second; one that waits for a handover is younger than the holder it waits for).
 *   It is picked once it is past any handover wait of its own (`ownWaitMs`) and still far from its own
 *   handover (no successor waiting yet), so that the kill lands mid-follow.
 * - `chaosRecovery`: from the kill to the first block mined after it that the API showed within the
 *   lag budget: the chaos window. Reported: how long the chain stayed unwritten (the API's head did not
 *   move: from its last advance before the kill to its first after), how long from the kill to that
 *   first advance, the lag of the window's blocks (the spike), and the blocks of the window, which the
 *   lag budget's p99 leaves out (they are reported here instead).
 */

export interface RunningInvocation {
  id: string;
  startedAt: number;
}

export function pickHolder(
  running: readonly RunningInvocation[],
  now: number,
  timing: { holdMs: number; ownWaitMs: number; handoverWaitMs: number },
): RunningInvocation | undefined {
  const oldest = [...running].sort((a, b) => a.startedAt - b.startedAt)[0];
  if (!oldest) return undefined;
  const ran = now - oldest.startedAt;
  const left = timing.holdMs - ran;
  return ran >= timing.ownWaitMs + 2_000 && left > timing.handoverWaitMs + 1_000 ? oldest : undefined;
}

export interface ChaosBlock {
  number: number;
  /** When the node had it (epoch ms). */
  minedAt: number;
}

/** A block's lag in blocks: the blocks mined after it until the API showed it (null: never shown). */
export function lagInBlocks(block: ChaosBlock, mined: readonly ChaosBlock[], shownAt: ReadonlyMap<number, number>): number | null {
  const at = shownAt.get(block.number);
  if (at === undefined) return null;
  return mined.filter((other) => other.minedAt > block.minedAt && other.minedAt <= at).length;
}

export interface ChaosRecovery {
  invocation: string;
  killedAt: number;
  /** The API's head when the kill came. */
  headAtKill: number | null;
  /** From the API head's last advance before the kill to its first after, seconds (null: it never moved again). */
  unwrittenSeconds: number | null;
  /** From the kill to the API head's first advance after it, seconds. */
  firstAdvanceAfterSeconds: number | null;
  /** When the API showed a block mined after the kill within the lag budget (null: never within the run). */
  recoveredAt: number | null;
  recoverySeconds: number | null;
  /** The blocks not yet shown at the kill and mined before the recovery block: the chaos window. */
  windowBlocks: number[];
  lagSpike: { blocks: number | null; seconds: number | null };
}

export function chaosRecovery(input: {
  invocation: string;
  killedAt: number;
  mined: readonly ChaosBlock[];
  shownAt: ReadonlyMap<number, number>;
  budgetBlocks: number;
}): ChaosRecovery {
  const { killedAt, mined, shownAt } = input;
  const advances = [...new Set(shownAt.values())].sort((a, b) => a - b);
  const before = advances.filter((at) => at < killedAt).at(-1);
  const after = advances.find((at) => at >= killedAt);
  const shownByKill = [...shownAt].filter(([, at]) => at < killedAt).map(([number]) => number);
  const headAtKill = shownByKill.length > 0 ? Math.max(...shownByKill) : null;
  const recovery = mined.find(
    (block) => block.minedAt >= killedAt && (lagInBlocks(block, mined, shownAt) ?? Number.POSITIVE_INFINITY) <= input.budgetBlocks,
  );
  const window = mined.filter(
    (block) =>
      (shownAt.get(block.number) ?? Number.POSITIVE_INFINITY) >= killedAt &&
      block.minedAt < (recovery?.minedAt ?? Number.POSITIVE_INFINITY) &&
      (headAtKill === null || block.number > headAtKill),
  );
  const lags = window.map((block) => lagInBlocks(block, mined, shownAt)).filter((lag): lag is number => lag !== null);
  const seconds = window
    .map((block) => {
      const at = shownAt.get(block.number);
      return at === undefined ? null : (at - block.minedAt) / 1000;
    })
    .filter((value): value is number => value !== null);
  const recoveredAt = recovery ? (shownAt.get(recovery.number) ?? null) : null;
  return {
    invocation: input.invocation,
    killedAt,
    headAtKill,
    unwrittenSeconds: before !== undefined && after !== undefined ? (after - before) / 1000 : null,
    firstAdvanceAfterSeconds: after !== undefined ? (after - killedAt) / 1000 : null,
    recoveredAt,
    recoverySeconds: recoveredAt === null ? null : (recoveredAt - killedAt) / 1000,
    windowBlocks: window.map((block) => block.number),
    lagSpike: {
      blocks: lags.length > 0 ? Math.max(...lags) : null,
      seconds: seconds.length > 0 ? Math.round(Math.max(...seconds) * 100) / 100 : null,
    },
  };
}
