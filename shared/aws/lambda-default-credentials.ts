/**
 * What the Lambda bundles use in place of `@aws-sdk/credential-provider-node` (the esbuild alias of
 * lib/api-function.ts `BUNDLE_ALIASES`; never imported directly). Every AWS SDK client's Node runtime
 * config imports the SDK's default credential chain (environment, SSO, ini files, credential process,
 * web identity, container and instance metadata) together with the STS, SSO and sign-in clients some
 * of those links create: about 100 KB a function parses at every cold start and never runs, because
 * Lambda hands the execution role's credentials to the function in AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, the chain's first link. In a Lambda this provider is
 * therefore what the chain is: that first link (`fromEnv`), and it says why when the variables are
 * missing instead of trying the links that are not bundled.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

type FromEnvInit = Parameters<typeof fromEnv>[0];

export const defaultProvider = (init: FromEnvInit & { profile?: string } = {}) => {
  const fromEnvironment = fromEnv(init);
  return async () => {
    if (init.profile ?? process.env.AWS_PROFILE) {
      throw new Error(
        'AWS_PROFILE is set, but this Lambda bundle carries only the environment-variable link of the default credential chain',
      );
    }
    return fromEnvironment();
  };
};
