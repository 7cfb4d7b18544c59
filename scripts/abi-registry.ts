/**
 * Operator CLI for the event ABI registry that insights `decode=true` reads (I2), besides the
 * well-known events built into shared/insights/event-abis.ts.
 *
 *   npm run abi -- add '<event signature>' ['<event signature>' ...]
 *       e.g. npm run abi -- add 'event Pinged(address indexed who, uint64 round, string note)'
 *   npm run abi -- add --file <abi.json>      every event of a JSON ABI (an array or one item)
 *   npm run abi -- list <topic0 | event signature>
 *
 * Talks to the table of TABLE_NAME (default chain-data) at DYNAMODB_ENDPOINT (unset: AWS). Adding is
 * idempotent (a string set per topic0). Prints one JSON line per event.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { toEventSelector, toEventSignature, type AbiEvent } from 'viem';
import { builtInEventAbis, parseEventAbis, registerEventAbi, registeredEventAbis } from '../shared/insights/event-abis';
import { runCli, usageError } from './lib/cli';

const USAGE = `usage:
  npm run abi -- add '<event signature>' ['<event signature>' ...]
  npm run abi -- add --file <abi.json>
  npm run abi -- list <topic0 | event signature>`;

const describe = (event: AbiEvent, source: 'built-in' | 'table') => ({
  topic0: toEventSelector(event).toLowerCase(),
  signature: toEventSignature(event),
  indexed: event.inputs.map((input) => Boolean(input.indexed)),
  source,
});

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { file: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
  const { positionals, values } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 1;
  }
  switch (command) {
    case 'add': {
      const sources = values.file ? [await readFile(values.file, 'utf8')] : rest;
      if (sources.length === 0) return fail('add needs at least one event signature, or --file <abi.json>');
      let events: AbiEvent[];
      try {
        events = sources.flatMap((source) => parseEventAbis(source));
      } catch (error) {
        return fail(`not an event ABI: ${(error as Error).message.split('\n')[0]}`);
      }
      for (const event of events) {
        await registerEventAbi(event);
        console.log(JSON.stringify(describe(event, 'table')));
      }
      return 0;
    }
    case 'list': {
      const [given] = rest;
      if (!given) return fail('list needs a topic0 or an event signature');
      let topic0 = given.toLowerCase();
      if (!/^0x[0-9a-f]{64}$/.test(topic0)) {
        try {
          topic0 = toEventSelector(parseEventAbis(given)[0]).toLowerCase();
        } catch {
          return fail('list needs a topic0 (0x + 64 hex digits) or an event signature');
        }
      }
      for (const event of builtInEventAbis(topic0)) console.log(JSON.stringify(describe(event, 'built-in')));
      for (const event of await registeredEventAbis(topic0)) console.log(JSON.stringify(describe(event, 'table')));
      return 0;
    }
    default:
      return fail(`unknown command "${command}"`);
  }
}

function fail(message: string): number {
  return usageError('abi', USAGE, message);
}

runCli(main);
