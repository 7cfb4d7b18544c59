/** Creates the single table (and turns on its TTL) when it does not exist yet: local runs and tests. */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { createTableInput, TABLE } from '../../../shared/table/definition';

export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<'created' | 'exists'> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    await enableTtl(client, tableName);
    return 'exists';
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  // The embedded table turns ACTIVE on a timer of its own (createTableMs 0, but a busy process may be
  // late): a request before then is answered ResourceNotFoundException. Wait, as against DynamoDB.
  await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 0.05, maxDelay: 0.5 }, { TableName: tableName });
  await enableTtl(client, tableName);
  return 'created';
}

async function enableTtl(client: DynamoDBClient, tableName: string): Promise<void> {
  await client.send(
    new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { Enabled: true, AttributeName: TABLE.ttlAttribute } }),
  );
}

/** A client for a local endpoint (dummy credentials). */
export function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}
