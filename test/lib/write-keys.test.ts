/**
 * The partition keys each writer declares (`writeKeys` of its route or job row, which the stack turns
 * into a `dynamodb:LeadingKeys` condition) against the keys it really writes: every writer of the
 * orders and collections groups runs its write paths here against the embedded table while the
 * document client records the partition key of every item a write names (Put, Update, Delete, alone,
 * in a batch or in a transaction). A key outside the declared patterns would be refused in AWS.
 * (The ingest's grant is any key but the service's records: least-privilege.test.ts.)
 */
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as detectDeposits } from '../../functions/orders/detect-deposits';
import { handler as expireOrders } from '../../functions/orders/expire-orders';
import { db } from '../../shared/db/client';
import { type QueueMessage, queueListener } from '../../shared/ingest/queue-listener';
import type { BlockIngestedEvent } from '../../shared/ingest/listeners';
import { consumers, jobs } from '../../shared/jobs';
import { resetClock, setClock } from '../../shared/orders/clock';
import { CHAIN_DATA, routes, type TableAccess } from '../../shared/routes';
import type { BlockRecord, LogRecord, TokenTransferRecord } from '../../shared/table/records';
import { writeItems } from '../../shared/db/operations';
import { nftKeys } from '../../shared/table/keys';
import { useTestTable } from '../support/table';
import { dispatch } from '../../scripts/lib/dispatch';
import { createApiKey } from '../../shared/insights/api-keys';
import { deliver } from '../../shared/insights/webhook-delivery';
import { webhookDispatchListener } from '../../shared/insights/webhook-dispatch';
import type { Delivery } from '../../shared/insights/webhook-queue';
import { accountFor, postCollection, signedBody } from '../functions/collections/fixtures';
import { BASE_USDC, CREATOR, orderBody, postOrder, postSession } from '../functions/orders/fixtures';
import { stringLike } from './support/iam';

useTestTable('write-keys');

/** Partition keys of the items the writes name, while recording. */
let recorded: string[] | undefined;
/** The DynamoDB actions the calls need, while recording (a transaction needs each of its operations'). */
let actions: Set<string> | undefined;

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
function actionsOf(commandName: string, input: Record<string, any>): string[] {
  const name = commandName.replace(/Command$/, '');
  if (name === 'TransactWriteItems') {
    return input.TransactItems.map((item: Record<string, unknown>) =>
      item.Put ? 'PutItem' : item.Update ? 'UpdateItem' : item.Delete ? 'DeleteItem' : 'ConditionCheckItem',
    );
  }
  return [name];
}

type Named = { Item?: { pk?: unknown }; Key?: { pk?: unknown } };
/** The partition keys a write command names (the client's commands: PutItemCommand, TransactWriteItemsCommand...). */
function keysOf(commandName: string, input: Record<string, any>): unknown[] {
  const pk = (entry: Named | undefined) => entry?.Item?.pk ?? entry?.Key?.pk;
  switch (commandName.replace(/Command$/, '')) {
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [pk(input as Named)];
    case 'TransactWriteItems':
      return input.TransactItems.map((item: Record<string, Named>) => pk(item.Put ?? item.Update ?? item.Delete ?? item.ConditionCheck));
    case 'BatchWriteItem':
      return Object.values(input.RequestItems as Record<string, { PutRequest?: Named; DeleteRequest?: Named }[]>)
        .flat()
        .map((request) => pk(request.PutRequest ?? request.DeleteRequest));
    default:
      return [];
  }
}

const EXPRESSION_WORDS = new Set(
  'SET REMOVE ADD DELETE AND OR NOT IN BETWEEN attribute_exists attribute_not_exists attribute_type begins_with contains size if_not_exists list_append'.split(
    ' ',
  ),
);
/** The top-level attribute names a single-item write names (its key, its expressions' paths): IAM's `dynamodb:Attributes`. */
function attributesOf(input: Record<string, any>): string[] {
  const names: Record<string, string> = input.ExpressionAttributeNames ?? {};
  const named = new Set<string>(Object.keys(input.Key ?? input.Item ?? {}));
  for (const expression of [input.UpdateExpression, input.ConditionExpression]) {
    for (const [path] of String(expression ?? '')
      .replace(/:\w+/g, ' ')
      .matchAll(/[#A-Za-z_][\w.#[\]]*/g)) {
      const top = path.split(/[.[]/)[0]!;
      if (!EXPRESSION_WORDS.has(top)) named.add(top.startsWith('#') ? names[top]! : top);
    }
  }
  return [...named];
}
/** The attributes each UpdateItem named while recording. */
let updatedAttributes: string[] | undefined;

db.middlewareStack.add(
  (next, context) => async (args) => {
    if (recorded) {
      if (context.commandName === 'UpdateItemCommand') updatedAttributes?.push(...attributesOf(args.input as Record<string, any>));
      for (const action of actionsOf(context.commandName ?? '', args.input as Record<string, any>)) actions?.add(action);
      const keys = keysOf(context.commandName ?? '', args.input as Record<string, any>);
      if (keys.length === 0 && /Write|Put|Update|Delete/.test(context.commandName ?? '')) {
        throw new Error(`write-keys.test.ts does not read the keys of ${context.commandName}`);
      }
      recorded.push(...keys.map((key) => (typeof key === 'object' && key && 'S' in key ? String(key.S) : String(key))));
    }
    return next(args);
  },
  { step: 'initialize', name: 'recordWriteKeys', override: true },
);

/** The partition keys `work` writes (and, in `used`, the actions its calls need). */
async function writesOf(id: string, work: () => Promise<unknown>): Promise<string[]> {
  recorded = [];
  actions = new Set();
  try {
    await work();
    usedBy[id] = [...new Set([...(usedBy[id] ?? []), ...actions])];
    return [...new Set(recorded)];
  } finally {
    recorded = undefined;
    actions = undefined;
  }
}
const usedBy: Record<string, string[]> = {};

const rows: { id: string; table: TableAccess }[] = [...routes, ...consumers, ...jobs];
const writeKeysOf = (id: string): readonly string[] => {
  const keys = rows.find((row) => row.id === id)?.table.writeKeys;
  if (!Array.isArray(keys)) throw new Error(`${id} declares no list of write keys`);
  return keys;
};

/**
 * Every key matches one of the function's declared patterns, and every action its calls needed (as
 * recorded by the last writesOf of `id`) is one its row grants: a read needs `read`, each write its action.
 */
function expectDeclared(id: string, keys: readonly string[]): void {
  expect(keys.length, `${id} wrote nothing`).toBeGreaterThan(0);
  const access = rows.find((row) => row.id === id)!.table;
  const granted = new Set<string>([...(access.read ? READS : []), ...access.write]);
  expect(
    (usedBy[id] ?? []).filter((action) => !granted.has(action)),
    `${id} calls DynamoDB beyond its row's table access`,
  ).toEqual([]);
  const patterns = writeKeysOf(id);
  expect(
    keys.filter((key) => !patterns.some((pattern) => stringLike(pattern, key))),
    `${id} wrote outside ${patterns.join(', ')}`,
  ).toEqual([]);
}

const tested = new Set<string>();
const written: Record<string, string[]> = {};
afterAll(() => resetClock());

describe('the keys each writer writes are the keys it declares', () => {
  let session: { id: string };
  let order: { id: string; globalAddress: string; expiredAt: number; srcAmount: string };

  beforeAll(async () => {
    written.CreateCheckoutSession = await writesOf('CreateCheckoutSession', async () => {
      session = (await postSession({}, { 'Idempotency-Key': 'write-keys-session' })).body.data;
    });
    written.CreateOrder = await writesOf('CreateOrder', async () => {
      const response = await postOrder(orderBody({ checkoutSessionId: session.id, creatorAddress: CREATOR }), {
        'Idempotency-Key': 'write-keys-order',
      });
      expect(response.status).toBe(200);
      order = response.body.data;
    });
  });

  it('CreateCheckoutSession: the session and its Idempotency-Key', () => {
    tested.add('CreateCheckoutSession');
    expectDeclared('CreateCheckoutSession', written.CreateCheckoutSession);
  });

  it('CreateOrder: the order, its list pointers, its Idempotency-Key and its checkout session', () => {
    tested.add('CreateOrder');
    expectDeclared('CreateOrder', written.CreateOrder);
    expect(written.CreateOrder).toEqual(
      expect.arrayContaining([`ORDER#${order.id}`, 'ORDERS', `ORDERS#CREATOR#${CREATOR.toLowerCase()}`, `CHECKOUT#${session.id}`]),
    );
  });

  it('DetectDeposits: deposits and order updates, then their undoing when the block is orphaned', async () => {
    tested.add('DetectDeposits');
    const messages: QueueMessage[] = [];
    const listener = queueListener('https://sqs.us-east-1.amazonaws.com/123456789012/DepositEvents.fifo', async (message) => {
      messages.push(message);
    });
    const block = { number: 100, hash: `0x${'cd'.repeat(32)}`, timestamp: Math.floor(Date.now() / 1000) } as BlockRecord;
    const transfer = {
      token: BASE_USDC,
      from: CREATOR,
      to: order.globalAddress,
      amount: order.srcAmount,
      transactionHash: `0x${'ef'.repeat(32)}`,
      transactionIndex: 0,
      logIndex: 0,
    } as unknown as TokenTransferRecord;
    const event: BlockIngestedEvent = {
      chainId: 8453,
      block,
      mode: 'advance',
      nativeTransfers: [],
      erc20Transfers: [transfer],
      transactions: [],
      logs: [],
    };
    await listener.blocksIngested([event]);
    await listener.blocksOrphaned?.({ chainId: 8453, blocks: [{ number: block.number, hash: block.hash }] });
    expect(messages).toHaveLength(2);
    const sqsEvent = (message: QueueMessage, index: number): SQSEvent =>
      ({
        Records: [
          {
            messageId: `message-${index}`,
            body: message.MessageBody,
            attributes: { MessageGroupId: message.MessageGroupId, ApproximateReceiveCount: '1' },
            eventSource: 'aws:sqs',
          },
        ],
      }) as unknown as SQSEvent;
    const keys = await writesOf('DetectDeposits', async () => {
      for (const [index, message] of messages.entries()) {
        expect(await detectDeposits(sqsEvent(message, index))).toEqual({ batchItemFailures: [] });
      }
    });
    // The deposit item and the order, both in the order's partition.
    expect(keys).toContain(`ORDER#${order.id}`);
    expectDeclared('DetectDeposits', keys);
  });

  it('ExpireOrders: the overdue order and its checkout session', async () => {
    tested.add('ExpireOrders');
    const fresh = (await postSession()).body.data;
    const waiting = (await postOrder(orderBody({ checkoutSessionId: fresh.id }))).body.data;
    setClock(() => waiting.expiredAt + 1);
    const keys = await writesOf('ExpireOrders', () => expireOrders());
    resetClock();
    expect(keys).toEqual(expect.arrayContaining([`ORDER#${waiting.id}`, `CHECKOUT#${fresh.id}`]));
    expectDeclared('ExpireOrders', keys);
  });

  it('CreateCollection: the collection, its list entries and counters (every filter set)', async () => {
    tested.add('CreateCollection');
    const creator = accountFor('write-keys');
    const body = await signedBody(creator, { gameId: 'game-1', referrer: 'partner1' });
    const keys = await writesOf('CreateCollection', async () => {
      const response = await postCollection(body);
      expect(response.status, JSON.stringify(response.body)).toBe(201);
    });
    expect(keys.length).toBeGreaterThanOrEqual(1 + 2 * 7);
    expectDeclared('CreateCollection', keys);
  });

  it('FetchNftMetadata: the `fetched` state (G7) of the instance it fetched for, nothing else', async () => {
    tested.add('FetchNftMetadata');
    const contract = '0x00000000000000000000000000000000000000aa';
    await writeItems({
      put: [
        {
          ...nftKeys.instance(8453, contract, 7n),
          kind: 'nftInstance',
          chainId: 8453,
          contract,
          tokenStandard: 'ERC-721',
          tokenId: '7',
          owner: null,
          // Plain http:// is never fetched by the Lambda: the attempt fails at once, and is recorded.
          tokenUri: 'http://127.0.0.1:9/7.json',
          metadataStatus: 'unresolved',
          metadataJson: null,
          totalSupply: null,
          totalSupplySource: null,
          firstSeenBlock: 1,
          updatedAtBlock: 1,
        },
      ],
    });
    process.env.NFT_METADATA_QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/NftMetadata';
    const { handler } = await import('../../functions/nft-metadata/fetch-nft-metadata');
    const body = JSON.stringify({ v: 1, kind: 'token', chainId: 8453, contract, tokenId: '7' });
    updatedAttributes = [];
    const keys = await writesOf('FetchNftMetadata', async () => {
      const event = {
        Records: [{ messageId: 'm-1', receiptHandle: 'r-1', body, attributes: {}, eventSource: 'aws:sqs' }],
      } as unknown as SQSEvent;
      expect(await handler(event)).toEqual({ batchItemFailures: [] });
    });
    expect(keys).toEqual([nftKeys.instance(8453, contract, 7n).pk]);
    expectDeclared('FetchNftMetadata', keys);
    // Its UpdateItem names only what its row's attribute condition (IAM dynamodb:Attributes) allows.
    const allowed = rows.find((row) => row.id === 'FetchNftMetadata')!.table.writeAttributes!;
    expect(updatedAttributes.length).toBeGreaterThan(0);
    expect(updatedAttributes.filter((attribute) => !allowed.includes(attribute))).toEqual([]);
    updatedAttributes = undefined;
  });

  it("Insight's webhook routes: the key's request count (K1), and a webhook, its count and its filter index (H1, H3, H4)", async () => {
    const { key } = await createApiKey({ project: 'write-keys' });
    const send = async (method: string, url: string, body?: unknown) => {
      const response = await dispatch({
        api: 'base',
        method,
        url: `/insights${url}`,
        headers: { 'x-secret-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(response.statusCode, response.body).toBe(200);
      return JSON.parse(response.body);
    };
    const filters = { 'v1.events': { addresses: [BASE_USDC] } };
    let id = '';
    const steps: [string, () => Promise<unknown>][] = [
      ['ListWebhooks', () => send('GET', '/v1/webhooks')],
      ['ValidateWebhookFilters', () => send('POST', '/service/webhooks/filters/validate', filters)],
      // (A receiver that cannot answer: the ping still answers 200, success false.)
      ['TestWebhook', () => send('POST', '/v1/webhooks/test', { webhook_url: 'https://receiver.example.com/hook', type: 'event' })],
      [
        'CreateWebhook',
        async () => (id = (await send('POST', '/v1/webhooks', { webhook_url: 'https://receiver.example.com/', filters })).data.id),
      ],
      ['UpdateWebhook', () => send('PATCH', `/v1/webhooks/${id}`, { filters: { 'v1.transactions': { to_addresses: [BASE_USDC] } } })],
      ['DeleteWebhook', () => send('DELETE', `/v1/webhooks/${id}`)],
    ];
    for (const [routeId, step] of steps) {
      tested.add(routeId);
      const keys = await writesOf(routeId, step);
      expectDeclared(routeId, keys);
    }
  });

  it('MatchWebhooks and DeliverWebhooks: what a block sent (H5), and the webhook item (H1) a failing delivery counts on', async () => {
    const { key } = await createApiKey({ project: 'write-keys-delivery' });
    const token = '0x00000000000000000000000000000000000000bb';
    const created = await dispatch({
      api: 'base',
      method: 'POST',
      url: '/insights/v1/webhooks',
      headers: { 'x-secret-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ webhook_url: 'https://receiver.example.com/', filters: { 'v1.events': { addresses: [token] } } }),
    });
    expect(created.statusCode, created.body).toBe(200);
    const deliveries: Delivery[] = [];
    const listener = webhookDispatchListener({ queue: { send: async (sent) => void deliveries.push(...sent) }, filterCacheMs: 0 });
    const hash = `0x${'cd'.repeat(32)}`;
    const block = { kind: 'block', chainId: 8453, number: 77, hash, timestamp: 1_700_000_000 } as BlockRecord;
    const log = {
      kind: 'log',
      chainId: 8453,
      blockNumber: 77,
      blockHash: hash,
      blockTimestamp: 1_700_000_000,
      transactionHash: `0x${'ef'.repeat(32)}`,
      transactionIndex: 0,
      logIndex: 0,
      address: token,
      data: '0x',
      dataOmitted: false,
      topics: [`0x${'11'.repeat(32)}`],
    } as unknown as LogRecord;
    tested.add('MatchWebhooks');
    const matched = await writesOf('MatchWebhooks', async () =>
      listener.blocksIngested([
        { chainId: 8453, block, mode: 'advance', nativeTransfers: [], erc20Transfers: [], transactions: [], logs: [log] },
      ]),
    );
    expectDeclared('MatchWebhooks', matched);
    expect(deliveries).toHaveLength(1);
    tested.add('DeliverWebhooks');
    // A receiver that refuses the connection: the failure is counted on the webhook's item.
    const settings = {
      egress: { allowLoopback: false, allowHttp: false },
      timeoutMs: 500,
      suspendAfterFailures: 3,
      suspendAfterMs: 0,
      retryBaseMs: 10,
    };
    const delivered = await writesOf('DeliverWebhooks', async () => {
      expect((await deliver(deliveries[0]!, settings, 1)).outcome).toBe('retry');
    });
    expectDeclared('DeliverWebhooks', delivered);
  });

  it('covers every writer that declares its keys', () => {
    const writers = rows.filter((row) => row.table.write.length > 0 && row.table.writeKeys !== CHAIN_DATA).map((row) => row.id);
    expect([...tested].sort()).toEqual(writers.sort());
  });
});
