/**
 * The contract check itself (test/support/contract.ts): it must catch a response that drifts from the
 * document, or every other test's silence about drift would prove nothing.
 */
import { describe, expect, it } from 'vitest';
import { loadHandler, prepareRequest, requestJson } from '../../scripts/lib/dispatch';
import { contractViolation } from './contract';
import { useTestTable } from './table';

useTestTable('contract');

const json = (statusCode: number, body: unknown) => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  cookies: [],
  body: JSON.stringify(body),
  isBase64Encoded: false,
});

describe('the contract check', () => {
  it('is installed: a real response passes through it unchanged', async () => {
    const response = await requestJson('collections', 'GET', '/collections/signing-domain?chainId=8453');
    expect(response.status).toBe(200);
  });

  it('accepts the response the handler really gives, refuses one with a field the document lacks', async () => {
    const prepared = prepareRequest({ api: 'collections', method: 'GET', url: '/collections/signing-domain?chainId=8453' });
    const handler = await loadHandler(prepared.modulePath);
    const { body } = await requestJson('collections', 'GET', '/collections/signing-domain?chainId=8453');
    expect(contractViolation(prepared, handler, json(200, body))).toBeUndefined();
    expect(contractViolation(prepared, handler, json(200, { ...body, surprise: 1 }))).toMatch(/surprise/);
    const { domain: _domain, ...withoutDomain } = body;
    expect(contractViolation(prepared, handler, json(200, withoutDomain))).toMatch(/domain/);
    expect(contractViolation(prepared, handler, json(200, { ...body, domain: { ...body.domain, chainId: '8453' } }))).toMatch(/chainId/);
  });

  it('checks errors against the group’s error bodies', async () => {
    const prepared = prepareRequest({ api: 'base', method: 'GET', url: '/insights/v1/blocks?limit=-1' });
    const handler = await loadHandler(prepared.modulePath);
    expect(contractViolation(prepared, handler, json(400, { error: 'limit: must be positive' }))).toBeUndefined();
    expect(contractViolation(prepared, handler, json(400, { message: 'B3 format on the insights group' }))).toBeDefined();
    expect(contractViolation(prepared, handler, { ...json(500, {}), headers: { 'content-type': 'text/plain' }, body: 'oops' })).toMatch(
      /not JSON/,
    );
  });
});
