/**
 * What each function's role may do, read from the synthesised template and evaluated the way IAM
 * would (test/lib/support/iam.ts): its own log group and nothing of the managed Lambda policy; writes
 * only under the partition keys its row declares (orders functions never touch chain data, no function
 * writes a partner, the ingest writes chain data but none of the service's records); the RPC parameter
 * decrypted only with its own customer managed key, never `key/*`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_RECORD_KEYS } from '../../lib/api-function';
import { fallbackFunctionId, functionIdOfRoute, jobInstances } from '../../lib/service-stack';
import { backfillWorker, consumers, jobs } from '../../shared/jobs';
import { API_NAMES, CHAIN_DATA, routes, type TableAccess } from '../../shared/routes';
import {
  abiKeys,
  addressKeys,
  backfillKeys,
  blockKeys,
  chainKeys,
  collectionKeys,
  nftKeys,
  orderKeys,
  apiKeyKeys,
  webhookKeys,
  transactionKeys,
} from '../../shared/table/keys';
import { allows, stringLike } from './support/iam';
import {
  actionsOf,
  everyStatement,
  ofType,
  type Resources,
  removeSyntheses,
  resourcesOf,
  statementsOf,
  synthesise,
  tableArn,
} from './support/template';

const KEY_ARN = 'arn:aws:kms:us-east-1:123456789012:key/0b9c2f6e-3c1d-4e8a-9f2b-7d5e1a4c6b30';
const CHAINS = [
  { chainId: 8453, rpcUrlParameter: '/chain-data-api/rpc/8453', rpcUrlKeyArn: KEY_ARN },
  { chainId: 10, rpcUrlParameter: '/chain-data-api/rpc/10' },
];
const ORDER_ID = '0b9c2f6e-3c1d-4e8a-9f2b-7d5e1a4c6b30';
const ADDRESS = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const HASH = `0x${'ab'.repeat(32)}`;

/** Partition keys of every kind, built with the key builders. */
const KEYS = {
  order: orderKeys.order(ORDER_ID).pk,
  deposit: orderKeys.deposit(ORDER_ID, HASH, { logIndex: 3 }).pk,
  allOrders: orderKeys.allOrders().pk,
  creatorOrders: orderKeys.creatorOrders(ADDRESS).pk,
  session: orderKeys.checkoutSession(ORDER_ID).pk,
  orderIdempotency: orderKeys.idempotencyKey('POST /orders', 'key-1').pk,
  sessionIdempotency: orderKeys.idempotencyKey('POST /checkout-sessions', 'key-1').pk,
  partner: orderKeys.partner('partner-1').pk,
  collection: collectionKeys.collection(ADDRESS).pk,
  collectionList: collectionKeys.list().pk,
  collectionFilteredList: collectionKeys.list({ field: 'symbol', value: 'MINE' }).pk,
  collectionCounter: collectionKeys.counter(collectionKeys.list({ field: 'creator', value: ADDRESS })).pk,
  abi: abiKeys.event(HASH).pk,
  chainRegistry: chainKeys.registry(8453).pk,
  cursor: chainKeys.cursor(8453).pk,
  manifest: chainKeys.manifest(8453, 12, 0).pk,
  block: blockKeys.block(8453, 12).pk,
  transaction: transactionKeys.transaction(8453, HASH).pk,
  balance: addressKeys.balance(8453, ADDRESS, ADDRESS).pk,
  backfillPlan: backfillKeys.plan(8453).pk,
  stagedSegment: backfillKeys.staged(8453, 12, 'DONE').pk,
  nftInstance: nftKeys.instance(8453, ADDRESS, 7n).pk,
  legacyNftMetadata: nftKeys.legacyMetadata(8453, ADDRESS, 7n).pk,
  apiKey: apiKeyKeys.key('ab'.repeat(32)).pk,
  webhook: webhookKeys.webhook('acme', ORDER_ID).pk,
  webhookFilter: webhookKeys.filter(8453, ORDER_ID).pk,
  webhookAnyChainFilter: webhookKeys.filter('any', ORDER_ID).pk,
  webhookSent: webhookKeys.sent(8453, 12, HASH, ORDER_ID, 0).pk,
} as const;
type KeyName = keyof typeof KEYS;
const CHAIN_KEYS: KeyName[] = [
  'chainRegistry',
  'cursor',
  'manifest',
  'block',
  'transaction',
  'balance',
  'backfillPlan',
  'stagedSegment',
  'nftInstance',
  'legacyNftMetadata',
];
const RECORD_KEYS = (Object.keys(KEYS) as KeyName[]).filter((name) => !CHAIN_KEYS.includes(name));

/** What each writer must be able to write (and nothing else of KEYS). */
const MAY_WRITE: Record<string, KeyName[]> = {
  CreateOrder: ['order', 'deposit', 'allOrders', 'creatorOrders', 'session', 'orderIdempotency'],
  CreateCheckoutSession: ['session', 'sessionIdempotency'],
  CreateCollection: ['collection', 'collectionList', 'collectionFilteredList', 'collectionCounter'],
  // A deposit item lives in its order's partition; an order's first deposit removes the retention ttl
  // of its list pointers and its checkout session (shared/orders/retention.ts).
  DetectDeposits: ['order', 'deposit', 'allOrders', 'creatorOrders', 'session'],
  ExpireOrders: ['order', 'deposit', 'session'],
  // One ingest function for every chain.
  IngestChain: CHAIN_KEYS,
  BackfillChain: CHAIN_KEYS,
  // The NFT metadata fetcher writes an instance's `fetched` state (G7) only: its other attributes and
  // every other item are out of reach (the attribute condition: its own test below).
  FetchNftMetadata: ['nftInstance'],
  // Insight's webhook routes: each counts its request on its key's item; the writing ones change a
  // webhook (its count in its partition) and its filter index, never a key's project or another record.
  ListWebhooks: ['apiKey'],
  TestWebhook: ['apiKey'],
  ValidateWebhookFilters: ['apiKey'],
  CreateWebhook: ['apiKey', 'webhook', 'webhookFilter', 'webhookAnyChainFilter'],
  UpdateWebhook: ['apiKey', 'webhook', 'webhookFilter', 'webhookAnyChainFilter'],
  DeleteWebhook: ['apiKey', 'webhook', 'webhookFilter', 'webhookAnyChainFilter'],
  // Webhook delivery: the matcher records what a block sent (H5); the sender counts failures and suspends (H1).
  MatchWebhooks: ['webhookSent'],
  DeliverWebhooks: ['webhook'],
};

const functions = [
  ...API_NAMES.map((api) => ({ id: fallbackFunctionId(api), table: { read: false, write: [] } as TableAccess, orders: false })),
  // One function per handler file and APIs (functionIdOfRoute): rows sharing it declare the same access.
  ...routes
    .filter((route) => functionIdOfRoute(routes, route) === route.id)
    .map((route) => ({ id: route.id, table: route.table, orders: route.group === 'orders' })),
  ...consumers.map((consumer) => ({ id: consumer.id, table: consumer.table, orders: consumer.handler.startsWith('functions/orders/') })),
  ...jobs.flatMap((job) =>
    jobInstances(job, CHAINS).map((instance) => ({
      id: instance.id,
      table: job.table,
      orders: job.handler.startsWith('functions/orders/'),
    })),
  ),
  { id: backfillWorker.id, table: backfillWorker.table, orders: false },
];
const writers = functions.filter((fn) => fn.table.write.length > 0);

let resources: Resources;

beforeAll(() => {
  ({ resources } = synthesise({ chains: CHAINS }));
});
afterAll(() => removeSyntheses());

const mayWrite = (id: string, action: string, pk: string) => allows(statementsOf(resources, id), action, tableArn, pk);
const writeActions = (table: TableAccess) => table.write.map((action) => `dynamodb:${action}`);

describe('function roles', () => {
  it('are one per function, none with a managed policy', () => {
    const roles = new Set(functions.map((fn) => resources[fn.id].Properties.Role['Fn::GetAtt'][0]));
    expect(roles.size).toBe(functions.length);
    for (const [id, role] of ofType(resources, 'AWS::IAM::Role')) {
      expect(role.Properties.ManagedPolicyArns, id).toBeUndefined();
    }
  });

  it('let each function create streams and put events in its own log group, and no other', () => {
    for (const { id } of functions) {
      const logGroupId = resources[id].Properties.LoggingConfig.LogGroup.Ref;
      const logs = statementsOf(resources, id).filter((statement) => actionsOf(statement).some((action) => action.startsWith('logs:')));
      expect(logs, id).toEqual([
        { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] } },
      ]);
    }
    // Nowhere a logs action on every resource, but the backfill state machine's log delivery, which
    // CloudWatch Logs accepts only on every resource.
    const logDelivery =
      /^logs:(Create|Get|Update|Delete|List)LogDeliver(y|ies)$|^logs:(PutResourcePolicy|DescribeResourcePolicies|DescribeLogGroups)$/;
    for (const statement of everyStatement(resources)) {
      const logs = actionsOf(statement).filter((action) => action.startsWith('logs:'));
      if (logs.length > 0 && !logs.every((action) => logDelivery.test(action))) expect(resourcesOf(statement)).not.toContain('*');
    }
  });
});

describe('table writes', () => {
  it('every writer declares its partition keys, and its writes carry them as a LeadingKeys condition (or the ingest’s Deny)', () => {
    for (const { id, table } of writers) {
      expect(table.writeKeys, id).toBeDefined();
      const writes = statementsOf(resources, id).filter((statement) =>
        actionsOf(statement).some((action) => writeActions(table).includes(action)),
      );
      if (table.writeKeys === CHAIN_DATA) {
        expect(writes.map((statement) => statement.Effect).sort(), id).toEqual(['Allow', 'Deny']);
        const deny = writes.find((statement) => statement.Effect === 'Deny')!;
        expect(deny.Condition).toEqual({ 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': [...SERVICE_RECORD_KEYS] } });
        expect(actionsOf(deny).sort()).toEqual(writeActions(table).sort());
      } else {
        expect(writes, id).toHaveLength(1);
        expect(writes[0].Condition).toEqual({
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...table.writeKeys!] },
          ...(table.writeAttributes ? { 'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...table.writeAttributes] } } : {}),
        });
      }
    }
  });

  it.each(Object.entries(MAY_WRITE))('%s may write exactly its own kinds of items', (id, allowed) => {
    const fn = writers.find((candidate) => candidate.id === id);
    expect(fn, id).toBeDefined();
    for (const action of writeActions(fn!.table)) {
      for (const [name, pk] of Object.entries(KEYS)) {
        expect(mayWrite(id, action, pk), `${id} ${action} ${pk}`).toBe(allowed.includes(name as KeyName));
      }
    }
  });

  it('lets the NFT metadata fetcher name only an instance’s key, token URI and `fetched` state (G7), no attribute the ingest owns', () => {
    const statements = statementsOf(resources, 'FetchNftMetadata');
    const update = (attributes: string[]) => allows(statements, 'dynamodb:UpdateItem', tableArn, KEYS.nftInstance, attributes);
    expect(update(['pk', 'sk', 'tokenUri', 'fetched'])).toBe(true);
    for (const owned of ['owner', 'metadataJson', 'updatedAtBlock', 'heldSupply', 'holders', 'kind']) {
      expect(update(['pk', 'sk', 'fetched', owned]), owned).toBe(false);
    }
    expect(allows(statements, 'dynamodb:PutItem', tableArn, KEYS.nftInstance)).toBe(false);
    expect(allows(statements, 'dynamodb:DeleteItem', tableArn, KEYS.nftInstance)).toBe(false);
  });

  it('covers every writer in MAY_WRITE', () => {
    expect(writers.map((fn) => fn.id).sort()).toEqual(Object.keys(MAY_WRITE).sort());
  });

  it('no function may write a partner, and no orders function any chain item', () => {
    for (const { id, table, orders } of functions) {
      for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']) {
        expect(mayWrite(id, action, KEYS.partner), `${id} ${action}`).toBe(false);
        if (orders) for (const name of CHAIN_KEYS) expect(mayWrite(id, action, KEYS[name]), `${id} ${action} ${name}`).toBe(false);
      }
      if (table.write.length === 0) expect(statementsOf(resources, id).flatMap(actionsOf), id).not.toContain('dynamodb:PutItem');
    }
  });

  it('denies the ingest every record key of the service (SERVICE_RECORD_KEYS covers each builder), and no chain key', () => {
    for (const name of RECORD_KEYS) {
      expect(
        SERVICE_RECORD_KEYS.some((pattern) => stringLike(pattern, KEYS[name])),
        name,
      ).toBe(true);
    }
    for (const name of CHAIN_KEYS) {
      expect(
        SERVICE_RECORD_KEYS.some((pattern) => stringLike(pattern, KEYS[name])),
        name,
      ).toBe(false);
    }
    // Range seek chunks (`SEEK#C#...`) and any other chain-data prefix the ingest may add stay writable.
    expect(mayWrite('IngestChain', 'dynamodb:BatchWriteItem', `SEEK#${KEYS.block}`)).toBe(true);
  });
});

describe('the RPC parameter', () => {
  const kmsStatements = (id: string) =>
    statementsOf(resources, id).filter((statement) => actionsOf(statement).some((action) => action.startsWith('kms:')));

  const parameterArnOf = (name: string) => ({
    'Fn::Join': [
      '',
      ['arn:', { Ref: 'AWS::Partition' }, ':ssm:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:parameter${name}`],
    ],
  });

  it('is read by the functions that serve every chain (ingest, backfill), each chain’s parameter by name and no other', () => {
    for (const id of ['IngestChain', 'BackfillChain']) {
      const ssm = statementsOf(resources, id).filter((statement) => actionsOf(statement).some((action) => action.startsWith('ssm:')));
      expect(ssm, id).toHaveLength(1);
      expect(ssm[0]).toMatchObject({ Effect: 'Allow', Action: 'ssm:GetParameter' });
      expect(ssm[0].Condition, id).toBeUndefined();
      const byText = (list: unknown[]) => list.map((entry) => JSON.stringify(entry)).sort();
      expect(byText(resourcesOf(ssm[0])), id).toEqual(byText(CHAINS.map((chain) => parameterArnOf(chain.rpcUrlParameter))));
    }
    // No other function reads a parameter.
    for (const { id } of functions.filter((fn) => !['IngestChain', 'BackfillChain'].includes(fn.id))) {
      expect(
        statementsOf(resources, id)
          .flatMap(actionsOf)
          .filter((action) => action.startsWith('ssm:')),
        id,
      ).toEqual([]);
    }
  });

  it('is decrypted with its customer managed key only, through SSM, for the parameters under that key only', () => {
    for (const id of ['IngestChain', 'BackfillChain']) {
      const [kms, ...others] = kmsStatements(id);
      expect(others, id).toEqual([]);
      expect(kms).toMatchObject({ Effect: 'Allow', Action: 'kms:Decrypt', Resource: KEY_ARN });
      expect(Object.keys(kms.Condition.StringEquals).sort()).toEqual(['kms:EncryptionContext:PARAMETER_ARN', 'kms:ViaService']);
      // 8453's parameter is under the key; 10's, under aws/ssm, needs no grant and is not named.
      expect(kms.Condition.StringEquals['kms:EncryptionContext:PARAMETER_ARN']).toEqual(parameterArnOf(CHAINS[0].rpcUrlParameter));
    }
  });

  it('lists every parameter a key encrypts in one statement, and no statement names every key', () => {
    const { resources: shared } = synthesise(
      {
        chains: [
          { chainId: 1, rpcUrlParameter: '/rpc/1', rpcUrlKeyArn: KEY_ARN },
          { chainId: 2, rpcUrlParameter: '/rpc/2', rpcUrlKeyArn: KEY_ARN },
          { chainId: 3, rpcUrlParameter: '/rpc/3' },
        ],
      },
      { routes: [] },
    );
    const kms = statementsOf(shared, 'IngestChain').filter((statement) => actionsOf(statement).some((action) => action.startsWith('kms:')));
    expect(kms).toHaveLength(1);
    const named = [kms[0].Condition.StringEquals['kms:EncryptionContext:PARAMETER_ARN']].flat().map((arn) => JSON.stringify(arn));
    expect(named.sort()).toEqual(['/rpc/1', '/rpc/2'].map((name) => JSON.stringify(parameterArnOf(name))).sort());
    const everyResource = JSON.stringify(everyStatement(resources).flatMap(resourcesOf));
    expect(everyResource).not.toMatch(/:key\/\*/);
  });

  it('refuses a key alias instead of a key ARN (IAM cannot grant Decrypt through an alias ARN)', () => {
    expect(() =>
      synthesise(
        { chains: [{ chainId: 1, rpcUrlParameter: '/rpc/1', rpcUrlKeyArn: 'arn:aws:kms:us-east-1:123456789012:alias/aws/ssm' }] },
        { routes: [], jobs: [] },
      ),
    ).toThrow(/rpcUrlKeyArn|chains/);
  });
});
