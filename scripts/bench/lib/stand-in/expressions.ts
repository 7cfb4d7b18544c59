/**
 * DynamoDB's expression languages for the bench's stand-in table (./table.ts): condition, filter and
 * key-condition expressions, update expressions and projections, parsed once per expression text and
 * evaluated on items in DynamoDB's JSON wire format ({"S": ...}, {"N": ...}, {"M": {...}}, ...).
 *
 * What the service sends, and what DynamoDB's documentation gives as its semantics: comparisons
 * (`=`, `<>`, `<`, `<=`, `>`, `>=`, `BETWEEN`, `IN`), `AND` / `OR` / `NOT` and parentheses, the functions
 * `attribute_exists`, `attribute_not_exists`, `attribute_type`, `begins_with`, `contains` and `size`;
 * updates `SET` (with `+`, `-`, `if_not_exists`, `list_append`), `REMOVE`, `ADD` and `DELETE`, every
 * right-hand side read from the item before the update. Numbers are decimals (big.js), as DynamoDB's.
 * A comparison with a missing attribute is false, except `<>`, which is true.
 */
import Big from 'big.js';

export type AttributeValue = Record<string, any>;
export type Item = Record<string, AttributeValue>;

/** A document path: names (raw or `#placeholder`) and list indexes. */
export type PathElement = { name: string } | { index: number };
export type Path = PathElement[];

export type Operand =
  | { kind: 'path'; path: Path }
  | { kind: 'value'; ref: string }
  | { kind: 'size'; path: Path }
  | { kind: 'if_not_exists'; path: Path; fallback: Operand }
  | { kind: 'list_append'; a: Operand; b: Operand }
  | { kind: 'plus' | 'minus'; a: Operand; b: Operand };

export type Comparator = '=' | '<>' | '<' | '<=' | '>' | '>=';

export type Condition =
  | { kind: 'and' | 'or'; a: Condition; b: Condition }
  | { kind: 'not'; a: Condition }
  | { kind: 'compare'; op: Comparator; a: Operand; b: Operand }
  | { kind: 'between'; a: Operand; low: Operand; high: Operand }
  | { kind: 'in'; a: Operand; list: Operand[] }
  | { kind: 'function'; name: string; args: Operand[] };

export interface Update {
  set: { path: Path; value: Operand }[];
  remove: Path[];
  add: { path: Path; value: Operand }[];
  delete: { path: Path; value: Operand }[];
}

/** The request's `ExpressionAttributeNames` and `ExpressionAttributeValues`. */
export interface Placeholders {
  names?: Record<string, string>;
  values?: Record<string, AttributeValue>;
}

export class ExpressionError extends Error {}

// ---------------------------------------------------------------------------------------------------
// Tokens and parsing

type Token = { type: 'word' | 'name' | 'value' | 'number' | 'punct'; text: string };

const PUNCTUATION = ['<>', '<=', '>=', '=', '<', '>', '(', ')', ',', '.', '[', ']', '+', '-'];

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at]!;
    if (/\s/.test(char)) {
      at += 1;
      continue;
    }
    const word = /^[#:]?[A-Za-z0-9_]+/.exec(text.slice(at));
    if (word) {
      const token = word[0];
      const type = token.startsWith('#') ? 'name' : token.startsWith(':') ? 'value' : /^[0-9]+$/.test(token) ? 'number' : 'word';
      tokens.push({ type, text: token });
      at += token.length;
      continue;
    }
    const punct = PUNCTUATION.find((candidate) => text.startsWith(candidate, at));
    if (!punct) throw new ExpressionError(`unexpected character ${JSON.stringify(char)} in ${JSON.stringify(text)}`);
    tokens.push({ type: 'punct', text: punct });
    at += punct.length;
  }
  return tokens;
}

const CLAUSES = new Set(['SET', 'REMOVE', 'ADD', 'DELETE']);

class Parser {
  private at = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly text: string,
  ) {}

  done(): boolean {
    return this.at >= this.tokens.length;
  }

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.at + offset];
  }

  private keyword(word: string): boolean {
    const token = this.peek();
    if (token?.type === 'word' && token.text.toUpperCase() === word) {
      this.at += 1;
      return true;
    }
    return false;
  }

  private punct(text: string): boolean {
    const token = this.peek();
    if (token?.type === 'punct' && token.text === text) {
      this.at += 1;
      return true;
    }
    return false;
  }

  private expect(text: string): void {
    if (!this.punct(text)) throw this.error(`expected ${text}`);
  }

  error(message: string): ExpressionError {
    return new ExpressionError(`${message} at token ${this.at} of ${JSON.stringify(this.text)}`);
  }

  condition(): Condition {
    let left = this.conjunction();
    while (this.keyword('OR')) left = { kind: 'or', a: left, b: this.conjunction() };
    return left;
  }

  private conjunction(): Condition {
    let left = this.negation();
    while (this.keyword('AND')) left = { kind: 'and', a: left, b: this.negation() };
    return left;
  }

  private negation(): Condition {
    if (this.keyword('NOT')) return { kind: 'not', a: this.negation() };
    return this.primary();
  }

  private primary(): Condition {
    if (this.punct('(')) {
      const inner = this.condition();
      this.expect(')');
      return inner;
    }
    const token = this.peek();
    const next = this.peek(1);
    if (token?.type === 'word' && next?.type === 'punct' && next.text === '(' && token.text !== 'size') {
      const name = token.text;
      this.at += 2;
      const args: Operand[] = [];
      if (!this.punct(')')) {
        do args.push(this.operand());
        while (this.punct(','));
        this.expect(')');
      }
      if (!['attribute_exists', 'attribute_not_exists', 'attribute_type', 'begins_with', 'contains'].includes(name)) {
        throw this.error(`unknown condition function ${name}`);
      }
      return { kind: 'function', name, args };
    }
    const left = this.operand();
    if (this.keyword('BETWEEN')) {
      const low = this.operand();
      if (!this.keyword('AND')) throw this.error('expected AND in BETWEEN');
      return { kind: 'between', a: left, low, high: this.operand() };
    }
    if (this.keyword('IN')) {
      this.expect('(');
      const list: Operand[] = [];
      do list.push(this.operand());
      while (this.punct(','));
      this.expect(')');
      return { kind: 'in', a: left, list };
    }
    const op = this.peek();
    if (op?.type !== 'punct' || !['=', '<>', '<', '<=', '>', '>='].includes(op.text)) throw this.error('expected a comparator');
    this.at += 1;
    return { kind: 'compare', op: op.text as Comparator, a: left, b: this.operand() };
  }

  operand(): Operand {
    const token = this.peek();
    if (!token) throw this.error('expected an operand');
    if (token.type === 'value') {
      this.at += 1;
      return { kind: 'value', ref: token.text };
    }
    const next = this.peek(1);
    if (token.type === 'word' && next?.type === 'punct' && next.text === '(') {
      this.at += 2;
      if (token.text === 'size') {
        const path = this.path();
        this.expect(')');
        return { kind: 'size', path };
      }
      if (token.text === 'if_not_exists') {
        const path = this.path();
        this.expect(',');
        const fallback = this.operand();
        this.expect(')');
        return { kind: 'if_not_exists', path, fallback };
      }
      if (token.text === 'list_append') {
        const a = this.operand();
        this.expect(',');
        const b = this.operand();
        this.expect(')');
        return { kind: 'list_append', a, b };
      }
      throw this.error(`unknown function ${token.text}`);
    }
    return { kind: 'path', path: this.path() };
  }

  /** An update's right-hand side: an operand, or two joined by + or -. */
  private setValue(): Operand {
    const a = this.operand();
    if (this.punct('+')) return { kind: 'plus', a, b: this.operand() };
    if (this.punct('-')) return { kind: 'minus', a, b: this.operand() };
    return a;
  }

  path(): Path {
    const path: Path = [];
    const first = this.peek();
    if (!first || (first.type !== 'word' && first.type !== 'name')) throw this.error('expected an attribute name');
    this.at += 1;
    path.push({ name: first.text });
    for (;;) {
      if (this.punct('.')) {
        const part = this.peek();
        if (!part || (part.type !== 'word' && part.type !== 'name')) throw this.error('expected an attribute name after .');
        this.at += 1;
        path.push({ name: part.text });
      } else if (this.punct('[')) {
        const index = this.peek();
        if (index?.type !== 'number') throw this.error('expected a list index');
        this.at += 1;
        this.expect(']');
        path.push({ index: Number(index.text) });
      } else return path;
    }
  }

  update(): Update {
    const update: Update = { set: [], remove: [], add: [], delete: [] };
    while (!this.done()) {
      const clause = this.peek();
      const name = clause?.type === 'word' ? clause.text.toUpperCase() : '';
      if (!CLAUSES.has(name)) throw this.error('expected SET, REMOVE, ADD or DELETE');
      this.at += 1;
      const isClauseStart = (): boolean => {
        const token = this.peek();
        return token === undefined || (token.type === 'word' && CLAUSES.has(token.text.toUpperCase()) && !this.isPathStart());
      };
      do {
        if (name === 'SET') {
          const path = this.path();
          this.expect('=');
          update.set.push({ path, value: this.setValue() });
        } else if (name === 'REMOVE') update.remove.push(this.path());
        else {
          const path = this.path();
          const value = this.operand();
          (name === 'ADD' ? update.add : update.delete).push({ path, value });
        }
      } while (this.punct(','));
      if (!isClauseStart()) throw this.error(`unexpected text after ${name}`);
    }
    return update;
  }

  /** A word followed by `=`, `.` or `[` is an attribute path, not a clause keyword (`SET add = :v`). */
  private isPathStart(): boolean {
    const next = this.peek(1);
    return next?.type === 'punct' && ['=', '.', '['].includes(next.text);
  }

  projection(): Path[] {
    const paths: Path[] = [];
    do paths.push(this.path());
    while (this.punct(','));
    return paths;
  }
}

const conditions = new Map<string, Condition>();
const updates = new Map<string, Update>();
const projections = new Map<string, Path[]>();

function parsed<T>(cache: Map<string, T>, text: string, parse: (parser: Parser) => T): T {
  let result = cache.get(text);
  if (result === undefined) {
    const parser = new Parser(tokenize(text), text);
    result = parse(parser);
    if (!parser.done()) throw parser.error('unexpected text');
    if (cache.size > 10_000) cache.clear();
    cache.set(text, result);
  }
  return result;
}

export const parseCondition = (text: string): Condition => parsed(conditions, text, (parser) => parser.condition());
export const parseUpdate = (text: string): Update => parsed(updates, text, (parser) => parser.update());
export const parseProjection = (text: string): Path[] => parsed(projections, text, (parser) => parser.projection());

// ---------------------------------------------------------------------------------------------------
// Values

type Segment = string | number;

export function resolvePath(path: Path, placeholders: Placeholders): Segment[] {
  return path.map((element) => {
    if ('index' in element) return element.index;
    if (!element.name.startsWith('#')) return element.name;
    const name = placeholders.names?.[element.name];
    if (name === undefined) throw new ExpressionError(`the name placeholder ${element.name} is not defined`);
    return name;
  });
}

export function valueAt(item: Item, segments: readonly Segment[]): AttributeValue | undefined {
  let current: AttributeValue | undefined = { M: item };
  for (const segment of segments) {
    if (current === undefined) return undefined;
    if (typeof segment === 'number') current = current.L?.[segment];
    else current = current.M?.[segment];
  }
  return current;
}

function typeOf(value: AttributeValue): string {
  for (const key in value) return key;
  throw new ExpressionError('an attribute value without a type');
}

/** DynamoDB orders strings by their UTF-8 bytes: code units agree with it below the surrogates. */
export function compareStrings(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x < 0xd800 && y < 0xd800) return x - y;
    return Buffer.compare(Buffer.from(a.slice(i)), Buffer.from(b.slice(i)));
  }
  return a.length - b.length;
}

function compareScalars(type: string, a: any, b: any): number {
  if (type === 'N') return new Big(a).cmp(new Big(b));
  if (type === 'S') return compareStrings(a, b);
  if (type === 'B') return Buffer.compare(Buffer.from(a, 'base64'), Buffer.from(b, 'base64'));
  throw new ExpressionError(`values of type ${type} cannot be ordered`);
}

export function valuesEqual(a: AttributeValue | undefined, b: AttributeValue | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const type = typeOf(a);
  if (type !== typeOf(b)) return false;
  const x = a[type];
  const y = b[type];
  switch (type) {
    case 'S':
    case 'BOOL':
    case 'NULL':
      return x === y;
    case 'N':
    case 'B':
      return compareScalars(type, x, y) === 0;
    case 'SS':
    case 'NS':
    case 'BS': {
      const scalar = type[0]!;
      return x.length === y.length && x.every((value: string) => y.some((other: string) => compareScalars(scalar, value, other) === 0));
    }
    case 'L':
      return x.length === y.length && x.every((value: AttributeValue, i: number) => valuesEqual(value, y[i]));
    case 'M': {
      const keys = Object.keys(x);
      return keys.length === Object.keys(y).length && keys.every((key) => valuesEqual(x[key], y[key]));
    }
    default:
      throw new ExpressionError(`unknown attribute type ${type}`);
  }
}

function sizeOf(value: AttributeValue): number | undefined {
  const type = typeOf(value);
  const x = value[type];
  if (type === 'S') return Buffer.byteLength(x);
  if (type === 'B') return Buffer.from(x, 'base64').length;
  if (type === 'SS' || type === 'NS' || type === 'BS' || type === 'L') return x.length;
  if (type === 'M') return Object.keys(x).length;
  return undefined;
}

function operandValue(operand: Operand, item: Item, placeholders: Placeholders): AttributeValue | undefined {
  switch (operand.kind) {
    case 'path':
      return valueAt(item, resolvePath(operand.path, placeholders));
    case 'value': {
      const value = placeholders.values?.[operand.ref];
      if (value === undefined) throw new ExpressionError(`the value placeholder ${operand.ref} is not defined`);
      return value;
    }
    case 'size': {
      const value = valueAt(item, resolvePath(operand.path, placeholders));
      const size = value === undefined ? undefined : sizeOf(value);
      return size === undefined ? undefined : { N: String(size) };
    }
    case 'if_not_exists':
      return valueAt(item, resolvePath(operand.path, placeholders)) ?? operandValue(operand.fallback, item, placeholders);
    case 'list_append': {
      const a = operandValue(operand.a, item, placeholders);
      const b = operandValue(operand.b, item, placeholders);
      if (!a?.L || !b?.L) throw new ExpressionError('list_append takes two lists');
      return { L: [...a.L, ...b.L] };
    }
    case 'plus':
    case 'minus': {
      const a = operandValue(operand.a, item, placeholders);
      const b = operandValue(operand.b, item, placeholders);
      if (a?.N === undefined || b?.N === undefined) throw new ExpressionError('an operand of + or - is not a number');
      const sum = operand.kind === 'plus' ? new Big(a.N).plus(b.N) : new Big(a.N).minus(b.N);
      return { N: sum.toFixed() };
    }
  }
}

export function matches(condition: Condition, item: Item, placeholders: Placeholders): boolean {
  switch (condition.kind) {
    case 'and':
      return matches(condition.a, item, placeholders) && matches(condition.b, item, placeholders);
    case 'or':
      return matches(condition.a, item, placeholders) || matches(condition.b, item, placeholders);
    case 'not':
      return !matches(condition.a, item, placeholders);
    case 'compare': {
      const a = operandValue(condition.a, item, placeholders);
      const b = operandValue(condition.b, item, placeholders);
      if (condition.op === '=') return valuesEqual(a, b);
      if (condition.op === '<>') return !valuesEqual(a, b);
      if (a === undefined || b === undefined) return false;
      const type = typeOf(a);
      if (type !== typeOf(b) || !['N', 'S', 'B'].includes(type)) return false;
      const order = compareScalars(type, a[type], b[type]);
      return condition.op === '<' ? order < 0 : condition.op === '<=' ? order <= 0 : condition.op === '>' ? order > 0 : order >= 0;
    }
    case 'between': {
      const a = operandValue(condition.a, item, placeholders);
      const low = operandValue(condition.low, item, placeholders);
      const high = operandValue(condition.high, item, placeholders);
      if (a === undefined || low === undefined || high === undefined) return false;
      const type = typeOf(a);
      if (type !== typeOf(low) || type !== typeOf(high) || !['N', 'S', 'B'].includes(type)) return false;
      return compareScalars(type, a[type], low[type]) >= 0 && compareScalars(type, a[type], high[type]) <= 0;
    }
    case 'in': {
      const a = operandValue(condition.a, item, placeholders);
      return condition.list.some((operand) => valuesEqual(a, operandValue(operand, item, placeholders)));
    }
    case 'function': {
      const [first, second] = condition.args;
      if (!first) throw new ExpressionError(`${condition.name} needs an argument`);
      if (first.kind !== 'path' && condition.name !== 'begins_with' && condition.name !== 'contains') {
        throw new ExpressionError(`${condition.name} takes an attribute path`);
      }
      const value = operandValue(first, item, placeholders);
      switch (condition.name) {
        case 'attribute_exists':
          return value !== undefined;
        case 'attribute_not_exists':
          return value === undefined;
        case 'attribute_type': {
          const type = second && operandValue(second, item, placeholders);
          return value !== undefined && type?.S === typeOf(value);
        }
        case 'begins_with': {
          const prefix = second && operandValue(second, item, placeholders);
          if (value?.S !== undefined && prefix?.S !== undefined) return value.S.startsWith(prefix.S);
          if (value?.B !== undefined && prefix?.B !== undefined) {
            const bytes = Buffer.from(value.B, 'base64');
            const start = Buffer.from(prefix.B, 'base64');
            return bytes.subarray(0, start.length).equals(start);
          }
          return false;
        }
        case 'contains': {
          const needle = second && operandValue(second, item, placeholders);
          if (value === undefined || needle === undefined) return false;
          if (value.S !== undefined) return needle.S !== undefined && value.S.includes(needle.S);
          if (value.L !== undefined) return value.L.some((element: AttributeValue) => valuesEqual(element, needle));
          for (const setType of ['SS', 'NS', 'BS']) {
            const scalar = setType[0]!;
            if (value[setType] !== undefined) return value[setType].some((element: string) => valuesEqual({ [scalar]: element }, needle));
          }
          return false;
        }
        default:
          throw new ExpressionError(`unknown function ${condition.name}`);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Updates and projections

function setAt(item: Item, segments: readonly Segment[], value: AttributeValue): void {
  let parent: AttributeValue = { M: item };
  for (let i = 0; i < segments.length - 1; i += 1) {
    const segment = segments[i]!;
    const next: AttributeValue | undefined = typeof segment === 'number' ? parent.L?.[segment] : parent.M?.[segment];
    if (next === undefined) throw new ExpressionError('The document path provided in the update expression is invalid for update');
    parent = next;
  }
  const last = segments[segments.length - 1]!;
  if (typeof last === 'number') {
    if (!parent.L) throw new ExpressionError('The document path provided in the update expression is invalid for update');
    if (last >= parent.L.length) parent.L.push(value);
    else parent.L[last] = value;
  } else {
    if (!parent.M) throw new ExpressionError('The document path provided in the update expression is invalid for update');
    parent.M[last] = value;
  }
}

function removeAt(item: Item, segments: readonly Segment[]): void {
  const parent = segments.length === 1 ? { M: item } : valueAt(item, segments.slice(0, -1));
  const last = segments[segments.length - 1]!;
  if (typeof last === 'number') parent?.L?.splice(last, 1);
  else if (parent?.M) delete parent.M[last];
}

const clone = <T>(value: T): T => structuredClone(value);

/**
 * The item an update leaves (a new object; `before` is not changed): every right-hand side is read
 * from `before`, as DynamoDB does.
 */
export function applyUpdate(update: Update, before: Item, placeholders: Placeholders): Item {
  const after = clone(before);
  const sets = update.set.map(({ path, value }) => [resolvePath(path, placeholders), operandValue(value, before, placeholders)] as const);
  for (const [segments, value] of sets) {
    if (value === undefined) throw new ExpressionError('The provided expression refers to an attribute that does not exist in the item');
    setAt(after, segments, clone(value));
  }
  for (const path of update.remove) removeAt(after, resolvePath(path, placeholders));
  for (const { path, value: operand } of update.add) {
    const segments = resolvePath(path, placeholders);
    const value = operandValue(operand, before, placeholders)!;
    const current = valueAt(after, segments);
    if (value.N !== undefined) {
      if (current !== undefined && current.N === undefined)
        throw new ExpressionError('An operand in the update expression has an incorrect data type');
      setAt(after, segments, { N: current ? new Big(current.N).plus(value.N).toFixed() : value.N });
      continue;
    }
    const setType = ['SS', 'NS', 'BS'].find((type) => value[type] !== undefined);
    if (!setType) throw new ExpressionError('ADD takes a number or a set');
    if (current !== undefined && current[setType] === undefined)
      throw new ExpressionError('An operand in the update expression has an incorrect data type');
    const merged = [...(current?.[setType] ?? [])];
    for (const element of value[setType])
      if (!merged.some((other) => valuesEqual({ [setType[0]!]: other }, { [setType[0]!]: element }))) merged.push(element);
    setAt(after, segments, { [setType]: merged });
  }
  for (const { path, value: operand } of update.delete) {
    const segments = resolvePath(path, placeholders);
    const value = operandValue(operand, before, placeholders)!;
    const setType = ['SS', 'NS', 'BS'].find((type) => value[type] !== undefined);
    if (!setType) throw new ExpressionError('DELETE takes a set');
    const current = valueAt(after, segments);
    if (current === undefined) continue;
    if (current[setType] === undefined) throw new ExpressionError('An operand in the update expression has an incorrect data type');
    const kept = current[setType].filter(
      (element: string) => !value[setType].some((other: string) => valuesEqual({ [setType[0]!]: other }, { [setType[0]!]: element })),
    );
    if (kept.length === 0) removeAt(after, segments);
    else setAt(after, segments, { [setType]: kept });
  }
  return after;
}

/** The top-level names an update writes (for ReturnValues UPDATED_OLD / UPDATED_NEW). */
export function updatedNames(update: Update, placeholders: Placeholders): string[] {
  const paths = [
    ...update.set.map((entry) => entry.path),
    ...update.remove,
    ...update.add.map((entry) => entry.path),
    ...update.delete.map((entry) => entry.path),
  ];
  return [...new Set(paths.map((path) => String(resolvePath(path, placeholders)[0])))];
}

/** The item with only the projected paths (nested paths keep their parents' shape). */
export function project(item: Item, paths: readonly Path[], placeholders: Placeholders): Item {
  const result: Item = {};
  for (const path of paths) {
    const segments = resolvePath(path, placeholders);
    const value = valueAt(item, segments);
    if (value === undefined) continue;
    if (segments.length === 1) {
      result[segments[0] as string] = value;
      continue;
    }
    // Rebuild the parent maps (a list index in a projection is not sent by the service).
    if (segments.some((segment) => typeof segment === 'number')) throw new ExpressionError('the stand-in projects no list elements');
    let target = result;
    for (const segment of segments.slice(0, -1) as string[]) {
      target[segment] ??= { M: {} };
      target = target[segment]!.M;
    }
    target[segments[segments.length - 1] as string] = value;
  }
  return result;
}
