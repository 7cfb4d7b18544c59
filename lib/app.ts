/**
 * The CDK app: `npx cdk synth` (or `npm run synth`) writes cdk.out/<stackName>.template.json.
 * Environment-agnostic on purpose (no account or region, no lookups), so it synthesises offline;
 * the account and region come from the deploying credentials.
 */
import { App } from 'aws-cdk-lib';
import { ServiceStack } from './service-stack';

export const DEFAULT_STACK_NAME = 'ChainDataApi';

const app = new App();
const stackName: string = app.node.tryGetContext('stackName') ?? DEFAULT_STACK_NAME;
new ServiceStack(app, stackName, {
  stackName,
  description: 'Serverless blockchain data API: explorer, insights, orders and collections over one DynamoDB table',
});
app.synth();
