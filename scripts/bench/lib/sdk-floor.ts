/**
 * The cold-start floor of the bench's `cold` part: a handler that holds only what every route must
 * load, the DynamoDB document client of the design card (`@aws-sdk/client-dynamodb` and
 * `@aws-sdk/lib-dynamodb`) sending one Query, bundled exactly as the route bundles are. No route can
 * import faster than this module; its import time over an empty module is the part of every route's
 * cold start that the service's own code cannot remove.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';

const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async (): Promise<unknown> =>
  client.send(
    new QueryCommand({
      TableName: process.env.TABLE_NAME,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'floor' },
    }),
  );
