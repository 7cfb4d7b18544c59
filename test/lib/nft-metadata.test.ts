/**
 * The NFT metadata fetcher as synthesised: its standard queue and dead-letter queue (redrive after 10
 * receives), its consumer (batches of 10, at most 5 at once, its own queue's URL, reads and G7 writes
 * only), the publishers (the ingest and the two refresh routes: SendMessage only), its alarms, and the
 * environment: no function sets NFT_METADATA_ALLOW_LOOPBACK (loopback is never fetched in AWS), which
 * `functionEnvironment` may not set either; gateways set there reach the fetcher and the APIs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumers, queues } from '../../shared/jobs';
import { QUEUE_MAX_RECEIVE_COUNT } from '../../shared/nft-metadata/config';
import { actionsOf, ofType, type Resources, removeSyntheses, resourcesOf, statementsOf, synthesise } from './support/template';

const CHAINS = [{ chainId: 8453, rpcUrlParameter: '/chain-data-api/rpc/8453' }];
const GATEWAY = 'https://gateway.example/ipfs/';
let resources: Resources;

const logicalId = (prefix: string): string => {
  const ids = Object.keys(resources).filter((id) => new RegExp(`^${prefix}[0-9A-F]{8}$`).test(id));
  expect(ids, prefix).toHaveLength(1);
  return ids[0]!;
};
const variablesOf = (id: string): Record<string, unknown> => resources[id]!.Properties.Environment?.Variables ?? {};

beforeAll(() => {
  ({ resources } = synthesise({ chains: CHAINS, functionEnvironment: { NFT_METADATA_IPFS_GATEWAY: GATEWAY } }));
});
afterAll(() => removeSyntheses());

describe('the NFT metadata fetcher in the stack', () => {
  it('is a standard queue with a standard dead-letter queue after 10 receives, its visibility 6 x the consumer’s timeout', () => {
    const consumer = consumers.find((row) => row.id === 'FetchNftMetadata')!;
    expect(queues.find((row) => row.id === 'NftMetadata')).toMatchObject({ fifo: false, maxReceiveCount: QUEUE_MAX_RECEIVE_COUNT });
    const queue = resources[logicalId('NftMetadata')]!.Properties;
    expect(queue.FifoQueue).toBeUndefined();
    expect(queue).toMatchObject({
      VisibilityTimeout: 6 * consumer.timeoutSeconds,
      SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [logicalId('NftMetadataDeadLetters'), 'Arn'] }, maxReceiveCount: 10 },
    });
    expect(resources[logicalId('NftMetadataDeadLetters')]!.Properties).toMatchObject({ MessageRetentionPeriod: 14 * 24 * 3600 });
    // Both refuse anything but TLS (enforceSSL).
    const policies = ofType(resources, 'AWS::SQS::QueuePolicy').filter(([, policy]) =>
      policy.Properties.Queues.some((queueRef: { Ref: string }) => queueRef.Ref.startsWith('NftMetadata')),
    );
    expect(policies).toHaveLength(2);
  });

  it('feeds the consumer in batches of 10, at most 5 invocations at once, reporting batch item failures', () => {
    const mapping = ofType(resources, 'AWS::Lambda::EventSourceMapping').find(
      ([, candidate]) => candidate.Properties.FunctionName.Ref === 'FetchNftMetadata',
    )!;
    expect(mapping[1].Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [logicalId('NftMetadata'), 'Arn'] },
      BatchSize: 10,
      ScalingConfig: { MaximumConcurrency: 5 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(resources.FetchNftMetadata!.Properties).toMatchObject({ Handler: 'index.handler', Timeout: 180 });
  });

  it('gives the consumer its queue’s URL and the gateways, and no function NFT_METADATA_ALLOW_LOOPBACK', () => {
    expect(variablesOf('FetchNftMetadata')).toMatchObject({
      NFT_METADATA_QUEUE_URL: { Ref: logicalId('NftMetadata') },
      NFT_METADATA_IPFS_GATEWAY: GATEWAY,
    });
    const functions = ofType(resources, 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThan(10);
    for (const [id] of functions) expect(Object.keys(variablesOf(id)), id).not.toContain('NFT_METADATA_ALLOW_LOOPBACK');
    // The APIs show ipfs:// media through the same gateway.
    expect(variablesOf('ListAddressNfts').NFT_METADATA_IPFS_GATEWAY).toBe(GATEWAY);
  });

  it('lets the consumer receive, delay (ChangeMessageVisibility) and send on its own queue, and write instances’ G7 state only', () => {
    const sqs = statementsOf(resources, 'FetchNftMetadata').filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('sqs:')),
    );
    expect(sqs.flatMap(resourcesOf)).toEqual(sqs.map(() => ({ 'Fn::GetAtt': [logicalId('NftMetadata'), 'Arn'] })));
    expect(sqs.flatMap(actionsOf)).toEqual(
      expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:SendMessage']),
    );
    const writes = statementsOf(resources, 'FetchNftMetadata').filter((statement) => actionsOf(statement).includes('dynamodb:UpdateItem'));
    expect(writes).toHaveLength(1);
    expect(writes[0]!.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['C#*#NFT#*'] },
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'tokenUri', 'fetched'] },
    });
    expect(writes.flatMap(actionsOf).filter((action) => action.startsWith('dynamodb:'))).toEqual(['dynamodb:UpdateItem']);
  });

  it('alarms on a message in its dead-letter queue and on a request waiting 24 h', () => {
    const alarms = ofType(resources, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
    const byName = (suffix: string) => alarms.find((alarm) => String(alarm.AlarmName).endsWith(suffix));
    expect(byName('-DeadLetters-NftMetadataDeadLetters')).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1 });
    expect(byName('-QueueAge-NftMetadata')).toMatchObject({ MetricName: 'ApproximateAgeOfOldestMessage', Threshold: 86_400 });
    expect(byName('-Throttles-FetchNftMetadata')).toBeDefined();
  });

  it('refuses a functionEnvironment that sets NFT_METADATA_ALLOW_LOOPBACK (or the queue URL the stack sets)', () => {
    expect(() => synthesise({ chains: CHAINS, functionEnvironment: { NFT_METADATA_ALLOW_LOOPBACK: '1' } })).toThrow(
      /functionEnvironment.*may not set a variable the stack manages.*NFT_METADATA_ALLOW_LOOPBACK/s,
    );
    expect(() => synthesise({ chains: CHAINS, functionEnvironment: { NFT_METADATA_QUEUE_URL: 'https://sqs.example/q' } })).toThrow(
      /may not set a variable the stack manages/,
    );
    // The webhook routes' loopback receivers: local runs only too.
    expect(() => synthesise({ chains: CHAINS, functionEnvironment: { WEBHOOK_ALLOW_LOOPBACK: '1' } })).toThrow(
      /may not set a variable the stack manages.*WEBHOOK_ALLOW_LOOPBACK/s,
    );
  });
});
