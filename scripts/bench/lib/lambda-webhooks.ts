/**
 * The Lambda harness's webhooks (issue 37: event on chain to delivered, p99 <= 5 s): a receiver on
 * 127.0.0.1 that records every POST the real DeliverWebhooks sends (when it arrived, its items, whether
 * its signature verifies with the webhook's secret), and the figures of a run (pure): each item's delay
 * from its block's appearance at the node to its first delivery, what was delivered against the chain's
 * truth (the matching records of every block the ingest wrote), repeats, and the queues between.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signatureOf, type WebhookItem } from '../../../shared/insights/webhook-payload';
import { type Percentiles, percentileOf, percentiles, round2 } from './stages';

export const LAMBDA_WEBHOOK_BUDGET_SECONDS = 5;

export interface ReceivedRequest {
  at: number;
  webhookId: string;
  signatureOk: boolean;
  items: WebhookItem[];
}

export interface WebhookReceiver {
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** A receiver answering 200 to every POST, checking each signature with `secrets` (webhook id -> secret). */
export async function startWebhookReceiver(secrets: Map<string, string>): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = Date.now();
      const body = Buffer.concat(chunks).toString();
      const webhookId = String(request.headers['x-webhook-id'] ?? '');
      const secret = secrets.get(webhookId);
      let items: WebhookItem[] = [];
      try {
        items = (JSON.parse(body) as { data?: WebhookItem[] }).data ?? [];
      } catch {
        // (Not JSON: recorded with no items; its signature still says whether it was ours.)
      }
      requests.push({
        at,
        webhookId,
        signatureOk: secret !== undefined && request.headers['x-webhook-signature'] === signatureOf(secret, body),
        items,
      });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface WebhookFigures {
  /** The webhooks the run created, and what each asked for. */
  webhooks: { id: string; topic: 'v1.events' | 'v1.transactions'; filter: string }[];
  /** Matching records of the blocks the ingest wrote, from the chain itself. */
  expected: number;
  /** Distinct (webhook, item id) pairs received with status "new". */
  delivered: number;
  /** Blocks whose delivered count differs from the chain's (listed up to 20). */
  wrongCountBlocks: number[];
  /** Items received that do not satisfy their webhook's filter. */
  unexpected: number;
  /** Items received more than once (at least once delivery: allowed, reported). */
  repeated: number;
  /** Items with status "reverted" (the chain had no reorg in the run: 0 expected). */
  reverted: number;
  requests: number;
  badSignatures: number;
  itemsPerRequest: { p50: number | null; max: number | null };
  /** From the item's block appearing at the node to its first delivery, over the items outside the chaos and burst windows. */
  seconds: Percentiles;
  measuredItems: number;
  /** Items of the chaos and burst windows' blocks, left out of `seconds`. */
  inWindows: { items: number; seconds: Percentiles };
  /**
   * The webhook path's own share: from the API first showing the item's block (the ingest had written it)
   * to the item's first delivery, over the same items as `seconds` (the rest of `seconds` is the ingest's lag).
   */
  afterShownSeconds: Percentiles;
  /** Items of blocks mined before the ingest had first caught up (the whole service's cold start), left out too. */
  beforeCaughtUp: number;
  /** The slowest measured blocks: the block, its items, the seconds to its last item's first delivery. */
  slowest: { block: number; items: number; seconds: number }[];
  matching: QueueFigures;
  delivery: QueueFigures & { visibilityChanges: number };
  pass: boolean;
}

export interface QueueFigures {
  messages: number;
  batches: number;
  failedRecords: number;
  deadLetters: number;
  /** From a batch's first message sent to its poll returning, ms. */
  sendToReceiveMs: Percentiles;
  invocations: number;
  coldStarts: number;
  billedSeconds: number;
}

export function queueFigures(input: {
  messages: number;
  batches: number;
  failedRecords: number;
  deadLetters: number;
  deliveries: { firstSentAt: number; receivedAt: number }[];
  invocations: { startedAt: number; endedAt: number; initMs: number | null }[];
  coldStarts: number;
}): QueueFigures {
  return {
    messages: input.messages,
    batches: input.batches,
    failedRecords: input.failedRecords,
    deadLetters: input.deadLetters,
    sendToReceiveMs: percentiles(input.deliveries.map((delivery) => delivery.receivedAt - delivery.firstSentAt)),
    invocations: input.invocations.length,
    coldStarts: input.coldStarts,
    billedSeconds: round2(
      input.invocations.reduce((sum, record) => sum + (record.endedAt - record.startedAt + (record.initMs ?? 0)) / 1000, 0),
    )!,
  };
}

/**
 * The run's webhook figures: `expectedPerBlock` holds, per webhook, the chain's matching records of each
 * block the ingest wrote (the truth), `matches` says whether a received item satisfies its webhook's
 * filter, `minedAt` when each block appeared at the node, `windows` the blocks left out of the latency.
 */
export function webhookFigures(input: {
  webhooks: WebhookFigures['webhooks'];
  requests: readonly ReceivedRequest[];
  expectedPerBlock: ReadonlyMap<string, ReadonlyMap<number, number>>;
  matches: (webhookId: string, item: WebhookItem) => boolean;
  minedAt: ReadonlyMap<number, number>;
  /** When the API first showed each block (its status read). */
  shownAt: ReadonlyMap<number, number>;
  /** The blocks the latency is measured over (those mined once the ingest had caught up), the windows' among them. */
  measured: ReadonlySet<number>;
  windows: ReadonlySet<number>;
  matching: QueueFigures;
  delivery: QueueFigures & { visibilityChanges: number };
}): WebhookFigures {
  const firstSeen = new Map<string, { at: number; block: number }>();
  const deliveredPerBlock = new Map<string, Map<number, number>>();
  let unexpected = 0;
  let repeated = 0;
  let reverted = 0;
  for (const request of [...input.requests].sort((a, b) => a.at - b.at)) {
    for (const item of request.items) {
      if (item.status === 'reverted') {
        reverted += 1;
        continue;
      }
      if (!input.matches(request.webhookId, item)) unexpected += 1;
      const key = `${request.webhookId}|${item.id}`;
      if (firstSeen.has(key)) {
        repeated += 1;
        continue;
      }
      const block = Number(item.data.block_number);
      firstSeen.set(key, { at: request.at, block });
      const perBlock = deliveredPerBlock.get(request.webhookId) ?? new Map<number, number>();
      perBlock.set(block, (perBlock.get(block) ?? 0) + 1);
      deliveredPerBlock.set(request.webhookId, perBlock);
    }
  }
  const wrong = new Set<number>();
  let expected = 0;
  for (const webhook of input.webhooks) {
    const truth = input.expectedPerBlock.get(webhook.id) ?? new Map<number, number>();
    const got = deliveredPerBlock.get(webhook.id) ?? new Map<number, number>();
    for (const [block, count] of truth) {
      expected += count;
      if ((got.get(block) ?? 0) !== count) wrong.add(block);
    }
    // (Items of blocks past the last one the ingest wrote, or of blocks with no match, are wrong too.)
    for (const [block, count] of got) if (!truth.has(block) && count > 0) wrong.add(block);
  }
  const seconds: number[] = [];
  const afterShown: number[] = [];
  const windowSeconds: number[] = [];
  let beforeCaughtUp = 0;
  const perBlock = new Map<number, { items: number; seconds: number }>();
  for (const { at, block } of firstSeen.values()) {
    const mined = input.minedAt.get(block);
    if (mined === undefined || !input.measured.has(block)) {
      beforeCaughtUp += 1;
      continue;
    }
    const delay = (at - mined) / 1000;
    if (input.windows.has(block)) {
      windowSeconds.push(delay);
      continue;
    }
    seconds.push(delay);
    const shown = input.shownAt.get(block);
    if (shown !== undefined) afterShown.push((at - shown) / 1000);
    const entry = perBlock.get(block) ?? { items: 0, seconds: 0 };
    perBlock.set(block, { items: entry.items + 1, seconds: Math.max(entry.seconds, delay) });
  }
  const itemsPerRequest = input.requests.map((request) => request.items.length);
  const badSignatures = input.requests.filter((request) => !request.signatureOk).length;
  const wrongCountBlocks = [...wrong].sort((a, b) => a - b);
  const p99 = percentileOf(seconds, 99);
  return {
    webhooks: input.webhooks,
    expected,
    delivered: firstSeen.size,
    wrongCountBlocks: wrongCountBlocks.slice(0, 20),
    unexpected,
    repeated,
    reverted,
    requests: input.requests.length,
    badSignatures,
    itemsPerRequest: { p50: percentileOf(itemsPerRequest, 50), max: percentileOf(itemsPerRequest, 100) },
    seconds: percentiles(seconds),
    measuredItems: seconds.length,
    afterShownSeconds: percentiles(afterShown),
    inWindows: { items: windowSeconds.length, seconds: percentiles(windowSeconds) },
    beforeCaughtUp,
    slowest: [...perBlock]
      .sort((a, b) => b[1].seconds - a[1].seconds)
      .slice(0, 5)
      .map(([block, entry]) => ({ block, items: entry.items, seconds: round2(entry.seconds)! })),
    matching: input.matching,
    delivery: input.delivery,
    pass:
      expected > 0 &&
      wrongCountBlocks.length === 0 &&
      unexpected === 0 &&
      reverted === 0 &&
      badSignatures === 0 &&
      input.matching.deadLetters === 0 &&
      input.delivery.deadLetters === 0 &&
      p99 !== null &&
      p99 <= LAMBDA_WEBHOOK_BUDGET_SECONDS,
  };
}

/** A block as the truth is read from it: its transactions' senders, recipients and logs. */
export interface TruthBlock {
  txs: { from: string; to: string | null; logs: { address: string; topics: readonly string[] }[] }[];
}

/** One webhook of the run: its filters, what a matching item is, and how many records of a block match. */
export interface BenchWebhook {
  name: string;
  topic: 'v1.events' | 'v1.transactions';
  describe: string;
  filters: Record<string, unknown>;
  matches(item: WebhookItem): boolean;
  countIn(block: TruthBlock): number;
}

const same = (a: unknown, b: string) => typeof a === 'string' && a.toLowerCase() === b.toLowerCase();

/**
 * The run's webhooks. Anvil: every transfer the harness sends (a transactions webhook on its senders).
 * Base: USDC's Transfer events (an events webhook on the token and topic0) and the main router's
 * transactions (a transactions webhook on its address), a share of the block each, as a user would ask.
 */
export function benchWebhooks(input: {
  chainId: number;
  anvilSenders: readonly string[] | null;
  base: { usdc: string; router: string; transferTopic: string } | null;
}): BenchWebhook[] {
  const chain = [String(input.chainId)];
  const hooks: BenchWebhook[] = [];
  if (input.anvilSenders) {
    const senders = input.anvilSenders.map((address) => address.toLowerCase());
    hooks.push({
      name: 'bench transfers',
      topic: 'v1.transactions',
      describe: `transactions from the ${senders.length} senders of the transfers`,
      filters: { 'v1.transactions': { chain_ids: chain, from_addresses: senders } },
      matches: (item) => item.type === 'transaction' && senders.some((sender) => same(item.data.from_address, sender)),
      countIn: (block) => block.txs.filter((tx) => senders.includes(tx.from.toLowerCase())).length,
    });
  }
  if (input.base) {
    const { usdc, router, transferTopic } = input.base;
    hooks.push(
      {
        name: 'bench USDC transfers',
        topic: 'v1.events',
        describe: "USDC's Transfer events",
        filters: { 'v1.events': { chain_ids: chain, addresses: [usdc.toLowerCase()], signatures: [{ sig_hash: transferTopic }] } },
        matches: (item) =>
          item.type === 'event' && same(item.data.address, usdc) && same((item.data.topics as string[] | undefined)?.[0], transferTopic),
        countIn: (block) =>
          block.txs.reduce(
            (sum, tx) => sum + tx.logs.filter((log) => same(log.address, usdc) && same(log.topics[0], transferTopic)).length,
            0,
          ),
      },
      {
        name: 'bench router calls',
        topic: 'v1.transactions',
        describe: "the main router's transactions",
        filters: { 'v1.transactions': { chain_ids: chain, to_addresses: [router.toLowerCase()] } },
        matches: (item) => item.type === 'transaction' && same(item.data.to_address, router),
        countIn: (block) => block.txs.filter((tx) => tx.to !== null && same(tx.to, router)).length,
      },
    );
  }
  return hooks;
}
