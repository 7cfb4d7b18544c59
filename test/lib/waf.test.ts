/**
 * The optional AWS WAF (context `waf`, lib/waf.ts and lib/stacks.ts): with it on, each API has a
 * CloudFront distribution in front of it, associated with that API's CLOUDFRONT-scoped web ACL (rate
 * limit per client IP from context, a 64 KiB body limit, the AWS common rule set), in the service stack
 * in us-east-1 and in a us-east-1 WAF stack elsewhere; with it off, nothing of it is in the template.
 */
import { Stack, Token } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../shared/http/handler';
import { API_NAMES, type ApiGroup, type ApiName, errorBody } from '../../shared/http/groups';
import { apiConstructId, apiUrlOutputId, ServiceStack } from '../../lib/service-stack';
import { createStacks, wafStackName } from '../../lib/stacks';
import {
  BODY_TOO_LARGE_MESSAGE,
  RATE_LIMITED_LABEL,
  RATE_LIMITED_MESSAGE,
  WAF_BODY_LIMIT_BYTES,
  WAF_RULES,
  webAclName,
} from '../../lib/waf';
import { ofType, type Resource, type Resources, removeSyntheses, synthesise, testApp } from './support/template';

afterAll(() => removeSyntheses());

const CHAINS = [
  { chainId: 8453, rpcUrlParameter: '/chain-data-api/rpc/8453' },
  { chainId: 10, rpcUrlParameter: '/chain-data-api/rpc/10' },
];

const GROUPS: Record<ApiName, ApiGroup[]> = { base: ['insights', 'explorer'], orders: ['orders'], collections: ['collections'] };

/** Managed CloudFront policies (ids published by AWS). */
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

function synthesiseApp(context: Record<string, unknown>, env: { region?: string; account?: string }) {
  const app = testApp({ chains: CHAINS, ...context });
  const stacks = createStacks(app, env);
  const service = Template.fromStack(stacks.service).toJSON();
  const waf = stacks.waf && Template.fromStack(stacks.waf).toJSON();
  return { app, stacks, service, waf, resources: service.Resources as Resources };
}

const webAclOf = (resources: Resources, api: ApiName): [string, Resource] => {
  const found = ofType(resources, 'AWS::WAFv2::WebACL').filter(([, acl]) => acl.Properties.Name === webAclName('ChainDataApi', api));
  expect(found, api).toHaveLength(1);
  return found[0];
};

const apiLogicalId = (resources: Resources, api: ApiName): string => {
  const ids = ofType(resources, 'AWS::ApiGatewayV2::Api')
    .map(([id]) => id)
    .filter((id) => id.startsWith(apiConstructId(api)));
  expect(ids).toHaveLength(1);
  return ids[0];
};

/** The distribution whose origin is this API's execute-api host. */
const distributionOf = (resources: Resources, api: ApiName): [string, Resource] => {
  const apiId = apiLogicalId(resources, api);
  const found = ofType(resources, 'AWS::CloudFront::Distribution').filter(([, distribution]) =>
    JSON.stringify(distribution.Properties.DistributionConfig.Origins).includes(`{"Ref":"${apiId}"}`),
  );
  expect(found, api).toHaveLength(1);
  return found[0];
};

/** The rules of a web ACL, checked against what lib/waf.ts promises for `api`. */
function expectRules(acl: Resource, api: ApiName, rateLimit: number): void {
  const props = acl.Properties;
  expect(props.Scope).toBe('CLOUDFRONT');
  expect(props.DefaultAction).toEqual({ Allow: {} });
  expect(props.AssociationConfig).toEqual({ RequestBody: { CLOUDFRONT: { DefaultSizeInspectionLimit: 'KB_64' } } });
  const rules: any[] = props.Rules;
  const byName = new Map(rules.map((rule) => [rule.Name, rule]));
  expect(new Set(rules.map((rule) => rule.Priority)).size).toBe(rules.length);

  // The rate-based rule per client IP, limit from context; it labels, the rules after it answer.
  const rate = byName.get(WAF_RULES.rateLimit);
  expect(rate.Statement.RateBasedStatement).toEqual({ AggregateKeyType: 'IP', Limit: rateLimit, EvaluationWindowSec: 300 });
  expect(rate.Action).toEqual({ Count: {} });
  expect(rate.RuleLabels).toEqual([{ Name: RATE_LIMITED_LABEL }]);

  for (const group of GROUPS[api]) {
    const limited = byName.get(WAF_RULES.rateLimited(group));
    expect(limited.Priority).toBeGreaterThan(rate.Priority);
    expect(limited.Action.Block.CustomResponse.ResponseCode).toBe(429);
    expect(JSON.stringify(limited.Statement)).toContain(`"LabelMatchStatement":{"Key":"${RATE_LIMITED_LABEL}","Scope":"LABEL"}`);
    const limitedBody = props.CustomResponseBodies[limited.Action.Block.CustomResponse.CustomResponseBodyKey];
    expect(limitedBody.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(limitedBody.Content)).toEqual(errorBody(group, 429, RATE_LIMITED_MESSAGE));

    const large = byName.get(WAF_RULES.bodyTooLarge(group));
    expect(large.Action.Block.CustomResponse.ResponseCode).toBe(413);
    const size = JSON.stringify(large.Statement);
    const sizeStatement = large.Statement.SizeConstraintStatement ?? large.Statement.AndStatement.Statements[0].SizeConstraintStatement;
    expect(sizeStatement).toEqual({
      FieldToMatch: { Body: { OversizeHandling: 'MATCH' } },
      ComparisonOperator: 'GT',
      Size: MAX_BODY_BYTES,
      TextTransformations: [{ Priority: 0, Type: 'NONE' }],
    });
    const largeBody = props.CustomResponseBodies[large.Action.Block.CustomResponse.CustomResponseBodyKey];
    expect(JSON.parse(largeBody.Content)).toEqual(errorBody(group, 413, BODY_TOO_LARGE_MESSAGE));
    // On the base API each group's rule answers only its own paths (insights under /insights).
    if (GROUPS[api].length > 1) {
      const scoped = group === 'insights' ? '"SearchString":"/insights"' : '"NotStatement"';
      expect(JSON.stringify(limited.Statement)).toContain(scoped);
      expect(size).toContain(scoped);
    } else {
      expect(size).not.toContain('/insights');
    }
  }

  // The managed common rule set, with its 8 KB body rule counted (the service allows 64 KiB).
  const common = byName.get(WAF_RULES.common);
  expect(common.OverrideAction).toEqual({ None: {} });
  expect(common.Statement.ManagedRuleGroupStatement).toEqual({
    VendorName: 'AWS',
    Name: 'AWSManagedRulesCommonRuleSet',
    RuleActionOverrides: [{ Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } }],
  });
  expect(common.Priority).toBe(Math.max(...rules.map((rule) => rule.Priority)));
  expect(rules).toHaveLength(2 + 2 * GROUPS[api].length);
}

function expectDistribution(distribution: Resource, resources: Resources, api: ApiName, region: string): void {
  const config = distribution.Properties.DistributionConfig;
  expect(config.Enabled).toBe(true);
  expect(config.Origins).toHaveLength(1);
  expect(config.Origins[0].DomainName).toEqual({
    'Fn::Join': ['', [{ Ref: apiLogicalId(resources, api) }, `.execute-api.${region}.`, { Ref: 'AWS::URLSuffix' }]],
  });
  expect(config.Origins[0].CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
  const behavior = config.DefaultCacheBehavior;
  expect(behavior.AllowedMethods).toEqual(['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE']);
  expect(behavior.CachePolicyId).toBe(CACHING_DISABLED);
  expect(behavior.OriginRequestPolicyId).toBe(ALL_VIEWER_EXCEPT_HOST_HEADER);
  expect(behavior.ViewerProtocolPolicy).toBe('https-only');
  expect(config.CacheBehaviors).toBeUndefined();
}

describe('AWS WAF in front of the APIs', () => {
  it('keeps the web ACLs at the handlers body limit', () => {
    expect(WAF_BODY_LIMIT_BYTES).toBe(MAX_BODY_BYTES);
  });

  it('is off by default: one environment-agnostic stack without WAF or CloudFront', () => {
    const { stacks, resources, service } = synthesiseApp({}, { region: 'eu-west-1', account: '123456789012' });
    expect(stacks.waf).toBeUndefined();
    expect(Token.isUnresolved(stacks.service.region)).toBe(true);
    const types = new Set(Object.values(resources).map((resource) => resource.Type));
    expect([...types].filter((type) => /WAF|CloudFront|Custom::|SSM::Parameter/.test(type))).toEqual([]);
    for (const api of API_NAMES) expect(JSON.stringify(service.Outputs[apiUrlOutputId(api)].Value)).toContain('execute-api');
  });

  it('in us-east-1: a web ACL per API in the service stack, each associated with the distribution in front of its API', () => {
    const { stacks, resources, service } = synthesiseApp({ waf: true, wafRateLimit: '500' }, { region: 'us-east-1' });
    expect(stacks.waf).toBeUndefined();
    expect(stacks.service.region).toBe('us-east-1');
    expect(ofType(resources, 'AWS::WAFv2::WebACL')).toHaveLength(3);
    expect(ofType(resources, 'AWS::CloudFront::Distribution')).toHaveLength(3);
    // No association resource: a CloudFront web ACL is associated by the distribution's WebACLId.
    expect(ofType(resources, 'AWS::WAFv2::WebACLAssociation')).toEqual([]);
    for (const api of API_NAMES) {
      const [aclId, acl] = webAclOf(resources, api);
      expectRules(acl, api, 500);
      const [distributionId, distribution] = distributionOf(resources, api);
      expectDistribution(distribution, resources, api, 'us-east-1');
      expect(distribution.Properties.DistributionConfig.WebACLId).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
      // The base URL clients get is CloudFront's.
      expect(service.Outputs[apiUrlOutputId(api)].Value).toEqual({
        'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/']],
      });
    }
  });

  it('elsewhere: the web ACLs in a us-east-1 WAF stack, read by the service stack across regions', () => {
    const { stacks, resources, waf } = synthesiseApp({ waf: true }, { region: 'eu-west-1', account: '123456789012' });
    expect(stacks.waf).toBeDefined();
    expect(stacks.waf!.stackName).toBe(wafStackName('ChainDataApi'));
    expect(stacks.waf!.region).toBe('us-east-1');
    expect(stacks.service.region).toBe('eu-west-1');
    expect(stacks.service.dependencies).toContain(stacks.waf);
    expect(ofType(resources, 'AWS::WAFv2::WebACL')).toEqual([]);
    const wafResources = waf!.Resources as Resources;
    expect(Object.values(wafResources).map((resource) => resource.Type)).toEqual(Array(3).fill('AWS::WAFv2::WebACL'));
    for (const api of API_NAMES) {
      const [aclId, acl] = webAclOf(wafResources, api);
      expectRules(acl, api, 2000);
      const [, distribution] = distributionOf(resources, api);
      expectDistribution(distribution, resources, api, 'eu-west-1');
      const reference = distribution.Properties.DistributionConfig.WebACLId['Fn::GetStackOutput'];
      expect(reference).toMatchObject({ StackName: 'ChainDataApiWaf', Region: 'us-east-1' });
      expect(waf!.Outputs[reference.OutputName].Value).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    }
  });

  it('needs the region at synth, and says so', () => {
    expect(() => createStacks(testApp({ waf: true }), {})).toThrow(/context `waf` is on.*region must be known at synth/);
    // The stack alone, without a region or web ACLs from us-east-1, refuses too.
    expect(() => new ServiceStack(testApp({ waf: 'true' }), 'Alone')).toThrow(/needs an explicit region/);
    expect(() => new ServiceStack(testApp({ waf: true }), 'Elsewhere', { env: { region: 'eu-west-1' } })).toThrow(
      /must come from a WafStack in us-east-1/,
    );
  });

  it.each([
    [{ waf: 'yes' }, /`waf` must be true or false/],
    [{ wafRateLimit: 5 }, /`wafRateLimit` must be at least 10/],
    [{ wafRateLimit: 'many' }, /`wafRateLimit` must be a whole number/],
  ])('rejects the invalid setting %j', (context, message) => {
    expect(() => synthesise(context, { routes: [], jobs: [] })).toThrow(message);
  });

  it('stays under CloudFormation 500 resources per stack with WAF and every chain on', () => {
    for (const region of ['us-east-1', 'eu-west-1']) {
      const { app, stacks } = synthesiseApp({ waf: true, alarmEmail: 'ops@example.com' }, { region });
      for (const stack of app.node.children.filter((child): child is Stack => child instanceof Stack)) {
        const count = Object.keys(Template.fromStack(stack).toJSON().Resources).length;
        expect(count, stack.stackName).toBeLessThan(500);
      }
      expect(stacks.service).toBeDefined();
    }
  });
});
