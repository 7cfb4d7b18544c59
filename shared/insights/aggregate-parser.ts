/**
 * The `aggregate` and `group_by` grammar: a hand-written tokenizer and a recursive-descent parser
 * into a small expression tree. Request text is only ever compared with the names below; it is never
 * concatenated into a query, an expression or a regular expression.
 *
 *   aggregates   := aggregate ( ',' aggregate )*
 *   aggregate    := expression [ AS alias ]
 *   expression   := COUNT '(' [ '*' | '1' | [ DISTINCT ] field ] ')'
 *                 | ( countDistinct | uniq | uniqExact ) '(' field ')'
 *                 | SUM '(' ( field | '1' ) ')'
 *                 | ( AVG | MIN | MAX ) '(' field ')'
 *                 | time
 *                 | intDiv '(' block_number ',' size ')'         (size: an integer from 1 to 10^12)
 *   time         := timeFunction '(' ( time | field ) ')'       (field: a timestamp field; at most
 *                                                                 MAX_TIME_NESTING functions deep)
 *   timeFunction := toDate | toDateTime | toStartOfMinute | toStartOfHour | toStartOfDay
 *                 | toStartOfWeek | toStartOfMonth | toStartOfYear | toUnixTimestamp
 *   group_by     := group ( ',' group )*
 *   group        := time [ AS alias ] | intDiv(...) [ AS alias ] | name [ AS alias ]
 *                                                                (name: a field, an aggregate's alias or a
 *                                                                 built-in such as day: aggregate.ts)
 *
 * Keywords and function names are case-insensitive; fields and aliases are identifiers
 * `[A-Za-z_][A-Za-z0-9_]*` of at most 64 characters. `count(field)`, `count(*)`, `count(1)` and
 * `sum(1)` count rows like `count()` (the fields Insight counts are never NULL); `count(distinct f)`,
 * `countDistinct(f)`, `uniq(f)` and `uniqExact(f)` all count distinct values exactly (ClickHouse's
 * `uniq` estimates; exact is within its error). Time functions compose as in ClickHouse over the Unix
 * seconds of the field (UTC): `toStartOfDay(toDate(block_timestamp))` is the day's first second.
 * `intDiv(block_number, N)` (ClickHouse's integer division) buckets blocks by N: its value is the
 * block number divided by N, rounded down.
 */
import { InvalidRequestError } from '../errors';
import { MAX_EXPRESSION_LENGTH, MAX_EXPRESSIONS } from './limits';

/** How a field's values compute: integers as JSON numbers, uint256 as decimal strings, or text. */
export type FieldKind = 'number' | 'uint' | 'string';

export interface FieldInfo {
  kind: FieldKind;
  /** Unix seconds: may be bucketed. */
  timestamp?: boolean;
  /**
   * The stored record's fields the row's value is computed from (an aggregation expands only those:
   * shared/table/compact.ts); absent: the whole record.
   */
  record?: readonly string[];
}

/** The fields of one entity (the names of its API rows) that aggregate and group_by may name. */
export type FieldCatalogue = Readonly<Record<string, FieldInfo>>;

export type AggregateFunction = 'count' | 'sum' | 'avg' | 'min' | 'max';
export type TimeBucket = 'toStartOfDay' | 'toStartOfHour' | 'toStartOfMinute' | 'toDate';
/** The ClickHouse time functions a time bucket may nest. */
export type TimeFunction =
  | 'toDate'
  | 'toDateTime'
  | 'toStartOfMinute'
  | 'toStartOfHour'
  | 'toStartOfDay'
  | 'toStartOfWeek'
  | 'toStartOfMonth'
  | 'toStartOfYear'
  | 'toUnixTimestamp';
/**
 * A bucket of rows: a time bucket of a timestamp field (one function, `{fn}`, or a nesting of them,
 * `steps` outermost first), or block numbers divided by `size`.
 */
export type Bucket = { fn: TimeBucket } | { fn: 'time'; steps: readonly TimeFunction[] } | { fn: 'intDiv'; size: number };

export type Expression =
  | { type: 'aggregate'; fn: 'count'; field: string | null; distinct: boolean }
  | { type: 'aggregate'; fn: Exclude<AggregateFunction, 'count'>; field: string }
  | { type: 'bucket'; bucket: Bucket; field: string };

/** An expression with the name its output column carries: the alias, or the canonical text. */
export interface NamedExpression {
  expression: Expression;
  name: string;
  alias: string | null;
}

const AGGREGATE_FUNCTIONS: Record<string, AggregateFunction> = { count: 'count', sum: 'sum', avg: 'avg', min: 'min', max: 'max' };
/** Spellings of an exact distinct count, by their lowercase name. */
const DISTINCT_COUNTS: Record<string, string> = { countdistinct: 'countDistinct', uniq: 'uniq', uniqexact: 'uniqExact' };
const TIME_FUNCTIONS: Record<string, TimeFunction> = {
  todate: 'toDate',
  todatetime: 'toDateTime',
  tostartofminute: 'toStartOfMinute',
  tostartofhour: 'toStartOfHour',
  tostartofday: 'toStartOfDay',
  tostartofweek: 'toStartOfWeek',
  tostartofmonth: 'toStartOfMonth',
  tostartofyear: 'toStartOfYear',
  tounixtimestamp: 'toUnixTimestamp',
};
/** The single-function buckets (optionally over toDateTime(field)), kept as `{fn}`. */
const SINGLE_BUCKETS: ReadonlySet<TimeFunction> = new Set(['toStartOfDay', 'toStartOfHour', 'toStartOfMinute', 'toDate']);
/** Time functions one time bucket may nest, e.g. toUnixTimestamp(toStartOfDay(toDate(toDateTime(f)))) is 4. */
export const MAX_TIME_NESTING = 4;
const FUNCTION_LIST =
  'count, countDistinct, uniq, uniqExact, sum, avg, min, max, intDiv, toDate, toDateTime, toStartOfMinute, toStartOfHour, toStartOfDay, toStartOfWeek, toStartOfMonth, toStartOfYear or toUnixTimestamp';
const IDENTIFIER_MAX = 64;

// ---------------------------------------------------------------------------------------------------
// Tokenizer

type TokenKind = 'identifier' | 'number' | '(' | ')' | ',' | '*' | 'end';

interface Token {
  kind: TokenKind;
  text: string;
  /** 1-based character position, for messages. */
  position: number;
}

function isIdentifierStart(char: string): boolean {
  return (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z') || char === '_';
}

function isIdentifierPart(char: string): boolean {
  return isIdentifierStart(char) || (char >= '0' && char <= '9');
}

export function tokenize(parameter: string, text: string): Token[] {
  if (text.length > MAX_EXPRESSION_LENGTH) throw new InvalidRequestError(`${parameter}: at most ${MAX_EXPRESSION_LENGTH} characters`);
  const tokens: Token[] = [];
  let index = 0;
  while (index < text.length) {
    const char = text.charAt(index);
    if (char === ' ' || char === '\t') {
      index += 1;
    } else if (char === '(' || char === ')' || char === ',' || char === '*') {
      tokens.push({ kind: char, text: char, position: index + 1 });
      index += 1;
    } else if (isIdentifierStart(char)) {
      const start = index;
      while (index < text.length && isIdentifierPart(text.charAt(index))) index += 1;
      const word = text.slice(start, index);
      if (word.length > IDENTIFIER_MAX)
        throw new InvalidRequestError(`${parameter}: the name at position ${start + 1} is longer than ${IDENTIFIER_MAX} characters`);
      tokens.push({ kind: 'identifier', text: word, position: start + 1 });
    } else if (char >= '0' && char <= '9') {
      const start = index;
      while (index < text.length && text.charAt(index) >= '0' && text.charAt(index) <= '9') index += 1;
      tokens.push({ kind: 'number', text: text.slice(start, index), position: start + 1 });
    } else {
      throw new InvalidRequestError(`${parameter}: unexpected character ${JSON.stringify(char)} at position ${index + 1}`);
    }
  }
  tokens.push({ kind: 'end', text: '', position: text.length + 1 });
  return tokens;
}

// ---------------------------------------------------------------------------------------------------
// Parser

class Parser {
  private index = 0;

  constructor(
    private readonly parameter: string,
    private readonly tokens: Token[],
    private readonly fields: FieldCatalogue,
  ) {}

  private peek(): Token {
    const token = this.tokens[this.index];
    // tokenize ends the list with an `end` token, which next() never moves past.
    if (token === undefined) throw new Error('the token list has no end token');
    return token;
  }

  /** The kind of the token after the next one (`end` past the end). */
  private peekSecondKind(): TokenKind {
    return this.tokens[this.index + 1]?.kind ?? 'end';
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.index += 1;
    return token;
  }

  private fail(message: string, token: Token = this.peek()): never {
    const where = token.kind === 'end' ? 'at the end' : `at position ${token.position} (${JSON.stringify(token.text)})`;
    throw new InvalidRequestError(`${this.parameter}: ${message} ${where}`);
  }

  private expect(kind: TokenKind, what: string): Token {
    if (this.peek().kind !== kind) this.fail(`expected ${what}`);
    return this.next();
  }

  private isKeyword(word: string): boolean {
    const token = this.peek();
    return token.kind === 'identifier' && token.text.toLowerCase() === word;
  }

  atEnd(): boolean {
    return this.peek().kind === 'end';
  }

  /** `,` between list items, or the end. */
  separator(): boolean {
    if (this.peek().kind === ',') {
      this.next();
      return true;
    }
    if (!this.atEnd()) this.fail('expected "," or the end');
    return false;
  }

  field(): string {
    return this.knownField().name;
  }

  private knownField(): { name: string; info: FieldInfo } {
    const token = this.expect('identifier', 'a field name');
    const info = Object.hasOwn(this.fields, token.text) ? this.fields[token.text] : undefined;
    if (info === undefined) this.fail(`unknown field; valid fields: ${Object.keys(this.fields).join(', ')};`, token);
    return { name: token.text, info };
  }

  identifier(what: string): string {
    return this.expect('identifier', what).text;
  }

  /** `AS alias`, when present. */
  private alias(): string | null {
    if (!this.isKeyword('as')) return null;
    this.next();
    return this.identifier('an alias after AS');
  }

  aggregate(): NamedExpression {
    const { expression, text } = this.expression();
    const alias = this.alias();
    return { expression, alias, name: alias ?? text };
  }

  /** One group_by entry: a time or block bucket, or a name (field, alias or built-in), each with an optional alias. */
  group(): GroupByEntry {
    const token = this.peek();
    const name = token.text.toLowerCase();
    if (token.kind === 'identifier' && this.peekSecondKind() === '(' && (Object.hasOwn(TIME_FUNCTIONS, name) || name === 'intdiv')) {
      const { expression, text } = this.expression();
      if (expression.type !== 'bucket') throw new Error('a time or block function parses to a bucket');
      const alias = this.alias();
      return { name: alias ?? text, alias, source: null, bucket: { bucket: expression.bucket, field: expression.field } };
    }
    const source = this.identifier('a field name, an alias or a time bucket');
    const alias = this.alias();
    return { name: alias ?? source, alias, source, bucket: null };
  }

  private expression(): { expression: Expression; text: string } {
    const head = this.expect('identifier', 'a function such as count, sum, avg, min, max or toStartOfDay');
    const name = head.text.toLowerCase();
    const fn = Object.hasOwn(AGGREGATE_FUNCTIONS, name) ? AGGREGATE_FUNCTIONS[name] : undefined;
    const distinctCount = Object.hasOwn(DISTINCT_COUNTS, name) ? DISTINCT_COUNTS[name] : undefined;
    const time = Object.hasOwn(TIME_FUNCTIONS, name) ? TIME_FUNCTIONS[name] : undefined;
    if (!fn && !distinctCount && !time && name !== 'intdiv') this.fail(`unknown function; use ${FUNCTION_LIST}`, head);
    if (time) {
      const { steps, field } = this.time(head, time, 1);
      const bucket = bucketOfSteps(steps);
      return { expression: { type: 'bucket', bucket, field }, text: canonicalText({ type: 'bucket', bucket, field }) };
    }
    this.expect('(', `"(" after ${head.text}`);
    let expression: Expression;
    let text: string | null = null;
    if (distinctCount) {
      const field = this.field();
      expression = { type: 'aggregate', fn: 'count', field, distinct: true };
      text = `${distinctCount}(${field})`;
    } else if (fn === 'count') {
      const constant = this.rowConstant();
      if (constant !== null) {
        expression = { type: 'aggregate', fn, field: null, distinct: false };
        text = `count(${constant})`;
      } else {
        const distinct = this.isKeyword('distinct');
        if (distinct) this.next();
        const field = distinct || this.peek().kind === 'identifier' ? this.field() : null;
        expression = { type: 'aggregate', fn, field, distinct };
      }
    } else if (fn) {
      const fieldToken = this.peek();
      if (fn === 'sum' && fieldToken.kind === 'number') {
        if (fieldToken.text !== '1') this.fail('the only constant sum is sum(1), the number of rows', fieldToken);
        this.next();
        expression = { type: 'aggregate', fn: 'count', field: null, distinct: false };
        text = 'sum(1)';
      } else {
        const { name: field, info } = this.knownField();
        if (info.kind === 'string') this.fail(`${fn} needs a numeric field`, fieldToken);
        expression = { type: 'aggregate', fn, field };
      }
    } else {
      const fieldToken = this.peek();
      const field = this.field();
      if (field !== 'block_number') this.fail('intDiv buckets block_number only', fieldToken);
      this.expect(',', '"," after block_number');
      const sizeToken = this.expect('number', 'the bucket size, an integer from 1 to 1000000000000');
      const size = Number(sizeToken.text);
      if (!/^[1-9][0-9]{0,12}$/.test(sizeToken.text) || size > 1e12)
        this.fail('the bucket size must be an integer from 1 to 1000000000000', sizeToken);
      expression = { type: 'bucket', bucket: { fn: 'intDiv', size }, field };
    }
    this.expect(')', '")"');
    return { expression, text: text ?? canonicalText(expression) };
  }

  /** `*` or `1` inside count(...): a row count; null when the argument is something else. */
  private rowConstant(): string | null {
    const token = this.peek();
    if (token.kind === '*') {
      this.next();
      return '*';
    }
    if (token.kind === 'number') {
      if (token.text !== '1') this.fail('count takes *, 1, a field or distinct field', token);
      this.next();
      return '1';
    }
    return null;
  }

  /**
   * A time function's argument and closing parenthesis, after its name (`head`): another time function
   * or a timestamp field. Returns the functions outermost first.
   */
  private time(head: Token, fn: TimeFunction, depth: number): { steps: TimeFunction[]; field: string } {
    this.expect('(', `"(" after ${head.text}`);
    const token = this.peek();
    let result: { steps: TimeFunction[]; field: string };
    if (token.kind === 'identifier' && this.peekSecondKind() === '(') {
      const lower = token.text.toLowerCase();
      const inner = Object.hasOwn(TIME_FUNCTIONS, lower) ? TIME_FUNCTIONS[lower] : undefined;
      if (inner === undefined)
        this.fail(
          'a time function takes a timestamp field or another of toDate, toDateTime, toStartOfMinute, toStartOfHour, toStartOfDay, toStartOfWeek, toStartOfMonth, toStartOfYear, toUnixTimestamp',
          token,
        );
      if (depth >= MAX_TIME_NESTING) this.fail(`time functions nest at most ${MAX_TIME_NESTING} deep`, token);
      this.next();
      const nested = this.time(token, inner, depth + 1);
      result = { steps: [fn, ...nested.steps], field: nested.field };
    } else {
      const { name: field, info } = this.knownField();
      if (!info.timestamp) this.fail('a time bucket needs a timestamp field such as block_timestamp', token);
      result = { steps: [fn], field };
    }
    this.expect(')', '")"');
    return result;
  }
}

/** One group_by entry: its output column name, and what it groups by (a name resolved by the plan, or a bucket). */
export interface GroupByEntry {
  name: string;
  alias: string | null;
  /** The name written (a field, an aggregate's alias or a built-in), or null for a bucket expression. */
  source: string | null;
  bucket: { bucket: Bucket; field: string } | null;
}

/**
 * The bucket of nested time functions (outermost first): one of the four single-function buckets,
 * written alone or over toDateTime(field), stays `{fn}`; any other nesting is `{fn: 'time', steps}`.
 */
function bucketOfSteps(steps: readonly TimeFunction[]): Bucket {
  const [outer, inner, ...rest] = steps;
  if (outer && SINGLE_BUCKETS.has(outer) && rest.length === 0 && (inner === undefined || inner === 'toDateTime')) {
    return { fn: outer as TimeBucket };
  }
  return { fn: 'time', steps };
}

/** The column name of an expression without an alias, e.g. `count(distinct from_address)`. */
export function canonicalText(expression: Expression): string {
  if (expression.type === 'bucket') {
    const bucket = expression.bucket;
    if (bucket.fn === 'intDiv') return `intDiv(${expression.field}, ${bucket.size})`;
    if (bucket.fn === 'time') return bucket.steps.reduceRight((inner, step) => `${step}(${inner})`, expression.field);
    return bucket.fn === 'toDate' ? `toDate(${expression.field})` : `${bucket.fn}(toDateTime(${expression.field}))`;
  }
  if (expression.fn === 'count') return `count(${expression.distinct ? 'distinct ' : ''}${expression.field ?? ''})`;
  return `${expression.fn}(${expression.field})`;
}

/** Every `aggregate` value of a request (each may hold a comma-separated list). */
export function parseAggregates(values: readonly string[], fields: FieldCatalogue): NamedExpression[] {
  const result: NamedExpression[] = [];
  for (const value of values) {
    const parser = new Parser('aggregate', tokenize('aggregate', value), fields);
    if (parser.atEnd()) throw new InvalidRequestError('aggregate: must not be empty');
    do result.push(parser.aggregate());
    while (parser.separator());
  }
  if (result.length > MAX_EXPRESSIONS) throw new InvalidRequestError(`aggregate: at most ${MAX_EXPRESSIONS} expressions`);
  return result;
}

/** Every `group_by` entry of a request, in order (each value may hold a comma-separated list). */
export function parseGroupByEntries(values: readonly string[], fields: FieldCatalogue): GroupByEntry[] {
  const result: GroupByEntry[] = [];
  for (const value of values) {
    const parser = new Parser('group_by', tokenize('group_by', value), fields);
    if (parser.atEnd()) throw new InvalidRequestError('group_by: must not be empty');
    do result.push(parser.group());
    while (parser.separator());
  }
  if (result.length > MAX_EXPRESSIONS) throw new InvalidRequestError(`group_by: at most ${MAX_EXPRESSIONS} names`);
  return result;
}

/** The output column names of `group_by` values (their buckets checked against `fields`). */
export function parseGroupBy(values: readonly string[], fields: FieldCatalogue = {}): string[] {
  return parseGroupByEntries(values, fields).map((entry) => entry.name);
}
