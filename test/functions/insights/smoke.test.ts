import { afterAll, beforeAll, expect, it } from 'vitest';
import { requestJson } from '../../../scripts/lib/dispatch';
import { useTestTable } from '../../support/table';
import { dynamoCallsOf, recordDynamoCalls, startInsightsFixture, type InsightsFixture } from './fixture';

useTestTable();
let fx: InsightsFixture;
beforeAll(async () => {
  const t = Date.now();
  fx = await startInsightsFixture();
  console.log('fixture', Date.now() - t);
  await recordDynamoCalls();
});
afterAll(async () => fx?.stop());

const get = (url: string) => requestJson('base', 'GET', url);

it('smoke', async () => {
  const { result, calls } = await dynamoCallsOf(() => get(`/insights/v1/blocks?chain_id=31337&chain_id=8453&limit=2`));
  console.log(JSON.stringify(result.body, null, 1).slice(0, 3000), calls.map((c) => c.command));
  const t = fx.a.manifest.contracts.token;
  for (const url of [
    `/insights/v1/transactions/${t}/transfer(address to,uint256 amount)?chain_id=31337&chain_id=8453&limit=2&decode=true`,
    `/insights/v1/events/${t}?chain_id=31337&limit=1&decode=true`,
    `/insights/v1/events/${fx.b.emitters[3]}?chain_id=8453&limit=20&decode=true`,
    `/insights/v1/transactions/${fx.b.sink}/configure?chain_id=8453`,
    `/insights/v1/resolve/1?chain_id=31337&chain_id=8453`,
    `/insights/v1/tokens/transfers?chain_id=31337&owner_address=${fx.a.manifest.accounts.busy}&limit=2&metadata=true`,
    `/insights/v1/tokens/transfers/DEMO?chain_id=31337&chain_id=8453&limit=2&aggregate=count() AS n&aggregate=sum(amount) AS total&group_by=transfer_type`,
    `/insights/v1/blocks?chain_id=8453&aggregate=count() AS n&aggregate=toStartOfDay(toDateTime(block_timestamp)) AS day&group_by=day`,
    `/insights/v1/blocks?chain_id=1`,
    `/insights/v1/blocks?chain_id=31337&filter_foo=1`,
  ]) {
    const r = await get(encodeURI(url));
    console.log(url, r.status, JSON.stringify(r.body).slice(0, 1500));
  }
});
