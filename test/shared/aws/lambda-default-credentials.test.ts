/**
 * The default credential chain of the Lambda bundles (lib/api-function.ts BUNDLE_ALIASES): the
 * environment variables Lambda sets, exactly as the SDK's chain reads them first, and a clear error
 * where the full chain would have gone on to links the bundles leave out.
 */
import { defaultProvider as sdkDefaultProvider } from '@aws-sdk/credential-provider-node';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultProvider } from '../../../shared/aws/lambda-default-credentials';

const NAMES = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_CREDENTIAL_EXPIRATION', 'AWS_PROFILE'] as const;
const saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));

afterEach(() => {
  for (const name of NAMES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

function lambdaEnvironment(): void {
  for (const name of NAMES) delete process.env[name];
  process.env.AWS_ACCESS_KEY_ID = 'ASIAEXAMPLE';
  process.env.AWS_SECRET_ACCESS_KEY = 'secret';
  process.env.AWS_SESSION_TOKEN = 'token';
}

describe('the bundles’ default credential provider', () => {
  it('gives the role credentials Lambda puts in the environment, as the SDK’s default chain does', async () => {
    lambdaEnvironment();
    const credentials = await defaultProvider()();
    expect(credentials).toEqual(await sdkDefaultProvider()());
    expect(credentials).toMatchObject({ accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' });
  });

  it('reads the variables when asked, not when created', async () => {
    lambdaEnvironment();
    const provider = defaultProvider();
    process.env.AWS_ACCESS_KEY_ID = 'ASIALATER';
    expect((await provider()).accessKeyId).toBe('ASIALATER');
  });

  it('fails, naming the cause, without environment credentials or with a profile', async () => {
    lambdaEnvironment();
    delete process.env.AWS_SECRET_ACCESS_KEY;
    await expect(defaultProvider()()).rejects.toThrow(/environment variable credentials/);
    lambdaEnvironment();
    process.env.AWS_PROFILE = 'dev';
    await expect(defaultProvider()()).rejects.toThrow(/AWS_PROFILE is set/);
    lambdaEnvironment();
    await expect(defaultProvider({ profile: 'dev' })()).rejects.toThrow(/AWS_PROFILE is set/);
  });
});
