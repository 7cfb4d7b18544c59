/**
 * Operator CLI for partner records (the fee discount of a partner's orders).
 *
 *   npm run partners -- put <partnerId> --discount-bps <0..10000> [--name <name>]
 *   npm run partners -- get <partnerId>
 *   npm run partners -- list
 *
 * Talks to the table of TABLE_NAME (default chain-data) at DYNAMODB_ENDPOINT (unset: AWS). Prints JSON.
 */
import { parseArgs } from 'node:util';
import * as v from 'valibot';
import { getPartner, listPartners, putPartner } from '../shared/orders/partners';
import { runCli, usageError } from './lib/cli';

const USAGE = `usage:
  npm run partners -- put <partnerId> --discount-bps <0..10000> [--name <name>]
  npm run partners -- get <partnerId>
  npm run partners -- list`;

async function main(argv: string[]): Promise<number> {
  let parsedArgs;
  try {
    parsedArgs = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { 'discount-bps': { type: 'string' }, name: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
  const { positionals, values } = parsedArgs;
  const [command, partnerId] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 1;
  }
  switch (command) {
    case 'put': {
      if (!partnerId || values['discount-bps'] === undefined) return fail('put needs <partnerId> and --discount-bps');
      const discount = values['discount-bps'];
      if (!/^[0-9]+$/.test(discount)) return fail('--discount-bps must be a whole number from 0 to 10000');
      const parsed = v.safeParse(v.object({ partnerId: v.string(), discountBps: v.number(), name: v.optional(v.string()) }), {
        partnerId,
        discountBps: Number(discount),
        name: values.name,
      });
      if (!parsed.success) return fail(parsed.issues[0].message);
      try {
        console.log(JSON.stringify(await putPartner(parsed.output)));
      } catch (error) {
        if (v.isValiError(error)) return fail(error.issues.map((issue) => issue.message).join('; '));
        throw error;
      }
      return 0;
    }
    case 'get': {
      if (!partnerId) return fail('get needs <partnerId>');
      const partner = await getPartner(partnerId);
      if (!partner) return fail(`no partner "${partnerId}"`);
      console.log(JSON.stringify(partner));
      return 0;
    }
    case 'list':
      for (const partner of await listPartners()) console.log(JSON.stringify(partner));
      return 0;
    default:
      return fail(`unknown command "${command}"`);
  }
}

function fail(message: string): number {
  return usageError('partners', USAGE, message);
}

runCli(main);
