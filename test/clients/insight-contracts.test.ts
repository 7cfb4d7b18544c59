/**
 * thirdweb's published Insight client (`@thirdweb-dev/insight`), unchanged, against `npm start`'s
 * service: a contract's ABI and decoding (I11a, I11b) and a route whose data is outside the chain (I12,
 * 501). Configured only with `configure({ clientId, override: { baseUrl } })`; expected values are read
 * from the demo chain itself (anvil, through viem).
 */
import {
  configure,
  deleteV1WebhooksByWebhookId,
  getV1ContractsAbiByContractAddress,
  getV1TokensPrice,
  getV1Webhooks,
  patchV1WebhooksByWebhookId,
  postServiceWebhooksFiltersValidate,
  postV1DecodeByContractAddress,
  postV1Webhooks,
} from '@thirdweb-dev/insight';
import {
  createPublicClient,
  decodeEventLog,
  decodeFunctionData,
  http,
  type Abi,
  type Hex,
  type PublicClient,
  type Transaction,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SECRET_KEY } from '../../shared/routes';
import { type NpmStartService, startNpmStart } from '../support/npm-start';

const CHAIN = 31337;

let service: NpmStartService;
let chain: PublicClient;
let token: string;
let transfers: Transaction[];

const lower = (text: string | null | undefined) => (text ?? '').toLowerCase();

beforeAll(async () => {
  service = await startNpmStart();
  chain = createPublicClient({ transport: http(service.rpcUrl) });
  token = service.demo.contracts.token.toLowerCase();
  configure({ clientId: 'test-client-id', override: { baseUrl: `${service.urls.base}/insights` } });
  const head = Number(await chain.getBlockNumber());
  const blocks = await Promise.all(
    Array.from({ length: head + 1 }, (_, number) => chain.getBlock({ blockNumber: BigInt(number), includeTransactions: true })),
  );
  transfers = blocks
    .flatMap((block) => block.transactions)
    .filter((tx) => lower(tx.to) === token && tx.input.startsWith('0xa9059cbb'))
    .slice(0, 3);
}, 240_000);

afterAll(async () => {
  await service?.stop();
});

describe("@thirdweb-dev/insight's webhook functions against npm start, with the demo project's secret key", () => {
  const withKey = { headers: { 'x-secret-key': EXAMPLE_SECRET_KEY } };

  it('postV1Webhooks, getV1Webhooks, patchV1WebhooksByWebhookId, deleteV1WebhooksByWebhookId and the filter check work unchanged', async () => {
    const filters = { 'v1.events': { chain_ids: [String(CHAIN)], addresses: [token] } };
    const created = await postV1Webhooks({
      ...withKey,
      body: { name: 'demo token events', webhook_url: 'https://receiver.example.com/hook', filters },
    });
    expect(created.error, JSON.stringify(created.error)).toBeUndefined();
    const webhook = created.data!.data;
    expect(webhook).toMatchObject({ name: 'demo token events', project_id: 'demo', filters, disabled: false, suspended_at: null });

    const listed = await getV1Webhooks({ ...withKey, query: { webhook_id: webhook.id } });
    expect(listed.data?.data).toEqual([webhook]);

    const patched = await patchV1WebhooksByWebhookId({ ...withKey, path: { webhook_id: webhook.id }, body: { disabled: true } });
    expect(patched.data?.data).toMatchObject({ id: webhook.id, disabled: true });

    const valid = await postServiceWebhooksFiltersValidate({ ...withKey, body: filters as never });
    expect(valid.data).toEqual({ valid: true });
    const invalid = await postServiceWebhooksFiltersValidate({ ...withKey, body: { 'v1.events': { addresses: ['0x12'] } } as never });
    expect(invalid.data).toMatchObject({ valid: false, details: [expect.objectContaining({ path: ['v1.events', 'addresses', 0] })] });

    const deleted = await deleteV1WebhooksByWebhookId({ ...withKey, path: { webhook_id: webhook.id } });
    expect(deleted.data?.data.id).toBe(webhook.id);
    expect((await getV1Webhooks(withKey)).data?.data.map((hook) => hook.id)).not.toContain(webhook.id);
  });

  it("without a secret key: 401 in Insight's error format", async () => {
    const { data, error, response } = await getV1Webhooks({});
    expect(data).toBeUndefined();
    expect(response.status).toBe(401);
    expect(error).toEqual({ error: expect.stringContaining('Unauthorized') });
  });
});

describe('@thirdweb-dev/insight contract ABI, decoding and a 501 against npm start', () => {
  it("getV1ContractsAbiByContractAddress: the demo token's ABI, which decodes its transfers as the chain has them", async () => {
    const { data, error, response } = await getV1ContractsAbiByContractAddress({
      path: { contractAddress: token },
      query: { chain_id: [CHAIN] },
    });
    expect(error, JSON.stringify(error)).toBeUndefined();
    expect(response.status).toBe(200);
    const abi = data as unknown as Abi;
    expect(Array.isArray(abi)).toBe(true);
    expect(transfers.length).toBeGreaterThan(0);
    for (const tx of transfers) expect(decodeFunctionData({ abi, data: tx.input }).functionName).toBe('transfer');

    const unknown = await getV1ContractsAbiByContractAddress({
      path: { contractAddress: service.demo.accounts.busy },
      query: { chain_id: [CHAIN] },
    });
    expect(unknown.response.status).toBe(404);
    expect(unknown.error).toMatchObject({ error: expect.stringContaining('no ABI is known') });
  });

  it("postV1DecodeByContractAddress: the token's calldata and logs, decoded as viem decodes them from the chain", async () => {
    const receipts = await Promise.all(transfers.map((tx) => chain.getTransactionReceipt({ hash: tx.hash })));
    const logs = receipts.flatMap((receipt) => receipt.logs.filter((log) => lower(log.address) === token));
    const abi = (await getV1ContractsAbiByContractAddress({ path: { contractAddress: token }, query: { chain_id: [CHAIN] } }))
      .data as unknown as Abi;
    const { data, error, response } = await postV1DecodeByContractAddress({
      path: { contractAddress: token },
      query: { chain_id: [CHAIN] },
      body: {
        transactions: transfers.map((tx) => ({ data: tx.input })),
        logs: logs.map((log) => ({ topics: log.topics, data: log.data })),
      },
    });
    expect(error, JSON.stringify(error)).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data!.data!.transactions).toEqual(
      transfers.map((tx) => {
        const { args } = decodeFunctionData({ abi, data: tx.input });
        return { data: tx.input, function_name: 'transfer', args: [lower(args![0] as string), String(args![1])] };
      }),
    );
    expect(data!.data!.logs).toEqual(
      logs.map((log) => {
        const { eventName, args } = decodeEventLog({ abi, topics: log.topics as [Hex, ...Hex[]], data: log.data });
        const values = Object.values(args as unknown as Record<string, unknown>).map((value) =>
          typeof value === 'bigint' ? value.toString() : lower(value as string),
        );
        return { topics: log.topics, data: log.data, event_name: eventName, args: values };
      }),
    );

    const bad = await postV1DecodeByContractAddress({ path: { contractAddress: token }, query: { chain_id: [CHAIN] }, body: {} });
    expect(bad.response.status).toBe(400);
    expect(bad.error).toMatchObject({ error: expect.stringContaining('transactions or logs') });
  });

  it("getV1TokensPrice: 501 in Insight's error format (prices come from markets, not from the chain)", async () => {
    const { data, error, response } = await getV1TokensPrice({ query: { chain_id: [CHAIN], address: token } as never });
    expect(data).toBeUndefined();
    expect(response.status).toBe(501);
    expect(error).toEqual({ error: expect.stringContaining('token prices come from markets') });
  });
});
