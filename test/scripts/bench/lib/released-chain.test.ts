/**
 * The Lambda harness's Base-mode node (scripts/bench/lib/released-chain.ts): the generated chain over
 * HTTP JSON-RPC whose blocks appear only once released, as a node sees them arrive; single and batch
 * requests; every call counted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BaseChain } from '../../../../scripts/bench/dataset/base-profile';
import { baseProfileSpec } from '../../../../scripts/bench/dataset/spec';
import { serveReleasedChain, type ReleasedChainNode } from '../../../../scripts/bench/lib/released-chain';
import { createChainClient } from '../../../../shared/chain/client';

const spec = baseProfileSpec({ blocks: 6, transactionsPerBlock: 12 });
const chain = new BaseChain({
  ...spec,
  erc20Tokens: 40,
  erc721Tokens: 2,
  erc1155Tokens: 1,
  addresses: 200,
  base: { ...spec.base!, pools: 20, apps: 6 },
});
let node: ReleasedChainNode;

async function rpc(body: unknown): Promise<any> {
  const response = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return response.json();
}

beforeAll(async () => {
  node = await serveReleasedChain(chain, { released: 2 });
});
afterAll(async () => {
  await node.close();
});

describe('the released chain node', () => {
  it('shows blocks up to the released head only, and more once released', async () => {
    expect(await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })).toEqual({ jsonrpc: '2.0', id: 1, result: '0x2' });
    const latest = await rpc({ jsonrpc: '2.0', id: 2, method: 'eth_getBlockByNumber', params: ['latest', false] });
    expect(latest.result.hash).toBe(chain.blocks[2]!.hash);
    expect((await rpc({ jsonrpc: '2.0', id: 3, method: 'eth_getBlockByNumber', params: ['0x3', false] })).result).toBeNull();
    expect((await rpc({ jsonrpc: '2.0', id: 4, method: 'eth_getBlockReceipts', params: ['0x3'] })).result).toBeNull();
    expect((await rpc({ jsonrpc: '2.0', id: 5, method: 'debug_traceBlockByNumber', params: ['0x3', {}] })).error.code).toBe(-32000);
    node.release(4);
    expect(node.head).toBe(4);
    const third = await rpc({ jsonrpc: '2.0', id: 6, method: 'eth_getBlockByNumber', params: ['0x3', true] });
    expect(third.result.transactions).toHaveLength(12);
    // Never past the generated chain, never back.
    node.release(99);
    expect(node.head).toBe(chain.head);
    node.release(1);
    expect(node.head).toBe(chain.head);
  });

  it('answers batches in order, and a viem client reads blocks through it', async () => {
    const answers = await rpc([
      { jsonrpc: '2.0', id: 'a', method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 'b', method: 'no_such_method', params: [] },
    ]);
    expect(answers[0]).toEqual({ jsonrpc: '2.0', id: 'a', result: `0x${spec.chainId.toString(16)}` });
    expect(answers[1].error.code).toBe(-32601);
    const client = createChainClient(node.url);
    const block = await client.getBlock({ blockNumber: 5n, includeTransactions: true });
    expect(block.hash).toBe(chain.blocks[5]!.hash);
    expect(block.transactions).toHaveLength(12);
  });

  it("runs the ingest's code-sizes call with its state override (the block is eth_call's second parameter)", async () => {
    const { ContractReader } = await import('../../../../shared/chain/read');
    const reader = new ContractReader(createChainClient(node.url));
    const token = chain.tokens[0]!.address;
    const before = node.calls.get('eth_getCode') ?? 0;
    expect(await reader.hasCode([token, '0x000000000000000000000000000000000000dead'], 3n)).toEqual([true, false]);
    expect(node.calls.get('eth_getCode') ?? 0).toBe(before);
  });

  it('counts every call by method, a batch entry each', async () => {
    const before = node.calls.get('eth_chainId') ?? 0;
    await rpc([
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
    ]);
    expect(node.calls.get('eth_chainId')).toBe(before + 2);
  });
});
