/**
 * Insights' bounded checks are evaluated on the expanded record of every item a range returns
 * (range-reader.ts passesChecks), so the ingest packs the checked fields like any other. These cases
 * pin the comparison rules DynamoDB's FilterExpression had: types never mix, a missing element passes
 * nothing, uint256 decimals compare as numbers.
 */
import { describe, expect, it } from 'vitest';
import { passesChecks, type Check } from '../../../shared/insights/range-reader';
import { compactLog, compactTransaction } from '../../../shared/table/compact';
import { logKeys, transactionKeys } from '../../../shared/table/keys';
import { PACKED_ATTRIBUTE } from '../../../shared/table/pack';
import type { LogRecord, TransactionRecord } from '../../../shared/table/records';
import { unpackItem } from '../../../shared/table/pack';

const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const SENDER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

const log = {
  kind: 'log',
  chainId: 31337,
  blockNumber: 1234,
  blockHash: `0x${'ab'.repeat(32)}`,
  blockTimestamp: 1_700_000_000,
  transactionHash: `0x${'cd'.repeat(32)}`,
  transactionIndex: 2,
  logIndex: 3,
  address: TOKEN,
  topics: [TRANSFER_TOPIC, `0x${'0'.repeat(24)}${SENDER.slice(2)}`],
  data: `0x${'0'.repeat(63)}1`,
  dataOmitted: false,
  removed: false,
} as unknown as LogRecord;

/** The log as the N4 copy stores it (packed), as the table layer hands it to a reader (unpacked, not expanded). */
function storedLog(): Record<string, unknown> {
  const key = { pk: logKeys.contractLogs(31337, TOKEN).pk, sk: logKeys.sortKey(1234, 3) };
  const item = compactLog(log, key);
  expect(item).toHaveProperty(PACKED_ATTRIBUTE);
  return unpackItem({ ...item, ...key });
}

const check = (overrides: Partial<Check>): Check => ({ attribute: 'logIndex', operator: '=', value: 3, kind: 'number', ...overrides });

describe('passesChecks', () => {
  it('checks fields the key gives back (left out of the item) and packed fields alike', () => {
    const item = storedLog();
    expect(item).not.toHaveProperty('logIndex');
    expect(item).not.toHaveProperty('address');
    expect(passesChecks(item, [check({})])).toBe(true);
    expect(passesChecks(item, [check({ value: 4 })])).toBe(false);
    expect(passesChecks(item, [check({ attribute: 'address', value: TOKEN, kind: 'string' })])).toBe(true);
    expect(passesChecks(item, [check({ attribute: 'blockNumber', operator: '>=', value: 1234 })])).toBe(true);
    expect(passesChecks(item, [check({ attribute: 'blockNumber', operator: '>', value: 1234 })])).toBe(false);
    expect(passesChecks(item, [check({ attribute: 'blockNumber', operator: '<=', value: 1233 })])).toBe(false);
  });

  it('reads list elements, and an element past the end passes no comparison', () => {
    const item = storedLog();
    const topic = (listIndex: number, value: string, operator: Check['operator'] = '='): Check =>
      check({ attribute: 'topics', listIndex, value, operator, kind: 'string' });
    expect(passesChecks(item, [topic(0, TRANSFER_TOPIC)])).toBe(true);
    expect(passesChecks(item, [topic(1, log.topics[1] as string)])).toBe(true);
    expect(passesChecks(item, [topic(1, TRANSFER_TOPIC)])).toBe(false);
    expect(passesChecks(item, [topic(2, TRANSFER_TOPIC)])).toBe(false);
    expect(passesChecks(item, [topic(2, TRANSFER_TOPIC, '<>')])).toBe(false);
    expect(passesChecks(item, [topic(2, '0x', '>=')])).toBe(false);
  });

  it('never compares across types, as DynamoDB does not', () => {
    const item = storedLog();
    expect(passesChecks(item, [check({ value: '3', kind: 'string' })])).toBe(false);
    expect(passesChecks(item, [check({ attribute: 'address', value: 0, kind: 'number', operator: '>=' })])).toBe(false);
  });

  it('compares uint256 decimals as numbers, and `in` as membership', () => {
    const tx = {
      kind: 'transaction',
      chainId: 31337,
      hash: `0x${'ef'.repeat(32)}`,
      blockNumber: 1234,
      transactionIndex: 0,
      from: SENDER,
      to: TOKEN,
      value: '1000000000000000000',
      gasPrice: '1875000000',
    } as unknown as TransactionRecord;
    const key = transactionKeys.transaction(31337, tx.hash);
    const item = unpackItem({ ...compactTransaction(tx, key), ...key });
    const value = (operator: Check['operator'], amount: string): Check =>
      check({ attribute: 'value', operator, value: amount, kind: 'uint' });
    // As strings, '999...' > '1000...'; as numbers it is less.
    expect(passesChecks(item, [value('>', '999999999999999999')])).toBe(true);
    expect(passesChecks(item, [value('<', '999999999999999999')])).toBe(false);
    expect(passesChecks(item, [value('>=', '1000000000000000000'), value('<=', '1000000000000000000')])).toBe(true);
    expect(passesChecks(item, [value('<', '10000000000000000000')])).toBe(true);
    const standards = (values: string[]): Check => ({ attribute: 'to', operator: 'in', value: values, kind: 'string' });
    expect(passesChecks(item, [standards([SENDER, TOKEN])])).toBe(true);
    expect(passesChecks(item, [standards([SENDER])])).toBe(false);
    // Every check must pass.
    expect(passesChecks(item, [standards([TOKEN]), value('<', '1')])).toBe(false);
  });
});
