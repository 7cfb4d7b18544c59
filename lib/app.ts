/**
 * The CDK app: `npx cdk synth` (or `npm run synth`) writes cdk.out/<stackName>.template.json.
 * Environment-agnostic on purpose (no account or region, no lookups), so it synthesises offline;
 * the account and region come from the deploying credentials. With context `waf` on, the stack needs
 * its region at synth (CloudFront's web ACLs live in us-east-1): see `createStacks` in stacks.ts.
 */
import { App } from 'aws-cdk-lib';
import { createStacks } from './stacks';

const app = new App();
createStacks(app, { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION });
app.synth();
