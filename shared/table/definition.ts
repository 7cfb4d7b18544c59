/**
 * The single table's definition: one source for the CDK stack, the local server and the tests.
 * Every item has a string partition key `pk` and sort key `sk`; three overloaded, sparse GSIs
 * serve the patterns that need a second ordering of the same item (see `keys.ts`): gsi1 the block
 * time index (N1), waiting orders by deposit address (O4), deposits by block (O8) and partners (O9);
 * gsi2 waiting orders by expiry (O5) and a token's holders (T1); gsi3 a holder's positive balances
 * by value, one range per standard (X1). Pattern ids are defined in docs/access-patterns.md ("The GSIs").
 *
 * Projections: gsi1 projects every attribute (its readers want whole blocks and orders); gsi2 and gsi3
 * project only the keys (`KEYS_ONLY`): a balance's chain, holder, token and id are its table key's, its
 * value, standard and token name its index sort key's (compact.ts balanceOfIndexEntry), and the expiry
 * sweep reads an order by the id its gsi2 sort key ends with. An entry then stores about half the bytes
 * of a whole copy, and a balance write that changes no key writes neither index. A table created with
 * `ALL` on them (stacks deployed before 2026-12-02: CloudFormation cannot change an index's projection
 * in place; the stack's `tableIndexProjection` context keeps it) is read the same way.
 */
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB deletes the item some time after. Readers also treat a past `ttl` as absent. */
  ttlAttribute: 'ttl',
  globalSecondaryIndexes: [
    { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'ALL' },
    { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: 'KEYS_ONLY' },
    { indexName: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk', projection: 'KEYS_ONLY' },
  ],
} as const;

export type IndexName = (typeof TABLE.globalSecondaryIndexes)[number]['indexName'];

/** What a GSI stores of an item: all of it, or only the table's and the index's key attributes. */
export type IndexProjection = (typeof TABLE.globalSecondaryIndexes)[number]['projection'];

/**
 * The projection `index` is created with: its definition's, unless `keepAll` (a table created before
 * gsi2 and gsi3 projected only keys, whose indexes stay as they are: the readers take both).
 */
export function projectionOf(index: (typeof TABLE.globalSecondaryIndexes)[number], keepAll = false): IndexProjection {
  return keepAll ? 'ALL' : index.projection;
}

/** CreateTable input for the local server and the tests (on-demand, every GSI with its projection). */
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
      Projection: { ProjectionType: projectionOf(gsi) },
    })),
  };
}
