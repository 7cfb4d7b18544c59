/**
 * The budgets of the benchmark suite (issue 13) evaluated on the figures of its parts. Pure: each
 * function takes a part's result and returns `{ name, value, budget, pass }` entries (value <= budget
 * passes; a null value, a figure that could not be taken, fails). test/scripts/bench/ checks them.
 */
import type { ColdResult } from '../cold';
import type { FollowResult } from '../follow';
import type { HttpResult } from '../http';
import type { LambdaFollowResult } from '../lambda-follow';
import type { WebhooksResult } from '../webhooks';

export type Part = 'http' | 'cold' | 'ingest' | 'follow' | 'lambda' | 'load' | 'webhooks';

export interface Budget {
  name: string;
  value: number | null;
  /** The most the value may be. */
  budget: number;
  pass: boolean;
  part: Part;
  /** The family of the budget (one line of the summary). */
  family: string;
  note?: string;
}

const check = (part: Part, family: string, name: string, value: number | null, budget: number, note?: string): Budget => ({
  name,
  value: value === null || Number.isNaN(value) ? null : Math.round(value * 100) / 100,
  budget: Math.round(budget * 100) / 100,
  pass: value !== null && !Number.isNaN(value) && value <= budget + 1e-9,
  part,
  family,
  ...(note ? { note } : {}),
});

export const FAMILIES = {
  roundTrips: 'A list page waits on at most 2 DynamoDB round trips in sequence',
  readBound:
    'What a list page reads is bounded by its page size: Query items read <= Queries x (page + 1), a bounded read within its bound (else its clear 4xx)',
  parallelQueries: 'At most 6 Queries in parallel per page per chain',
  depth: 'Page cost independent of depth: a deep page <= 1.2 x the first',
  aggregate:
    'An aggregate from running totals reads <= 100 items per chain; a bounded-read aggregate stays within its bound (else its clear 400)',
  overhead: 'Handler p50 <= 1.3 x the direct DynamoDB p50 of the same requests + 60 us per record returned',
  egress:
    "A route that sends to a stranger's URL answers within that send's timeout: handler p99 <= 1.3 x the direct DynamoDB p99 + the timeout + 50 ms",
  scan: 'No Scan, anywhere',
  serverErrors: 'Every request answered without a server error',
  coverage: 'Every served route of shared/routes.ts has a bench request of its own',
  notServed: 'A route not served answers 501 without a DynamoDB call',
  coldMedian: 'Cold start: median import <= 1.75 x the SDK floor of the same run',
  coldEach: 'Cold start: every bundle <= 2.15 x the SDK floor of the same run',
  loadErrors: 'Load: 0 errors',
  loadMemory: 'Load: memory 30 s after the load within 20% of its start',
  ingestRatio: 'Ingest time <= 1.3 x max(raw fetch, table floor, CPU floor), all measured in the same run',
  lambdaLag: 'The deployed ingest (Lambda, re-armed by its schedule, handing over): block-to-API lag p99 <= 2 blocks',
  lambdaDeposit: 'The deployed ingest: deposit sent -> order shows it detected, p99 <= 5 s',
  lambdaWebhook:
    'Webhooks behind the deployed ingest: event on chain -> delivered to the receiver, p99 <= 5 s, every matching record once at least',
  lambdaContinuity: 'The deployed ingest across handovers: no block lost or repeated, no invocation failed',
  webhookMatching:
    'Webhooks: at 10,000 webhooks over 55 chains, a Base-profile block (p99) and its 3,000-transaction burst are matched and dispatched within the block time (2 s)',
} as const;

/** Issue 27's retired budgets (wasted reads, read units over the single-Query minimum, missing BatchGetItem keys) stay figures of each request. */
const BOUNDED_NOTE = 'a bounded read by design: past its bound it answers a clear 4xx';

/**
 * The items a bounded list read's Queries read, less the chain registry's (N13, re-read when the
 * insights container's cache of it expires): that read is no part of the bounded range read.
 */
const boundedItemsRead = (request: HttpResult['requests'][number]): number =>
  (request.queryItemsRead ?? 0) - (request.registryItemsRead ?? 0);

/** The read rules of issue 27 for one list page (or bounded aggregate): what it reads, and how many Queries at once. */
function readRuleBudgets(request: HttpResult['requests'][number]): Budget[] {
  if (request.queryItemsRead === undefined || request.queries === undefined) return [];
  const chains = request.chains ?? 1;
  const bounded = request.boundedRead !== undefined;
  const budget = bounded ? request.boundedRead! * chains : request.queries * ((request.pageSize ?? request.records) + 1);
  return [
    check(
      'http',
      FAMILIES.readBound,
      `items read: ${request.id}`,
      bounded ? boundedItemsRead(request) : request.queryItemsRead,
      budget,
      bounded ? BOUNDED_NOTE : undefined,
    ),
    check('http', FAMILIES.parallelQueries, `Queries in parallel per chain: ${request.id}`, (request.maxParallelQueries ?? 0) / chains, 6),
  ];
}

export function httpBudgets(http: HttpResult): Budget[] {
  const budgets: Budget[] = [];
  for (const request of http.requests) {
    const answered = request.status > 0 && request.status < 400;
    if (request.kind === 'list' && answered) {
      budgets.push(check('http', FAMILIES.roundTrips, `round trips in sequence: ${request.id}`, request.roundTrips, 2));
      budgets.push(...readRuleBudgets(request));
    }
    // A bounded read that answered its clear 4xx (past its bound) kept the rule: nothing more was read.
    if (request.kind === 'list' && request.boundedRead !== undefined && request.status >= 400 && request.status < 500)
      budgets.push(
        check(
          'http',
          FAMILIES.readBound,
          `items read: ${request.id}`,
          request.queryItemsRead === undefined ? null : boundedItemsRead(request),
          request.boundedRead * (request.chains ?? 1),
          `${BOUNDED_NOTE}; answered ${request.status}`,
        ),
      );
    if (request.kind === 'aggregate') {
      const bound = request.boundedRead;
      const clear4xx = bound !== undefined && request.status >= 400 && request.status < 500;
      budgets.push(
        check(
          'http',
          FAMILIES.aggregate,
          `aggregate items read: ${request.id}`,
          // A bounded read's own items: the chain registry's (re)read, cached per container, is no part of it.
          request.status > 0 && (request.status < 400 || clear4xx)
            ? bound === undefined
              ? request.itemsRead
              : request.itemsRead - (request.registryItemsRead ?? 0)
            : null,
          bound === undefined ? 100 * (request.chains ?? 1) : bound * (request.chains ?? 1),
          bound !== undefined
            ? `${BOUNDED_NOTE}${clear4xx ? `; answered ${request.status}` : ''}`
            : request.status >= 400
              ? `answered ${request.status}: ${request.error ?? ''}`.trim()
              : 'running totals',
        ),
      );
    }
    if (request.egressTimeoutMs !== undefined)
      budgets.push(
        check(
          'http',
          FAMILIES.egress,
          `handler p99 (ms) within its send's timeout: ${request.id}`,
          request.handlerMs.p99,
          1.3 * (request.directMs?.p99 ?? 0) + request.egressTimeoutMs + 50,
        ),
      );
    else if (request.directMs && request.directMs.p50 > 0)
      budgets.push(
        check(
          'http',
          FAMILIES.overhead,
          `handler p50 (ms) against 1.3 x direct + 60 us per record: ${request.id}`,
          request.handlerMs.p50,
          1.3 * request.directMs.p50 + 0.06 * request.records,
        ),
      );
  }
  for (const entry of http.depth)
    budgets.push(
      check(
        'http',
        FAMILIES.depth,
        `page cost at depth: ${entry.deep} / ${entry.first}`,
        entry.ratio,
        1.2,
        entry.ratio === null ? `the deep page (${entry.pageWanted}) answered ${entry.deepStatus}` : undefined,
      ),
    );
  budgets.push(
    check(
      'http',
      FAMILIES.scan,
      'Scan calls over every request',
      http.requests.reduce((sum, request) => sum + request.scans, 0),
      0,
    ),
  );
  budgets.push(
    check(
      'http',
      FAMILIES.serverErrors,
      'requests failed or answered 5xx',
      http.requests.filter((request) => request.status === 0 || request.status >= 500).length,
      0,
    ),
  );
  // Results written before issue 25 have neither figure.
  if (http.coverage)
    budgets.push(
      check(
        'http',
        FAMILIES.coverage,
        'served routes without a bench request',
        http.coverage.uncovered.length,
        0,
        http.coverage.uncovered.length > 0 ? `measured by their route example only: ${http.coverage.uncovered.join(', ')}` : undefined,
      ),
    );
  for (const entry of http.notServed ?? [])
    budgets.push(
      check(
        'http',
        FAMILIES.notServed,
        `DynamoDB calls of a 501: ${entry.id}`,
        entry.status === 501 ? entry.callCount : null,
        0,
        entry.status === 501 ? undefined : `answered ${entry.status}${entry.error ? `: ${entry.error}` : ''}`,
      ),
    );
  return budgets;
}

/** Cold start budgets, as multiples of the same run's SDK floor. */
export const COLD_MEDIAN_OVER_FLOOR = 1.75;
export const COLD_EACH_OVER_FLOOR = 2.15;

export function coldBudgets(cold: ColdResult): Budget[] {
  const routeBundles = cold.bundles.filter((bundle) => bundle.kind === 'route');
  // Relative to the floor measured in the same run: a bundle of the DynamoDB document client alone. As
  // multiples of it, not milliseconds over it: import time scales with the machine's CPU (the floor was
  // 39.5 ms on one 2-core host and 82.3 on another, every bundle about twice as slow with it), so an
  // offset in ms set on one host passes or fails on another whatever the code. The multiples are the
  // offsets first set (floor + 30 ms, + 45 ms) at the floor then measured, about 40 ms.
  const floor = cold.sdkFloor?.overEmptyMs;
  const note = floor === undefined ? 'no SDK floor was measured in this run' : `SDK floor ${floor} ms over empty`;
  return [
    check(
      'cold',
      FAMILIES.coldMedian,
      'cold start: median over the route bundles (ms over empty)',
      cold.routes.medianOverEmptyMs,
      COLD_MEDIAN_OVER_FLOOR * (floor ?? 0),
      note,
    ),
    ...routeBundles.map((bundle) =>
      check(
        'cold',
        FAMILIES.coldEach,
        `cold start: ${bundle.handler} (ms over empty)`,
        bundle.importMs.overEmpty,
        COLD_EACH_OVER_FLOOR * (floor ?? 0),
        note,
      ),
    ),
  ];
}

/** The load bench's JSON (scripts/bench/load.ts). */
export interface LoadResult {
  errors: number;
  rssAfterSettleOverStart: number;
  phases: { connections: number; requestsPerSecond?: number; errors: number; [key: string]: unknown }[];
  [key: string]: unknown;
}

export function loadBudgets(load: LoadResult): Budget[] {
  return [
    check('load', FAMILIES.loadErrors, 'load errors over every phase', load.errors, 0),
    check('load', FAMILIES.loadMemory, 'RSS 30 s after the load / RSS at the start', load.rssAfterSettleOverStart, 1.2),
  ];
}

/** The ingest bench's JSON (scripts/bench/ingest.ts). */
export interface IngestResult {
  ratio: {
    ingestOverRawFetch: number;
    target: number;
    ingestOverSlowestStage?: number;
    slowestStage?: string;
    slowestStageSeconds?: number;
  };
  /** CPU of the ingest, the table and the node while the ingest ran, and its least wall time over the cores. */
  cpu?: { ingestProcessSeconds: number; wallSecondsAtLeast: number; cores: number } | null;
  chain?: { transactions: number; [key: string]: unknown };
  [key: string]: unknown;
}

/**
 * Ingest time over the slowest unavoidable stage, issue 27's form: max(raw fetch, table floor, CPU
 * floor), the CPU floor being the CPU the ingest, the table and the node used over the cores (on 2
 * shared cores, often the binding stage). The ingest's own CPU per transaction (what a Lambda bills) is
 * in the note.
 */
export function ingestBudgets(ingest: IngestResult): Budget[] {
  const { ratio, cpu } = ingest;
  if (ratio.ingestOverSlowestStage === undefined || ratio.slowestStageSeconds === undefined)
    return [
      check(
        'ingest',
        FAMILIES.ingestRatio,
        'ingest time / max(raw fetch, table floor, CPU floor)',
        null,
        1.3,
        'the ingest bench measured no table floor',
      ),
    ];
  const ingestSeconds = ratio.ingestOverSlowestStage * ratio.slowestStageSeconds;
  const cpuFloor = cpu?.wallSecondsAtLeast ?? 0;
  const slowest = Math.max(ratio.slowestStageSeconds, cpuFloor);
  const stage =
    cpuFloor > ratio.slowestStageSeconds
      ? `CPU floor (${cpuFloor} s on ${cpu?.cores} cores)`
      : `${ratio.slowestStage} (${ratio.slowestStageSeconds} s)`;
  const perTransaction =
    cpu && ingest.chain?.transactions
      ? `; the ingest's own CPU ${((cpu.ingestProcessSeconds * 1000) / ingest.chain.transactions).toFixed(2)} ms per transaction`
      : '';
  return [
    check(
      'ingest',
      FAMILIES.ingestRatio,
      'ingest time / max(raw fetch, table floor, CPU floor)',
      ingestSeconds / slowest,
      1.3,
      `slowest stage: ${stage}${perTransaction}`,
    ),
  ];
}

/**
 * The local follow part's lag is a figure, no longer a budget (issue 27 retired "p99 <= 1 block on a
 * 150-transaction, 2 s chain against the embedded table on 2 cores"): the deployed form's lag is the
 * lambda part's budget.
 */
export function followBudgets(_follow: FollowResult): Budget[] {
  return [];
}

export function lambdaBudgets(lambda: LambdaFollowResult): Budget[] {
  const notShown = lambda.lag.notShown > 0 ? `; ${lambda.lag.notShown} blocks never shown` : '';
  const undetected = lambda.deposits.sent - lambda.deposits.detected;
  const q = lambda.continuity.queue;
  const broken =
    lambda.continuity.tableBlocks.missing.length +
    lambda.continuity.tableBlocks.wrongHash.length +
    q.duplicates.length +
    q.missing.length +
    q.outOfOrder +
    q.brokenLinks +
    lambda.continuity.cursorWentBack;
  return [
    check(
      'lambda',
      FAMILIES.lambdaLag,
      'lambda block-to-API lag p99 (blocks)',
      lambda.lag.notShown > 0 ? null : lambda.lag.blocks.p99,
      lambda.budget.p99LagBlocks,
      `${lambda.lag.seconds.p99} s; ${lambda.invocations.handovers} handovers${notShown}`,
    ),
    // (Base mode sends no deposits: the generated chain has no orders.)
    ...(lambda.budget.p99DepositSeconds === null
      ? []
      : [
          check(
            'lambda',
            FAMILIES.lambdaDeposit,
            'lambda deposit-to-detected p99 (seconds)',
            undetected > 0 ? null : lambda.deposits.seconds.p99,
            lambda.budget.p99DepositSeconds,
            undetected > 0 ? `${undetected} of ${lambda.deposits.sent} deposits never detected` : `${lambda.deposits.sent} deposits`,
          ),
        ]),
    ...(lambda.burst && lambda.budget.burstRecoveryBlocks !== null
      ? [
          check(
            'lambda',
            FAMILIES.lambdaLag,
            `lambda blocks after a ${lambda.burst.transactions}-transaction burst until the lag is back`,
            lambda.burst.recoveryBlocks,
            lambda.budget.burstRecoveryBlocks,
            `block ${lambda.burst.block}`,
          ),
        ]
      : []),
    // (Results from before webhooks carry none.)
    ...(lambda.webhooks
      ? [
          check(
            'lambda',
            FAMILIES.lambdaWebhook,
            'lambda webhook event-to-delivered p99 (seconds)',
            lambda.webhooks.expected === 0 ? null : lambda.webhooks.seconds.p99,
            lambda.budget.p99WebhookSeconds ?? 5,
            `${lambda.webhooks.delivered} of ${lambda.webhooks.expected} items`,
          ),
          check(
            'lambda',
            FAMILIES.lambdaWebhook,
            'lambda webhook blocks delivered wrong (missing, extra or outside the filter)',
            lambda.webhooks.wrongCountBlocks.length + lambda.webhooks.unexpected + lambda.webhooks.badSignatures,
            0,
          ),
        ]
      : []),
    check('lambda', FAMILIES.lambdaContinuity, 'lambda blocks lost, repeated or out of order', broken, 0),
    // A Lambda past its memory size is killed. (Results from before the measure carry none.)
    ...(lambda.ingestPeakRssMb != null
      ? [
          check(
            'lambda',
            FAMILIES.lambdaContinuity,
            'lambda ingest environment peak memory (MB)',
            lambda.ingestPeakRssMb,
            lambda.settings.memoryMb,
            lambda.burst ? `the ${lambda.burst.transactions}-transaction burst included` : undefined,
          ),
        ]
      : []),
    // (Older results carry no behindAtEnd: their cursor ended at the head or the check above failed.)
    check('lambda', FAMILIES.lambdaLag, 'lambda blocks still behind the head at the end', lambda.continuity.behindAtEnd ?? 0, 0),
    check(
      'lambda',
      FAMILIES.lambdaContinuity,
      'lambda invocations failed or timed out',
      lambda.invocations.errors.length + lambda.invocations.timeouts,
      0,
      lambda.invocations.errors.length > 0 ? lambda.invocations.errors.slice(0, 2).join('; ') : undefined,
    ),
  ];
}

/** One line per family: how many pass, the worst value, the failing names. */
export function summarise(
  budgets: readonly Budget[],
): { family: string; total: number; failed: number; worst: Budget | undefined; failing: string[] }[] {
  const families = new Map<string, Budget[]>();
  for (const budget of budgets) families.set(budget.family, [...(families.get(budget.family) ?? []), budget]);
  return [...families].map(([family, entries]) => {
    const failing = entries.filter((entry) => !entry.pass);
    const worst = [...entries].sort((a, b) => excess(b) - excess(a))[0];
    return { family, total: entries.length, failed: failing.length, worst, failing: failing.map((entry) => entry.name) };
  });
}

/** How far over its budget an entry is (a missing value counts as the farthest). */
function excess(budget: Budget): number {
  if (budget.value === null) return Number.POSITIVE_INFINITY;
  return budget.budget > 0 ? budget.value / budget.budget : budget.value > 0 ? Number.MAX_VALUE / 2 + budget.value : 0;
}

export function webhooksBudgets(webhooks: WebhooksResult): Budget[] {
  const largest = webhooks.runs.find((run) => run.webhooks === 10_000);
  return [
    check(
      'webhooks',
      FAMILIES.webhookMatching,
      'a 200-transaction block at 10,000 webhooks, p99 ms',
      largest?.blockMs.p99 ?? null,
      webhooks.blockTimeMs,
    ),
    check(
      'webhooks',
      FAMILIES.webhookMatching,
      'the 3,000-transaction burst at 10,000 webhooks, ms',
      largest?.burstMs.total ?? null,
      webhooks.blockTimeMs,
    ),
  ];
}
