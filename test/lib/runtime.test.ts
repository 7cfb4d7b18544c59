/**
 * One Node major everywhere: the tests (this very process, a vitest worker) run on the major the Lambdas
 * run, which is the major their bundles target, the `node` devDependency installs (the binary npm scripts
 * run: node_modules/.bin/node) and @types/node describes. A runtime upgrade changes them together
 * (docs/decisions/cdk.md, "Runtime"); run outside npm on another Node, the suite fails here first.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_TARGET, LAMBDA_RUNTIME, REPO_ROOT } from '../../lib/api-function';
import { ofType, removeSyntheses, synthesise } from './support/template';

const TEST_MAJOR = Number(process.versions.node.split('.')[0]);
const PACKAGE = JSON.parse(readFileSync(resolve(REPO_ROOT, 'package.json'), 'utf8'));

afterAll(removeSyntheses);

describe('the Node major', () => {
  it('of the tests is the one of every Lambda in the synthesised template', () => {
    // One chain, so that the per-chain jobs (the ingest) are in the template too.
    const { resources } = synthesise({ chains: [{ chainId: 8453, rpcUrlParameter: '/chain-data-api/rpc/8453' }] });
    const runtimes = ofType(resources, 'AWS::Lambda::Function').map(([, fn]) => fn.Properties.Runtime);
    expect(runtimes.length).toBeGreaterThan(0);
    expect(new Set(runtimes)).toEqual(new Set([`nodejs${TEST_MAJOR}.x`]));
    expect(LAMBDA_RUNTIME.name).toBe(`nodejs${TEST_MAJOR}.x`);
  }, 120_000);

  it('is the target of the bundles', () => {
    expect(BUNDLE_TARGET).toBe(`node${TEST_MAJOR}`);
  });

  it('is the one package.json installs (the node package), declares (engines) and types (@types/node)', () => {
    expect(PACKAGE.devDependencies.node).toBe(`^${TEST_MAJOR}`);
    expect(PACKAGE.engines.node).toBe(`>=${TEST_MAJOR}`);
    expect(PACKAGE.devDependencies['@types/node']).toMatch(new RegExp(`^\\^${TEST_MAJOR}\\.`));
  });
});
