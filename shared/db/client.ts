/**
 * The one DynamoDB document client of the process, created at module top level so that a Lambda
 * re-uses its connections across invocations. `DYNAMODB_ENDPOINT` points it at the local server.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { platformConfig } from '../config';

const config = platformConfig();

const localCredentials =
  config.dynamodbEndpoint && !process.env.AWS_ACCESS_KEY_ID
    ? { accessKeyId: 'local', secretAccessKey: 'local' }
    : undefined;

export const dynamoClient = new DynamoDBClient({
  region: config.region,
  endpoint: config.dynamodbEndpoint,
  credentials: localCredentials,
  maxAttempts: 5,
});

export const db = DynamoDBDocumentClient.from(dynamoClient, {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  unmarshallOptions: { wrapNumbers: false },
});

/** The table name is read per call, so tests can give each file its own table. */
export function tableName(): string {
  return platformConfig().tableName;
}
