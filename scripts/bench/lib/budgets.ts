/**
 * The budgets of the benchmark suite (issue 13) evaluated on the figures of its parts. Pure: each
 * function takes a part's result and returns `{ name, value, budget, pass }` entries (value <= budget
 * passes; a null value, a figure that could not be taken, fails). test/scripts/bench/ checks them.
 */
import type { ColdResult } from '../cold';
import type { FollowResult } from '../follow';
import type { HttpResult } from '../http';
import type { LambdaFollowResult } from '../lambda-follow';

export type Part = 'http' | 'cold' | 'ingest' | 'follow' | 'lambda' | 'load';

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
  wasted: 'Items read neither returned nor needed <= 0.1 x items returned + 2',
  missingKeys: 'No BatchGetItem asks for a key that does not exist',
  readUnits: 'Read units per page <= 3 x the returned records read once by one Query + 1',
  depth: 'Page cost independent of depth: a deep page <= 1.2 x the first',
  aggregate: 'An aggregate by day over the busy token reads <= 100 items per chain',
  overhead: 'Handler p50 <= 1.3 x the direct DynamoDB p50 of the same requests',
  scan: 'No Scan, anywhere',
  serverErrors: 'Every request answered without a server error',
  coverage: 'Every served route of shared/routes.ts has a bench request of its own',
  notServed: 'A route not served answers 501 without a DynamoDB call',
  coldMedian: 'Cold start: median import <= 60 ms over an empty module',
  coldEach: 'Cold start: every bundle <= 80 ms over an empty module',
  loadErrors: 'Load: 0 errors',
  loadMemory: 'Load: memory 30 s after the load within 20% of its start',
  ingestRatio: 'Ingest time <= 1.3 x max(raw fetch, table floor), both measured in the same run',
  followLag: 'Following a busy chain (150 transactions every 2 s): lag p99 <= 1 block',
  lambdaLag: 'The deployed ingest (Lambda, re-armed by its schedule, handing over): block-to-API lag p99 <= 2 blocks',
  lambdaDeposit: 'The deployed ingest: deposit sent -> order shows it detected, p99 <= 5 s',
  lambdaContinuity: 'The deployed ingest across handovers: no block lost or repeated, no invocation failed',
} as const;

/**
 * A page that merges key ranges read in parallel (two token standards: one range each): each range
 * reads up to a page, since how the page splits between them is known only once both are read.
 */
export function mergesRanges(request: Pick<HttpResult['requests'][number], 'detail'>): boolean {
  const firstWave = new Set(request.detail.filter((line) => line.startsWith('#1 Query ')).map((line) => line.split(':')[0]));
  return firstWave.size > 1;
}

const MERGE_NOTE =
  'a merge of two ranges read in parallel: each reads up to a page, the split is unknown before reading; fewer would take a copy per pair of standards (writes) or a third round trip (docs/decisions/explorer.md, Filters)';
const RESOLVE_NOTE = 'resolve: whether the key exists is the answer (a hash is a transaction or a block; an address may have no item)';

export function httpBudgets(http: HttpResult): Budget[] {
  const budgets: Budget[] = [];
  for (const request of http.requests) {
    const answered = request.status > 0 && request.status < 400;
    if (request.kind === 'list' && answered) {
      budgets.push(check('http', FAMILIES.roundTrips, `round trips in sequence: ${request.id}`, request.roundTrips, 2));
      const wastedNote = request.wastedReads > request.wastedAllowance && mergesRanges(request) ? MERGE_NOTE : undefined;
      budgets.push(check('http', FAMILIES.wasted, `wasted reads: ${request.id}`, request.wastedReads, request.wastedAllowance, wastedNote));
      budgets.push(check('http', FAMILIES.readUnits, `read units: ${request.id}`, request.readUnits, 3 * request.minimumReadUnits + 1));
    }
    if (request.calls.BatchGetItemCommand)
      budgets.push(
        check(
          'http',
          FAMILIES.missingKeys,
          `BatchGetItem keys not found: ${request.id}`,
          request.missingBatchGetKeys,
          0,
          request.missingBatchGetKeys > 0 && request.routeId.startsWith('Resolve') ? RESOLVE_NOTE : undefined,
        ),
      );
    if (request.kind === 'aggregate')
      budgets.push(
        check(
          'http',
          FAMILIES.aggregate,
          `aggregate items read: ${request.id}`,
          request.status > 0 ? request.itemsRead : null,
          100,
          request.status >= 400 ? `answered ${request.status}: ${request.error ?? ''}`.trim() : undefined,
        ),
      );
    if (request.handlerOverDirect !== null)
      budgets.push(check('http', FAMILIES.overhead, `handler p50 / direct p50: ${request.id}`, request.handlerOverDirect, 1.3));
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

export function coldBudgets(cold: ColdResult): Budget[] {
  const routeBundles = cold.bundles.filter((bundle) => bundle.kind === 'route');
  // The issue's budgets stay as they are; when the SDK floor alone breaks one, the verdict says so.
  const floor = cold.sdkFloor?.overEmptyMs;
  const note = (budget: number) =>
    floor !== undefined && floor > budget
      ? `blocked: the DynamoDB document client alone imports in ${floor} ms over empty (scripts/bench/lib/sdk-floor.ts)`
      : undefined;
  return [
    check(
      'cold',
      FAMILIES.coldMedian,
      'cold start: median over the route bundles (ms over empty)',
      cold.routes.medianOverEmptyMs,
      60,
      note(60),
    ),
    ...routeBundles.map((bundle) =>
      check('cold', FAMILIES.coldEach, `cold start: ${bundle.handler} (ms over empty)`, bundle.importMs.overEmpty, 80, note(80)),
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
  ratio: { ingestOverRawFetch: number; target: number; ingestOverSlowestStage?: number; slowestStage?: string };
  [key: string]: unknown;
}

export function ingestBudgets(ingest: IngestResult): Budget[] {
  const value = ingest.ratio.ingestOverSlowestStage ?? null;
  return [
    check(
      'ingest',
      FAMILIES.ingestRatio,
      'ingest time / max(raw fetch, table floor)',
      value,
      1.3,
      value === null ? 'the ingest bench measured no table floor' : `slowest stage: ${ingest.ratio.slowestStage}`,
    ),
  ];
}

export function followBudgets(follow: FollowResult): Budget[] {
  const notDone = follow.lag.notDone > 0 ? `; ${follow.lag.notDone} blocks never done (counted at their lag when the bench stopped)` : '';
  return [
    check(
      'follow',
      FAMILIES.followLag,
      'follow lag p99 (blocks)',
      follow.lag.blocks.p99,
      follow.budget.p99LagBlocks,
      `${follow.lag.seconds.p99} s; node traces ${follow.settings.nodeTraces}${notDone}`,
    ),
  ];
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
    lambda.continuity.cursorWentBack +
    (lambda.continuity.cursorAtEnd === lambda.chain.head ? 0 : 1);
  return [
    check(
      'lambda',
      FAMILIES.lambdaLag,
      'lambda block-to-API lag p99 (blocks)',
      lambda.lag.notShown > 0 ? null : lambda.lag.blocks.p99,
      lambda.budget.p99LagBlocks,
      `${lambda.lag.seconds.p99} s; ${lambda.invocations.handovers} handovers${notShown}`,
    ),
    check(
      'lambda',
      FAMILIES.lambdaDeposit,
      'lambda deposit-to-detected p99 (seconds)',
      undetected > 0 ? null : lambda.deposits.seconds.p99,
      lambda.budget.p99DepositSeconds,
      undetected > 0 ? `${undetected} of ${lambda.deposits.sent} deposits never detected` : `${lambda.deposits.sent} deposits`,
    ),
    check('lambda', FAMILIES.lambdaContinuity, 'lambda blocks lost, repeated or out of order', broken, 0),
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
