/**
 * The stacks of the app. By default one: the service, environment-agnostic (its account and region
 * come from the deploying credentials). With context `waf` on, the service stack gets an explicit
 * region (the one the CDK CLI resolved, CDK_DEFAULT_REGION), because CloudFront's web ACLs can only be
 * created in us-east-1: in us-east-1 the service stack holds them; elsewhere a second stack,
 * `<stackName>Waf` in us-east-1, does, and the service stack reads their ARNs through CDK's
 * cross-region references (both stacks `crossRegionReferences: true`; `cdk deploy --all` deploys the
 * WAF stack first).
 */
import type { App } from 'aws-cdk-lib';
import { ServiceStack } from './service-stack';
import { readSettings } from './settings';
import { WAF_REGION, WafStack } from './waf';

export const DEFAULT_STACK_NAME = 'ChainDataApi';

const DESCRIPTION = 'Serverless blockchain data API: explorer, insights, orders and collections over one DynamoDB table';

/** Construct id (and stack name) of the WAF stack of a service stack deployed outside us-east-1. */
export const wafStackName = (stackName: string): string => `${stackName}Waf`;

export function createStacks(app: App, env: { account?: string; region?: string } = {}): { service: ServiceStack; waf?: WafStack } {
  const stackName: string = app.node.tryGetContext('stackName') ?? DEFAULT_STACK_NAME;
  const settings = readSettings(app);
  if (!settings.waf.enabled) {
    return { service: new ServiceStack(app, stackName, { stackName, description: DESCRIPTION }) };
  }
  if (!env.region) {
    throw new Error(
      'Cannot build the app: context `waf` is on, and AWS WAF for CloudFront lives in us-east-1, so the service ' +
        "stack's region must be known at synth: configure one (AWS_REGION, or a profile with a region; the CDK CLI " +
        'passes it on as CDK_DEFAULT_REGION), or synthesise with -c waf=false',
    );
  }
  if (env.region === WAF_REGION) {
    return { service: new ServiceStack(app, stackName, { stackName, description: DESCRIPTION, env }) };
  }
  const wafName = wafStackName(stackName);
  const waf = new WafStack(app, wafName, {
    stackName: wafName,
    description: `AWS WAF web ACLs (CloudFront scope) of ${stackName}`,
    env: { account: env.account, region: WAF_REGION },
    serviceStackName: stackName,
    rateLimit: settings.waf.rateLimit,
  });
  const webAclArns = new Map([...waf.webAcls].map(([api, acl]) => [api, acl.attrArn]));
  const service = new ServiceStack(app, stackName, { stackName, description: DESCRIPTION, env, crossRegionReferences: true, webAclArns });
  return { service, waf };
}
