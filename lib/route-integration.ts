/**
 * The integration of a route function with an HTTP API, invoked with one IAM role that API Gateway
 * assumes (`RouteInvoker`) instead of a Lambda permission per function and API: one role with one
 * inline policy for every route function, where the permissions took one resource each (about 60),
 * which CloudFormation's 500 resources per stack could no longer hold (docs/decisions/cdk.md, "Staying
 * under CloudFormation's 500 resources"). The role may invoke exactly the functions it is given, and
 * only API Gateway of this account may assume it.
 */
import { Stack } from 'aws-cdk-lib';
import {
  HttpIntegrationType,
  HttpRouteIntegration,
  type HttpRouteIntegrationConfig,
  IntegrationCredentials,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { InlinePolicyRole } from './api-function';

export class RouteInvoker extends InlinePolicyRole {
  private readonly invokable = new Set<string>();
  private readonly statement = new PolicyStatement({ actions: ['lambda:InvokeFunction'] });

  constructor(scope: Construct, id: string) {
    super(scope, id, {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
      }),
      description: 'Assumed by the HTTP APIs to invoke the route functions, and only them',
    });
    this.addToPrincipalPolicy(this.statement);
  }

  /** The integration of `fn` on an API, invoked with this role (which may now invoke `fn`). */
  integration(id: string, fn: IFunction): HttpRouteIntegration {
    if (!this.invokable.has(fn.node.path)) {
      this.invokable.add(fn.node.path);
      this.statement.addResources(fn.functionArn);
    }
    return new RoleInvokedLambdaIntegration(id, fn, this);
  }
}

class RoleInvokedLambdaIntegration extends HttpRouteIntegration {
  constructor(
    id: string,
    private readonly fn: IFunction,
    private readonly role: RouteInvoker,
  ) {
    super(id);
  }

  bind(): HttpRouteIntegrationConfig {
    return {
      type: HttpIntegrationType.AWS_PROXY,
      uri: this.fn.functionArn,
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      credentials: IntegrationCredentials.fromRole(this.role),
    };
  }
}
