/**
 * The aggregate / group_by forms thirdweb's dashboard and Insight's users write (issue 25): nested
 * ClickHouse time functions, every count spelling, aliases in aggregate and group_by, the built-in
 * `day` group with its default `count`, Insight's output names; and the refusals (injection attempts,
 * unknown functions, unbalanced parentheses, nesting too deep), each a 400 in the insights format.
 * Bucket values are checked against an independent computation with Date; the bucket enumeration the
 * running-total path uses against the buckets of every minute.
 */
import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../shared/errors';
import { errorResponse } from '../../../shared/http/middleware/error-responder';
import { aggregateRows, bucketOf, planAggregation, timeBucketsBetween } from '../../../shared/insights/aggregate';
import {
  MAX_TIME_NESTING,
  parseAggregates,
  parseGroupByEntries,
  type Bucket,
  type TimeFunction,
} from '../../../shared/insights/aggregate-parser';
import { EVENT_FIELDS, TRANSACTION_FIELDS } from '../../../shared/insights/fields';
import { answerableByTotals } from '../../../shared/insights/prefix-aggregate';

const fields = TRANSACTION_FIELDS;

function rejects(work: () => unknown, message: RegExp): void {
  let caught: unknown;
  try {
    work();
  } catch (error) {
    caught = error;
  }
  expect(caught, String(message)).toBeInstanceOf(InvalidRequestError);
  const response = errorResponse('insights', caught as InvalidRequestError);
  expect(response.statusCode).toBe(400);
  const body = typeof response.body === 'string' ? JSON.parse(response.body) : response.body;
  expect(body).toEqual({ error: expect.stringMatching(message) });
}

const plan = (aggregate: string[], groupBy: string[] = [], sortBy?: string, catalogue = fields) => {
  const result = planAggregation({ aggregate, groupBy, sortBy }, catalogue);
  if (!result) throw new Error('no plan');
  return result;
};

describe('the forms thirdweb’s dashboard sends, parsed and planned', () => {
  it('reads every dashboard aggregate with its alias, nested time functions included', () => {
    const parsed = parseAggregates(
      [
        'toStartOfDay(toDate(block_timestamp)) as time',
        'count(block_timestamp) as count',
        'count(distinct from_address) as wallets',
        'count(*) as calls',
        'toStartOfHour(toDateTime(block_timestamp)) as date',
        'sum(1) as rows',
        'count(block_number) as total',
      ],
      fields,
    );
    expect(parsed.map((named) => named.name)).toEqual(['time', 'count', 'wallets', 'calls', 'date', 'rows', 'total']);
    expect(parsed[0]!.expression).toEqual({
      type: 'bucket',
      bucket: { fn: 'time', steps: ['toStartOfDay', 'toDate'] },
      field: 'block_timestamp',
    });
    expect(parsed[4]!.expression).toEqual({ type: 'bucket', bucket: { fn: 'toStartOfHour' }, field: 'block_timestamp' });
    expect([1, 3, 5, 6].map((index) => parsed[index]!.expression)).toEqual(
      ['block_timestamp', null, null, 'block_number'].map((field) => ({ type: 'aggregate', fn: 'count', field, distinct: false })),
    );
    expect(parsed[2]!.expression).toEqual({ type: 'aggregate', fn: 'count', field: 'from_address', distinct: true });
  });

  it('names unaliased aggregates as Insight does: count() and count(*) are count, the rest their text', () => {
    const names = (aggregate: string[]) => plan(aggregate).columns.map((column) => column.name);
    expect(names(['count()'])).toEqual(['count']);
    expect(names(['COUNT(*)'])).toEqual(['count']);
    expect(names(['count(1)', 'sum(1)', 'count(gas)', 'sum(value)', 'avg(gas_used)'])).toEqual([
      'count(1)',
      'sum(1)',
      'count(gas)',
      'sum(value)',
      'avg(gas_used)',
    ]);
    expect(names(['countDistinct(from_address)', 'UNIQ(from_address)', 'uniqExact(to_address)', 'count(DISTINCT nonce)'])).toEqual([
      'countDistinct(from_address)',
      'uniq(from_address)',
      'uniqExact(to_address)',
      'count(distinct nonce)',
    ]);
    expect(names(['toStartOfDay(toDate(block_timestamp)) AS t', 'max(value)'].slice(1))).toEqual(['max(value)']);
    rejects(() => plan(['count()', 'count(*)']), /count appears twice; give each expression its own alias/);
  });

  it('every count spelling is a row count or an exact distinct count, answerable from running totals or not', () => {
    for (const text of ['count()', 'count(*)', 'count(1)', 'sum(1)', 'count(block_timestamp)', 'COUNT( * )']) {
      expect(answerableByTotals(plan([text]), {}), text).toBe(true);
    }
    for (const text of ['count(distinct from_address)', 'countDistinct(from_address)', 'uniq(from_address)', 'uniqExact(from_address)']) {
      const distinct = plan([`${text} AS n`]);
      expect(distinct.aggregates[0]!.expression, text).toEqual({ type: 'aggregate', fn: 'count', field: 'from_address', distinct: true });
      expect(answerableByTotals(distinct, {}), text).toBe(false);
    }
  });

  it('takes aliases in group_by (AS or as), bucket expressions and the built-in day, hour, week, month, year', () => {
    expect(parseGroupByEntries(['topic_0 as event_signature', 'time'], EVENT_FIELDS)).toEqual([
      { name: 'event_signature', alias: 'event_signature', source: 'topic_0', bucket: null },
      { name: 'time', alias: null, source: 'time', bucket: null },
    ]);
    const breakdown = plan(
      ['toStartOfDay(toDate(block_timestamp)) as time', 'count(*) as count'],
      ['time', 'topic_0 as event_signature'],
      undefined,
      EVENT_FIELDS,
    );
    expect(breakdown.groupKeys).toEqual([
      { name: 'time', field: 'block_timestamp', bucket: { fn: 'time', steps: ['toStartOfDay', 'toDate'] } },
      { name: 'event_signature', field: 'topic_0', bucket: null },
    ]);
    expect(breakdown.columns.map((column) => column.name)).toEqual(['time', 'event_signature', 'count']);

    const byExpression = plan(['sum(value) AS v'], ['toStartOfMonth(block_timestamp)', 'toStartOfWeek(toDate(block_timestamp)) AS w']);
    expect(byExpression.columns.map((column) => column.name)).toEqual(['toStartOfMonth(block_timestamp)', 'w', 'v']);
    // The same expression in aggregate and group_by is one column.
    expect(plan(['toStartOfDay(block_timestamp)', 'count()'], ['toStartOfDay(block_timestamp)']).columns.map((c) => c.name)).toEqual([
      'toStartOfDay(toDateTime(block_timestamp))',
      'count',
    ]);

    for (const [name, bucket] of [
      ['minute', { fn: 'toStartOfMinute' }],
      ['hour', { fn: 'toStartOfHour' }],
      ['day', { fn: 'toDate' }],
      ['week', { fn: 'time', steps: ['toStartOfWeek'] }],
      ['month', { fn: 'time', steps: ['toStartOfMonth'] }],
      ['year', { fn: 'time', steps: ['toStartOfYear'] }],
    ] as const) {
      const builtIn = plan([], [name]);
      expect(builtIn.groupKeys, name).toEqual([{ name, field: 'block_timestamp', bucket }]);
      // No aggregate function: each group carries its count, as Insight's rows with day and count.
      expect(builtIn.columns.map((column) => column.name)).toEqual([name, 'count']);
      expect(answerableByTotals(builtIn, {})).toBe(true);
    }
    // An alias or a field of that name wins over the built-in.
    expect(plan(['toStartOfHour(block_timestamp) AS day'], ['day']).groupKeys[0]!.bucket).toEqual({ fn: 'toStartOfHour' });
    expect(plan([], ['day', 'function_selector']).columns.map((column) => column.name)).toEqual(['day', 'function_selector', 'count']);
  });

  it('sorts by any output column: an aggregate alias, a group alias, a bucket, the default count', () => {
    const rows = [
      { from_address: '0xa', block_timestamp: 86_400 * 3, value: '5' },
      { from_address: '0xb', block_timestamp: 86_400 * 3 + 1, value: '7' },
      { from_address: '0xb', block_timestamp: 86_400 * 9, value: '1' },
    ];
    const byAlias = plan([], ['from_address AS wallet'], 'count');
    expect(aggregateRows(rows, byAlias, fields, 'desc')).toEqual([
      { wallet: '0xb', count: 2 },
      { wallet: '0xa', count: 1 },
    ]);
    expect(aggregateRows(rows, plan(['sum(value) AS v'], ['from_address as wallet'], 'wallet'), fields, 'desc')).toEqual([
      { wallet: '0xb', v: '8' },
      { wallet: '0xa', v: '5' },
    ]);
    expect(
      aggregateRows(
        rows,
        plan(['toStartOfHour(toDateTime(block_timestamp)) as date', 'sum(1) as count'], ['date'], 'date'),
        fields,
        'desc',
      ),
    ).toEqual([
      { date: '1970-01-10 00:00:00', count: 1 },
      { date: '1970-01-04 00:00:00', count: 2 },
    ]);
    const day = aggregateRows(rows, plan([], ['day']), fields, 'asc');
    expect(day).toEqual([
      { day: '1970-01-04', count: 2 },
      { day: '1970-01-10', count: 1 },
    ]);
    expect(typeof day[0]!.count).toBe('number');
    expect(aggregateRows(rows, plan(['toUnixTimestamp(toStartOfDay(block_timestamp)) AS t'], ['t'], 't'), fields, 'desc')).toEqual([
      { t: 86_400 * 9, count: 1 },
      { t: 86_400 * 3, count: 2 },
    ]);
  });
});

describe('refusals: every one a 400 in the insights format, naming the problem', () => {
  it('refuses injection attempts, whatever the function around them', () => {
    rejects(() => parseAggregates(['toStartOfDay(block_timestamp)); DROP TABLE t'], fields), /unexpected character ";"/);
    rejects(() => parseAggregates(["count(*) AS n' OR '1'='1"], fields), /unexpected character "'"/);
    rejects(() => parseAggregates(['uniq(from_address) AS u -- x'], fields), /unexpected character "-"/);
    rejects(() => parseAggregates(['toStartOfDay(now())'], fields), /a time function takes a timestamp field or another of toDate/);
    rejects(() => parseAggregates(['toStartOfDay(sleep(5)) AS t'], fields), /a time function takes a timestamp field/);
    rejects(() => parseAggregates(['toDate(toString(block_timestamp))'], fields), /a time function takes a timestamp field/);
    rejects(() => parseAggregates(['toStartOfDay(toDate(block_timestamp), 1) AS t'], fields), /expected "\)"/);
    rejects(() => parseAggregates(['count(distinct from_address, to_address)'], fields), /expected "\)"/);
    rejects(() => parseAggregates(['sum(1 + 1)'], fields), /unexpected character "\+"/);
    rejects(() => parseAggregates(['sum(2)'], fields), /the only constant sum is sum\(1\)/);
    rejects(() => parseAggregates(['count(2)'], fields), /count takes \*, 1, a field or distinct field/);
    rejects(() => parseAggregates(['count(distinct *)'], fields), /expected a field name/);
    rejects(() => parseAggregates(['uniq(*)'], fields), /expected a field name/);
    rejects(() => parseAggregates(['toStartOfDay(__proto__) AS d'], fields), /unknown field/);
    rejects(() => parseAggregates(['uniq(constructor)'], fields), /unknown field/);
    rejects(() => parseGroupByEntries(['topic_0 as event_signature; DROP TABLE t'], EVENT_FIELDS), /unexpected character ";"/);
    rejects(() => parseGroupByEntries(['toStartOfDay(block_timestamp) OR 1'], EVENT_FIELDS), /expected "," or the end/);
  });

  it('refuses unknown functions with the list of known ones', () => {
    for (const text of [
      'formatDateTime(block_timestamp)',
      'toStartOfQuarter(block_timestamp) AS q',
      'median(value)',
      'groupArray(hash)',
      'if(value)',
    ]) {
      rejects(
        () => parseAggregates([text], fields),
        /unknown function; use count, countDistinct, uniq, uniqExact, sum, avg, min, max, intDiv, toDate/,
      );
    }
    rejects(() => parseAggregates(['toStartOfDay(toStartOfQuarter(block_timestamp)) AS d'], fields), /a time function takes/);
  });

  it('refuses unbalanced parentheses', () => {
    rejects(() => parseAggregates(['toStartOfDay(toDate(block_timestamp) as time'], fields), /expected "\)" at position/);
    rejects(() => parseAggregates(['toStartOfDay(toDate(block_timestamp)'], fields), /expected "\)" at the end/);
    rejects(() => parseAggregates(['count(*))'], fields), /expected "," or the end at position 9/);
    rejects(() => parseAggregates(['count(('], fields), /expected "\)" at position 7/);
    rejects(() => parseAggregates(['toDate block_timestamp) AS d'], fields), /expected "\(" after toDate/);
    rejects(() => parseAggregates([')count('], fields), /expected a function/);
    rejects(() => parseGroupByEntries(['toDate(block_timestamp'], fields), /expected "\)" at the end/);
  });

  it('refuses nesting deeper than MAX_TIME_NESTING functions', () => {
    const nest = (depth: number) => {
      let text = 'block_timestamp';
      for (let level = 0; level < depth; level += 1) text = `toStartOfDay(${text})`;
      return `${text} AS d`;
    };
    expect(parseAggregates([nest(MAX_TIME_NESTING)], fields)[0]!.expression).toMatchObject({ type: 'bucket' });
    rejects(
      () => parseAggregates([nest(MAX_TIME_NESTING + 1)], fields),
      new RegExp(`time functions nest at most ${MAX_TIME_NESTING} deep`),
    );
    rejects(() => parseAggregates([nest(40)], fields), /at most 200 characters|nest at most/);
  });

  it('refuses aliases and names that clash or are unknown', () => {
    rejects(() => plan([], ['topic_0 as block_number'], undefined, EVENT_FIELDS), /the alias block_number is a field name/);
    rejects(() => plan([], ['topic_0 as']), /expected an alias after AS at the end/);
    rejects(() => plan(['count() AS n'], ['from_address AS n']), /n is also an aggregate/);
    rejects(() => plan(['count() AS n'], ['toStartOfDay(block_timestamp) AS n']), /n is also an aggregate/);
    rejects(() => plan([], ['day', 'toDate(block_timestamp) AS day']), /day appears twice/);
    rejects(() => plan([], ['fortnight']), /unknown name fortnight; valid: chain_id.*, minute, hour, day, week, month, year/);
    rejects(() => plan([], ['toString']), /unknown name toString/);
    rejects(() => plan([], ['__proto__']), /unknown name __proto__/);
    rejects(
      () => plan(['toStartOfDay(toDate(block_timestamp)) as time', 'count() AS n'], []),
      /time must have an alias \(AS name\) listed in group_by/,
    );
    rejects(() => plan([], ['day'], 'time'), /sort by one of the output columns: day, count/);
  });
});

describe('time buckets', () => {
  // Independent of aggregate.ts: Date arithmetic on UTC fields.
  const pad = (value: number) => String(value).padStart(2, '0');
  const dateOf = (date: Date) => `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  const truncate: Record<TimeFunction, (date: Date) => Date> = {
    toDateTime: (date) => date,
    toUnixTimestamp: (date) => date,
    toStartOfMinute: (date) =>
      new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate(), date.getUTCHours(), date.getUTCMinutes())),
    toStartOfHour: (date) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate(), date.getUTCHours())),
    toStartOfDay: (date) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate())),
    toDate: (date) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate())),
    toStartOfWeek: (date) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() - date.getUTCDay())),
    toStartOfMonth: (date) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)),
    toStartOfYear: (date) => new Date(Date.UTC(date.getUTCFullYear(), 0, 1)),
  };
  const expected = (steps: readonly TimeFunction[], seconds: number): string | number => {
    let date = new Date(seconds * 1000);
    for (const step of [...steps].reverse()) date = truncate[step](date);
    const outer = steps[0]!;
    if (outer === 'toUnixTimestamp') return date.getTime() / 1000;
    if (['toDate', 'toStartOfWeek', 'toStartOfMonth', 'toStartOfYear'].includes(outer)) return dateOf(date);
    return `${dateOf(date)} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
  };
  const ALL: TimeFunction[] = [
    'toDate',
    'toDateTime',
    'toStartOfMinute',
    'toStartOfHour',
    'toStartOfDay',
    'toStartOfWeek',
    'toStartOfMonth',
    'toStartOfYear',
    'toUnixTimestamp',
  ];
  let seed = 25;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const chains: TimeFunction[][] = [];
  for (const a of ALL) {
    chains.push([a]);
    for (const b of ALL) chains.push([a, b]);
  }
  for (let index = 0; index < 60; index += 1)
    chains.push(Array.from({ length: 3 + Math.floor(random() * 2) }, () => ALL[Math.floor(random() * ALL.length)]!));

  it('compose as ClickHouse does, for every pair of functions and random nestings, on random and edge times', () => {
    const times = [0, 1_767_225_599, 1_767_225_600, 1_709_164_800 /* 2024-02-29 */, 951_782_400 /* 2000-02-29 */, 1_700_000_000];
    for (let index = 0; index < 40; index += 1) times.push(Math.floor(random() * 2_000_000_000));
    for (const steps of chains) {
      const bucket: Bucket = { fn: 'time', steps };
      for (const seconds of times) expect(bucketOf(bucket, seconds), `${steps.join('∘')} ${seconds}`).toBe(expected(steps, seconds));
    }
    // The dashboard's day: a DateTime; the built-in day: a Date; weeks start on Sunday.
    expect(bucketOf({ fn: 'time', steps: ['toStartOfDay', 'toDate'] }, 1_767_225_599)).toBe('2025-12-31 00:00:00');
    expect(bucketOf({ fn: 'toDate' }, '1767225600')).toBe('2026-01-01');
    expect(bucketOf({ fn: 'time', steps: ['toStartOfWeek'] }, 1_767_225_600)).toBe('2025-12-28');
  });

  it('enumerates the buckets between two times as the bucket of every minute does, bucket starts included', () => {
    for (const steps of chains.filter((chain) => !chain.every((step) => step === 'toDateTime' || step === 'toUnixTimestamp'))) {
      const bucket: Bucket = { fn: 'time', steps };
      // Around a new year: day, week, month and year boundaries.
      const from = 1_767_225_600 - Math.floor(random() * 10 * 86_400);
      const to = from + Math.floor(random() * 14 * 86_400);
      const buckets = timeBucketsBetween(bucket, from, to, 100_000, 10_000_000);
      expect(buckets, steps.join('∘')).toBeDefined();
      const values: unknown[] = [];
      for (let minute = Math.floor(from / 60) * 60; minute <= to; minute += 60) {
        const value = bucketOf(bucket, Math.max(minute, from));
        if (values.at(-1) !== value) values.push(value);
      }
      expect(
        buckets!.map((entry) => entry.value),
        steps.join('∘'),
      ).toEqual(values);
      for (const [index, entry] of buckets!.entries()) {
        if (index === 0) expect(entry.start).toBeLessThanOrEqual(from);
        else {
          expect(bucketOf(bucket, entry.start)).toBe(entry.value);
          expect(bucketOf(bucket, entry.start - 1)).not.toBe(entry.value);
        }
      }
    }
    expect(timeBucketsBetween({ fn: 'toStartOfMinute' }, 0, 86_400 * 30, 1000)).toBeUndefined(); // too many buckets
    expect(timeBucketsBetween({ fn: 'time', steps: ['toStartOfYear', 'toStartOfMinute'] }, 0, 86_400 * 365, 1000, 1000)).toBeUndefined();
    expect(timeBucketsBetween({ fn: 'time', steps: ['toStartOfYear', 'toStartOfMinute'] }, 0, 86_400 * 365, 1000, 600_000)).toEqual([
      { start: 0, value: '1970-01-01' },
      { start: 31_536_000, value: '1971-01-01' },
    ]);
  });
});
