/**
 * Every item of a local table, or of the items whose partition key starts with a prefix: a Scan with
 * an admin client. Local tools only (the demo chain's reset, the benchmark's table floor, the tests'
 * before/after snapshots); the service's table layer serves no Scan.
 */
import { ScanCommand, type DynamoDBClient, type ScanCommandOutput } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

export async function scanItems(
  client: DynamoDBClient,
  tableName: string,
  options: { pkPrefix?: string; keysOnly?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: ScanCommandOutput['LastEvaluatedKey'];
  do {
    const page: ScanCommandOutput = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: options.pkPrefix === undefined ? undefined : 'begins_with(pk, :prefix)',
        ExpressionAttributeValues: options.pkPrefix === undefined ? undefined : { ':prefix': { S: options.pkPrefix } },
        ProjectionExpression: options.keysOnly ? 'pk, sk' : undefined,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []).map((item) => unmarshall(item)));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
