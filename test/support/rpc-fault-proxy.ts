/**
 * A JSON-RPC fault proxy any test can put between a client and a real node (anvil): every call is
 * forwarded, and the faults the test asks for are injected on the way, each for the methods it names
 * and a number of times (Infinity: never stop).
 *
 *   const proxy = await startRpcProxy(anvil.rpcUrl);
 *   proxy.inject({ kind: 'refuse', form: 'rpc-32600', method: 'debug_traceBlockByNumber', count: Infinity });
 *   proxy.inject({ kind: 'batchLimit', max: 10, form: 'error-object' });
 *   ... createChainClient(proxy.url) ...
 *   proxy.served.refuse   // faults served so far, by kind
 *
 * Faults (`Fault`): per-method refusals in the forms real providers use (`REFUSAL_FORMS`), any other
 * JSON-RPC error (-32000 "header not found" ...), 429 / 503
 * with or without Retry-After, connection resets (before the answer, or in the middle of it),
 * requests never answered, malformed JSON, partial batch answers (entries dropped), a batch limit
 * (batches over N refused in a chosen form), oversized answers (entries of unknown or repeated ids,
 * padding), a transform of a method's results (strip or rename fields), slow answers, and a whole
 * request answered with any HTTP status and body (`httpError`: an outage). A rule with `block` applies
 * to the calls of that block only (their first parameter), e.g. one block's debug_traceBlockByNumber.
 *
 * The older counters (`plan`: http429, hang, malformedJson, wrongBlockReceipts, unsupportedMethods,
 * delayMs, serialTraceMs) still work as before.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface HttpProxy {
  url: string;
  close(): Promise<void>;
}

/** Which calls a fault applies to: a method, several, or (absent) every call. */
export type MethodMatch = string | readonly string[] | undefined;

/** How a node refuses a method: a JSON-RPC error code in the entry, or an HTTP status for the whole request. */
export const REFUSAL_FORMS = [
  'rpc-32601',
  'rpc-32600',
  'rpc-32000',
  'rpc-32603',
  'http-400',
  'http-403',
  'http-404',
  'http-405',
  'http-500',
  'http-501',
] as const;
export type RefusalForm = (typeof REFUSAL_FORMS)[number];

/** How a node refuses a batch over its limit. */
export const BATCH_LIMIT_FORMS = ['http-413', 'error-object', 'error-entries', 'excess-entries', 'first-entry', 'invalid-request'] as const;
export type BatchLimitForm = (typeof BATCH_LIMIT_FORMS)[number];

export type Fault =
  /** The method is refused, worded as real providers do (see `refusal`). */
  | { kind: 'refuse'; form: RefusalForm }
  /** The call answered with this JSON-RPC error (e.g. -32000 "header not found" from a node behind its peers). */
  | { kind: 'error'; code: number; message: string }
  /** The whole request answered 429 or 503, with Retry-After when given (seconds or an HTTP date). */
  | { kind: 'rateLimit'; status: 429 | 503; retryAfter?: string }
  /** The connection destroyed: before any answer, or after half of the answer was sent. */
  | { kind: 'reset'; when?: 'before' | 'midAnswer' }
  /** Never answered: the client times out. */
  | { kind: 'hang' }
  /** A 200 whose body is cut JSON. */
  | { kind: 'malformed' }
  /** A batch answered without these entries (default: the last matching one). */
  | { kind: 'drop'; entries?: number }
  /** Batches of more than `max` calls refused in `form`. */
  | { kind: 'batchLimit'; max: number; form: BatchLimitForm }
  /** Extra entries: of an id nobody asked for, a repeat of an id with another call's result, or bytes of padding. */
  | { kind: 'oversized'; extra: 'unknownId' | 'duplicateId' | 'padding'; bytes?: number }
  /** The method's successful result replaced by `transform(result, params)`. */
  | { kind: 'transform'; transform: (result: unknown, params: unknown[] | undefined) => unknown }
  /** The answer held back `ms`. */
  | { kind: 'slow'; ms: number }
  /** The whole request answered with this HTTP status and body (an outage: a 500 with a JSON-RPC error, a 502 from a gateway). */
  | { kind: 'httpError'; status: number; body: string };

export type FaultKind = Fault['kind'];

export type FaultRule = Fault & {
  /** Calls it applies to (default every call). Request-wide faults fire when any call of the request matches. */
  method?: MethodMatch;
  /** Times it fires (default 1; Infinity: never stop). Decremented per call for entry faults, per request otherwise. */
  count?: number;
  /** Only calls whose first parameter is this block number (a hex tag such as eth_getBlockByNumber's or debug_traceBlockByNumber's). */
  block?: number | bigint;
};

/** The older fault counters (each goes down as its fault is served; Infinity: never stop). */
export interface FaultPlan {
  http429: number;
  hang: number;
  malformedJson: number;
  /** eth_getBlockReceipts answered with the receipts of the previous block. */
  wrongBlockReceipts: number;
  /** Methods answered with JSON-RPC error -32601 (method not found). */
  unsupportedMethods: string[];
  /** Added to every answer. */
  delayMs: number;
  /**
   * A node that traces one block at a time (anvil): each debug_traceBlockByNumber call waits for the
   * ones before it, then takes this long, whether or not its client is still waiting.
   */
  serialTraceMs: number;
}

/** One HTTP request the proxy received. */
export interface ProxiedRequest {
  at: number;
  /** Calls in it (1 for a plain JSON-RPC object). */
  size: number;
  batch: boolean;
  methods: string[];
  /** Each call's first parameter (a block tag, a transaction hash ...), in call order. */
  firstParams: unknown[];
  /** What was done to it: 'forwarded', or a fault kind. */
  outcome: string;
}

export interface RpcProxy extends HttpProxy {
  plan: FaultPlan;
  /** The active fault rules; `inject` adds, `clear` empties. A rule whose count reached 0 stays, inert. */
  faults: FaultRule[];
  inject(...rules: FaultRule[]): void;
  clear(): void;
  /** Faults served so far, by kind (and the older names: http429, hang, malformedJson, wrongBlockReceipts, unsupported). */
  served: Record<string, number>;
  /** JSON-RPC calls seen, by method. */
  calls: Map<string, number>;
  /** Every HTTP request, in arrival order. */
  requests: ProxiedRequest[];
}

interface RpcCall {
  jsonrpc: '2.0';
  id: number | string | null;
  method: string;
  params?: unknown[];
}

type RpcAnswer = { jsonrpc: '2.0'; id: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };

const matches = (match: MethodMatch, method: string) =>
  match === undefined || (typeof match === 'string' ? match === method : match.includes(method));

/** The rule's `block` (if any) is the call's first parameter. */
const atBlock = (rule: FaultRule, call: { params?: unknown[] } | undefined) =>
  rule.block === undefined ||
  (call !== undefined &&
    typeof call.params?.[0] === 'string' &&
    /^0x[0-9a-f]+$/i.test(call.params[0]) &&
    BigInt(call.params[0]) === BigInt(rule.block));

/** The refusal a provider gives for `method`, in `form`: [HTTP status, body]. */
export function refusal(form: RefusalForm, method: string, id: unknown): { status: number; body: string } {
  const rpc = (code: number, message: string) => JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
  switch (form) {
    case 'rpc-32601':
      return { status: 200, body: rpc(-32601, `the method ${method} does not exist/is not available`) };
    case 'rpc-32600':
      return {
        status: 200,
        body: rpc(-32600, `Unsupported method: ${method}. See available methods at https://docs.example-provider.com/reference`),
      };
    case 'rpc-32000':
      return { status: 200, body: rpc(-32000, `${method} is not available on the Free tier - upgrade to Pay As You Go for access`) };
    case 'rpc-32603':
      return { status: 200, body: rpc(-32603, `internal error: method ${method} is not supported by this node`) };
    case 'http-400':
      return { status: 400, body: rpc(-32600, `Unsupported method: ${method}`) };
    case 'http-403':
      return { status: 403, body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32601, message: 'Method not allowed' } }) };
    case 'http-404':
      return { status: 404, body: `Method not found: ${method}` };
    case 'http-405':
      return { status: 405, body: 'Method Not Allowed' };
    case 'http-500':
      return { status: 500, body: rpc(-32603, `the ${method.split('_')[0]} namespace is disabled on this node`) };
    case 'http-501':
      return { status: 501, body: 'Not Implemented' };
  }
}

function batchLimitAnswer(
  form: BatchLimitForm,
  max: number,
  batch: RpcCall[],
): { status: number; answers?: (RpcAnswer | null)[]; body?: string } {
  const error = (id: unknown, code: number, message: string): RpcAnswer => ({ jsonrpc: '2.0', id, error: { code, message } });
  switch (form) {
    case 'http-413':
      return { status: 413, body: 'Request Entity Too Large' };
    case 'error-object':
      return {
        status: 200,
        body: JSON.stringify(error(null, -32600, `batch size too large: ${batch.length} requests, the limit is ${max}`)),
      };
    case 'error-entries':
      return { status: 200, answers: batch.map((call) => error(call.id, -32005, 'batch limit exceeded')) };
    case 'excess-entries':
      // The first `max` calls are answered (null: forward them), the rest refused.
      return {
        status: 200,
        answers: batch.map((call, position) =>
          position < max ? null : error(call.id, -32600, `request exceeds max batch size of ${max}`),
        ),
      };
    case 'first-entry':
      // geth: one error, for the first call, and nothing for the others.
      return { status: 200, body: JSON.stringify([error(batch[0]!.id, -32600, 'batch too large')]) };
    case 'invalid-request':
      // A bare error object without any batch wording.
      return { status: 200, body: JSON.stringify(error(null, -32600, 'invalid request')) };
  }
}

export async function startRpcProxy(target: string, plan: Partial<FaultPlan> & { faults?: FaultRule[] } = {}): Promise<RpcProxy> {
  const { faults: initialRules = [], ...legacy } = plan;
  const faults: FaultPlan = {
    http429: 0,
    hang: 0,
    malformedJson: 0,
    wrongBlockReceipts: 0,
    unsupportedMethods: [],
    delayMs: 0,
    serialTraceMs: 0,
    ...legacy,
  };
  const rules: FaultRule[] = [...initialRules];
  let traceLane: Promise<unknown> = Promise.resolve();
  const served: Record<string, number> = { http429: 0, hang: 0, malformedJson: 0, wrongBlockReceipts: 0, unsupported: 0 };
  const serve = (kind: string) => {
    served[kind] = (served[kind] ?? 0) + 1;
  };
  const calls = new Map<string, number>();
  const requests: ProxiedRequest[] = [];

  /** The first live rule of `kind` matching one of `methods`, consumed once. */
  const take = <K extends FaultKind>(
    kind: K,
    methods: string[],
    batch?: { method: string; params?: unknown[] }[],
  ): (Extract<Fault, { kind: K }> & FaultRule) | undefined => {
    const rule = rules.find(
      (candidate) =>
        candidate.kind === kind &&
        (candidate.count ?? 1) > 0 &&
        methods.some((method, position) => matches(candidate.method, method) && atBlock(candidate, batch?.[position])),
    );
    if (!rule) return undefined;
    rule.count = (rule.count ?? 1) - 1;
    serve(kind);
    return rule as Extract<Fault, { kind: K }> & FaultRule;
  };

  const forward = async (batch: RpcCall[]): Promise<RpcAnswer[]> => {
    if (batch.length === 0) return [];
    const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) });
    return (await upstream.json()) as RpcAnswer[];
  };

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const parsed = JSON.parse(Buffer.concat(chunks).toString()) as RpcCall | RpcCall[];
        const isBatch = Array.isArray(parsed);
        const batch = (isBatch ? parsed : [parsed]).map((call) => ({ ...call }));
        const methods = batch.map((call) => call.method);
        const record: ProxiedRequest = {
          at: Date.now(),
          size: batch.length,
          batch: isBatch,
          methods,
          firstParams: batch.map((call) => (Array.isArray(call.params) ? call.params[0] : undefined)),
          outcome: 'forwarded',
        };
        requests.push(record);
        for (const method of methods) calls.set(method, (calls.get(method) ?? 0) + 1);
        const send = (status: number, body: string, headers: Record<string, string> = {}) => {
          response.writeHead(status, {
            'content-type': body.startsWith('{') || body.startsWith('[') ? 'application/json' : 'text/plain',
            ...headers,
          });
          response.end(body);
        };

        if (faults.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, faults.delayMs));
        const slow = take('slow', methods, batch);
        if (slow) await new Promise((resolve) => setTimeout(resolve, slow.ms));
        const traces = faults.serialTraceMs > 0 ? methods.filter((method) => method === 'debug_traceBlockByNumber').length : 0;
        for (let trace = 0; trace < traces; trace += 1) {
          const turn = traceLane.then(() => new Promise((resolve) => setTimeout(resolve, faults.serialTraceMs)));
          traceLane = turn;
          await turn;
        }

        // Faults of the whole request.
        if (faults.hang > 0 || take('hang', methods, batch)) {
          if (faults.hang > 0) faults.hang -= 1;
          served.hang = (served.hang ?? 0) + 1;
          record.outcome = 'hang';
          return; // never answered: the client times out
        }
        const reset = take('reset', methods, batch);
        if (reset && reset.when !== 'midAnswer') {
          record.outcome = 'reset';
          request.socket.destroy();
          return;
        }
        if (faults.http429 > 0) {
          faults.http429 -= 1;
          served.http429 += 1;
          record.outcome = 'rateLimit';
          send(429, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: 429, message: 'Too Many Requests' } }));
          return;
        }
        const limited = take('rateLimit', methods, batch);
        if (limited) {
          record.outcome = 'rateLimit';
          const headers: Record<string, string> = limited.retryAfter === undefined ? {} : { 'retry-after': limited.retryAfter };
          if (limited.status === 429) {
            send(
              429,
              JSON.stringify({
                jsonrpc: '2.0',
                id: null,
                error: { code: 429, message: 'Your app has exceeded its compute units per second capacity' },
              }),
              headers,
            );
          } else {
            send(503, 'Service Unavailable', headers);
          }
          return;
        }
        if (faults.malformedJson > 0 || take('malformed', methods, batch)) {
          if (faults.malformedJson > 0) faults.malformedJson -= 1;
          served.malformedJson = (served.malformedJson ?? 0) + 1;
          record.outcome = 'malformed';
          send(200, '{"jsonrpc":"2.0","id":1,"result":{"number":"0x1", "hash":');
          return;
        }
        const outage = take('httpError', methods, batch);
        if (outage) {
          record.outcome = 'httpError';
          send(outage.status, outage.body);
          return;
        }
        const httpRefusal = rules.find(
          (rule) =>
            rule.kind === 'refuse' &&
            rule.form.startsWith('http-') &&
            (rule.count ?? 1) > 0 &&
            batch.some((call) => matches(rule.method, call.method) && atBlock(rule, call)),
        ) as (FaultRule & { kind: 'refuse' }) | undefined;
        if (httpRefusal) {
          httpRefusal.count = (httpRefusal.count ?? 1) - 1;
          serve('refuse');
          record.outcome = 'refuse';
          const refused = batch.find((call) => matches(httpRefusal.method, call.method) && atBlock(httpRefusal, call))!;
          const { status, body } = refusal(httpRefusal.form, refused.method, refused.id);
          send(status, body);
          return;
        }
        const limit = isBatch
          ? (rules.find((rule) => rule.kind === 'batchLimit' && (rule.count ?? Number.POSITIVE_INFINITY) > 0 && batch.length > rule.max) as
              | (FaultRule & { kind: 'batchLimit' })
              | undefined)
          : undefined;
        let preset: (RpcAnswer | null)[] | undefined;
        if (limit) {
          limit.count = (limit.count ?? Number.POSITIVE_INFINITY) - 1;
          serve('batchLimit');
          record.outcome = 'batchLimit';
          const answer = batchLimitAnswer(limit.form, limit.max, batch);
          if (answer.body !== undefined) {
            send(answer.status, answer.body);
            return;
          }
          preset = answer.answers;
        }

        // Faults of single calls.
        for (const call of batch) {
          if (call.method === 'eth_getBlockReceipts' && faults.wrongBlockReceipts > 0 && typeof call.params?.[0] === 'string') {
            const number = BigInt(call.params[0] as string);
            if (number > 1n) {
              faults.wrongBlockReceipts -= 1;
              served.wrongBlockReceipts += 1;
              call.params = [`0x${(number - 1n).toString(16)}`];
            }
          }
        }
        const answers: (RpcAnswer | null)[] = batch.map((call, position) => {
          if (preset?.[position]) return preset[position];
          if (faults.unsupportedMethods.includes(call.method)) {
            served.unsupported += 1;
            return { jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'Method not found' } };
          }
          const rule = rules.find(
            (candidate) =>
              candidate.kind === 'refuse' &&
              candidate.form.startsWith('rpc-') &&
              (candidate.count ?? 1) > 0 &&
              matches(candidate.method, call.method) &&
              atBlock(candidate, call),
          ) as (FaultRule & { kind: 'refuse' }) | undefined;
          if (rule) {
            rule.count = (rule.count ?? 1) - 1;
            serve('refuse');
            return JSON.parse(refusal(rule.form, call.method, call.id).body) as RpcAnswer;
          }
          const error = take('error', [call.method], [call]);
          if (error) return { jsonrpc: '2.0', id: call.id, error: { code: error.code, message: error.message } };
          return null;
        });
        const toForward = batch.filter((_, position) => answers[position] === null);
        const upstream = await forward(toForward);
        const byId = new Map(upstream.map((answer) => [answer.id, answer]));
        let results: RpcAnswer[] = batch.map((call, position) => answers[position] ?? byId.get(call.id)!);
        for (const [position, call] of batch.entries()) {
          const answer = results[position]!;
          if (answer.result === undefined) continue;
          const transform = rules.find(
            (rule) => rule.kind === 'transform' && (rule.count ?? 1) > 0 && matches(rule.method, call.method) && atBlock(rule, call),
          ) as (FaultRule & { kind: 'transform' }) | undefined;
          if (!transform) continue;
          transform.count = (transform.count ?? 1) - 1;
          serve('transform');
          results[position] = { ...answer, result: transform.transform(structuredClone(answer.result), call.params) };
        }
        if (isBatch) {
          const drop = take('drop', methods, batch);
          if (drop) {
            record.outcome = 'drop';
            const victims = new Set(
              batch
                .map((call, position) => ({ call, position }))
                .filter(({ call }) => matches(drop.method, call.method))
                .slice(-(drop.entries ?? 1))
                .map(({ position }) => position),
            );
            results = results.filter((_, position) => !victims.has(position));
          }
        }
        let padding = '';
        const oversized = take('oversized', methods, batch);
        if (oversized) {
          record.outcome = 'oversized';
          if (oversized.extra === 'padding') padding = ' '.repeat(oversized.bytes ?? 1_000_000);
          else if (isBatch && results.length > 1) {
            // An entry the client never asked for, or a second answer for an id: both carry another call's result.
            const id = oversized.extra === 'unknownId' ? 987_654_321 : results[0]!.id;
            results.splice(oversized.extra === 'unknownId' ? 0 : results.length, 0, { ...results[results.length - 1]!, id });
          }
        }
        const body = JSON.stringify(isBatch ? results : results[0]);
        if (reset) {
          record.outcome = 'reset';
          response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length + padding.length) });
          response.write(body.slice(0, Math.floor(body.length / 2)));
          setTimeout(() => request.socket.destroy(), 5);
          return;
        }
        send(200, `${padding}${body}`);
      })().catch((error: Error) => {
        if (!response.headersSent) response.writeHead(502);
        response.end(error.message);
      });
    });
  });
  const proxy = await listenLocally(server);
  return {
    ...proxy,
    plan: faults,
    faults: rules,
    inject: (...added) => void rules.push(...added),
    clear: () => void rules.splice(0, rules.length),
    served,
    calls,
    requests,
  };
}

/** Listens on a free port of 127.0.0.1; close() also ends open keep-alive connections (never waits on them). */
export async function listenLocally(server: http.Server): Promise<HttpProxy> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
