/**
 * Platform configuration: every environment variable the HTTP platform and the table client read,
 * parsed once with valibot. Each domain keeps its own settings in `shared/<domain>/config.ts`,
 * built with the same `readEnv` helper so that a bad value fails loudly at cold start.
 */
import * as v from 'valibot';

/** The table name used when `TABLE_NAME` is not set (local runs and tests). */
export const DEFAULT_TABLE_NAME = 'chain-data';

const platformSchema = v.object({
  TABLE_NAME: v.optional(v.pipe(v.string(), v.minLength(3), v.maxLength(255)), DEFAULT_TABLE_NAME),
  /** Set locally (dynalite) and in tests; unset in AWS. */
  DYNAMODB_ENDPOINT: v.optional(v.union([v.literal(''), v.pipe(v.string(), v.url())])),
  AWS_REGION: v.optional(v.string(), 'us-east-1'),
  /** Comma-separated list of allowed CORS origins; `*` allows any origin. */
  CORS_ALLOWED_ORIGINS: v.optional(v.string(), '*'),
  /** The cold history's S3 bucket (docs/decisions/cold-history.md); unset or empty: the tier is off. */
  COLD_BUCKET: v.optional(
    v.union([v.literal(''), v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name'))]),
  ),
  /** An S3-compatible server for the cold store (local runs); unset in AWS. */
  COLD_STORE_ENDPOINT: v.optional(v.union([v.literal(''), v.pipe(v.string(), v.url())])),
});

export type PlatformConfig = {
  tableName: string;
  dynamodbEndpoint: string | undefined;
  region: string;
  corsAllowedOrigins: string[];
  coldBucket: string | undefined;
  coldStoreEndpoint: string | undefined;
};

/**
 * Parses `env` with a valibot object schema and throws one readable error naming every bad variable.
 */
export function readEnv<TSchema extends v.GenericSchema<Record<string, unknown>, Record<string, unknown>>>(
  schema: TSchema,
  env: Record<string, string | undefined> = process.env,
): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, env);
  if (!result.success) {
    const problems = result.issues.map((issue) => `${v.getDotPath(issue) ?? '?'}: ${issue.message}`);
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  return result.output;
}

/** How long a container keeps the details its pages joined, by default (shared/db/kept-items.ts). */
export const DEFAULT_DETAILS_CACHE_SECONDS = 30;

/** A setting of how long a container keeps the details its pages joined: whole seconds, 0 (never) to 3600. */
export const detailsCacheSetting = () =>
  v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[0-9]{1,4}$/, 'must be a whole number of seconds from 0 to 3600'),
      v.transform(Number),
      v.maxValue(3600, 'must be a whole number of seconds from 0 to 3600'),
    ),
    String(DEFAULT_DETAILS_CACHE_SECONDS),
  );

export function loadPlatformConfig(env: Record<string, string | undefined> = process.env): PlatformConfig {
  const raw = readEnv(platformSchema, env);
  return {
    tableName: raw.TABLE_NAME,
    dynamodbEndpoint: raw.DYNAMODB_ENDPOINT || undefined,
    region: raw.AWS_REGION,
    corsAllowedOrigins: raw.CORS_ALLOWED_ORIGINS.split(',')
      .map((origin) => origin.trim())
      .filter((origin) => origin.length > 0),
    coldBucket: raw.COLD_BUCKET || undefined,
    coldStoreEndpoint: raw.COLD_STORE_ENDPOINT || undefined,
  };
}

/** Read at call time, so that tests and the local gateway can set the environment before first use. */
export function platformConfig(): PlatformConfig {
  return loadPlatformConfig(process.env);
}
