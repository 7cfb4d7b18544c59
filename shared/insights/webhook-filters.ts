/**
 * A webhook's filters, as Insight takes them (`@thirdweb-dev/insight`'s `filters`):
 *
 *   { "v1.events"?: { chain_ids?, addresses, signatures? },
 *     "v1.transactions"?: { chain_ids?, from_addresses?, to_addresses?, signatures? } }
 *
 * Chain ids are strings of digits (numbers are taken too). A signature is `{ sig_hash, abi?, params? }`:
 * `sig_hash` an event's topic0 (32 bytes) or a function's selector (4 bytes); `abi` the JSON text of that
 * one event or function; `params` decoded values matched by equality, which need the `abi`. Checked here
 * beyond their shape: the `abi` is the signature's own, the params name its inputs, the chains are indexed
 * by this service, and the whole stays within the limits below (docs/decisions/webhooks.md).
 */
import { type AbiEvent, type AbiFunction, toEventSelector, toFunctionSelector } from 'viem';
import * as v from 'valibot';
import { InvalidRequestError } from '../errors';
import { indexedChains } from './chains';

export const FILTER_LIMITS = {
  chainIds: 55,
  addresses: 100,
  signatures: 20,
  params: 10,
  abiBytes: 8 * 1024,
  paramValueLength: 256,
  /** The JSON text of the whole filters object. */
  filtersBytes: 32 * 1024,
} as const;

const lowerHex = (length: number, what: string) =>
  v.pipe(
    v.string(),
    v.regex(new RegExp(`^0x[0-9a-fA-F]{${length}}$`), `${what} must be 0x and ${length} hex digits`),
    v.transform((value: string) => value.toLowerCase()),
  );

const addressList = (what: string) =>
  v.pipe(
    v.array(lowerHex(40, 'an address')),
    v.maxLength(FILTER_LIMITS.addresses, `${what}: at most ${FILTER_LIMITS.addresses} addresses`),
  );

const chainIdList = v.pipe(
  v.array(
    v.pipe(
      v.union([v.string(), v.number()], 'a chain id must be a string of digits'),
      v.transform(String),
      v.regex(/^[1-9][0-9]{0,15}$/, 'a chain id must be a positive integer'),
      v.transform(Number),
    ),
  ),
  v.maxLength(FILTER_LIMITS.chainIds, `chain_ids: at most ${FILTER_LIMITS.chainIds} chains`),
);

const signatureSchema = v.strictObject({
  sig_hash: v.pipe(
    v.string(),
    v.regex(/^0x([0-9a-fA-F]{8}|[0-9a-fA-F]{64})$/, 'sig_hash must be a topic0 (0x and 64 hex digits) or a selector (0x and 8)'),
  ),
  abi: v.optional(v.pipe(v.string(), v.maxLength(FILTER_LIMITS.abiBytes, `abi: at most ${FILTER_LIMITS.abiBytes} characters`))),
  params: v.optional(
    v.pipe(
      v.record(
        v.string(),
        v.union(
          [
            v.pipe(
              v.string(),
              v.maxLength(FILTER_LIMITS.paramValueLength, `a param value: at most ${FILTER_LIMITS.paramValueLength} characters`),
            ),
            v.pipe(v.number(), v.finite()),
          ],
          'a param value must be a string or a number',
        ),
      ),
      v.check((params) => Object.keys(params).length <= FILTER_LIMITS.params, `params: at most ${FILTER_LIMITS.params} of them`),
    ),
  ),
});

const signatureList = v.pipe(
  v.array(signatureSchema),
  v.maxLength(FILTER_LIMITS.signatures, `signatures: at most ${FILTER_LIMITS.signatures} of them`),
);

export const filtersSchema = v.pipe(
  v.strictObject({
    'v1.events': v.optional(
      v.strictObject({
        chain_ids: v.optional(chainIdList),
        addresses: v.optional(addressList('addresses')),
        signatures: v.optional(signatureList),
      }),
    ),
    'v1.transactions': v.optional(
      v.strictObject({
        chain_ids: v.optional(chainIdList),
        from_addresses: v.optional(addressList('from_addresses')),
        to_addresses: v.optional(addressList('to_addresses')),
        signatures: v.optional(signatureList),
      }),
    ),
  }),
  v.check(
    (filters) => filters['v1.events'] !== undefined || filters['v1.transactions'] !== undefined,
    'filters must have "v1.events", "v1.transactions" or both',
  ),
);

export type FiltersInput = v.InferInput<typeof filtersSchema>;

/** One signature as delivery matches it: the hash, and where given the ABI item and the params to compare. */
export interface CompiledSignature {
  hash: string;
  abi?: AbiEvent | AbiFunction;
  params?: Record<string, string>;
}

/** Filters as stored and matched (lowercase hex, chain ids as numbers, ABIs parsed). */
export interface Filters {
  events?: { chainIds: number[]; addresses: string[]; signatures: CompiledSignature[] };
  transactions?: { chainIds: number[]; fromAddresses: string[]; toAddresses: string[]; signatures: CompiledSignature[] };
}

/** A failing part of a filters object: Insight's validation detail. */
export interface FilterIssue {
  code: string;
  message: string;
  path: (string | number)[];
}

export class InvalidFiltersError extends InvalidRequestError {
  constructor(readonly issues: FilterIssue[]) {
    super(issues.map((issue) => `${['filters', ...issue.path].join('.')}: ${issue.message}`).join('; '));
  }
}

/** Checks `input` as a webhook's filters; throws InvalidFiltersError with every issue found. */
export async function compileFilters(input: unknown): Promise<Filters> {
  const text = JSON.stringify(input ?? null);
  if (Buffer.byteLength(text, 'utf8') > FILTER_LIMITS.filtersBytes)
    throw new InvalidFiltersError([
      { code: 'too_big', message: `the filters may take at most ${FILTER_LIMITS.filtersBytes} bytes of JSON`, path: [] },
    ]);
  const parsed = v.safeParse(filtersSchema, input);
  if (!parsed.success)
    throw new InvalidFiltersError(
      parsed.issues.map((issue) => ({
        code: issue.type,
        message: issue.message,
        path: (issue.path ?? []).map((item) => item.key as string | number),
      })),
    );
  const issues: FilterIssue[] = [];
  const events = parsed.output['v1.events'];
  const transactions = parsed.output['v1.transactions'];
  const filters: Filters = {};
  if (events) {
    const signatures = compileSignatures(events.signatures ?? [], 'event', ['v1.events', 'signatures'], issues);
    const addresses = events.addresses ?? [];
    if (addresses.length === 0 && signatures.length === 0)
      issues.push({ code: 'too_small', message: 'name at least one address or signature', path: ['v1.events'] });
    filters.events = { chainIds: unique(events.chain_ids ?? []), addresses: unique(addresses), signatures };
  }
  if (transactions) {
    const signatures = compileSignatures(transactions.signatures ?? [], 'function', ['v1.transactions', 'signatures'], issues);
    const fromAddresses = unique(transactions.from_addresses ?? []);
    const toAddresses = unique(transactions.to_addresses ?? []);
    if (fromAddresses.length === 0 && toAddresses.length === 0 && signatures.length === 0)
      issues.push({ code: 'too_small', message: 'name at least one address or signature', path: ['v1.transactions'] });
    filters.transactions = { chainIds: unique(transactions.chain_ids ?? []), fromAddresses, toAddresses, signatures };
  }
  const chains = unique([...(filters.events?.chainIds ?? []), ...(filters.transactions?.chainIds ?? [])]);
  if (chains.length > 0) {
    const indexed = await indexedChains(chains);
    for (const [part, list] of [
      ['v1.events', filters.events?.chainIds ?? []],
      ['v1.transactions', filters.transactions?.chainIds ?? []],
    ] as const) {
      for (const chainId of list)
        if (!indexed.has(chainId))
          issues.push({ code: 'invalid_chain', message: `chain ${chainId} is not indexed by this service`, path: [part, 'chain_ids'] });
    }
  }
  if (issues.length > 0) throw new InvalidFiltersError(issues);
  return filters;
}

function compileSignatures(
  signatures: readonly v.InferOutput<typeof signatureSchema>[],
  type: 'event' | 'function',
  path: (string | number)[],
  issues: FilterIssue[],
): CompiledSignature[] {
  const compiled: CompiledSignature[] = [];
  for (const [index, signature] of signatures.entries()) {
    const at = [...path, index];
    const hash = signature.sig_hash.toLowerCase();
    const expectedLength = type === 'event' ? 66 : 10;
    if (hash.length !== expectedLength) {
      issues.push({
        code: 'invalid_sig_hash',
        message:
          type === 'event'
            ? 'an event signature is its topic0 (0x and 64 hex digits)'
            : 'a transaction signature is its selector (0x and 8 hex digits)',
        path: [...at, 'sig_hash'],
      });
      continue;
    }
    const entry: CompiledSignature = { hash };
    if (signature.abi !== undefined) {
      const abi = parseAbiItem(signature.abi, type);
      if (typeof abi === 'string') {
        issues.push({ code: 'invalid_abi', message: abi, path: [...at, 'abi'] });
        continue;
      }
      const own = type === 'event' ? toEventSelector(abi as AbiEvent) : toFunctionSelector(abi as AbiFunction);
      if (own.toLowerCase() !== hash) {
        issues.push({ code: 'invalid_abi', message: `the abi's ${type} has the hash ${own}, not sig_hash`, path: [...at, 'abi'] });
        continue;
      }
      entry.abi = abi;
    }
    if (signature.params !== undefined && Object.keys(signature.params).length > 0) {
      if (!entry.abi) {
        issues.push({ code: 'missing_abi', message: 'params need the abi to decode the values they match', path: [...at, 'params'] });
        continue;
      }
      const names = new Set((entry.abi.inputs ?? []).map((input) => input.name).filter((name) => name));
      const unknown = Object.keys(signature.params).filter((name) => !names.has(name));
      if (unknown.length > 0) {
        issues.push({ code: 'unknown_param', message: `the abi has no input named ${unknown.join(', ')}`, path: [...at, 'params'] });
        continue;
      }
      entry.params = Object.fromEntries(Object.entries(signature.params).map(([name, value]) => [name, String(value)]));
    }
    compiled.push(entry);
  }
  return compiled;
}

/** The ABI item of `text` (JSON of one event or function), or why it is not one. */
function parseAbiItem(text: string, type: 'event' | 'function'): AbiEvent | AbiFunction | string {
  let item: unknown;
  try {
    item = JSON.parse(text);
  } catch {
    return 'abi must be the JSON text of one ABI item';
  }
  if (Array.isArray(item) && item.length === 1) item = item[0];
  const shape = v.safeParse(
    v.looseObject({
      type: v.literal(type),
      name: v.pipe(v.string(), v.regex(/^[A-Za-z_$][A-Za-z0-9_$]{0,127}$/)),
      inputs: v.pipe(
        v.array(v.looseObject({ type: v.pipe(v.string(), v.regex(/^[a-z0-9[\]]+$|^tuple/)), name: v.optional(v.string()) })),
        v.maxLength(32),
      ),
    }),
    item,
  );
  if (!shape.success) return `abi must be one ${type} item (type "${type}", a name and its inputs)`;
  try {
    (type === 'event' ? toEventSelector : toFunctionSelector)(shape.output as never);
  } catch {
    return `abi is not a valid ${type}`;
  }
  return shape.output as unknown as AbiEvent | AbiFunction;
}

const unique = <T>(values: readonly T[]): T[] => [...new Set(values)];
