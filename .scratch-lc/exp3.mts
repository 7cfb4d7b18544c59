import { startAnvil, ANVIL_PRIVATE_KEYS } from '../scripts/lib/anvil';
import { deployDemoContracts, generateDemoActivity } from '../scripts/lib/demo-activity';
import { createPublicClient, createWalletClient, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { rmSync, statSync } from 'node:fs';
const statePath = '/tmp/lc-exp/state3.json';
rmSync(statePath, { force: true });
const args = ['--preserve-historical-states'];
let anvil = await startAnvil({ statePath, args });
const deployment = await deployDemoContracts(anvil.rpcUrl);
await generateDemoActivity(anvil.rpcUrl, { deployment });
const pub = createPublicClient({ chain: foundry, cacheTime: 0, transport: http(anvil.rpcUrl) });
const w = createWalletClient({ chain: foundry, account: privateKeyToAccount(ANVIL_PRIVATE_KEYS[3]), transport: http(anvil.rpcUrl) });
let nonce = await pub.getTransactionCount({ address: w.account.address });
for (let i = 0; i < 600; i++) {
  await w.sendTransaction({ to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: 1n, nonce: nonce++, gas: 21000n });
}
console.log('head', await pub.getBlockNumber());
let t0 = Date.now();
await anvil.stop();
console.log('stop took', Date.now() - t0, 'size', statSync(statePath).size);
t0 = Date.now();
anvil = await startAnvil({ statePath, args });
console.log('start took', Date.now() - t0);
const p2 = createPublicClient({ cacheTime: 0, transport: http(anvil.rpcUrl) });
for (const n of [5n, 300n, 650n]) console.log(n, await p2.getBalance({ address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', blockNumber: n }).catch(e => e.message.slice(0, 60)));
await anvil.stop();
