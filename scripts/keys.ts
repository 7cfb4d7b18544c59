/**
 * Operator CLI for the secret keys of Insight's webhook routes (shared/insights/api-keys.ts).
 *
 *   npm run keys -- create --project <project> [--name <name>]
 *   npm run keys -- list [--project <project>]
 *   npm run keys -- revoke <keyId>
 *
 * Talks to the table of TABLE_NAME (default chain-data) at DYNAMODB_ENDPOINT (unset: AWS). Prints JSON.
 * `create` prints the key once: the table keeps only its hash.
 */
import { parseArgs } from 'node:util';
import * as v from 'valibot';
import { NotFoundError } from '../shared/errors';
import { createApiKey, listApiKeys, revokeApiKey } from '../shared/insights/api-keys';
import { runCli, usageError } from './lib/cli';

const USAGE = `usage:
  npm run keys -- create --project <project> [--name <name>]
  npm run keys -- list [--project <project>]
  npm run keys -- revoke <keyId>`;

async function main(argv: string[]): Promise<number> {
  let parsedArgs;
  try {
    parsedArgs = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { project: { type: 'string' }, name: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
  const { positionals, values } = parsedArgs;
  const [command, keyId] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 1;
  }
  try {
    switch (command) {
      case 'create': {
        if (!values.project) return fail('create needs --project');
        console.log(JSON.stringify(await createApiKey({ project: values.project, name: values.name })));
        return 0;
      }
      case 'list':
        for (const key of await listApiKeys(values.project)) console.log(JSON.stringify(key));
        return 0;
      case 'revoke': {
        if (!keyId) return fail('revoke needs <keyId>');
        console.log(JSON.stringify(await revokeApiKey(keyId)));
        return 0;
      }
      default:
        return fail(`unknown command "${command}"`);
    }
  } catch (error) {
    if (v.isValiError(error)) return fail(error.issues.map((issue) => issue.message).join('; '));
    if (error instanceof NotFoundError) return fail(error.message);
    throw error;
  }
}

function fail(message: string): number {
  return usageError('keys', USAGE, message);
}

runCli(main);
