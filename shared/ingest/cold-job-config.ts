/**
 * Settings of the cold history job (functions/ingest/compact-cold-history.ts; docs/decisions/cold-history.md),
 * read once at cold start; the stack sets them when its cold tier is on (context `coldAfterDays`).
 */
import * as v from 'valibot';
import { loadPlatformConfig, readEnv } from '../config';
import { COLD_MARGIN_DAYS, integer } from './config';

const schema = v.object({
  /** The window: the job compacts a block once it is this many days old. Required: the job runs only with the tier on. */
  COLD_AFTER_DAYS: integer(1, 36_500),
  COLD_MARGIN_DAYS,
  /** Most blocks a span compacts: a range gets a part per span it has entries in (fewer, longer spans: fewer pointers). */
  COLD_SPAN_BLOCKS: v.optional(integer(1, 1_000_000), '1800'),
  /** Runs a span is split into by range (memory: each run holds only its group's items). */
  COLD_RANGE_GROUPS: v.optional(integer(1, 1_024), '16'),
  /** No span starts when less than this remains of the invocation (a span's time, with room). */
  COLD_SPAN_ALLOWANCE_MS: v.optional(integer(0, 900_000), '300000'),
  /**
   * The group worker (its name or ARN; the stack's CompactColdHistoryGroup): a span's groups run at once,
   * one invocation each. Unset: here, one after the other.
   */
  COLD_GROUP_FUNCTION: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, 'must name a function'))),
});

export interface ColdJobConfig {
  bucket: string;
  endpoint?: string;
  afterSeconds: number;
  spanBlocks: number;
  rangeGroups: number;
  spanAllowanceMs: number;
  groupFunction?: string;
}

/**
 * The job's settings. The bucket it writes (COLD_BUCKET, which the routes read too) and a local endpoint
 * (COLD_STORE_ENDPOINT) are the platform configuration's, the bucket required here.
 */
export function loadColdJobConfig(env: Record<string, string | undefined> = process.env): ColdJobConfig {
  const raw = readEnv(schema, env);
  const { coldBucket, coldStoreEndpoint } = loadPlatformConfig(env);
  if (coldBucket === undefined)
    throw new Error('Invalid configuration: COLD_BUCKET: must be set (the cold history job writes its parts there)');
  return {
    bucket: coldBucket,
    ...(coldStoreEndpoint ? { endpoint: coldStoreEndpoint } : {}),
    afterSeconds: raw.COLD_AFTER_DAYS * 86_400,
    spanBlocks: raw.COLD_SPAN_BLOCKS,
    rangeGroups: raw.COLD_RANGE_GROUPS,
    spanAllowanceMs: raw.COLD_SPAN_ALLOWANCE_MS,
    ...(raw.COLD_GROUP_FUNCTION ? { groupFunction: raw.COLD_GROUP_FUNCTION } : {}),
  };
}

const whole = (min: number) => v.pipe(v.number(), v.integer(), v.minValue(min));

/** The event each chain's schedule sends (the ingest's; only `chainId` is read here). */
const eventSchema = v.object({ chainId: whole(1) });

/** The task the job sends its group worker (cold-history.ts ColdGroupTask). */
const groupTaskSchema = v.pipe(
  v.object({
    chainId: whole(1),
    fromBlock: whole(0),
    toBlock: whole(0),
    index: whole(0),
    count: whole(1),
    now: whole(0),
    partEntries: v.optional(whole(1)),
    partBytes: v.optional(whole(1)),
  }),
  v.check((task) => task.index < task.count, 'index must be below count'),
  v.check((task) => task.toBlock >= task.fromBlock, 'toBlock must not be below fromBlock'),
);

export class InvalidColdJobEventError extends Error {
  override name = 'InvalidColdJobEventError';
}

/** `input` as `schema` reads it, or an InvalidColdJobEventError naming `what` arrived and each field's fault. */
function parsedOrRefused<S extends v.GenericSchema>(schema: S, input: unknown, what: string, expected = ''): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  if (!result.success)
    throw new InvalidColdJobEventError(
      `Invalid cold history ${what} ${JSON.stringify(input)?.slice(0, 300)}: ${result.issues.map((issue) => `${v.getDotPath(issue) ?? `(${what})`}: ${issue.message}`).join('; ')}${expected}`,
    );
  return result.output;
}

export function parseColdJobEvent(event: unknown): { chainId: number } {
  return parsedOrRefused(eventSchema, event, 'job event', ' (expected {"chainId": number, ...})');
}

export function parseColdGroupTask(task: unknown): v.InferOutput<typeof groupTaskSchema> {
  return parsedOrRefused(groupTaskSchema, task, 'group task');
}
