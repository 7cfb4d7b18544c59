/**
 * Explorer tests run on a real chain: a demo chain on anvil (test/support/demo-chain.ts) ingested
 * into the file's own table by the real ingest, then read through the route table and the real
 * handlers, as a Blockscout API v2 client would. Each file gets its own anvil and table. Endpoint
 * ids (E1-E6): see docs/access-patterns.md.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type Abi,
  type Account,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
} from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { ANVIL_PRIVATE_KEYS } from '../../../scripts/lib/anvil';
import { loadContracts, type DemoArtifacts } from '../../../scripts/lib/contracts';
import { requestJson } from '../../../scripts/lib/dispatch';
import type { DemoManifest, DemoRole } from '../../../scripts/lib/demo-activity';
import { createChainClient } from '../../../shared/chain/client';
import { measureTable, type TableUsage } from '../../../shared/db/instrument';
import { DEFAULT_EXPLORER_CHAIN_ID, PAGE_SIZE } from '../../../shared/explorer/config';
import { ingestRange } from '../../../shared/ingest/ingest';
import { forgetChainStatuses, loadChainStatusSettings, readChainStatus } from '../../../shared/chain-status/status';
import { startDemoChain, type DemoChain } from '../../support/demo-chain';
import { useTestTable } from '../../support/table';

export { PAGE_SIZE };

// Pages read the chain's status (the indexed-head headers) from the container's copy: kept for the
// whole file and read again after each ingest, so that the pages' own reads are what the tests count.
// (Before the handler modules load: they parse it at their cold start.)
// A copy is aged against now: the staleness setting is raised with it (the loader refuses a cache
// longer than it), so that a status written at the file's start does not read as `stopped`.
process.env.CHAIN_STATUS_STALE_SECONDS ??= '86400';
process.env.CHAIN_STATUS_CACHE_SECONDS ??= '600';

/** Reads the chain's status into the container's copy (outside a measured request). */
export async function refreshChainStatus(): Promise<void> {
  forgetChainStatuses();
  await readChainStatus(CHAIN_ID, loadChainStatusSettings(), { cached: true });
}

/** The chain the explorer serves by default (EXPLORER_CHAIN_ID unset), and the demo chain's id. */
export const CHAIN_ID = DEFAULT_EXPLORER_CHAIN_ID;

/** anvil's default mnemonic: accounts 5..9 are funded and unused by the demo plan. */
const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

const silentLog = { info: () => undefined, warn: () => undefined };

export interface ExplorerChain {
  manifest: DemoManifest;
  artifacts: DemoArtifacts;
  rpcUrl: string;
  /** A viem client of the chain (the test's own view of it). */
  publicClient: PublicClient;
  /** Ingests every block up to the chain's head into the file's table. */
  ingest(): Promise<void>;
  /** Sends a transaction from a demo role or an extra funded account and waits for its receipt. */
  send(
    from: DemoRole | Account,
    request: { to?: Address; abi?: Abi; functionName?: string; args?: readonly unknown[]; value?: bigint; gas?: bigint; data?: Hex },
  ): Promise<Hash>;
  /** Deploys a demo contract from a role and waits for it. */
  deploy(from: DemoRole, name: keyof DemoArtifacts, args: readonly unknown[]): Promise<Address>;
  /**
   * Runs `work` with automining off, then mines until every transaction it sent is in a block: many
   * transactions in few blocks (a quick ingest). `work` returns the hashes it sent.
   */
  inFewBlocks(work: () => Promise<Hash[]>): Promise<void>;
  /** Funded account `index` (5..9) of anvil's mnemonic, not used by the demo plan. */
  extraAccount(index: 5 | 6 | 7 | 8 | 9): Account;
}

export function useExplorerChain(prefix = 'explorer'): ExplorerChain {
  useTestTable(prefix);
  let demo: DemoChain | undefined;
  const state = {} as ExplorerChain;
  beforeAll(async () => {
    demo = await startDemoChain({ chainId: CHAIN_ID });
    const rpcUrl = demo.anvil.rpcUrl;
    const chain = defineChain({
      id: CHAIN_ID,
      name: 'demo',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    });
    const transport = http(rpcUrl);
    const publicClient = createPublicClient({ chain, transport, pollingInterval: 20 });
    const roles: DemoRole[] = ['deployer', 'busy', 'alice', 'bob', 'carol'];
    const accountOf = (from: DemoRole | Account): Account =>
      typeof from === 'string' ? privateKeyToAccount(ANVIL_PRIVATE_KEYS[roles.indexOf(from)]) : from;
    const walletOf = (from: DemoRole | Account) => createWalletClient({ account: accountOf(from), chain, transport, pollingInterval: 20 });
    const ingestClient = createChainClient(rpcUrl);
    let automine = true;

    const submit = async (from: DemoRole | Account, request: Parameters<ExplorerChain['send']>[1]): Promise<Hash> => {
      const wallet = walletOf(from);
      if (request.abi && request.functionName) {
        return wallet.writeContract({
          address: request.to!,
          abi: request.abi,
          functionName: request.functionName,
          args: request.args ?? [],
          value: request.value,
          gas: request.gas,
        } as never);
      }
      return wallet.sendTransaction({ to: request.to, value: request.value, data: request.data, gas: request.gas } as never);
    };
    const mined = async (hash: Hash): Promise<void> => {
      await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    };

    Object.assign(state, {
      manifest: demo.manifest,
      artifacts: await loadContracts(),
      rpcUrl,
      publicClient: publicClient as PublicClient,
      ingest: async () => {
        await ingestRange({ chainId: CHAIN_ID, client: ingestClient, log: silentLog });
        await refreshChainStatus();
      },
      send: async (from, request) => {
        const hash = await submit(from, request);
        if (automine) await mined(hash);
        return hash;
      },
      deploy: async (from, name, args) => {
        const artifact = state.artifacts[name];
        const hash = await walletOf(from).deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args } as never);
        const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
        return receipt.contractAddress!;
      },
      inFewBlocks: async (work) => {
        await publicClient.request({ method: 'evm_setAutomine', params: [false] } as never);
        automine = false;
        try {
          const hashes = await work();
          for (let round = 0; round < 100; round += 1) {
            await publicClient.request({ method: 'evm_mine', params: [] } as never);
            const pending = await Promise.all(
              hashes.map((hash) =>
                publicClient.getTransactionReceipt({ hash }).then(
                  () => false,
                  () => true,
                ),
              ),
            );
            if (!pending.includes(true)) return;
          }
          throw new Error('transactions still pending after 100 blocks');
        } finally {
          automine = true;
          await publicClient.request({ method: 'evm_setAutomine', params: [true] } as never);
        }
      },
      extraAccount: (index) => mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: index }),
    } satisfies ExplorerChain);
    await state.ingest();
  });
  afterAll(async () => {
    await demo?.stop();
  });
  return state;
}

// ---------------------------------------------------------------------------------------------------
// Requests, as a Blockscout API v2 client sends them

export type Endpoint =
  | 'tokens'
  | 'nft/collections'
  | 'nft'
  | 'token-transfers'
  | 'transactions'
  | 'internal-transactions'
  | 'withdrawals'
  | 'counters'
  | 'tabs-counters'
  /** The address itself: GET /explorer/addresses/{hash}. */
  | '';
export type QueryValues = Record<string, string | number | null | undefined>;

export interface ExplorerResponse<T = any> {
  status: number;
  body: { items: T[]; next_page_params: Record<string, string | number | null> | null } & Record<string, any>;
  /** DynamoDB calls the request made, by command. */
  calls: TableUsage['calls'];
  /** Items its Queries read (DynamoDB's ScannedCount). */
  itemsRead: number;
}

/** GET /explorer/addresses/{address}/{endpoint}?query (null and undefined values are left out). */
export async function explorerGet<T = any>(address: string, endpoint: Endpoint, query: QueryValues = {}): Promise<ExplorerResponse<T>> {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== null && value !== undefined) search.append(key, String(value));
  const text = search.toString();
  // The chain's status (indexed-head headers) into the container's copy first, when it is not there.
  await readChainStatus(CHAIN_ID, loadChainStatusSettings(), { cached: true });
  const { result, usage } = await measureTable(() =>
    requestJson('base', 'GET', `/explorer/addresses/${address}${endpoint ? `/${endpoint}` : ''}${text ? `?${text}` : ''}`),
  );
  return { status: result.status, body: result.body, calls: usage.calls, itemsRead: usage.itemsRead };
}

/** The next request of a Blockscout client: next_page_params as query parameters, plus its own `type`. */
export function nextQuery(query: QueryValues, nextPageParams: Record<string, string | number | null>): QueryValues {
  return { ...(query.type !== undefined ? { type: query.type } : {}), ...nextPageParams };
}

/** Every page of a listing, following next_page_params until it is null. */
export async function allPages<T = any>(address: string, endpoint: Endpoint, query: QueryValues = {}): Promise<ExplorerResponse<T>[]> {
  const pages: ExplorerResponse<T>[] = [];
  let next: QueryValues | undefined = query;
  while (next) {
    const page: ExplorerResponse<T> = await explorerGet<T>(address, endpoint, next);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    pages.push(page);
    if (pages.length > 50) throw new Error('more than 50 pages: a cursor does not advance');
    next = page.body.next_page_params ? nextQuery(query, page.body.next_page_params) : undefined;
  }
  return pages;
}

export const itemsOf = <T>(pages: ExplorerResponse<T>[]): T[] => pages.flatMap((page) => page.body.items);

/**
 * A page costs ONE Query (one per range: two for E3 with a two-standard `type`) and at most ONE
 * BatchGetItem (the cursor for confirmations rides in the BatchGetItem); nothing else (no Scan, no
 * GetItem per item). `maxBatchGets`: a page whose details pass BatchGetItem's 100 keys (NFT instances
 * with their fetched metadata on them, G7) sends its keys as that many requests at once, still one round trip.
 */
export function expectPageCost(
  calls: TableUsage['calls'],
  options: { batchGet?: boolean; queries?: number; maxBatchGets?: number } = {},
): void {
  const { QueryCommand: queries = 0, BatchGetItemCommand: batchGets = 0, ...others } = calls;
  expect(queries).toBe(options.queries ?? 1);
  expect(batchGets).toBeLessThanOrEqual(options.maxBatchGets ?? 1);
  if (options.batchGet !== undefined) {
    if (options.batchGet) expect(batchGets).toBeGreaterThanOrEqual(1);
    else expect(batchGets).toBe(0);
  }
  expect(others).toEqual({});
}

/** Lowercase, for comparing addresses and hashes. */
export const lower = (value: string): string => value.toLowerCase();
