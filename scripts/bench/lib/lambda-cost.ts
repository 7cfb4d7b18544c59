/**
 * What following one chain's head with the ingest Lambda costs per day (docs/decisions/ingest.md
 * "Following the head in AWS"): Lambda compute and requests at list prices, plus the DynamoDB writes
 * the following itself adds (lease renewals). Pure.
 *
 * The model of a day, with the deployed settings: a schedule tick every `scheduleSeconds`; an
 * invocation runs `timeoutSeconds` at most and hands over `safetyMarginSeconds` before its end. The
 * invocation started by the last tick before a handover waits for it (INGEST_HANDOVER_WAIT_MS covers
 * one period), so each holder runs from its tick to its own handover: `timeoutSeconds - margin`
 * seconds, of which the first `handoverWaitSeconds` (about one period) waiting; a handover every
 * `timeoutSeconds - margin - period` seconds. Every other tick finds the lease held and returns at
 * once (`skippedInvocationSeconds`, measured by the harness).
 *
 * How long the successor waits (`successorWaitSeconds`): holders start on ticks, so every handover
 * falls at the same phase of the schedule, `(timeout - margin) mod period` after a tick, and the
 * successor is the first tick within the handover wait it may spend (INGEST_HANDOVER_WAIT_MS) before
 * the handover: it waits the largest `phase + k * period` that fits in that wait. Deployed (840 s,
 * a minute, 75 s): phase 0, a wait of one period (60 s), a handover every 780 s. The harness's
 * shortened timing (65 s, 25 s, 31.25 s): phase 15 s, a wait of 15 s, a handover every 50 s, not the
 * 25 s and 40 s of a one-period wait (the first version of this model assumed one period everywhere and
 * predicted 1.63 Lambda-seconds per second for the harness, which measured 1.25).
 */

/** The successor's wait at a handover, seconds (see above); 0 when no tick falls within the wait. */
export function successorWaitSeconds(input: {
  timeoutSeconds: number;
  safetyMarginSeconds: number;
  scheduleSeconds: number;
  maxWaitSeconds: number;
}): number {
  const phase = (input.timeoutSeconds - input.safetyMarginSeconds) % input.scheduleSeconds;
  if (phase > input.maxWaitSeconds) return 0;
  return phase + input.scheduleSeconds * Math.floor((input.maxWaitSeconds - phase) / input.scheduleSeconds);
}

/** AWS Lambda list prices, us-east-1 (USD). */
export const LAMBDA_PRICES = {
  /** Per GB-second, x86_64 (first pricing tier). */
  gbSecondX86: 0.0000166667,
  /** Per GB-second, arm64 (first pricing tier). */
  gbSecondArm: 0.0000133334,
  /** Per request. */
  request: 0.0000002,
  /** DynamoDB on-demand, per write request unit. */
  writeUnit: 0.625 / 1_000_000,
} as const;

/** Lambda's CPU share: one vCPU at 1,769 MB, in proportion to the memory (at most 6). */
export const LAMBDA_MB_PER_VCPU = 1769;

/**
 * The price per call a node's bill is worked out at: $0.50 per million calls, named here as the
 * models' input (providers that bill compute units weigh methods differently: block receipts and
 * traces cost tens to hundreds of a plain call's units, so the figure is a floor for those).
 */
export const NODE_USD_PER_MILLION_CALLS = 0.5;

export interface LambdaCostInputs {
  memoryMb: number;
  architecture: 'arm64' | 'x86_64';
  scheduleSeconds: number;
  timeoutSeconds: number;
  safetyMarginSeconds: number;
  /** How long the successor waits for a handover (successorWaitSeconds: one period deployed). */
  handoverWaitSeconds: number;
  /** Billed duration of an invocation that finds the lease held (warm), seconds. */
  skippedInvocationSeconds: number;
  /** Lease renewals a second while following (1 / (ttl / 3)). */
  leaseWritesPerSecond: number;
}

export interface LambdaCost {
  inputs: LambdaCostInputs;
  prices: typeof LAMBDA_PRICES;
  perDay: {
    invocations: number;
    holders: number;
    handovers: number;
    billedSeconds: number;
    /** Billed seconds / seconds in a day: how many invocations run on average. */
    averageConcurrency: number;
    gbSeconds: number;
    computeUsd: number;
    requestsUsd: number;
    leaseWritesUsd: number;
    totalUsd: number;
  };
  /** The same day on the other architecture, for comparison. */
  otherArchitectureUsd: number;
}

const DAY = 86_400;
const round = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;

export function lambdaCostPerChainPerDay(inputs: LambdaCostInputs): LambdaCost {
  const holding = inputs.timeoutSeconds - inputs.safetyMarginSeconds; // one holder's duration, waiting included
  const handoverEvery = Math.max(1, holding - inputs.handoverWaitSeconds);
  const invocations = DAY / inputs.scheduleSeconds;
  const holders = DAY / handoverEvery;
  const skipped = Math.max(0, invocations - holders);
  const billedSeconds = holders * holding + skipped * inputs.skippedInvocationSeconds;
  const gbSeconds = billedSeconds * (inputs.memoryMb / 1024);
  const price = (arch: 'arm64' | 'x86_64') => (arch === 'arm64' ? LAMBDA_PRICES.gbSecondArm : LAMBDA_PRICES.gbSecondX86);
  const computeUsd = gbSeconds * price(inputs.architecture);
  const requestsUsd = invocations * LAMBDA_PRICES.request;
  const leaseWritesUsd = DAY * inputs.leaseWritesPerSecond * LAMBDA_PRICES.writeUnit;
  const other = inputs.architecture === 'arm64' ? 'x86_64' : 'arm64';
  return {
    inputs,
    prices: LAMBDA_PRICES,
    perDay: {
      invocations: Math.round(invocations),
      holders: round(holders, 1),
      handovers: round(holders, 1),
      billedSeconds: Math.round(billedSeconds),
      averageConcurrency: round(billedSeconds / DAY, 3),
      gbSeconds: Math.round(gbSeconds),
      computeUsd: round(computeUsd, 4),
      requestsUsd: round(requestsUsd, 5),
      leaseWritesUsd: round(leaseWritesUsd, 4),
      totalUsd: round(computeUsd + requestsUsd + leaseWritesUsd, 4),
    },
    otherArchitectureUsd: round(gbSeconds * price(other) + requestsUsd + leaseWritesUsd, 4),
  };
}
