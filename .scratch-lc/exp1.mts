import { startAnvil, ANVIL_PRIVATE_KEYS } from '/work/main/scripts/lib/anvil';
import { createPublicClient, createWalletClient, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { rmSync, statSync } from 'node:fs';
const statePath = '/tmp/lc-exp/state.json';
rmSync(statePath, { force: true });
async function round(n: number) {
  const anvil = await startAnvil({ statePath, args: process.env.PRESERVE ? ['--preserve-historical-states'] : [] });
  const pub = createPublicClient({ chain: foundry, cacheTime: 0, transport: http(anvil.rpcUrl) });
  const w = createWalletClient({ chain: foundry, account: privateKeyToAccount(ANVIL_PRIVATE_KEYS[0]), transport: http(anvil.rpcUrl) });
  const head = await pub.getBlockNumber();
  console.log('round', n, 'head at start', head);
  if (head > 0n) {
    const b = await pub.getBlock({ blockNumber: head });
    console.log('head hash', b.hash, 'ts', b.timestamp);
    try {
      const t = await pub.request({ method: 'debug_traceBlockByNumber' as any, params: [`0x${head.toString(16)}`, { tracer: 'callTracer' }] as any });
      console.log('trace old ok', JSON.stringify(t).slice(0, 80));
    } catch (e) { console.log('trace old fail', (e as Error).message.split('\n')[0]); }
    try {
      const bal = await pub.getBalance({ address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', blockNumber: head - 1n });
      console.log('old balance ok', bal);
    } catch (e) { console.log('old balance fail', (e as Error).message.split('\n')[0]); }
  }
  for (let i = 0; i < 3; i++) {
    const h = await w.sendTransaction({ to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: parseEther('1') });
    await pub.waitForTransactionReceipt({ hash: h, pollingInterval: 20 });
  }
  const nh = await pub.getBlockNumber();
  const nb = await pub.getBlock({ blockNumber: nh });
  console.log('after', nh, nb.hash);
  const t = await pub.request({ method: 'debug_traceBlockByNumber' as any, params: [`0x${nh.toString(16)}`, { tracer: 'callTracer' }] as any });
  console.log('trace new ok', JSON.stringify(t).slice(0, 60));
  await anvil.stop();
  console.log('state size', statSync(statePath).size);
}
await round(1); await round(2); await round(3);
