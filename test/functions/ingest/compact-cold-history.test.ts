/**
 * The cold history job's handler (functions/ingest/compact-cold-history.ts) as its schedule invokes it,
 * on a small Base-profile chain whose blocks are 31 days old, ingested with the tier on into dynalite,
 * the parts going to a local S3 (s3rver on 127.0.0.1): an invocation with too little time left starts no
 * span and says how far behind the chain is; one with time compacts every block past the window and moves
 * the cold cursor; the next finds nothing due; a bad event is refused, naming the field, before anything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalS3, type LocalS3 } from '../../../scripts/lib/local-s3';
import { readColdCursor } from '../../../shared/ingest/cold-history';
import { coldPointerOf } from '../../../shared/table/cold-parts';
import type { TableItem } from '../../../shared/table/keys';
import { DAY, dayPastTheWindow, ingestedColdChain, setColdJobEnvironment } from '../../support/cold-job';
import { tableSnapshot, useTestTable } from '../../support/table';

const table = useTestTable('compact-cold-history');
const BUCKET = 'compact-cold-history-test';
const BLOCKS = 8;
const FIRST_TIMESTAMP = dayPastTheWindow();

let s3: LocalS3;
let chainId: number;
let handler: typeof import('../../../functions/ingest/compact-cold-history').handler;
let restoreEnvironment: (() => void) | undefined;

beforeAll(async () => {
  s3 = await startLocalS3(BUCKET);
  // The function's environment as the stack sets it.
  restoreEnvironment = setColdJobEnvironment(s3, BUCKET, { COLD_SPAN_BLOCKS: '3', COLD_RANGE_GROUPS: '2' });
  ({ handler } = await import('../../../functions/ingest/compact-cold-history'));
  chainId = await ingestedColdChain(BLOCKS, 20, FIRST_TIMESTAMP);
}, 120_000);

afterAll(async () => {
  restoreEnvironment?.();
  await s3?.close();
});

const event = () => ({ chainId, rpcUrlParameter: `/chain-data-api/rpc/${chainId}` });
const withTime = (ms: number) => ({ getRemainingTimeInMillis: () => ms });

describe('the cold history job', () => {
  it('starts no span with less time left than a span takes, and says how long the oldest block has waited past the window', async () => {
    const result = await handler(event(), withTime(200_000));
    expect(result).toMatchObject({ chainId, from: undefined, to: undefined, due: BLOCKS, spans: 0, items: 0 });
    // Block 1 is 31 days old: a day past the window of 30.
    expect(result.behindSeconds).toBeGreaterThan(DAY - 120);
    expect(result.behindSeconds).toBeLessThan(DAY + 120);
    expect(await readColdCursor(chainId)).toBeUndefined();
  });

  it('compacts every block past the window span after span, moves the cold cursor, and is then caught up', async () => {
    const result = await handler(event(), withTime(900_000));
    // Spans of 3 blocks, each in 2 groups of ranges.
    expect(result).toMatchObject({ chainId, from: undefined, to: BLOCKS, due: BLOCKS, spans: 6, behindSeconds: 0 });
    expect(await readColdCursor(chainId)).toBe(BLOCKS);
    const pointers = (await tableSnapshot(table.name))
      .filter((item) => String(item.pk).startsWith('COLD#'))
      .map((item) => coldPointerOf(item as TableItem));
    expect(pointers.reduce((sum, pointer) => sum + pointer.count, 0)).toBe(result.items);
    expect(result.items).toBeGreaterThan(500);
    expect(await handler(event(), withTime(900_000))).toMatchObject({ from: BLOCKS, to: BLOCKS, spans: 0, items: 0, behindSeconds: 0 });
  });

  it('refuses an event without a chain, naming it, before anything', async () => {
    await expect(handler({ rpcUrlParameter: '/x' }, withTime(900_000))).rejects.toThrow(/Invalid cold history job event .*chainId/);
    await expect(handler({ chainId: 'base' }, withTime(900_000))).rejects.toThrow(/chainId/);
  });
});
