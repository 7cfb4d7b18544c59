/**
 * The block-by-time index (GSI1 on the N1 block items, `<timestamp>#<block>`): the block a time falls
 * at, one Query with Limit 1 reading one key. Insights turns timestamp filters into block bounds with it;
 * the cold history job finds the newest block old enough to go cold.
 */
import { blockKeys, pad } from '../table/keys';
import { queryPage } from './operations';

/** The block number written in a GSI1 block-by-time key `<timestamp>#<block>`. */
const blockOfTimeKey = (gsi1sk: unknown): number => Number(String(gsi1sk).split('#')[1]);

/** The first block with timestamp >= `timestamp`, or null when there is none. */
export async function firstBlockAtOrAfter(chainId: number, timestamp: number): Promise<number | null> {
  const { items } = await queryPage({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk >= :from',
    ExpressionAttributeValues: { ':pk': blockKeys.blockByTimeRange(chainId).pk, ':from': pad(timestamp, 12) },
    ProjectionExpression: 'gsi1sk',
    ScanIndexForward: true,
    Limit: 1,
  });
  const item = items[0];
  return item ? blockOfTimeKey(item.gsi1sk) : null;
}

/** The last block with timestamp <= `timestamp`, or null when there is none. */
export async function lastBlockAtOrBefore(chainId: number, timestamp: number): Promise<number | null> {
  const { items } = await queryPage({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk <= :to',
    ExpressionAttributeValues: { ':pk': blockKeys.blockByTimeRange(chainId).pk, ':to': `${pad(timestamp, 12)}#~` },
    ProjectionExpression: 'gsi1sk',
    ScanIndexForward: false,
    Limit: 1,
  });
  const item = items[0];
  return item ? blockOfTimeKey(item.gsi1sk) : null;
}
