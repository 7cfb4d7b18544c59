/**
 * The aggregate / group_by grammar and its evaluator on hand-made rows (the integration tests check
 * the same on ingested chains). Every rejection is an InvalidRequestError (a 400) with a message that points
 * at the problem; nothing of the request text is ever evaluated.
 */
import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../shared/errors';
import { errorResponse } from '../../../shared/http/middleware/error-responder';
import { aggregateRows, bucketOf, compareDecimals, exactQuotient, planAggregation } from '../../../shared/insights/aggregate';
import { canonicalText, parseAggregates, parseGroupBy, tokenize } from '../../../shared/insights/aggregate-parser';
import { TRANSACTION_FIELDS } from '../../../shared/insights/fields';

const fields = TRANSACTION_FIELDS;

function rejects(work: () => unknown, message: RegExp): void {
  let caught: unknown;
  try {
    work();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(InvalidRequestError);
  expect(errorResponse('insights', caught as InvalidRequestError).statusCode).toBe(400);
  expect((caught as Error).message).toMatch(message);
}

describe('the aggregate grammar', () => {
  it('parses every aggregate function and time bucket, with and without aliases', () => {
    const parsed = parseAggregates(
      [
        'count()',
        'COUNT(DISTINCT from_address) AS senders',
        'sum(value) as total',
        'avg(gas_used)',
        'min(value) AS smallest, max(value) AS largest',
        'toStartOfDay(toDateTime(block_timestamp)) AS day',
        'toStartOfHour(block_timestamp) AS hour',
        'tostartofminute(todatetime(block_timestamp)) AS minute',
        'toDate(block_timestamp) AS date',
      ],
      fields,
    );
    expect(parsed.map((named) => named.name)).toEqual([
      'count()',
      'senders',
      'total',
      'avg(gas_used)',
      'smallest',
      'largest',
      'day',
      'hour',
      'minute',
      'date',
    ]);
    expect(parsed[1].expression).toEqual({ type: 'aggregate', fn: 'count', field: 'from_address', distinct: true });
    expect(parsed[8].expression).toEqual({ type: 'bucket', bucket: { fn: 'toStartOfMinute' }, field: 'block_timestamp' });
    expect(canonicalText(parsed[1].expression)).toBe('count(distinct from_address)');
    expect(canonicalText(parsed[7].expression)).toBe('toStartOfHour(toDateTime(block_timestamp))');
  });

  it('parses intDiv(block_number, N) as a block bucket and rejects other fields and sizes', () => {
    const [named] = parseAggregates(['intDiv(block_number, 1000) AS thousand'], fields);
    expect(named?.expression).toEqual({ type: 'bucket', bucket: { fn: 'intDiv', size: 1000 }, field: 'block_number' });
    expect(canonicalText(parseAggregates(['intdiv(block_number,7)'], fields)[0]!.expression)).toBe('intDiv(block_number, 7)');
    rejects(() => parseAggregates(['intDiv(gas_used, 10)'], fields), /intDiv buckets block_number only/);
    rejects(() => parseAggregates(['intDiv(block_number, 0)'], fields), /the bucket size must be an integer from 1 to 1000000000000/);
    rejects(() => parseAggregates(['intDiv(block_number, 10000000000000)'], fields), /the bucket size must be an integer/);
    rejects(() => parseAggregates(['intDiv(block_number)'], fields), /expected "," after block_number/);
    rejects(() => parseAggregates(['sum(2)'], fields), /the only constant sum is sum\(1\)/); // sum(1) counts rows (issue 25)
  });

  it('rejects injection attempts and anything outside the grammar, naming the position', () => {
    rejects(() => parseAggregates(['count(); DROP TABLE chain-data'], fields), /unexpected character ";" at position 8/);
    rejects(() => parseAggregates(["sum(value) AS x' OR '1'='1"], fields), /unexpected character "'"/);
    rejects(() => parseAggregates(['sum(value) AS total --'], fields), /unexpected character "-"/);
    rejects(() => parseAggregates(['count(**)'], fields), /expected "\)"/); // count(*) counts rows (issue 25)
    rejects(() => parseAggregates(['sum(value + 1)'], fields), /unexpected character "\+"/);
    rejects(() => parseAggregates(['sum(pk)'], fields), /unknown field; valid fields: chain_id, block_number/);
    rejects(() => parseAggregates(['sum(from_address)'], fields), /sum needs a numeric field/);
    rejects(() => parseAggregates(['median(value)'], fields), /unknown function/);
    rejects(() => parseAggregates(['sum(value'], fields), /expected "\)" at the end/);
    rejects(() => parseAggregates(['sum(value) total'], fields), /expected "," or the end at position 12/);
    rejects(() => parseAggregates(['toStartOfDay(value) AS d'], fields), /timestamp field/);
    rejects(() => parseAggregates([''], fields), /must not be empty/);
    rejects(() => parseAggregates([`count() AS ${'a'.repeat(65)}`], fields), /longer than 64/);
    rejects(() => tokenize('aggregate', 'x'.repeat(201)), /at most 200 characters/);
    rejects(() => parseAggregates(['count()\u0000'], fields), /unexpected character/);
  });

  it('rejects group_by and sort_by that are not plain names of fields or aliases', () => {
    expect(parseGroupBy(['from_address', 'to_address,function_selector'])).toEqual(['from_address', 'to_address', 'function_selector']);
    rejects(() => parseGroupBy(['from_address; DROP TABLE x']), /unexpected character ";"/);
    rejects(() => parseGroupBy(['sum(value)']), /expected "," or the end/);
    rejects(() => planAggregation({ aggregate: [], groupBy: ['nonexistent'] }, fields), /unknown name nonexistent; valid: chain_id/);
    rejects(() => planAggregation({ aggregate: ['count() AS n'], groupBy: ['n'] }, fields), /n is an aggregate/);
    rejects(
      () => planAggregation({ aggregate: ['toDate(block_timestamp) AS d'], groupBy: [] }, fields),
      /must have an alias \(AS name\) listed in group_by/,
    );
    rejects(() => planAggregation({ aggregate: ['count() AS value'], groupBy: [] }, fields), /alias value is a field name/);
    rejects(() => planAggregation({ aggregate: ['count()', 'count()'], groupBy: [] }, fields), /appears twice/);
    rejects(() => planAggregation({ aggregate: ['count() AS n'], groupBy: [], sortBy: 'block_number' }, fields), /output columns: n/);
    expect(planAggregation({ aggregate: [], groupBy: [] }, fields)).toBeNull();
  });
});

describe('the evaluator', () => {
  const rows = [
    {
      from_address: '0xa',
      value: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
      gas_used: 21000,
      block_timestamp: 86_399,
    },
    { from_address: '0xa', value: '1', gas_used: 50000, block_timestamp: 86_400 },
    { from_address: '0xb', value: '2', gas_used: 30001, block_timestamp: 90_061 },
  ];

  it('groups by a field and a time bucket with exact uint256 sums and typed outputs', () => {
    const plan = planAggregation(
      {
        aggregate: [
          'count() AS n',
          'sum(value) AS total',
          'avg(value) AS mean',
          'avg(gas_used) AS mean_gas',
          'min(gas_used)',
          'max(value)',
          'count(distinct from_address) AS senders',
          'toDate(block_timestamp) AS day',
        ],
        groupBy: ['day'],
      },
      fields,
    );
    const result = aggregateRows(rows, plan!, fields, 'desc');
    expect(result).toEqual([
      {
        day: '1970-01-01',
        n: 1,
        total: rows[0].value,
        mean: rows[0].value,
        mean_gas: 21000,
        'min(gas_used)': 21000,
        'max(value)': rows[0].value,
        senders: 1,
      },
      { day: '1970-01-02', n: 2, total: '3', mean: '1.5', mean_gas: 40000.5, 'min(gas_used)': 30001, 'max(value)': '2', senders: 2 },
    ]);
  });

  it('orders rows by an alias (exactly, for decimal strings) and aggregates an empty range to one row', () => {
    const plan = planAggregation({ aggregate: ['sum(value) AS total'], groupBy: ['from_address'], sortBy: 'total' }, fields)!;
    expect(aggregateRows(rows, plan, fields, 'asc').map((row) => row.from_address)).toEqual(['0xb', '0xa']);
    expect(aggregateRows(rows, plan, fields, 'desc').map((row) => row.from_address)).toEqual(['0xa', '0xb']);
    const count = planAggregation({ aggregate: ['count() AS n', 'sum(value) AS s'], groupBy: [] }, fields)!;
    expect(aggregateRows([], count, fields, 'asc')).toEqual([{ n: 0, s: '0' }]);
  });

  it('buckets timestamps to ClickHouse-style UTC strings and divides exactly', () => {
    expect(bucketOf({ fn: 'toStartOfDay' }, 1_700_000_000)).toBe('2023-11-14 00:00:00');
    expect(bucketOf({ fn: 'toStartOfHour' }, '1700000000')).toBe('2023-11-14 22:00:00');
    expect(bucketOf({ fn: 'toStartOfMinute' }, 1_700_000_000)).toBe('2023-11-14 22:13:00');
    expect(bucketOf({ fn: 'toDate' }, 1_700_000_000)).toBe('2023-11-14');
    expect(bucketOf({ fn: 'intDiv', size: 1000 }, 12_345)).toBe(12);
    expect(bucketOf({ fn: 'intDiv', size: 7 }, '14')).toBe(2);
    expect(exactQuotient(10n, 3n)).toBe('3.333333333333333333');
    expect(exactQuotient(2n ** 256n - 1n, 1n)).toBe((2n ** 256n - 1n).toString());
    expect(compareDecimals('10', '9.999')).toBe(1);
    expect(compareDecimals('1.5', '1.50')).toBe(0);
  });
});
