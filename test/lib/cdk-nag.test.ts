/**
 * cdk-nag's AwsSolutions rules over the whole stack (cdk-nag 3: a policy validation plugin, run by
 * `app.synth()`): no finding may be left unacknowledged, and every acknowledgement sits on the
 * construct it is about (never the stack or the app) with its reason.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type App, Stack, Validations } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { ServiceStack } from '../../lib/service-stack';
import { removeSyntheses, testApp } from './support/template';

const ACKNOWLEDGED = Validations.ACKNOWLEDGED_RULES_METADATA_KEY;

afterAll(() => removeSyntheses());

/** Synthesises `app` with the AwsSolutions checks; on a failure, the findings (rule and construct) as the error. */
function synthesiseChecked(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  try {
    app.synth();
  } catch (error) {
    let findings = '';
    try {
      const report = JSON.parse(readFileSync(join(app.outdir, 'validation-report.json'), 'utf8'));
      findings = report.pluginReports
        .flatMap((plugin: any) => plugin.violations)
        .flatMap((violation: any) =>
          violation.violatingConstructs.map(
            (construct: any) => `${violation.ruleName} (${violation.severity}): ${construct.constructPath}`,
          ),
        )
        .join('\n');
    } catch {
      // no report: the error alone
    }
    throw new Error(`${String(error)}\n${findings}`);
  }
}

describe('cdk-nag AwsSolutions checks', () => {
  it('find nothing unacknowledged in the stack, with every optional part on', () => {
    const app = testApp({
      chains: [
        {
          chainId: 8453,
          rpcUrlParameter: '/chain-data-api/rpc/8453',
          rpcUrlKeyArn: 'arn:aws:kms:us-east-1:123456789012:key/0b9c2f6e-3c1d-4e8a-9f2b-7d5e1a4c6b30',
        },
        { chainId: 10, rpcUrlParameter: '/chain-data-api/rpc/10' },
      ],
      alarmEmail: 'ops@example.com',
    });
    const stack = new ServiceStack(app, 'NagStack');
    synthesiseChecked(app);

    const report = JSON.parse(readFileSync(join(app.outdir, 'validation-report.json'), 'utf8'));
    expect(report.pluginReports.flatMap((plugin: any) => plugin.violations ?? [])).toEqual([]);

    // Every acknowledgement: on the construct it concerns, an AwsSolutions rule, with a reason that explains.
    const acknowledged = stack.node
      .findAll()
      .flatMap((construct) =>
        construct.node.metadata
          .filter((entry) => entry.type === ACKNOWLEDGED)
          .flatMap((entry) => Object.entries(entry.data as Record<string, string>).map(([rule, reason]) => ({ construct, rule, reason }))),
      );
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const { construct, rule, reason } of acknowledged) {
      expect(construct, rule).not.toBe(stack);
      expect(rule).toMatch(/AwsSolutions-[A-Z]+\d+/);
      expect(reason.length, `${rule} on ${construct.node.path}`).toBeGreaterThanOrEqual(60);
    }
    expect(app.node.metadata.filter((entry) => entry.type === ACKNOWLEDGED)).toEqual([]);
    // The rules acknowledged, each for a reason recorded next to its construct (lib/).
    expect(new Set(acknowledged.map(({ rule }) => rule.replace(/^.*(AwsSolutions-\w+).*$/, '$1')))).toEqual(
      new Set(['AwsSolutions-APIG4', 'AwsSolutions-IAM5', 'AwsSolutions-L1', 'AwsSolutions-SQS3']),
    );
  });

  it('do run: a queue without a dead-letter queue fails synthesis', () => {
    const app = testApp();
    new Queue(new Stack(app, 'Bare'), 'Queue', { enforceSSL: true });
    expect(() => synthesiseChecked(app)).toThrow(/AwsSolutions-SQS3/);
  });
});
