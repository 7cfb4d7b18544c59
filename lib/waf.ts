/**
 * The optional AWS WAF in front of the three APIs (context `waf`, off by default; docs/decisions/cdk.md,
 * "AWS WAF in front of the APIs"). AWS WAF cannot be associated with an API Gateway HTTP API, so each
 * API gets a CloudFront distribution (no caching, every method, every viewer header but Host, every
 * query string) protected by its own CLOUDFRONT-scoped web ACL:
 *  1. a rate-based rule per client IP (`wafRateLimit` requests per 5 minutes), answering 429;
 *  2. bodies over the service's 64 KiB limit refused with 413 before Lambda runs (size constraint,
 *     body inspection raised to 64 KB, oversize bodies match);
 *  3. the AWS managed common rule set, its 8 KB body rule counted instead (the service allows 64 KiB).
 * The 429 and 413 answers are JSON in the format of the path's group (shared/http/groups.ts); what the
 * managed rules block gets WAF's plain 403.
 * CLOUDFRONT-scoped web ACLs exist only in us-east-1: `WafStack` holds them when the service is elsewhere.
 */
import { Stack, type StackProps, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { API_NAMES, type ApiGroup, type ApiName, errorBody } from '../shared/http/groups';

/** The only region where CLOUDFRONT-scoped web ACLs can be created. */
export const WAF_REGION = 'us-east-1';

/** The handlers' body limit (MAX_BODY_BYTES of shared/http/handler.ts; a test keeps them equal). */
export const WAF_BODY_LIMIT_BYTES = 64 * 1024;

/** Label the rate-based rule puts on requests over the limit; the rules after it block them in the path's format. */
export const RATE_LIMITED_LABEL = 'chain-data-api:rate-limited';

/** Names of each web ACL's rules (a rule per group where an API serves several: the base API). */
export const WAF_RULES = {
  rateLimit: 'RateLimitPerIp',
  rateLimited: (group: ApiGroup) => `RateLimited${pascal(group)}`,
  bodyTooLarge: (group: ApiGroup) => `BodyTooLarge${pascal(group)}`,
  common: 'AWSManagedRulesCommonRuleSet',
} as const;

const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/**
 * The groups an API serves and the requests of each, as `groupOfPath` (shared/http/groups.ts) tells
 * them apart: on the base API, paths under /insights are insights, the rest explorer.
 */
const GROUPS_OF_API: Record<ApiName, { group: ApiGroup; insightsPath?: boolean }[]> = {
  base: [
    { group: 'insights', insightsPath: true },
    { group: 'explorer', insightsPath: false },
  ],
  orders: [{ group: 'orders' }],
  collections: [{ group: 'collections' }],
};

/** `/insights...` after collapsing repeated slashes, as route matching does. */
const insightsPath: CfnWebACL.StatementProperty = {
  byteMatchStatement: {
    fieldToMatch: { uriPath: {} },
    positionalConstraint: 'STARTS_WITH',
    searchString: '/insights',
    textTransformations: [{ priority: 0, type: 'NORMALIZE_PATH' }],
  },
};

const inGroup = (statement: CfnWebACL.StatementProperty, scope: { insightsPath?: boolean }): CfnWebACL.StatementProperty => {
  if (scope.insightsPath === undefined) return statement;
  const path = scope.insightsPath ? insightsPath : { notStatement: { statement: insightsPath } };
  return { andStatement: { statements: [statement, path] } };
};

const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  metricName,
  sampledRequestsEnabled: true,
});

/** The answer of a blocking rule: JSON in the group's error format. */
const blockWith = (statusCode: number, group: ApiGroup, bodyKey: string): CfnWebACL.RuleActionProperty => ({
  block: { customResponse: { responseCode: statusCode, customResponseBodyKey: `${bodyKey}${pascal(group)}` } },
});

export const RATE_LIMITED_MESSAGE = 'Too many requests from this address: slow down and retry in a few minutes';
export const BODY_TOO_LARGE_MESSAGE = `Request body is larger than ${WAF_BODY_LIMIT_BYTES} bytes`;

/** The web ACL of one API (CLOUDFRONT scope: its stack must be in us-east-1). */
export function createWebAcl(scope: Construct, api: ApiName, props: { name: string; rateLimit: number }): CfnWebACL {
  const groups = GROUPS_OF_API[api];
  const rules: CfnWebACL.RuleProperty[] = [];
  // 1. Count and label the addresses over the limit; the rules below answer them in their path's format.
  rules.push({
    name: WAF_RULES.rateLimit,
    priority: 0,
    action: { count: {} },
    statement: { rateBasedStatement: { aggregateKeyType: 'IP', limit: props.rateLimit, evaluationWindowSec: 300 } },
    ruleLabels: [{ name: RATE_LIMITED_LABEL }],
    visibilityConfig: visibility(`${props.name}-${WAF_RULES.rateLimit}`),
  });
  for (const entry of groups) {
    rules.push({
      name: WAF_RULES.rateLimited(entry.group),
      priority: rules.length,
      action: blockWith(429, entry.group, 'RateLimited'),
      statement: inGroup({ labelMatchStatement: { scope: 'LABEL', key: RATE_LIMITED_LABEL } }, entry),
      visibilityConfig: visibility(`${props.name}-${WAF_RULES.rateLimited(entry.group)}`),
    });
  }
  // 2. Bodies over the handlers' limit (a body larger than the inspection limit matches too).
  for (const entry of groups) {
    rules.push({
      name: WAF_RULES.bodyTooLarge(entry.group),
      priority: rules.length,
      action: blockWith(413, entry.group, 'BodyTooLarge'),
      statement: inGroup(
        {
          sizeConstraintStatement: {
            fieldToMatch: { body: { oversizeHandling: 'MATCH' } },
            comparisonOperator: 'GT',
            size: WAF_BODY_LIMIT_BYTES,
            textTransformations: [{ priority: 0, type: 'NONE' }],
          },
        },
        entry,
      ),
      visibilityConfig: visibility(`${props.name}-${WAF_RULES.bodyTooLarge(entry.group)}`),
    });
  }
  // 3. The managed common rule set; its 8 KB body limit would refuse bodies the service accepts.
  rules.push({
    name: WAF_RULES.common,
    priority: rules.length,
    overrideAction: { none: {} },
    statement: {
      managedRuleGroupStatement: {
        vendorName: 'AWS',
        name: 'AWSManagedRulesCommonRuleSet',
        ruleActionOverrides: [{ name: 'SizeRestrictions_BODY', actionToUse: { count: {} } }],
      },
    },
    visibilityConfig: visibility(`${props.name}-${WAF_RULES.common}`),
  });

  const customResponseBodies: Record<string, CfnWebACL.CustomResponseBodyProperty> = {};
  for (const { group } of groups) {
    customResponseBodies[`RateLimited${pascal(group)}`] = {
      contentType: 'APPLICATION_JSON',
      content: JSON.stringify(errorBody(group, 429, RATE_LIMITED_MESSAGE)),
    };
    customResponseBodies[`BodyTooLarge${pascal(group)}`] = {
      contentType: 'APPLICATION_JSON',
      content: JSON.stringify(errorBody(group, 413, BODY_TOO_LARGE_MESSAGE)),
    };
  }

  return new CfnWebACL(scope, `${pascal(api)}WebAcl`, {
    name: props.name,
    description: `Rate limit per client IP, body size limit and the AWS common rule set of the ${api} API`,
    scope: 'CLOUDFRONT',
    defaultAction: { allow: {} },
    rules,
    customResponseBodies,
    // Bodies up to the handlers' limit reach the rules whole (CloudFront forwards 16 KB by default).
    associationConfig: { requestBody: { CLOUDFRONT: { defaultSizeInspectionLimit: 'KB_64' } } },
    visibilityConfig: visibility(props.name),
  });
}

/** Name of an API's web ACL (unique per account and scope; CloudWatch metric names derive from it). */
export const webAclName = (stackName: string, api: ApiName): string => `${stackName}-${api}`;

/** The three web ACLs, by API: in the service stack when it is in us-east-1, else in a `WafStack`. */
export function createWebAcls(scope: Construct, props: { stackName: string; rateLimit: number }): Map<ApiName, CfnWebACL> {
  return new Map(
    API_NAMES.map((api) => [api, createWebAcl(scope, api, { name: webAclName(props.stackName, api), rateLimit: props.rateLimit })]),
  );
}

export interface WafStackProps extends StackProps {
  /** The service stack's name: the web ACLs are named after it. */
  serviceStackName: string;
  rateLimit: number;
}

/**
 * The web ACLs of a service stack deployed outside us-east-1. The service stack reads their ARNs
 * through CDK's cross-region references (an SSM parameter per value, written in the service's region).
 */
export class WafStack extends Stack {
  readonly webAcls: Map<ApiName, CfnWebACL>;

  constructor(scope: Construct, id: string, props: WafStackProps) {
    super(scope, id, { ...props, crossRegionReferences: true });
    if (this.region !== WAF_REGION) throw new Error(`WafStack must be deployed in ${WAF_REGION}, not ${this.region}`);
    this.webAcls = createWebAcls(this, { stackName: props.serviceStackName, rateLimit: props.rateLimit });
  }
}

/**
 * The CloudFront distribution in front of one HTTP API: its `$default` stage as the origin (HTTPS
 * only), nothing cached, every method, every viewer header except Host (API Gateway routes by its own
 * host name), every query string and cookie; the API's web ACL associated.
 */
export function createDistribution(scope: Construct, api: ApiName, props: { httpApi: HttpApi; webAclArn: string }): Distribution {
  const stack = Stack.of(scope);
  const distribution = new Distribution(scope, `${pascal(api)}Distribution`, {
    comment: `${stack.stackName}: the ${api} API behind AWS WAF`,
    defaultBehavior: {
      origin: new HttpOrigin(`${props.httpApi.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`, {
        protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      }),
      allowedMethods: AllowedMethods.ALLOW_ALL,
      // Redirecting would turn a POST into a GET: plain HTTP is refused instead.
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
    },
    httpVersion: HttpVersion.HTTP2_AND_3,
    priceClass: PriceClass.PRICE_CLASS_ALL,
    webAclId: props.webAclArn,
  });
  const acknowledge = (id: string, reason: string) => Validations.of(distribution).acknowledge({ id, reason });
  acknowledge(
    'AwsSolutions-CFR1',
    'No geo restriction: a public API whose reference clients call it from anywhere; abuse is handled by the web ACL (rate limit per IP, common rule set) and the stage throttles',
  );
  acknowledge(
    'AwsSolutions-CFR3',
    "No CloudFront access logs: every request that passes WAF is in the API's own access log, and WAF keeps per-rule metrics and sampled requests; standard logs would add an S3 bucket with ACLs for little more",
  );
  acknowledge(
    'AwsSolutions-CFR4',
    'The distribution serves the default *.cloudfront.net certificate, whose minimum protocol CloudFront fixes at TLSv1; TLSv1.2_2021 needs a custom domain and its own certificate, which this stack does not have (docs/decisions/cdk.md)',
  );
  return distribution;
}
