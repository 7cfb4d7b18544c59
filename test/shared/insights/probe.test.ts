import { expect, it } from 'vitest';
import { useTestTable, tableSnapshot } from '../../support/table';
import { startDemoChain } from '../../support/demo-chain';
import { ingestRange, registerChain } from '../../../shared/ingest/ingest';
import { createChainClient } from '../../../shared/chain/client';

const table = useTestTable();
it('probe', async () => {
  const t = Date.now();
  const demo = await startDemoChain({ chainId: 31337 });
  console.log('demo', Date.now() - t);
  await registerChain(31337, 0);
  const r = await ingestRange({ chainId: 31337, client: createChainClient(demo.anvil.rpcUrl), log: { info() {}, warn() {} } });
  console.log('ingest', Date.now() - t, r.advanced);
  const items = await tableSnapshot(table.name);
  const pks = new Map<string, number>();
  for (const i of items) { const k = String(i.pk).replace(/0x[0-9a-f]+/g, 'X').replace(/#\d{6,}/g, '#N'); pks.set(k, (pks.get(k) ?? 0) + 1); }
  console.log(items.length, [...pks.entries()].sort().map(([k, n]) => `${k} ${n}`).join('\n'));
  for (const kind of ['block','transaction','log','tokenTransfer','address','name','chain','cursor']) console.log(JSON.stringify(items.find((i) => i.kind === kind), (k, v) => v instanceof Set ? [...v] : v));
  await demo.stop();
  expect(r.advanced).toBeGreaterThan(0);
});
