/**
 * The cold history job's group worker (shared/jobs.ts coldHistoryGroupWorker; deployed with the stack's
 * cold tier on). CompactColdHistory invokes it once for each group of a span's ranges, all at once, and
 * waits for every one (shared/ingest/cold-history.ts groupsAtOnce): it compacts its group (reads the span's
 * manifests and the group's items, PUTs the parts' objects, writes the pointers) and answers what it
 * wrote. A task that is not one fails the invocation naming the field, and writes nothing. Run again, a
 * group writes the same objects and pointers.
 */
import { s3ColdStore } from '../../shared/aws/cold-store';
import { type CompactResult, compactColdGroup } from '../../shared/ingest/cold-history';
import { loadColdJobConfig, parseColdGroupTask } from '../../shared/ingest/cold-job-config';
import { logger } from '../../shared/observability/logger';

const config = loadColdJobConfig();
const store = s3ColdStore({ bucket: config.bucket, endpoint: config.endpoint });

export const handler = async (event: unknown): Promise<CompactResult> => {
  const task = parseColdGroupTask(event);
  const result = await compactColdGroup(task, store);
  logger.info('Compacted a cold history group', {
    chainId: task.chainId,
    fromBlock: task.fromBlock,
    toBlock: task.toBlock,
    group: `${task.index} of ${task.count}`,
    items: result.items,
    parts: result.parts,
    bytes: result.bytes,
  });
  return result;
};
