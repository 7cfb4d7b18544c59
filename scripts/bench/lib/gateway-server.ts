/**
 * The local API Gateway (scripts/lib/gateway.ts, `startLocalService`) in a process of its own, for the
 * Lambda harness: its embedded DynamoDB is the harness's table (the ingest's and the deposit consumer's
 * containers write to it), and its HTTP servers answer the API's routes as API Gateway and the API
 * Lambdas do, so the harness reads the chain as a user of the API would, over HTTP, from another
 * process. Prints one line, `listening <json: urls, dynamodbEndpoint>`, once it serves; stops on
 * SIGTERM or when its stdin closes (the parent is gone).
 *
 * argv[2]: the table's name; argv[3] `stand-in`: the stand-in table (./stand-in/table.ts: AWS's
 * latency, no dynalite) in place of the embedded dynalite.
 */
import { startLocalService } from '../../lib/gateway';
import { startStandInTable } from './stand-in/table';

const tableName = process.argv[2];
if (!tableName) throw new Error('usage: gateway-server.ts <table name> [stand-in] (started by gateway-process.ts)');
const service = await startLocalService({
  tableName,
  ...(process.argv[3] === 'stand-in' ? { startTable: (host: string, port: number) => startStandInTable({ host, port }) } : {}),
  onHandlerError: (error, entry) => console.error(`[gateway] ${entry.method} ${entry.url}: ${String(error)}`),
});
console.log(`listening ${JSON.stringify({ urls: service.urls, dynamodbEndpoint: service.dynamodbEndpoint })}`);
const stop = (): void => {
  void service.stop().finally(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
