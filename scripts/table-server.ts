/**
 * `npm run table [-- --port 8000] [--path DIR]`: the embedded DynamoDB (shared/db/local/server.ts)
 * on its own, as a process of its own. The benchmark starts it this way (scripts/lib/table-process.ts)
 * so that the table, like DynamoDB in AWS, does not share the ingest's thread. Prints one line,
 * `listening <endpoint>`, once it accepts requests; stops on SIGINT / SIGTERM (and with
 * --exit-with-stdin, when its stdin closes: the parent that started it is gone).
 */
import { parseArgs } from 'node:util';
import { startLocalDynamo } from './lib/local-table/server';

const USAGE = 'usage: npm run table [-- --port N] [--path DIR] [--exit-with-stdin]';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8000' },
    path: { type: 'string' },
    'exit-with-stdin': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!/^\d+$/.test(values.port) || Number(values.port) > 65_535) {
  console.error(`--port must be a port number (0 picks a free one)\n${USAGE}`);
  process.exit(2);
}
const table = await startLocalDynamo({ host: '127.0.0.1', port: Number(values.port), path: values.path });
console.log(`listening ${table.endpoint}`);
const stop = (): void => {
  void table.close().finally(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
// A parent process that dies without a signal closes the pipe it gave us as stdin.
if (values['exit-with-stdin']) {
  process.stdin.on('end', stop);
  process.stdin.resume();
}
