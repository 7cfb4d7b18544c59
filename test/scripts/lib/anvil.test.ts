/**
 * The local chain's start (scripts/lib/anvil.ts) when its port is not its own: two test workers can be
 * handed the same free port, the later anvil then fails to bind while the earlier one answers on the port.
 * The chain returned must be the one started, never a neighbour that happens to answer there.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, ownsListeningPort, startAnvil, type Anvil } from '../../../scripts/lib/anvil';

const started: Anvil[] = [];
afterAll(async () => {
  await Promise.all(started.map((chain) => chain.stop()));
});

async function rpc(url: string, method: string): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
  });
  return ((await response.json()) as { result: unknown }).result;
}

describe('startAnvil on a port another chain holds', () => {
  it('refuses a named port that a running chain listens on, instead of handing back that chain', async () => {
    const neighbour = await startAnvil({ chainId: 7001 });
    started.push(neighbour);
    await expect(startAnvil({ chainId: 7002, port: neighbour.port })).rejects.toThrow(/taken|another process/);
    // The neighbour is untouched.
    expect(await rpc(neighbour.rpcUrl, 'eth_chainId')).toBe('0x1b59');
  });

  it('picks another port when the free one it was handed is taken first, and answers with its own chain', async () => {
    const neighbour = await startAnvil({ chainId: 7003 });
    started.push(neighbour);
    const handed: number[] = [];
    let calls = 0;
    const chain = await startAnvil({
      chainId: 7004,
      pickPort: async () => {
        calls += 1;
        // The first port handed out is the neighbour's (the race two workers can lose); then a free one.
        const port = calls === 1 ? neighbour.port : await freePort();
        handed.push(port);
        return port;
      },
    });
    started.push(chain);
    expect(handed[0]).toBe(neighbour.port);
    expect(chain.port).not.toBe(neighbour.port);
    expect(await rpc(chain.rpcUrl, 'eth_chainId')).toBe('0x1b5c');
    expect(await ownsListeningPort(chain.process.pid, chain.port)).toBe(true);
    expect(await ownsListeningPort(chain.process.pid, neighbour.port)).toBe(false);
  });
});
