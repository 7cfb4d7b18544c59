/**
 * The bundles as esbuild builds them for Lambda (the options of lib/api-function.ts, without
 * minifying): the ingest Lambda's bundle has no file of the orders group in it, the deposit
 * consumer's has deposit detection, the NFT metadata consumer's the fetcher and nothing of the ingest. Complements the import-graph rules of imports.test.ts, on what
 * would actually be deployed (type-only imports vanish here).
 */
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { BUNDLE_ALIASES, BUNDLE_TARGET, REPO_ROOT } from '../../lib/api-function';

async function bundleInputs(entry: string): Promise<{ inputs: string[]; text: string }> {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: REPO_ROOT,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    target: BUNDLE_TARGET,
    mainFields: ['module', 'main'],
    alias: { ...BUNDLE_ALIASES },
    logLevel: 'silent',
  });
  return { inputs: Object.keys(result.metafile.inputs), text: result.outputFiles.map((file) => file.text).join('\n') };
}

describe('Lambda bundles', () => {
  it('the ingest Lambda (IngestChain) bundles no orders code, and the SQS client instead', async () => {
    const { inputs, text } = await bundleInputs('functions/ingest/ingest-chain.ts');
    expect(inputs.filter((file) => /(^|\/)shared\/(orders|explorer|insights|collections)\//.test(file))).toEqual([]);
    expect(inputs).toContain('shared/ingest/queue-listener.ts');
    expect(inputs.some((file) => file.includes('@aws-sdk/client-sqs/'))).toBe(true);
    // Nothing of the order state machine or deposit records leaks in through a shared module.
    for (const word of ['quoting_after_deposit', 'orderDeposit', 'awaitingDeposit']) expect(text).not.toContain(word);
  }, 60_000);

  it('the NFT metadata consumer (FetchNftMetadata) bundles the fetcher and the SQS client, no ingest and no API group', async () => {
    const { inputs } = await bundleInputs('functions/nft-metadata/fetch-nft-metadata.ts');
    expect(inputs).toContain('shared/nft-metadata/fetch.ts');
    expect(inputs.filter((file) => /(^|\/)shared\/(ingest|orders|explorer|insights|collections)\//.test(file))).toEqual([]);
    expect(inputs.some((file) => file.includes('@aws-sdk/client-sqs/'))).toBe(true);
  }, 60_000);

  it('the deposit consumer (DetectDeposits) bundles deposit detection, not the ingest', async () => {
    const { inputs } = await bundleInputs('functions/orders/detect-deposits.ts');
    expect(inputs).toContain('shared/orders/deposits.ts');
    expect(inputs).toContain('shared/ingest/queue-consumer.ts');
    expect(inputs).not.toContain('shared/ingest/ingest.ts');
    expect(inputs.some((file) => file.includes('@aws-sdk/client-sqs/'))).toBe(false);
  }, 60_000);
});
