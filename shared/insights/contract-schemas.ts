/**
 * Request and response schemas of I11 (contract ABI and decoding) and I12 (the Insight v1 routes this
 * service does not serve: 501), beside schemas.ts, whose path and chain parameters they reuse. Shapes as
 * in the published client's types (`@thirdweb-dev/insight`, `types.gen.d.ts`). Ids of endpoints and
 * access patterns: see docs/access-patterns.md; choices: docs/decisions/insights.md ("Contract ABI and
 * decoding") and docs/decisions/clients.md.
 */
import * as v from 'valibot';
import { refuseInheritedNames } from '../http/inherited-names';
import { contractEventsPath, resolveQuery } from './schemas';

// ---------------------------------------------------------------------------------------------------
// I11a GET /v1/contracts/abi/{contractAddress}, I11b POST /v1/decode/{contractAddress}

/** `{contractAddress}`: a 0x address or a registered name. */
export const contractAbiPath = contractEventsPath;
/** The chains only (`chain_id`, the deprecated `chain`; or the Host header's first label). */
export const contractAbiQuery = resolveQuery;

/** An ABI parameter as solc writes it (tuples carry `components`, which repeat this shape). */
const abiParameterSchema = v.looseObject({ name: v.string(), type: v.string(), indexed: v.optional(v.boolean()) });

/** One item of a JSON ABI: a function (with outputs and state mutability) or an event. */
export const abiItemSchema = v.looseObject({
  type: v.picklist(['function', 'event']),
  name: v.string(),
  inputs: v.array(abiParameterSchema),
  outputs: v.optional(v.array(abiParameterSchema)),
  stateMutability: v.optional(v.picklist(['pure', 'view', 'nonpayable', 'payable'])),
  anonymous: v.optional(v.boolean()),
});
export type AbiItemJson = v.InferOutput<typeof abiItemSchema>;

/** The ABI itself (a JSON ABI array), as Insight answers it and as viem and thirdweb read it. */
export const contractAbiResponse = v.array(abiItemSchema);

/** At most this many transactions plus logs per decode request (the body is at most 64 KiB anyway). */
export const MAX_DECODE_ITEMS = 1000;

const hexData = v.pipe(v.string(), v.regex(/^0x(?:[0-9a-fA-F]{2})*$/, 'must be 0x-prefixed hex of whole bytes'));
const topic = v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 32-byte topic (0x + 64 hex digits)'));

/** A transaction to decode: its calldata (other fields of a transaction object are ignored). */
const decodeTransactionInput = v.looseObject({ data: hexData });
/** A log to decode: its topics (topic 0 first) and data. */
const decodeLogInput = v.looseObject({
  data: v.optional(hexData),
  topics: v.pipe(v.array(topic), v.minLength(1, 'must hold topic 0'), v.maxLength(4, 'at most 4 topics')),
});

export const decodeBody = v.pipe(
  v.strictObject({
    transactions: v.optional(v.array(decodeTransactionInput)),
    logs: v.optional(v.array(decodeLogInput)),
  }),
  v.check(
    (body) => (body.transactions?.length ?? 0) + (body.logs?.length ?? 0) > 0,
    'give at least one of transactions or logs, each a non-empty array',
  ),
  v.check(
    (body) => (body.transactions?.length ?? 0) + (body.logs?.length ?? 0) <= MAX_DECODE_ITEMS,
    `at most ${MAX_DECODE_ITEMS} transactions and logs in all`,
  ),
);
export type DecodeBody = v.InferOutput<typeof decodeBody>;

export const decodeResponse = v.strictObject({
  data: v.strictObject({
    transactions: v.array(
      v.strictObject({ data: v.string(), function_name: v.optional(v.string()), args: v.optional(v.array(v.unknown())) }),
    ),
    logs: v.array(
      v.strictObject({
        data: v.optional(v.string()),
        topics: v.array(v.string()),
        event_name: v.optional(v.string()),
        args: v.optional(v.array(v.unknown())),
      }),
    ),
  }),
});
export type DecodeResponse = v.InferOutput<typeof decodeResponse>;

// ---------------------------------------------------------------------------------------------------
// I12: the routes whose data is outside the chain (501)

/** Any path parameter of those routes (each route has its own; all optional here, one handler serves them all). */
export const notServedPath = v.looseObject({
  contractAddress: v.optional(v.string()),
  contract_address: v.optional(v.string()),
  token_id: v.optional(v.string()),
  webhook_id: v.optional(v.string()),
});

/** Any query: the answer is 501 whatever the client sends (only inherited names are refused, as everywhere). */
export const notServedQuery = v.pipe(v.unknown(), refuseInheritedNames('is not a query parameter'), v.looseObject({}));
