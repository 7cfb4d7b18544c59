/**
 * `npm start`: the whole service on this machine.
 *  - the embedded DynamoDB on 127.0.0.1:DYNAMODB_PORT (8000), data kept under DATA_DIR (.data/), so the
 *    AWS CLI and the other scripts can use it with DYNAMODB_ENDPOINT=http://127.0.0.1:8000;
 *  - the table TABLE_NAME, created when missing;
 *  - the three base URLs: explorer + insights on PORT (3000), orders on ORDERS_PORT (3001),
 *    collections on COLLECTIONS_PORT (3002), each request handled by the handler module Lambda runs.
 * Ctrl-C (or SIGTERM) stops everything and flushes the data to disk.
 */
import * as v from 'valibot';
import { DEFAULT_TABLE_NAME, readEnv } from '../shared/config';
import { API_NAMES } from '../shared/http/groups';
import type { IngestListener } from '../shared/ingest/listeners';
import { EXAMPLE_SECRET_KEY } from '../shared/routes';
import { startLocalService, type LocalService, type RequestLogEntry } from './lib/gateway';
import { localChainStep } from './lib/local-chain';

const port = (fallback: number) =>
  v.optional(
    v.pipe(v.string(), v.regex(/^\d+$/, 'must be a port number'), v.transform(Number), v.maxValue(65535, 'must be a port number')),
    String(fallback),
  );

const startEnv = v.object({
  PORT: port(3000),
  ORDERS_PORT: port(3001),
  COLLECTIONS_PORT: port(3002),
  DYNAMODB_PORT: port(8000),
  /** 127.0.0.1 keeps the database private to this machine; see docs/decisions/platform.md for containers. */
  DYNAMODB_HOST: v.optional(v.pipe(v.string(), v.ip()), '127.0.0.1'),
  DATA_DIR: v.optional(v.pipe(v.string(), v.minLength(1)), '.data'),
  TABLE_NAME: v.optional(v.pipe(v.string(), v.minLength(3), v.maxLength(255)), DEFAULT_TABLE_NAME),
  /** `0` silences the one line printed per request. */
  LOG_REQUESTS: v.optional(v.picklist(['0', '1']), '1'),
});

/**
 * A step run once the service is up (the DynamoDB endpoint is in process.env). It may return a
 * function that undoes it; those run, newest first, before the service stops.
 */
export type AfterStartStep = (service: LocalService) => Promise<(() => Promise<void>) | void>;

// ---------------------------------------------------------------------------------------------------
// HOOK for the lead: the local chain and its ingest plug in here (e.g. start anvil, deploy the demo
// contracts, run the ingest loop against service.dynamodbEndpoint / service.tableName), as one more
// AfterStartStep returning its own stop function. Nothing else in this file needs to change.
//  - the local chain (scripts/lib/local-chain.ts): anvil + demo, or the chain at RPC_URL; ingested and
//    followed, with order deposit detection listening to the blocks (imported once the service is up:
//    shared/db/client.ts binds the DynamoDB endpoint when first imported); env RPC_URL, CHAIN_ID,
//    ANVIL_PORT, START_BLOCK, DEMO_ACTIVITY_INTERVAL_MS.
//  - webhook delivery (scripts/lib/webhook-worker.ts): the demo project's key, and the blocks matched
//    against the webhooks and delivered in process, with WEBHOOK_ALLOW_LOOPBACK=1 (receivers on 127.0.0.1).
//  - the NFT metadata fetcher (scripts/lib/nft-metadata-worker.ts), in process as the deposit listener
//    is: it fetches what the ingest's listener queues and what the refresh routes ask for, with
//    NFT_METADATA_ALLOW_LOOPBACK=1 (set here unless given) so a metadata server on 127.0.0.1 can be read.
let metadataWorker: { listener: IngestListener; stop(): Promise<void> } | undefined;
let webhookWorker: { listener: IngestListener; stop(): Promise<void> } | undefined;
const afterStart: AfterStartStep[] = [
  async () => {
    process.env.NFT_METADATA_ALLOW_LOOPBACK ??= '1';
    metadataWorker = (await import('./lib/nft-metadata-worker')).startLocalMetadataWorker();
    return () => metadataWorker!.stop();
  },
  // Insight's webhook routes: the demo project's key (the one the route examples carry), and receivers
  // on 127.0.0.1 over http:// (WEBHOOK_ALLOW_LOOPBACK=1, set here unless given).
  async () => {
    process.env.WEBHOOK_ALLOW_LOOPBACK ??= '1';
    const { registerApiKey } = await import('../shared/insights/api-keys');
    await registerApiKey(EXAMPLE_SECRET_KEY, 'npm start demo key');
    // Webhook delivery in process: the ingest's blocks matched and delivered as MatchWebhooks and DeliverWebhooks do.
    webhookWorker = (await import('./lib/webhook-worker')).startLocalWebhookWorker();
    return () => webhookWorker!.stop();
  },
  localChainStep({
    loadListeners: async () => [
      (await import('../shared/orders/deposits')).orderDepositListener,
      ...(metadataWorker ? [metadataWorker.listener] : []),
      ...(webhookWorker ? [webhookWorker.listener] : []),
    ],
  }),
];
// ---------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const env = readEnv(startEnv);
  const service = await startLocalService({
    ports: { base: env.PORT, orders: env.ORDERS_PORT, collections: env.COLLECTIONS_PORT },
    dynamodbHost: env.DYNAMODB_HOST,
    dynamodbPort: env.DYNAMODB_PORT,
    dataDir: env.DATA_DIR,
    tableName: env.TABLE_NAME,
    onRequest: env.LOG_REQUESTS === '1' ? printRequest : undefined,
  });

  const undo: (() => Promise<void>)[] = [];
  let stopping: Promise<void> | undefined;
  const stop = (signal: string) =>
    (stopping ??= (async () => {
      console.log(`\n${signal}: stopping…`);
      for (const step of undo.reverse()) await step().catch((error: unknown) => console.error('stop step failed:', error));
      await service.stop();
      console.log('Stopped; data flushed to', service.dataDir);
    })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) {
        console.log('Forced exit.');
        process.exit(1);
      }
      stop(signal).then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(error);
          process.exit(1);
        },
      );
    });
  }

  try {
    for (const step of afterStart) {
      const undoStep = await step(service);
      if (undoStep) undo.push(undoStep);
    }
  } catch (error) {
    await stop('start-up step failed');
    throw error;
  }

  await printChainStatuses().catch((error: unknown) => console.error('could not read the chain statuses:', error));
  console.log(
    [
      'Local service ready:',
      `  explorer + insights  ${service.urls.base}`,
      `  orders               ${service.urls.orders}`,
      `  collections          ${service.urls.collections}`,
      'Each base URL serves its interactive reference at /docs and its OpenAPI document at /openapi.json:',
      ...API_NAMES.map((api) => `  ${service.urls[api]}/docs`),
      `  DynamoDB             ${service.dynamodbEndpoint}  (table ${service.tableName}, data in ${service.dataDir})`,
      `For other tools: export DYNAMODB_ENDPOINT=${service.dynamodbEndpoint} TABLE_NAME=${service.tableName}`,
      `Webhook routes need a secret key (x-secret-key): the demo project's is ${EXAMPLE_SECRET_KEY};`,
      '  issue one for a project of yours with that export and: npm run keys -- create --project <name>',
      'Ctrl-C stops.',
    ].join('\n'),
  );
}

/**
 * Each indexed chain's status as the ingest recorded it after its first batches: state, indexed head and
 * the node's capabilities (traces, block receipts, Multicall3). Imported once the service is up
 * (shared/db/client.ts binds the DynamoDB endpoint when first imported).
 */
async function printChainStatuses(): Promise<void> {
  const [{ queryAll, rangeQuery }, { chainKeys }, status] = await Promise.all([
    import('../shared/db/operations'),
    import('../shared/table/keys'),
    import('../shared/chain-status/status'),
  ]);
  const { items } = await queryAll<{ chainId: number }>(rangeQuery(chainKeys.registryRange()));
  const statuses = await status.readChainStatuses(
    items.map((item) => Number(item.chainId)),
    status.loadChainStatusSettings(),
  );
  for (const chain of statuses) {
    const { traceMethod, blockReceipts, multicall3, multicall3FromBlock } = chain.capabilities;
    console.log(
      `chain ${chain.chainId}: ${chain.state}${chain.reason ? ` (${chain.reason})` : ''}, indexed to block ${chain.indexedHead?.number ?? '-'}; ` +
        `node: traces ${traceMethod ?? 'not yet known'}${traceMethod === 'none' ? ' (internal transactions not indexed)' : ''}, ` +
        `receipts ${blockReceipts ?? 'not yet known'}, Multicall3 ${multicall3 === 'present' ? `from block ${multicall3FromBlock}` : (multicall3 ?? 'not yet looked for')}`,
    );
  }
}

function printRequest(entry: RequestLogEntry): void {
  const route = entry.routeId ?? (entry.event ? 'route-not-found' : 'gateway');
  console.log(`${entry.method} ${entry.api}${entry.url} -> ${entry.statusCode} (${route}, ${entry.durationMs} ms)`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
