/**
 * The error bodies of each group (what `errorBody` in groups.ts builds), as valibot schemas: the
 * OpenAPI documents describe every error response with them, and a test checks that `errorBody`'s
 * output satisfies them.
 */
import * as v from 'valibot';
import type { ApiGroup } from './groups';

/** Blockscout's 422: one entry per failing parameter. */
export const explorerValidationErrorBody = v.strictObject({
  errors: v.array(
    v.strictObject({
      title: v.string(),
      source: v.strictObject({ pointer: v.string() }),
      detail: v.string(),
    }),
  ),
});

/** Blockscout's other errors (404, 405, 500...). */
export const explorerErrorBody = v.strictObject({ message: v.string() });

/** thirdweb Insight: every error. */
export const insightsErrorBody = v.strictObject({ error: v.string() });

/** B3 (orders and collections): every error, the HTTP status repeated. */
export const b3ErrorBody = v.strictObject({
  success: v.literal(false),
  message: v.string(),
  statusCode: v.pipe(v.number(), v.integer(), v.minValue(400), v.maxValue(599)),
});

type AnySchema = v.GenericSchema<unknown, unknown>;

/** A group's error bodies: the one of its validation status, and the one of every other error. */
export const ERROR_BODIES: Record<ApiGroup, { validation: AnySchema; other: AnySchema }> = {
  explorer: { validation: explorerValidationErrorBody, other: explorerErrorBody },
  insights: { validation: insightsErrorBody, other: insightsErrorBody },
  orders: { validation: b3ErrorBody, other: b3ErrorBody },
  collections: { validation: b3ErrorBody, other: b3ErrorBody },
};
