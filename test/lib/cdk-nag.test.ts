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
import { createStacks } from '../../lib/stacks';
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

/** Every acknowledgement in the stacks, checked: on the construct it concerns, an AwsSolutions rule, with a reason that explains. */
function acknowledgementsOf(app: App, stacks: readonly Stack[]): Set<string> {
  const acknowledged = stacks.flatMap((stack) =>
    stack.node
      .findAll()
      .flatMap((construct) =>
        construct.node.metadata
          .filter((entry) => entry.type === ACKNOWLEDGED)
          .flatMap((entry) =>
            Object.entries(entry.data as Record<string, string>).map(([rule, reason]) => ({ stack, construct, rule, reason })),
          ),
      ),
  );
  expect(acknowledged.length).toBeGreaterThan(0);
  for (const { stack, construct, rule, reason } of acknowledged) {
    expect(construct, rule).not.toBe(stack);
    expect(rule).toMatch(/AwsSolutions-[A-Z]+\d+/);
    expect(reason.length, `${rule} on ${construct.node.path}`).toBeGreaterThanOrEqual(60);
  }
  expect(app.node.metadata.filter((entry) => entry.type === ACKNOWLEDGED)).toEqual([]);
  return new Set(acknowledged.map(({ rule }) => rule.replace(/^.*(AwsSolutions-\w+).*$/, '$1')));
}

describe('cdk-nag AwsSolutions checks', () => {
  it('find nothing unacknowledged in the stack, with every optional part on', { timeout: 180_000 }, () => {
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

    // The rules acknowledged, each for a reason recorded next to its construct (lib/).
    expect(acknowledgementsOf(app, [stack])).toEqual(
      new Set(['AwsSolutions-APIG4', 'AwsSolutions-IAM5', 'AwsSolutions-L1', 'AwsSolutions-SQS3']),
    );
  });

  it('find nothing unacknowledged with WAF on: CloudFront in front of each API, the web ACLs in a us-east-1 stack', {
    timeout: 180_000,
  }, () => {
    const app = testApp({
      waf: true,
      chains: [{ chainId: 8453, rpcUrlParameter: '/chain-data-api/rpc/8453' }],
      alarmEmail: 'ops@example.com',
    });
    const { service, waf } = createStacks(app, { region: 'eu-west-1', account: '123456789012' });
    expect(waf).toBeDefined();
    synthesiseChecked(app);

    const report = JSON.parse(readFileSync(join(app.outdir, 'validation-report.json'), 'utf8'));
    expect(report.pluginReports.flatMap((plugin: any) => plugin.violations ?? [])).toEqual([]);
    // The distributions add three acknowledged rules (lib/waf.ts); the web ACLs need none.
    expect(acknowledgementsOf(app, [service, waf!])).toEqual(
      new Set([
        'AwsSolutions-APIG4',
        'AwsSolutions-IAM5',
        'AwsSolutions-L1',
        'AwsSolutions-SQS3',
        'AwsSolutions-CFR1',
        'AwsSolutions-CFR3',
        'AwsSolutions-CFR4',
      ]),
    );
    expect(waf!.node.findAll().flatMap((construct) => construct.node.metadata.filter((entry) => entry.type === ACKNOWLEDGED))).toEqual([]);
  });

  it('do run: a queue without a dead-letter queue fails synthesis', () => {
    const app = testApp();
    new Queue(new Stack(app, 'Bare'), 'Queue', { enforceSSL: true });
    expect(() => synthesiseChecked(app)).toThrow(/AwsSolutions-SQS3/);
  });
});
