/**
 * The single table's definition: one source for the CDK stack, the local server and the tests.
 * Every item has a string partition key `pk` and sort key `sk`; three overloaded, sparse GSIs
 * serve the patterns that need a second ordering of the same item (see `keys.ts`): gsi1 the block
 * time index (N1), waiting orders by deposit address (O4), deposits by block (O8) and partners (O9);
 * gsi2 waiting orders by expiry (O5) and a token's holders (T1); gsi3 a holder's positive balances
 * by value, one range per standard (X1). Pattern ids are defined in docs/access-patterns.md ("The GSIs").
 */
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB deletes the item some time after. Readers also treat a past `ttl` as absent. */
  ttlAttribute: 'ttl',
  globalSecondaryIndexes: [
    { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    { indexName: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
  ],
} as const;

export type IndexName = (typeof TABLE.globalSecondaryIndexes)[number]['indexName'];

/** CreateTable input for the local server and the tests (on-demand, every GSI projecting all attributes). */
export function createTableInput(tableName: string): CreateTableCommandInput {
  const keyAttributes = [
    TABLE.partitionKey,
    TABLE.sortKey,
    ...TABLE.globalSecondaryIndexes.flatMap((gsi) => [gsi.partitionKey, gsi.sortKey]),
  ];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: keyAttributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: TABLE.globalSecondaryIndexes.map((gsi) => ({
      IndexName: gsi.indexName,
      KeySchema: [
        { AttributeName: gsi.partitionKey, KeyType: 'HASH' },
        { AttributeName: gsi.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
  };
}
