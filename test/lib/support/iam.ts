/**
 * Just enough of IAM's policy evaluation to ask what a function's DynamoDB statements let it write:
 * StringLike matching, the `dynamodb:LeadingKeys` conditions the stack uses and the `dynamodb:Attributes`
 * one (StringEquals: the attributes a request names). Any other condition is an error here, so a new
 * kind of condition cannot pass unexamined.
 */
type Statement = Record<string, any>;

/** IAM `StringLike`: `*` matches any run of characters (none too), `?` exactly one; case-sensitive. */
export function stringLike(pattern: string, value: string): boolean {
  const source = [...pattern]
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, 's').test(value);
}

/**
 * Whether a statement's condition holds for a request that writes one item with partition key `pk`,
 * naming `attributes` (its top-level attribute names, key attributes included).
 */
function conditionHolds(statement: Statement, pk: string, attributes: readonly string[]): boolean {
  const condition: Record<string, Record<string, unknown>> | undefined = statement.Condition;
  if (!condition) return true;
  return Object.entries(condition).every(([operator, keys]) => {
    if (operator === 'ForAllValues:StringEquals') {
      return Object.entries(keys).every(([key, values]) => {
        if (key !== 'dynamodb:Attributes') throw new Error(`condition key ${key} is not modelled by test/lib/support/iam.ts`);
        const allowed = new Set([values].flat().map(String));
        return attributes.every((attribute) => allowed.has(attribute));
      });
    }
    if (operator !== 'ForAllValues:StringLike' && operator !== 'ForAnyValue:StringLike') {
      throw new Error(`condition operator ${operator} is not modelled by test/lib/support/iam.ts`);
    }
    return Object.entries(keys).every(([key, patterns]) => {
      if (key !== 'dynamodb:LeadingKeys') throw new Error(`condition key ${key} is not modelled by test/lib/support/iam.ts`);
      // One item: its single leading key makes ForAllValues and ForAnyValue the same test.
      return [patterns].flat().some((pattern) => stringLike(String(pattern), pk));
    });
  });
}

const covers = (statement: Statement, action: string, resource: unknown): boolean =>
  [statement.Action].flat().includes(action) &&
  [statement.Resource].flat().some((entry) => JSON.stringify(entry) === JSON.stringify(resource));

/**
 * IAM's verdict on `action` over `resource` for an item with partition key `pk`, the request naming
 * `attributes` (by default its key alone): an explicit Deny wins, then any Allow.
 */
export function allows(
  statements: readonly Statement[],
  action: string,
  resource: unknown,
  pk: string,
  attributes: readonly string[] = ['pk', 'sk'],
): boolean {
  const applicable = statements.filter((statement) => covers(statement, action, resource) && conditionHolds(statement, pk, attributes));
  if (applicable.some((statement) => statement.Effect === 'Deny')) return false;
  return applicable.some((statement) => statement.Effect === 'Allow');
}
