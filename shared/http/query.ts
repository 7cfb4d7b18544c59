/**
 * Query strings of API Gateway HTTP API (payload 2.0) events. `queryStringParameters` joins repeated
 * parameters with commas (`chain_id=1&chain_id=137` arrives as `"1,137"`), which loses the difference
 * between a repeat and a value holding a comma; `rawQueryString` keeps every occurrence.
 */

/**
 * Every value of every parameter, in order of appearance. Parameter names are the client's: the
 * result has no prototype, so a name such as `toString`, `constructor` or `__proto__` is an ordinary
 * key (that an API then rejects as unknown) and never reaches an inherited member.
 */
export function parseRawQuery(rawQueryString: string | undefined): Record<string, string[]> {
  const params = new Map<string, string[]>();
  for (const [key, value] of new URLSearchParams(rawQueryString ?? '')) {
    const values = params.get(key);
    if (values) values.push(value);
    else params.set(key, [value]);
  }
  return ownRecord(params);
}

/**
 * A record without a prototype holding exactly `entries` (`__proto__` included, as an own key: without
 * a prototype there is no `__proto__` accessor, so assigning it makes an ordinary own property).
 */
export function ownRecord<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  const record = Object.create(null) as Record<string, T>;
  for (const [key, value] of entries) record[key] = value;
  return record;
}

/**
 * The query as validation sees it: parameters named in `repeatable` keep every value (an array);
 * every other parameter is one string, repeats comma-joined exactly as API Gateway joins them.
 */
export function queryForValidation(
  rawQueryString: string | undefined,
  fallback: Record<string, string | undefined> | null | undefined,
  repeatable: readonly string[] = [],
): Record<string, string | string[]> {
  const all = rawQueryString !== undefined ? parseRawQuery(rawQueryString) : fromJoined(fallback);
  return ownRecord(Object.entries(all).map(([key, values]) => [key, repeatable.includes(key) ? values : values.join(',')] as const));
}

function fromJoined(params: Record<string, string | undefined> | null | undefined): Record<string, string[]> {
  return ownRecord(Object.entries(params ?? {}).flatMap(([key, value]) => (value === undefined ? [] : [[key, [value]] as const])));
}

/** Serialises parameters back to a raw query string (used by the local gateway and event files). */
export function toRawQuery(params: Record<string, string | number | readonly (string | number)[] | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, String(item));
  }
  return search.toString();
}

/** `queryStringParameters` as API Gateway builds it from a raw query string: repeats comma-joined. */
export function joinedQuery(rawQueryString: string): Record<string, string> | undefined {
  const all = parseRawQuery(rawQueryString);
  const entries = Object.entries(all);
  if (entries.length === 0) return undefined;
  return ownRecord(entries.map(([key, values]) => [key, values.join(',')] as const));
}
