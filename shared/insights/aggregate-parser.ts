/**
 * The `aggregate` and `group_by` grammar: a hand-written tokenizer and a recursive-descent parser
 * into a small expression tree. Request text is only ever compared with the names below; it is never
 * concatenated into a query, an expression or a regular expression.
 *
 *   aggregates   := aggregate ( ',' aggregate )*
 *   aggregate    := expression [ AS alias ]
 *   expression   := COUNT '(' [ [ DISTINCT ] field ] ')'
 *                 | ( SUM | AVG | MIN | MAX ) '(' field ')'
 *                 | ( toStartOfDay | toStartOfHour | toStartOfMinute ) '(' timestamp ')'
 *                 | toDate '(' timestamp ')'
 *                 | intDiv '(' block_number ',' size ')'         (size: an integer from 1 to 10^12)
 *   timestamp    := toDateTime '(' field ')' | field            (field: a timestamp field)
 *   group_by     := name ( ',' name )*                          (name: an entity field or an alias)
 *
 * Keywords and function names are case-insensitive; fields and aliases are identifiers
 * `[A-Za-z_][A-Za-z0-9_]*` of at most 64 characters. `count(field)` counts rows like `count()`.
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
}

/** The fields of one entity (the names of its API rows) that aggregate and group_by may name. */
export type FieldCatalogue = Readonly<Record<string, FieldInfo>>;

export type AggregateFunction = 'count' | 'sum' | 'avg' | 'min' | 'max';
export type TimeBucket = 'toStartOfDay' | 'toStartOfHour' | 'toStartOfMinute' | 'toDate';
/** A bucket of rows: a time bucket of a timestamp field, or block numbers divided by `size`. */
export type Bucket = { fn: TimeBucket } | { fn: 'intDiv'; size: number };

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
const TIME_BUCKETS: Record<string, TimeBucket> = {
  tostartofday: 'toStartOfDay',
  tostartofhour: 'toStartOfHour',
  tostartofminute: 'toStartOfMinute',
  todate: 'toDate',
};
const IDENTIFIER_MAX = 64;

// ---------------------------------------------------------------------------------------------------
// Tokenizer

type TokenKind = 'identifier' | 'number' | '(' | ')' | ',' | 'end';

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
    } else if (char === '(' || char === ')' || char === ',') {
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

  aggregate(): NamedExpression {
    const expression = this.expression();
    let alias: string | null = null;
    if (this.isKeyword('as')) {
      this.next();
      alias = this.identifier('an alias after AS');
    }
    return { expression, alias, name: alias ?? canonicalText(expression) };
  }

  private expression(): Expression {
    const head = this.expect('identifier', 'a function such as count, sum, avg, min, max or toStartOfDay');
    const name = head.text.toLowerCase();
    const fn = Object.hasOwn(AGGREGATE_FUNCTIONS, name) ? AGGREGATE_FUNCTIONS[name] : undefined;
    const bucket = Object.hasOwn(TIME_BUCKETS, name) ? TIME_BUCKETS[name] : undefined;
    if (!fn && !bucket && name !== 'intdiv') {
      this.fail('unknown function; use count, sum, avg, min, max, toStartOfDay, toStartOfHour, toStartOfMinute, toDate or intDiv', head);
    }
    this.expect('(', `"(" after ${head.text}`);
    let expression: Expression;
    if (fn === 'count') {
      const distinct = this.isKeyword('distinct');
      if (distinct) this.next();
      const field = distinct || this.peek().kind === 'identifier' ? this.field() : null;
      expression = { type: 'aggregate', fn, field, distinct };
    } else if (fn) {
      const fieldToken = this.peek();
      const { name: field, info } = this.knownField();
      if (info.kind === 'string') this.fail(`${fn} needs a numeric field`, fieldToken);
      expression = { type: 'aggregate', fn, field };
    } else if (bucket) {
      expression = { type: 'bucket', bucket: { fn: bucket }, field: this.timestamp() };
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
    return expression;
  }

  private timestamp(): string {
    let wrapped = false;
    if (this.isKeyword('todatetime')) {
      this.next();
      this.expect('(', '"(" after toDateTime');
      wrapped = true;
    }
    const token = this.peek();
    const { name: field, info } = this.knownField();
    if (!info.timestamp) this.fail('a time bucket needs a timestamp field such as block_timestamp', token);
    if (wrapped) this.expect(')', '")"');
    return field;
  }
}

/** The column name of an expression without an alias, e.g. `count(distinct from_address)`. */
export function canonicalText(expression: Expression): string {
  if (expression.type === 'bucket') {
    const bucket = expression.bucket;
    if (bucket.fn === 'intDiv') return `intDiv(${expression.field}, ${bucket.size})`;
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

/** Every `group_by` name of a request, in order (each value may hold a comma-separated list). */
export function parseGroupBy(values: readonly string[]): string[] {
  const result: string[] = [];
  for (const value of values) {
    const parser = new Parser('group_by', tokenize('group_by', value), {});
    if (parser.atEnd()) throw new InvalidRequestError('group_by: must not be empty');
    do result.push(parser.identifier('a field name or an alias'));
    while (parser.separator());
  }
  if (result.length > MAX_EXPRESSIONS) throw new InvalidRequestError(`group_by: at most ${MAX_EXPRESSIONS} names`);
  return result;
}
