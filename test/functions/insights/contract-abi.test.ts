/**
 * I11a GET /insights/v1/contracts/abi/{contractAddress}, I11b POST /insights/v1/decode/{contractAddress}
 * and I12 (the routes answering 501) through the real handlers, on the two anvil chains of the insights
 * fixture ingested by the real ingest. Expected values come from the chains (viem).
 * Ids of endpoints and access patterns: see docs/access-patterns.md.
 */
import * as v from 'valibot';
import { decodeEventLog, decodeFunctionData, parseAbi, toEventSelector, type Abi, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestJson } from '../../../scripts/lib/dispatch';
import { insightsErrorBody } from '../../../shared/http/error-schemas';
import { contractAbiResponse, decodeResponse } from '../../../shared/insights/contract-schemas';
import { registerEventAbi } from '../../../shared/insights/event-abis';
import { routes } from '../../../shared/routes';
import { useTestTable } from '../../support/table';
import { CHAIN_A, CHAIN_B, startInsightsFixture, UNKNOWN_EVENT, type InsightsFixture } from './fixture';
import { readTruth, type ChainTruth } from './truth';

useTestTable('insights-contract-abi');
let fx: InsightsFixture;
let A: ChainTruth;
let token: string;

beforeAll(async () => {
  fx = await startInsightsFixture();
  A = await readTruth(CHAIN_A, fx.a.client);
  token = fx.a.manifest.contracts.token.toLowerCase();
}, 240_000);
afterAll(async () => fx?.stop());

const lower = (text: string | null | undefined) => (text ?? '').toLowerCase();
const abiOf = (contract: string, chains: number[] = [CHAIN_A]) =>
  requestJson('base', 'GET', `/insights/v1/contracts/abi/${contract}?${chains.map((chain) => `chain_id=${chain}`).join('&')}`);
const decode = (contract: string, body: unknown, chains: number[] = [CHAIN_A]) =>
  requestJson('base', 'POST', `/insights/v1/decode/${contract}?${chains.map((chain) => `chain_id=${chain}`).join('&')}`, { body });
const signatures = (abi: { type: string; name: string; inputs: { type: string; indexed?: boolean }[] }[]) =>
  abi.map(
    (item) => `${item.type} ${item.name}(${item.inputs.map((input) => `${input.type}${input.indexed ? ' indexed' : ''}`).join(',')})`,
  );

describe('I11a GET /insights/v1/contracts/abi/{contractAddress}', () => {
  it("answers an ERC-20's standard ABI as a JSON ABI that viem decodes the token's own transactions with", async () => {
    const { status, body } = await abiOf(token);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(v.is(contractAbiResponse, body)).toBe(true);
    expect(signatures(body)).toEqual(
      expect.arrayContaining([
        'function transfer(address,uint256)',
        'function balanceOf(address)',
        'function approve(address,uint256)',
        'event Transfer(address indexed,address indexed,uint256)',
        'event Approval(address indexed,address indexed,uint256)',
      ]),
    );
    // No ERC-721 Transfer (three indexed inputs) for an ERC-20.
    expect(signatures(body)).not.toContain('event Transfer(address indexed,address indexed,uint256 indexed)');
    const calls = A.transactions.filter((tx) => lower(tx.to) === token && tx.input.startsWith('0xa9059cbb'));
    expect(calls.length).toBeGreaterThan(0);
    for (const tx of calls) expect(decodeFunctionData({ abi: body as Abi, data: tx.input }).functionName).toBe('transfer');
  });

  it('takes a registered name and the first requested chain that knows the contract', async () => {
    const { status, body } = await abiOf(token, [CHAIN_B, CHAIN_A]);
    expect(status).toBe(200);
    expect(signatures(body)).toContain('function transfer(address,uint256)');
  });

  it("lists the registry's events a contract emitted (built in, then registered by an operator), and 404s before", async () => {
    const emitter = lower(fx.b.emitters[2]);
    const emitted = fx.b.logs.filter((log) => lower(log.emitter) === emitter);
    const before = await abiOf(emitter, [CHAIN_B]);
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    const known = emitted.filter((log) => log.event !== UNKNOWN_EVENT).map((log) => toEventSelector(log.event));
    const topicsOf = (abi: Abi) => abi.filter((item) => item.type === 'event').map((item) => toEventSelector(item));
    expect(topicsOf(before.body)).toEqual(expect.arrayContaining(known));
    expect(topicsOf(before.body)).not.toContain(toEventSelector(UNKNOWN_EVENT));

    await registerEventAbi(UNKNOWN_EVENT);
    const after = await abiOf(emitter, [CHAIN_B]);
    expect(topicsOf(after.body)).toContain(toEventSelector(UNKNOWN_EVENT));
    const pinged = (after.body as Abi).find((item) => item.type === 'event' && item.name === 'Pinged');
    expect(pinged).toEqual({
      type: 'event',
      name: 'Pinged',
      anonymous: false,
      inputs: [
        { name: 'who', type: 'address', indexed: true },
        { name: 'round', type: 'uint64', indexed: false },
        { name: 'note', type: 'string', indexed: false },
      ],
    });
  });

  it('404 in the insights format for an account, a code-less address and an unknown name; 400 for a bad chain', async () => {
    for (const [contract, chain] of [
      [lower(fx.a.manifest.accounts.busy), CHAIN_A],
      [lower(fx.b.sink), CHAIN_B],
      ['NoSuchToken', CHAIN_A],
    ] as const) {
      const { status, body } = await abiOf(String(contract), [chain]);
      expect(status, JSON.stringify(body)).toBe(404);
      expect(v.is(insightsErrorBody, body)).toBe(true);
    }
    const badChain = await requestJson('base', 'GET', `/insights/v1/contracts/abi/${token}?chain_id=abc`);
    expect(badChain.status).toBe(400);
    expect(badChain.body.error).toContain('chain_id');
    const unknownParameter = await requestJson('base', 'GET', `/insights/v1/contracts/abi/${token}?chain_id=${CHAIN_A}&decode=true`);
    expect(unknownParameter.status).toBe(400);
  });
});

describe('I11b POST /insights/v1/decode/{contractAddress}', () => {
  it("decodes the token's transactions and Transfer logs as viem does, in order, and leaves the rest undecoded", async () => {
    const calls = A.transactions.filter((tx) => lower(tx.to) === token && tx.input.startsWith('0xa9059cbb')).slice(0, 5);
    const receipts = await Promise.all(calls.map((tx) => fx.a.client.getTransactionReceipt({ hash: tx.hash })));
    const logs = receipts.flatMap((receipt) => receipt.logs.filter((log) => lower(log.address) === token));
    const unknownCall = '0xdeadbeef0000000000000000000000000000000000000000000000000000000000000001';
    const { status, body } = await decode(token, {
      transactions: [...calls.map((tx) => ({ data: tx.input })), { data: unknownCall }],
      logs: [...logs.map((log) => ({ topics: log.topics, data: log.data })), { topics: [`0x${'ab'.repeat(32)}`] }],
    });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(v.is(decodeResponse, body)).toBe(true);
    const erc20 = parseAbi([
      'function transfer(address to, uint256 value) returns (bool)',
      'event Transfer(address indexed from, address indexed to, uint256 value)',
    ]);
    expect(body.data.transactions).toEqual([
      ...calls.map((tx) => {
        const { args } = decodeFunctionData({ abi: erc20, data: tx.input });
        return { data: tx.input, function_name: 'transfer', args: [lower(args[0] as string), String(args[1])] };
      }),
      { data: unknownCall },
    ]);
    expect(body.data.logs).toEqual([
      ...logs.map((log) => {
        const { eventName, args } = decodeEventLog({ abi: erc20, topics: log.topics as [Hex, ...Hex[]], data: log.data });
        const { from, to, value } = args as { from: string; to: string; value: bigint };
        return { topics: log.topics, data: log.data, event_name: eventName, args: [lower(from), lower(to), value.toString()] };
      }),
      { topics: [`0x${'ab'.repeat(32)}`] },
    ]);
  });

  it("decodes an emitter's logs with the registry's events (integers above 48 bits as decimal strings)", async () => {
    await registerEventAbi(UNKNOWN_EVENT);
    const emitter = lower(fx.b.emitters[2]);
    const emitted = fx.b.logs.filter((log) => lower(log.emitter) === emitter);
    const { status, body } = await decode(emitter, { logs: emitted.map((log) => ({ topics: log.topics, data: log.data })) }, [CHAIN_B]);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.logs.map((log: { event_name?: string }) => log.event_name)).toEqual(emitted.map((log) => log.event.name));
    const ping = body.data.logs[emitted.findIndex((log) => log.name === 'unknown')];
    expect(ping.args).toEqual([lower(emitted.find((log) => log.name === 'unknown')!.args.who as string), '3', 'ping']);
  });

  it('400 in the insights format for bad input, naming what is wrong; 404 without a known ABI', async () => {
    const cases: [unknown, string][] = [
      [{}, 'transactions or logs'],
      [{ transactions: [] }, 'transactions or logs'],
      [{ transactions: [{ data: '0xabc' }] }, 'transactions.0.data'],
      [{ transactions: [{}] }, 'transactions.0.data'],
      [{ logs: [{ topics: [] }] }, 'logs.0.topics'],
      [{ logs: [{ topics: Array.from({ length: 5 }, () => `0x${'00'.repeat(32)}`) }] }, 'logs.0.topics'],
      [{ logs: [{ topics: ['0x1234'] }] }, 'logs.0.topics.0'],
      [{ logs: [{ topics: [`0x${'00'.repeat(32)}`], data: 'zz' }] }, 'logs.0.data'],
      [{ transactions: [{ data: '0x' }], extra: 1 }, 'extra'],
      [{ transactions: Array.from({ length: 1001 }, () => ({ data: '0x' })) }, 'at most 1000'],
    ];
    for (const [body, named] of cases) {
      const answer = await decode(token, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(v.is(insightsErrorBody, answer.body)).toBe(true);
      expect(answer.body.error).toContain(named);
    }
    const notJson = await requestJson('base', 'POST', `/insights/v1/decode/${token}?chain_id=${CHAIN_A}`, {
      body: 'not json',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    const unknown = await decode(lower(fx.b.sink), { transactions: [{ data: '0x' }] }, [CHAIN_B]);
    expect(unknown.status).toBe(404);
    expect(v.is(insightsErrorBody, unknown.body)).toBe(true);
  });
});

describe('I12 the Insight v1 routes whose data is outside the chain: 501', () => {
  const notServed = routes.filter((route) => route.notServed);

  it('are the routes of the published client that need prices, verified sources or webhook delivery (the webhook test ping)', () => {
    expect(notServed.map((route) => `${route.method} ${route.path}`).sort()).toEqual(
      [
        'GET /insights/v1/tokens/price',
        'GET /insights/v1/tokens/price/supported',
        'GET /insights/v1/contracts/metadata/{contractAddress}',
      ].sort(),
    );
  });

  for (const route of notServed) {
    it(`${route.id}: ${route.method} ${route.path} -> 501 {error} saying why, whatever the query or body`, async () => {
      const path = route.path.replace(/\{[^}]+\}/g, (name) => (name === '{token_id}' ? '7' : token));
      for (const query of ['', '?chain_id=31337&address=0xabc&include_spam=true']) {
        const body = route.method === 'GET' ? undefined : { url: 'https://example.com/hook', filters: {} };
        const { status, body: answer, headers } = await requestJson('base', route.method, `${path}${query}`, { body });
        expect(status, JSON.stringify(answer)).toBe(501);
        expect(headers['content-type']).toContain('application/json');
        expect(v.is(insightsErrorBody, answer)).toBe(true);
        expect(answer.error).toContain(`${route.method} ${route.path} is not implemented`);
        expect(answer.error).toContain(route.notServed);
      }
    });
  }
});
