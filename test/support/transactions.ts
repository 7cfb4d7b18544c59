/**
 * Every TransactWriteItems the table layer sends from now on, as the keys of its operations
 * (`pk|sk`), for tests that check what went into one transaction (DynamoDB refuses two operations on
 * one item, or more than 100). The SDK names the command TransactWriteItemsCommand whichever client
 * sent it.
 */
import { db } from '../../shared/db/client';

export function recordTransactions(name: string): string[][] {
  const transactions: string[][] = [];
  db.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand') {
        const operations = (args.input as { TransactItems: Record<string, { Key?: object; Item?: object }>[] }).TransactItems;
        transactions.push(
          operations.map((operation) => {
            const { Key, Item } = Object.values(operation)[0]!;
            const key = (Key ?? Item) as { pk: string; sk: string };
            return `${key.pk}|${key.sk}`;
          }),
        );
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return transactions;
}
