/**
 * Query strings of API Gateway HTTP API (payload 2.0) events. `queryStringParameters` joins repeated
 * parameters with commas (`chain_id=1&chain_id=137` arrives as `"1,137"`), which loses the difference
 * between a repeat and a value holding a comma; `rawQueryString` keeps every occurrence.
 */

/** Every value of every parameter, in order of appearance. */
export function parseRawQuery(rawQueryString: string | undefined): Record<string, string[]> {
  const params: Record<string, string[]> = {};
  if (!rawQueryString) return params;
  for (const [key, value] of new URLSearchParams(rawQueryString)) {
    (params[key] ??= []).push(value);
  }
  return params;
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
  const result: Record<string, string | string[]> = {};
  for (const [key, values] of Object.entries(all)) {
    result[key] = repeatable.includes(key) ? values : values.join(',');
  }
  return result;
}

function fromJoined(params: Record<string, string | undefined> | null | undefined): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value !== undefined) result[key] = [value];
  }
  return result;
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
  const keys = Object.keys(all);
  if (keys.length === 0) return undefined;
  return Object.fromEntries(keys.map((key) => [key, all[key].join(',')]));
}
