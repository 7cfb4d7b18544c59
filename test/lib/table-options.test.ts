/**
 * The table's class and billing mode as stack settings (issue 27's cost options): what an operator who
 * sets `tableClass` / `tableBilling` in context gets in the template, and what a wrong value answers.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_MANIFEST_RETENTION_DAYS, manifestExpiry } from '../../shared/ingest/manifest';
import { TABLE } from '../../shared/table/definition';
import { Template } from 'aws-cdk-lib/assertions';
import { createStacks } from '../../lib/stacks';
import { MAX_SERVICE_STACK_RESOURCES, ofType, resourceCounts, removeSyntheses, synthesise, testApp } from './support/template';

afterAll(removeSyntheses);

describe('the table options', () => {
  it('default to on-demand Standard: no capacity, no scaling', () => {
    const { resources } = synthesise();
    const [[, table]] = ofType(resources, 'AWS::DynamoDB::Table');
    expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
    expect(table.Properties.TableClass).toBe('STANDARD');
    expect(table.Properties.ProvisionedThroughput).toBeUndefined();
    expect(ofType(resources, 'AWS::ApplicationAutoScaling::ScalableTarget')).toHaveLength(0);
  });

  it("expire items on the table's one TTL attribute, `ttl`, the one the ingest's write manifests carry (block time + retention)", () => {
    const { resources } = synthesise();
    const [[, table]] = ofType(resources, 'AWS::DynamoDB::Table');
    expect(TABLE.ttlAttribute).toBe('ttl');
    expect(table.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
    // (A manifest of a block at t expires at t + 7 days by default; retention 0: no ttl, kept.)
    expect(manifestExpiry(1_700_000_000, DEFAULT_MANIFEST_RETENTION_DAYS)).toBe(1_700_000_000 + 7 * 86_400);
    expect(manifestExpiry(1_700_000_000, 0)).toBeUndefined();
  });

  it('project only keys into gsi2 and gsi3 (balances and waiting orders) and everything into gsi1, unless tableIndexProjection is `all`', () => {
    const projections = (context: Record<string, unknown> = {}) => {
      const { resources } = synthesise(context);
      const [[, table]] = ofType(resources, 'AWS::DynamoDB::Table');
      return Object.fromEntries(
        table.Properties.GlobalSecondaryIndexes.map((index: { IndexName: string; Projection: { ProjectionType: string } }) => [
          index.IndexName,
          index.Projection.ProjectionType,
        ]),
      );
    };
    expect(projections()).toEqual({ gsi1: 'ALL', gsi2: 'KEYS_ONLY', gsi3: 'KEYS_ONLY' });
    // A stack deployed before keeps its indexes (CloudFormation cannot change a projection in place).
    expect(projections({ tableIndexProjection: 'all' })).toEqual({ gsi1: 'ALL', gsi2: 'ALL', gsi3: 'ALL' });
  });

  it('give Standard-IA, provisioned capacity and target tracking of the table and every GSI, reads and writes apart', () => {
    const { stack, resources } = synthesise({
      tableClass: 'standard-ia',
      tableBilling: 'provisioned',
      tableMinWriteCapacity: 50,
      tableMaxWriteCapacity: 8000,
      tableMinReadCapacity: 20,
      tableMaxReadCapacity: 4000,
      tableTargetUtilization: 70,
      chains: Array.from({ length: 55 }, (_, i) => ({ chainId: i + 1, rpcUrlParameter: `/chain-data-api/rpc/${i + 1}` })),
    });
    const [[, table]] = ofType(resources, 'AWS::DynamoDB::Table');
    expect(table.Properties).toMatchObject({
      TableClass: 'STANDARD_INFREQUENT_ACCESS',
      ProvisionedThroughput: { ReadCapacityUnits: 20, WriteCapacityUnits: 50 },
    });
    expect(table.Properties.BillingMode ?? 'PROVISIONED').toBe('PROVISIONED');
    expect(table.Properties.GlobalSecondaryIndexes).toHaveLength(3); // gsi1, gsi2, gsi3 (X1)
    for (const index of table.Properties.GlobalSecondaryIndexes)
      expect(index.ProvisionedThroughput).toEqual({ ReadCapacityUnits: 20, WriteCapacityUnits: 50 });
    const targets = ofType(resources, 'AWS::ApplicationAutoScaling::ScalableTarget').map(([, target]) => target.Properties);
    const dimensions = targets.map((target) => target.ScalableDimension).sort();
    const kinds = 1 + TABLE.globalSecondaryIndexes.length;
    expect(dimensions.filter((d) => d.endsWith('WriteCapacityUnits'))).toHaveLength(kinds);
    expect(dimensions.filter((d) => d.endsWith('ReadCapacityUnits'))).toHaveLength(kinds);
    for (const target of targets) {
      const writes = String(target.ScalableDimension).endsWith('WriteCapacityUnits');
      expect([target.MinCapacity, target.MaxCapacity]).toEqual(writes ? [50, 8000] : [20, 4000]);
    }
    const policies = ofType(resources, 'AWS::ApplicationAutoScaling::ScalingPolicy').map(([, policy]) => policy.Properties);
    expect(policies).toHaveLength(2 * kinds);
    for (const policy of policies) expect(policy.TargetTrackingScalingPolicyConfiguration.TargetValue).toBe(70);
    // Still within CloudFormation's 500 resources at 55 chains.
    expect(resourceCounts(stack).stack).toBeLessThanOrEqual(MAX_SERVICE_STACK_RESOURCES);
  });

  it('provisioned, with the WAF in the service stack (us-east-1: a web ACL and a distribution per API) and 55 chains, stay within the service stack’s budget', () => {
    const app = testApp({
      tableBilling: 'provisioned',
      waf: true,
      chains: Array.from({ length: 55 }, (_, i) => ({ chainId: i + 1, rpcUrlParameter: `/chain-data-api/rpc/${i + 1}` })),
    });
    const stacks = createStacks(app, { region: 'us-east-1' });
    const resources = Template.fromStack(stacks.service).toJSON().Resources as Record<string, { Type: string }>;
    const types = Object.values(resources).map((resource) => resource.Type);
    expect(types.filter((type) => type === 'AWS::WAFv2::WebACL')).toHaveLength(3);
    expect(types.filter((type) => type === 'AWS::ApplicationAutoScaling::ScalableTarget').length).toBeGreaterThan(0);
    expect(types.length).toBeLessThanOrEqual(MAX_SERVICE_STACK_RESOURCES);
  });

  it.each([
    [{ tableClass: 'infrequent' }, /tableClass` must be `standard` or `standard-ia`/],
    [{ tableBilling: 'reserved' }, /tableBilling` must be `on-demand` or `provisioned`/],
    [{ tableTargetUtilization: 95 }, /tableTargetUtilization` must be at most 90/],
    [{ tableMinWriteCapacity: 100, tableMaxWriteCapacity: 10 }, /tableMin\*Capacity` may not exceed/],
    [{ tableIndexProjection: 'include' }, /tableIndexProjection` must be `keys-only` or `all`/],
  ])('refuse %j with a clear message', (context, message) => {
    expect(() => synthesise(context)).toThrow(message);
  });
});
