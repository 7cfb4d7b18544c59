/**
 * What a local Lambda container (lambda-container.ts) measures of its handler when the harness asks
 * (BENCH_MEASURE=1): the DynamoDB calls its table client and its table writers sent, and the write units of its write
 * requests by partition key (partition-heat.ts), both since the last `takeTableUsage`. The process's
 * CPU is measured by the container itself (process.cpuUsage around each invocation); what this
 * recording costs (it marshals every item written a second time, to size it) is measured here and
 * taken out of it (`measuringCpuMs`): the ingest's CPU is the handler's alone.
 */
import { db } from '../../../shared/db/client';
import { observeWriterWrites } from '../../../shared/db/write-workers';
import { asStored } from '../../../shared/db/batch-write';
import { PartitionHeat, recordPartitionWrites } from './partition-heat';

const WRITE_COMMANDS = new Set(['BatchWriteItem', 'TransactWriteItems', 'PutItem', 'UpdateItem', 'DeleteItem']);

export interface TableUsage {
  /** DynamoDB calls by command (BatchWriteItem, Query, ...). */
  calls: Record<string, number>;
  /** Write units by partition key ("table <pk>", "<gsi> <key>"), as partition-heat.ts prices them. */
  heat: [string, number][];
  /** CPU this module spent recording (ms), which is not the handler's. */
  measuringCpuMs: number;
}

let calls: Record<string, number> = {};
let heat = new PartitionHeat();
let measuringCpuMs = 0;

(db as unknown as { middlewareStack: { add: (...args: unknown[]) => void } }).middlewareStack.add(
  (next: (args: { input: Record<string, unknown> }) => Promise<unknown>, context: { commandName?: string }) =>
    async (args: { input: Record<string, unknown> }) => {
      const command = (context.commandName ?? '?').replace(/Command$/, '');
      calls[command] = (calls[command] ?? 0) + 1;
      if (WRITE_COMMANDS.has(command)) {
        const cpu = process.cpuUsage();
        recordPartitionWrites(heat, command, args.input);
        const spent = process.cpuUsage(cpu);
        measuringCpuMs += (spent.user + spent.system) / 1000;
      }
      return next(args);
    },
  { step: 'initialize', name: 'benchLambdaMeasure' },
);

// Writes handed to the table writers (shared/db/write-workers.ts) go out from their threads, past the
// middleware above: counted here, on the thread that hands them over, one BatchWriteItem a chunk (a
// chunk's unprocessed items sent again are not counted; the embedded table processes every item).
observeWriterWrites((table, chunks) => {
  const cpu = process.cpuUsage();
  calls.BatchWriteItem = (calls.BatchWriteItem ?? 0) + chunks.length;
  // (Sized as the writer sends them: long packed bytes deflated, batch-write.ts asStored.)
  for (const chunk of chunks) recordPartitionWrites(heat, 'BatchWriteItem', { RequestItems: { [table]: asStored(chunk) } });
  const spent = process.cpuUsage(cpu);
  measuringCpuMs += (spent.user + spent.system) / 1000;
});

/** The calls and write heat since the last call (and starts counting afresh). */
export function takeTableUsage(): TableUsage {
  const usage: TableUsage = { calls, heat: [...heat.units], measuringCpuMs };
  calls = {};
  heat = new PartitionHeat();
  measuringCpuMs = 0;
  return usage;
}
