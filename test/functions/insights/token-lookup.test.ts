/**
 * I6s GET /insights/v1/tokens/lookup through the real handler, on the two anvil chains of the insights
 * fixture ingested by the real ingest (both deploy the demo ERC-20, DemoToken, at one address). Expected
 * values are read from the chains with viem: the token's name(), symbol() and decimals(), and its
 * holders as the recipients of its Transfer logs with a positive balanceOf.
 * Ids of endpoints and access patterns (I6s, N11, X7): see docs/access-patterns.md.
 */
import * as v from 'valibot';
import { erc20Abi, parseAbiItem, type Address, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestJson } from '../../../scripts/lib/dispatch';
import { insightsErrorBody } from '../../../shared/http/error-schemas';
import { LOOKUP_MAX_TOKENS_READ, MAX_LOOKUP_SYMBOLS, tokenLookupResponse } from '../../../shared/insights/token-lookup';
import { useTestTable } from '../../support/table';
import { readRules, tableWorkOf } from '../../shared/insights/table-work';
import { CHAIN_A, CHAIN_B, startInsightsFixture, type InsightsFixture } from './fixture';

useTestTable('insights-token-lookup');
let fx: InsightsFixture;

beforeAll(async () => {
  fx = await startInsightsFixture();
});
afterAll(async () => fx?.stop());

type Params = Record<string, string | number | readonly (string | number)[]>;
function url(params: Params): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, String(item));
  return `/insights/v1/tokens/lookup?${search.toString()}`;
}
const lookup = (params: Params) => requestJson('base', 'GET', url(params));
const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

/** What the chain says of the token: its details and how many addresses hold a positive balance. */
async function onChain(chainId: number, client: PublicClient, token: Address) {
  const read = <F extends 'name' | 'symbol' | 'decimals'>(functionName: F) =>
    client.readContract({ address: token, abi: erc20Abi, functionName });
  const [name, symbol, decimals, logs] = await Promise.all([
    read('name'),
    read('symbol'),
    read('decimals'),
    client.getLogs({ address: token, event: transferEvent, fromBlock: 0n, toBlock: 'latest' }),
  ]);
  const recipients = [...new Set(logs.map((log) => log.args.to!.toLowerCase() as Address))];
  const balances = await Promise.all(
    recipients.map((holder) => client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder] })),
  );
  const holders = balances.filter((balance) => balance > 0n).length;
  return { chain_id: chainId, token_address: token.toLowerCase(), name, symbol, decimals, holders };
}

describe('I6s GET /insights/v1/tokens/lookup', () => {
  it('finds the demo token by its symbol in any letter case, as the chain answers it, on each chain asked, most holders first', async () => {
    const a = await onChain(CHAIN_A, fx.a.client, fx.a.manifest.contracts.token as Address);
    const b = await onChain(CHAIN_B, fx.b.client, fx.b.token);
    expect(a.symbol).toBe('DEMO');
    expect(a.holders).toBeGreaterThan(0);
    expect(b.holders).toBeGreaterThan(0);
    // Most holders first; a tie keeps the request's chain order.
    const expected = b.holders > a.holders ? [b, a] : [a, b];
    for (const symbol of ['demo', 'DEMO', 'Demo', 'dEmO']) {
      const { status, body } = await lookup({ chain_id: [CHAIN_A, CHAIN_B], symbol });
      expect(status, JSON.stringify(body)).toBe(200);
      expect(v.is(tokenLookupResponse, body)).toBe(true);
      expect(body).toEqual({ data: expected });
    }
    // One chain asked: only its token. The same symbol twice (in two cases): answered once.
    const onlyB = await lookup({ chain_id: CHAIN_B, symbol: ['Demo', 'DEMO'] });
    expect(onlyB.body).toEqual({ data: [b] });
    // `limit`: the most held per symbol.
    const top = await lookup({ chain_id: [CHAIN_A, CHAIN_B], symbol: 'demo', limit: 1 });
    expect(top.body).toEqual({ data: expected.slice(0, 1) });
    // Several symbols: each one's tokens (DMULTI is an ERC-1155 collection's symbol: not a fungible token).
    const several = await lookup({ chain_id: [CHAIN_A, CHAIN_B], symbol: ['nosuchsymbol', 'DEMO', 'DMULTI'] });
    expect(several.body).toEqual({ data: expected });
  });

  it('an unknown symbol, or one no ERC-20 of the chains asked carries, gives an empty list', async () => {
    for (const symbol of ['nosuchsymbol', 'DEM', 'DEMOX', 'DMULTI']) {
      const { status, body } = await lookup({ chain_id: [CHAIN_A, CHAIN_B], symbol });
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body).toEqual({ data: [] });
    }
  });

  it('two round trips in sequence, each one BatchGetItem, no Query or Scan', async () => {
    const params = { chain_id: [CHAIN_A, CHAIN_B], symbol: ['DEMO', 'nosuchsymbol', 'dmulti'] };
    await lookup(params); // (the chain registry, read once a minute)
    const { result, usage, requests } = await tableWorkOf(() => lookup(params));
    expect(result.status).toBe(200);
    expect(result.body.data).toHaveLength(2);
    // The names (N11: the items across chains), then the tokens' address items (X7).
    expect(usage.calls).toEqual({ BatchGetItemCommand: 2 });
    expect(readRules(requests).roundTrips).toBe(2);
    const keys = requests.map((request) => Object.values(request.input.RequestItems as Record<string, { Keys: unknown[] }>)[0]!.Keys);
    expect(keys[0]).toHaveLength(3);
    // DEMO on both chains and DMULTI on chain A: three address items; nothing read for the unknown symbol.
    expect(keys[1]).toHaveLength(3);
    expect(LOOKUP_MAX_TOKENS_READ).toBe(100);
  });

  it('400 in the insights error format for a missing or bad symbol, a bad chain id or limit; 404 for a chain not indexed', async () => {
    const bad: Params[] = [
      { chain_id: CHAIN_A },
      { chain_id: CHAIN_A, symbol: '' },
      { chain_id: CHAIN_A, symbol: 'a/b' },
      { chain_id: CHAIN_A, symbol: 'x'.repeat(65) },
      { chain_id: CHAIN_A, symbol: Array.from({ length: MAX_LOOKUP_SYMBOLS + 1 }, (_, i) => `s${i}`) },
      { chain_id: 'abc', symbol: 'DEMO' },
      { chain_id: '-1', symbol: 'DEMO' },
      { chain_id: CHAIN_A, symbol: 'DEMO', limit: 0 },
      { chain_id: CHAIN_A, symbol: 'DEMO', limit: LOOKUP_MAX_TOKENS_READ + 1 },
      { chain_id: CHAIN_A, symbol: 'DEMO', bogus: '1' },
      { symbol: 'DEMO' },
    ];
    for (const params of bad) {
      const { status, body } = await lookup(params);
      expect(status, `${JSON.stringify(params)}: ${JSON.stringify(body)}`).toBe(400);
      expect(v.is(insightsErrorBody, body)).toBe(true);
    }
    const missing = await lookup({ chain_id: CHAIN_A });
    expect(missing.body.error).toContain('symbol');
    const unindexed = await lookup({ chain_id: 999, symbol: 'DEMO' });
    expect(unindexed.status).toBe(404);
    expect(v.is(insightsErrorBody, unindexed.body)).toBe(true);
  });
});
