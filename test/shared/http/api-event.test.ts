/** The HTTP API 2.0 events the gateway, the event files and the tests build, and the query helpers. */
import { describe, expect, it } from 'vitest';
import { buildApiEvent, requestTime } from '../../../scripts/lib/api-event';
import { joinedQuery, parseRawQuery, queryForValidation, toRawQuery } from '../../../shared/http/query';

describe('buildApiEvent', () => {
  it('builds a matched route’s event as API Gateway does', () => {
    const event = buildApiEvent({
      api: 'collections',
      method: 'get',
      rawPath: '/collections/0xabc',
      routePath: '/collections/{predictedAddress}',
      rawQueryString: 'chainId=1&chainId=137',
      pathParameters: { predictedAddress: '0xabc' },
      headers: { 'User-Agent': 'sdk/1.0', 'X-Trace': 't' },
      sourceIp: '203.0.113.9',
      requestId: 'fixed-id',
      time: new Date('2020-03-12T19:03:58.123Z'),
    });
    expect(event.routeKey).toBe('GET /collections/{predictedAddress}');
    expect(event.requestContext.routeKey).toBe(event.routeKey);
    expect(event.requestContext.http).toEqual({
      method: 'GET',
      path: '/collections/0xabc',
      protocol: 'HTTP/1.1',
      sourceIp: '203.0.113.9',
      userAgent: 'sdk/1.0',
    });
    expect(event.headers).toEqual({ host: 'collections.localhost', 'user-agent': 'sdk/1.0', 'x-trace': 't' });
    expect(event.queryStringParameters).toEqual({ chainId: '1,137' });
    expect(event.rawQueryString).toBe('chainId=1&chainId=137');
    expect(event.pathParameters).toEqual({ predictedAddress: '0xabc' });
    expect(event.requestContext.requestId).toBe('fixed-id');
    expect(event.requestContext.time).toBe('12/Mar/2020:19:03:58 +0000');
    expect(event.requestContext.timeEpoch).toBe(Date.parse('2020-03-12T19:03:58.123Z'));
    expect(event.isBase64Encoded).toBe(false);
    expect(event.body).toBeUndefined();
  });

  it('leaves out what API Gateway leaves out: no query, no path parameters, $default when no route matched', () => {
    const event = buildApiEvent({ api: 'base', method: 'GET', rawPath: '/nothing', pathParameters: {} });
    expect(event.routeKey).toBe('$default');
    expect(event).not.toHaveProperty('queryStringParameters');
    expect(event).not.toHaveProperty('pathParameters');
    expect(event.rawQueryString).toBe('');
  });

  it('gives each event its own request id unless one is fixed', () => {
    const request = { api: 'base' as const, method: 'GET', rawPath: '/' };
    expect(buildApiEvent(request).requestContext.requestId).not.toBe(buildApiEvent(request).requestContext.requestId);
  });

  it('writes requestContext.time in UTC, zero-padded', () => {
    expect(requestTime(new Date('2025-01-05T03:04:05Z'))).toBe('05/Jan/2025:03:04:05 +0000');
  });
});

describe('query helpers', () => {
  it('keeps every value of a repeated parameter, decoded, in order', () => {
    expect(parseRawQuery('a=1&b=x%20y&a=2&c=&a=3')).toEqual({ a: ['1', '2', '3'], b: ['x y'], c: [''] });
    expect(parseRawQuery('')).toEqual({});
  });

  it('joins repeats with commas as queryStringParameters does', () => {
    expect(joinedQuery('chain_id=1&chain_id=137&limit=5')).toEqual({ chain_id: '1,137', limit: '5' });
    expect(joinedQuery('')).toBeUndefined();
  });

  it('gives repeatable keys arrays and every other key one string', () => {
    expect(queryForValidation('chain_id=1&chain_id=137&page=2&page=3', { chain_id: '1,137' }, ['chain_id'])).toEqual({
      chain_id: ['1', '137'],
      page: '2,3',
    });
  });

  it('falls back to queryStringParameters for an event without rawQueryString', () => {
    expect(queryForValidation(undefined, { limit: '5' }, [])).toEqual({ limit: '5' });
  });

  it('serialises arrays as repeated parameters and round-trips through the parser', () => {
    const raw = toRawQuery({ chain_id: ['1', '137'], q: 'a&b', skip: undefined, n: 3 });
    expect(raw).toBe('chain_id=1&chain_id=137&q=a%26b&n=3');
    expect(parseRawQuery(raw)).toEqual({ chain_id: ['1', '137'], q: ['a&b'], n: ['3'] });
  });
});
