/**
 * thirdweb's SDK (`thirdweb` v5), unchanged, against the service that `npm start` runs: the functions most
 * apps reach Insight through. The SDK builds `https://{domain}` URLs (utils/domains.ts) and calls the global
 * `fetch` at request time, so the test wraps `globalThis.fetch`:
 *  - `https://api.thirdweb.com/v1/chains/services?service=insight`, the SDK's list of the chains with Insight
 *    (chains/utils.ts `getInsightEnabledChainIds`, which reads the keys of `data`), is answered here with the
 *    chains the local service indexes (its chain status route answers 200 for them);
 *  - `https://insight.thirdweb.com/v1/...` goes to `<base URL>/insights/v1/...`;
 *  - `https://31337.rpc.thirdweb.com/<clientId>` (the RPC of `defineChain(31337)`) goes to anvil;
 *  - anything else (an IPFS gateway, the contract ABI service, ...) is refused.
 * Every request is recorded, so each test asserts that Insight answered 200 and that the node saw only the
 * reads the SDK always makes, never its fallback: the SDK's functions catch any Insight error and read the
 * node instead (eth_getLogs for events; tokenURI / uri / ownerOf / balanceOf / totalSupply eth_calls for
 * NFTs), which would pass a test comparing answers only.
 *
 * When the SDK uses Insight (its source, node_modules/thirdweb/src):
 *  - `getContractEvents` (event/actions/get-events.ts): always eth_blockNumber first. Without `events`, and
 *    `useIndexer` left true, one `/v1/events/{contract}?decode=true&limit=500` and the decoded logs as they
 *    come (eventName / args from Insight's `decoded`); on an Insight error it resolves the contract's ABI
 *    (on chain 31337 from its bytecode: eth_getCode and the IPFS metadata) and reads eth_getLogs. With `events`, one request per event with its topics as
 *    `filter_topic_0..3`, `limit=500`; on an error eth_getLogs (from the latest block only when no range is
 *    given: a fallback is a wrong answer, not just a slower one). One page only: with more than 500 matching logs
 *    the SDK gets Insight's first 500 (the newest: Insight sorts newest first by default) and sorts them by
 *    block number only.
 *  - `Insight.getOwnedNFTs` / `getContractNFTs` / `getNFT` (insight/get-nfts.ts) parse Insight's NFT rows
 *    (`contract.{address, chain_id, type}`, `token_id`, `balance`, `metadata_url`, `owner_addresses`,
 *    `image_url`, `extra_metadata.attributes`, the rest of the row as metadata), and read every ERC-1155 id's
 *    totalSupply(id) from the node (not served by Insight: an SDK TODO).
 *  - `erc721.getNFTs` reads startTokenId / nextTokenIdToMint / totalSupply beside Insight and falls back to the
 *    node when Insight returned fewer NFTs than those promise; `erc1155.getNFTs` does the same with
 *    nextTokenIdToMint (a contract without it promises `count`, 100 by default: DemoMulti has 4 ids, so the
 *    test asks for `count: 4`); `getNFT` falls back when Insight has no row; `getOwnedNFTs` pages by 50.
 * Expected values are read from the demo chain (anvil, through viem: eth_getLogs, blocks and receipts,
 * balanceOf, ownerOf, tokenURI, uri, eth_getBalance) with the demo activity ticker off, so the chain is still.
 */
import {
  createThirdwebClient,
  defineChain,
  getContract,
  getContractEvents,
  prepareEvent,
  type Chain,
  type ThirdwebClient,
  type ThirdwebContract,
} from 'thirdweb';
import * as erc1155 from 'thirdweb/extensions/erc1155';
import * as erc721 from 'thirdweb/extensions/erc721';
import * as Insight from 'thirdweb/insight';
import {
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  erc1155Abi,
  erc20Abi,
  erc721Abi,
  getAddress,
  http,
  maxUint256,
  parseAbi,
  toEventSelector,
  toFunctionSelector,
  type Address,
  type Block,
  type Hex,
  type Log,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContracts, type DemoArtifacts } from '../../scripts/lib/contracts';
import { DEMO_PLAN } from '../../scripts/lib/demo-activity';
import { type NpmStartService, startNpmStart } from '../support/npm-start';

const CHAIN_ID = 31337;
const INSIGHT_CHAINS_URL = 'https://api.thirdweb.com/v1/chains/services?service=insight';

const transferEvent = prepareEvent({ signature: 'event Transfer(address indexed from, address indexed to, uint256 value)' });
const approvalEvent = prepareEvent({ signature: 'event Approval(address indexed owner, address indexed spender, uint256 value)' });
const splitterAbi = parseAbi(['function distributeToken(address token, address[] recipients, uint256[] amounts)']);
const supplyAbi = parseAbi(['function totalSupply(uint256 id) view returns (uint256)']);

/** The contract reads the SDK may send to the node, by selector (eth_call data), to name them in failures. */
const KNOWN_READS = [
  'ownerOf(uint256)',
  'balanceOf(address)',
  'balanceOf(address,uint256)',
  'balanceOfBatch(address[],uint256[])',
  'tokenURI(uint256)',
  'uri(uint256)',
  'totalSupply()',
  'totalSupply(uint256)',
  'startTokenId()',
  'nextTokenIdToMint()',
  'tokenByIndex(uint256)',
  'tokenOfOwnerByIndex(address,uint256)',
  'name()',
  'symbol()',
  'decimals()',
];
const READ_OF_SELECTOR = new Map<string, string>(KNOWN_READS.map((signature) => [toFunctionSelector(`function ${signature}`), signature]));

interface SeenRequest {
  service: 'insight' | 'chains' | 'rpc' | 'other';
  url: string;
  status: number | null;
  /** JSON-RPC requests: the method, `eth_call <function>` for calls. */
  calls: string[];
}

let service: NpmStartService;
let chain: PublicClient;
let client: ThirdwebClient;
let sdkChain: Chain;
let token: ThirdwebContract;
let nft: ThirdwebContract;
let multi: ThirdwebContract;
let insightChains: Record<string, boolean>;
let artifacts: DemoArtifacts;
const seen: SeenRequest[] = [];
let chainsAsked = 0;
const originalFetch = globalThis.fetch;

/** What the wrapper does with a request the SDK sends: answer it, send it elsewhere, or refuse it. */
async function routeSdkRequest(input: Request | string | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const url = new URL(request.url);
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text();
  if (request.url === INSIGHT_CHAINS_URL) {
    chainsAsked += 1;
    seen.push({ service: 'chains', url: request.url, status: 200, calls: [] });
    return Response.json({ data: insightChains });
  }
  let kind: SeenRequest['service'];
  let target: string;
  if (url.host === 'insight.thirdweb.com') {
    kind = 'insight';
    target = `${service.urls.base}/insights${url.pathname}${url.search}`;
  } else if (url.host === `${CHAIN_ID}.rpc.thirdweb.com`) {
    kind = 'rpc';
    target = service.rpcUrl;
  } else {
    seen.push({ service: 'other', url: request.url, status: null, calls: [] });
    throw new TypeError(`fetch failed: the test does not route ${request.url}`);
  }
  const entry: SeenRequest = { service: kind, url: request.url, status: null, calls: kind === 'rpc' ? rpcCalls(body) : [] };
  seen.push(entry);
  const response = await originalFetch(target, { method: request.method, headers: request.headers, body, signal: request.signal });
  entry.status = response.status;
  return response;
}

function rpcCalls(body: string | undefined): string[] {
  const parsed = JSON.parse(body ?? '[]') as { method: string; params?: unknown[] } | { method: string; params?: unknown[] }[];
  return (Array.isArray(parsed) ? parsed : [parsed]).map(({ method, params }) => {
    if (method !== 'eth_call') return method;
    const { data, input } = (params?.[0] ?? {}) as { data?: string; input?: string };
    const selector = (data ?? input ?? '').slice(0, 10);
    return `eth_call ${READ_OF_SELECTOR.get(selector) ?? selector}`;
  });
}

/**
 * Runs one SDK call with an empty record, then checks what it sent: at least one Insight request, every one
 * answered 200, nothing sent anywhere else, and the node asked exactly `nodeReads` (the reads the SDK makes
 * whatever Insight answers), so no fallback read (eth_getLogs, tokenURI, ownerOf, ...) went unnoticed.
 */
async function viaInsight<T>(call: () => Promise<T>, nodeReads: (result: T) => string[] = () => []): Promise<T> {
  seen.length = 0;
  const result = await call();
  const requests = seen.splice(0);
  const insight = requests.filter((request) => request.service === 'insight');
  expect(insight.length, 'Insight requests').toBeGreaterThan(0);
  expect(insight.filter((request) => request.status !== 200).map((request) => `${request.status} ${request.url}`)).toEqual([]);
  expect(requests.filter((request) => request.service === 'other').map((request) => request.url)).toEqual([]);
  const node = requests.filter((request) => request.service === 'rpc').flatMap((request) => request.calls);
  expect(node.sort(), 'what the node was asked').toEqual(nodeReads(result).sort());
  return result;
}
const times = (count: number, read: string) => Array.from({ length: count }, () => read);
const erc1155Supplies = (nfts: readonly { type: string }[]) =>
  times(nfts.filter((one) => one.type === 'ERC1155').length, 'eth_call totalSupply(uint256)');

beforeAll(async () => {
  service = await startNpmStart({ env: { DEMO_ACTIVITY_INTERVAL_MS: '0' } });
  artifacts = await loadContracts();
  chain = createPublicClient({ transport: http(service.rpcUrl, { fetchFn: originalFetch }) });
  // The chains the local service indexes: those its status route knows (404 for any other).
  const status = await originalFetch(`${service.urls.base}/insights/v1/chains/${CHAIN_ID}/status`);
  expect(status.status).toBe(200);
  insightChains = { [CHAIN_ID]: true };
  globalThis.fetch = routeSdkRequest as typeof fetch;
  client = createThirdwebClient({ clientId: 'test' });
  sdkChain = defineChain(CHAIN_ID);
  token = getContract({ client, chain: sdkChain, address: service.demo.contracts.token });
  nft = getContract({ client, chain: sdkChain, address: service.demo.contracts.nft });
  multi = getContract({ client, chain: sdkChain, address: service.demo.contracts.multi });
}, 180_000);

afterAll(async () => {
  globalThis.fetch = originalFetch;
  await service?.stop();
});

// ---------------------------------------------------------------------------------------------------
// The chain's truth

const lower = (text: string | null | undefined) => (text ?? '').toLowerCase();
const accounts = () => [
  ...new Set([...Object.values(service.demo.accounts), ...Object.values(service.demo.payees)].map((address) => lower(address) as Address)),
];
const ERC721_IDS = DEMO_PLAN.nft.mintedIds;
const ERC1155_IDS = [DEMO_PLAN.multi.single.id, ...DEMO_PLAN.multi.batch.ids];

const ownerOf = (id: bigint) =>
  chain.readContract({ address: nft.address as Address, abi: erc721Abi, functionName: 'ownerOf', args: [id] }).then(
    (owner) => lower(owner),
    () => null,
  );
const tokenUriOf = (id: bigint) =>
  chain.readContract({ address: nft.address as Address, abi: erc721Abi, functionName: 'tokenURI', args: [id] }).catch(() => null);
const balanceOf1155 = (owner: Address, id: bigint) =>
  chain.readContract({ address: multi.address as Address, abi: erc1155Abi, functionName: 'balanceOf', args: [owner, id] });
/** uri(id) with `{id}` replaced as EIP-1155 says (64 lowercase hex digits), as Insight and the SDK's own reads resolve it. */
const uriOf1155 = async (id: bigint) =>
  (await chain.readContract({ address: multi.address as Address, abi: erc1155Abi, functionName: 'uri', args: [id] })).replace(
    '{id}',
    id.toString(16).padStart(64, '0'),
  );
/** totalSupply(id), 0 when the contract has none (DemoMulti): what the SDK puts in an ERC-1155 NFT's `supply`. */
const supplyOf1155 = (id: bigint) =>
  chain.readContract({ address: multi.address as Address, abi: supplyAbi, functionName: 'totalSupply', args: [id] }).catch(() => 0n);

/** The metadata document of a `data:application/json` token URI (the demo's even ERC-721 ids), else null. */
function documentOf(uri: string | null): Record<string, unknown> | null {
  const base64 = 'data:application/json;base64,';
  if (uri?.startsWith(base64)) return JSON.parse(Buffer.from(uri.slice(base64.length), 'base64').toString('utf8'));
  if (uri?.startsWith('data:application/json,')) return JSON.parse(decodeURIComponent(uri.slice('data:application/json,'.length)));
  return null;
}

type SdkNft = Awaited<ReturnType<typeof Insight.getNFT>> & {};

/**
 * One NFT as the SDK parsed it, against the chain: its contract, chain, id and type; `tokenURI` and
 * `metadata.uri` the chain's token URI; the metadata the token URI holds (name, description, image,
 * external_url, attributes) when it is an on-chain document (an ipfs: document is not on the chain: not
 * compared). `owner` when given: checksummed, or null.
 */
async function expectNftAsOnChain(one: SdkNft, owner?: Address | null) {
  expect(one.chainId).toBe(CHAIN_ID);
  const erc721Token = lower(one.tokenAddress) === lower(nft.address);
  expect(lower(one.tokenAddress)).toBe(erc721Token ? lower(nft.address) : lower(multi.address));
  expect(one.type).toBe(erc721Token ? 'ERC721' : 'ERC1155');
  const uri = erc721Token ? await tokenUriOf(one.id) : await uriOf1155(one.id);
  if (uri === null) {
    // Burned: the chain has no token URI any more (tokenURI reverts); Insight keeps the last one.
    expect(await ownerOf(one.id)).toBeNull();
  } else {
    expect(one.tokenURI).toBe(uri);
    expect(one.metadata.uri).toBe(uri);
  }
  const document = documentOf(uri);
  if (document) {
    const { name, description, image, external_url, attributes } = document;
    expect(one.metadata).toMatchObject({ name, description, image, external_url, attributes });
  }
  if (one.type === 'ERC1155') expect(one.supply).toBe(await supplyOf1155(one.id));
  if (owner !== undefined) expect(one.owner).toBe(owner === null ? null : getAddress(owner));
}

/** Decimal strings for numbers, lowercase hex for addresses, recursively: Insight's decoded params and viem's args compare. */
const normalise = (value: unknown): unknown =>
  typeof value === 'bigint' || typeof value === 'number'
    ? value.toString()
    : typeof value === 'string'
      ? value.toLowerCase()
      : Array.isArray(value)
        ? value.map(normalise)
        : value && typeof value === 'object'
          ? Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, normalise(inner)]))
          : value;

/** The log fields both sides have, as eth_getLogs returns them. */
const logFields = (
  log: Pick<Log, 'address' | 'blockHash' | 'blockNumber' | 'logIndex' | 'transactionHash' | 'transactionIndex' | 'data' | 'topics'>,
) => ({
  address: lower(log.address),
  blockHash: log.blockHash,
  blockNumber: log.blockNumber,
  logIndex: log.logIndex,
  transactionHash: log.transactionHash,
  transactionIndex: log.transactionIndex,
  data: log.data,
  topics: log.topics,
});
const byPosition = <T extends { blockNumber: bigint | null; logIndex: number | null }>(logs: readonly T[]) =>
  [...logs].sort((a, b) => Number(a.blockNumber! - b.blockNumber!) || a.logIndex! - b.logIndex!);

/**
 * The events of the token standards (EIP-20, 721, 1155 names): the well-known events Insight decodes without
 * the contract's ABI. Logs of any other event (the demo's OwnershipTransferred) stay undecoded.
 */
const STANDARD_TOPICS = new Set(
  parseAbi([
    'event Transfer(address indexed from, address indexed to, uint256 value)',
    'event Approval(address indexed owner, address indexed spender, uint256 value)',
    'event ApprovalForAll(address indexed owner, address indexed operator, bool approved)',
    'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
    'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
    'event URI(string value, uint256 indexed id)',
  ]).map((event) => toEventSelector(event)),
);
/** A log decoded with its contract's own ABI (the demo's compiled contracts), as a verified-source decoder would. */
function decodedOnChain(log: Log): { eventName: string; args: unknown } | null {
  const abi = [artifacts.DemoToken, artifacts.DemoNFT, artifacts.DemoMulti][
    [token, nft, multi].findIndex((contract) => lower(contract.address) === lower(log.address))
  ]!.abi;
  const { eventName, args } = decodeEventLog({ abi, data: log.data, topics: log.topics, strict: true });
  return eventName ? { eventName, args } : null;
}

type SdkLog = Pick<
  Log,
  'address' | 'blockHash' | 'blockNumber' | 'logIndex' | 'transactionHash' | 'transactionIndex' | 'data' | 'topics'
> & {
  eventName?: string | null;
  args?: unknown;
};

/**
 * The SDK's logs against eth_getLogs: the same logs (by position), each with the chain's fields, in block
 * order. `sdk` (prepared events, parsed by the SDK): every log decoded as its contract's ABI decodes it.
 * `insight` (no events: Insight's `decoded`): the standards' events decoded so (names and values), others not.
 */
function expectLogsAsOnChain(sdk: readonly SdkLog[], onChain: readonly Log[], decodedBy: 'sdk' | 'insight') {
  const blocks = sdk.map((log) => log.blockNumber!);
  expect(blocks).toEqual([...blocks].sort((a, b) => Number(a - b)));
  expect(byPosition(sdk).map(logFields)).toEqual(byPosition(onChain).map(logFields));
  const chainLogs = new Map(onChain.map((log) => [`${log.blockNumber}:${log.logIndex}`, log]));
  for (const log of sdk) {
    const chainLog = chainLogs.get(`${log.blockNumber}:${log.logIndex}`)!;
    if (decodedBy === 'sdk' || STANDARD_TOPICS.has(chainLog.topics[0]!)) {
      const want = decodedOnChain(chainLog)!;
      expect(log.eventName).toBe(want.eventName);
      expect(normalise(log.args)).toEqual(normalise(want.args));
    } else {
      expect(log.eventName ?? null, `${chainLog.topics[0]} is not a standard event: Insight has no ABI for it`).toBeNull();
    }
  }
}

/** The chain's logs of a contract in a range, optionally of one topic 0 (and topics 1-2). */
type Range = { fromBlock?: bigint; toBlock?: bigint; blockHash?: Hex };
/** getContractEvents' block options (fromBlock / toBlock / blockRange, or blockHash). */
type BlockOptions = Parameters<typeof getContractEvents>[0] extends infer Options
  ? Options extends unknown
    ? Omit<Options, 'contract' | 'events' | 'strict' | 'useIndexer'>
    : never
  : never;
const logsOnChain = (address: string, range: Range = {}) =>
  range.blockHash
    ? chain.getLogs({ address: address as Address, blockHash: range.blockHash })
    : chain.getLogs({ address: address as Address, fromBlock: range.fromBlock ?? 0n, toBlock: range.toBlock ?? 'latest' });
const withTopics = (logs: Log[], ...topics: (Hex | undefined)[]) =>
  logs.filter((log) => topics.every((topic, index) => topic === undefined || log.topics[index] === topic));

describe('thirdweb SDK (v5) against npm start, through Insight with no fallback to the node', () => {
  it('asks which chains have Insight once (cached a day), answered with the chains the service indexes', async () => {
    await viaInsight(() => Insight.getOwnedTokens({ client, chains: [sdkChain], ownerAddress: service.demo.accounts.busy }));
    await viaInsight(() => Insight.getOwnedTokens({ client, chains: [sdkChain], ownerAddress: service.demo.accounts.alice }));
    expect(chainsAsked).toBe(1);
    await expect(Insight.getOwnedTokens({ client, chains: [defineChain(1)], ownerAddress: service.demo.accounts.busy })).rejects.toThrow(
      'Insight is not available for chains 1',
    );
  });

  it('getContractEvents with prepared events: Transfer and Approval of the ERC-20, a topic filter, as eth_getLogs', async () => {
    const all = await logsOnChain(token.address);
    const events = await viaInsight(
      () => getContractEvents({ contract: token, events: [transferEvent, approvalEvent] }),
      () => ['eth_blockNumber'],
    );
    const wanted = withTopics(all, transferEvent.topics[0]).concat(withTopics(all, approvalEvent.topics[0]));
    expect(wanted.length).toBeGreaterThan(60);
    expectLogsAsOnChain(events, wanted, 'sdk');

    const alice = service.demo.accounts.alice;
    const toAlice = prepareEvent({ signature: transferEvent.abiEvent, filters: { to: alice } });
    const received = await viaInsight(
      () => getContractEvents({ contract: token, events: [toAlice] }),
      () => ['eth_blockNumber'],
    );
    const aliceTopic = `0x${lower(alice).slice(2).padStart(64, '0')}` as Hex;
    expect(received.length).toBeGreaterThan(1);
    expectLogsAsOnChain(received, withTopics(all, transferEvent.topics[0], undefined, aliceTopic), 'sdk');
    expect(received.every((log) => log.args.to === getAddress(alice))).toBe(true);

    const nftTransfers = await viaInsight(
      () =>
        getContractEvents({
          contract: nft,
          events: [prepareEvent({ signature: 'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)' })],
        }),
      () => ['eth_blockNumber'],
    );
    expectLogsAsOnChain(nftTransfers, withTopics(await logsOnChain(nft.address), transferEvent.topics[0]), 'sdk');
  });

  // A prepared event filtering one indexed argument by several values (`filters: { to: [a, b] }`) makes the SDK
  // send `filter_topic_2` once per value (an OR, as eth_getLogs topics). It was answered 400, and the SDK fell
  // back to eth_getLogs (which, without a block range, reads the latest block only).
  it('getContractEvents with a prepared event filtering a topic by several values (filter_topic_N repeated: any of them)', async () => {
    const all = await logsOnChain(token.address);
    const { alice, bob } = service.demo.accounts;
    const toEither = prepareEvent({
      signature: 'event Transfer(address indexed from, address indexed to, uint256 value)',
      // (Its types take one value; its topic encoder, as eth_getLogs, takes several: JavaScript callers pass them.)
      filters: { to: [alice, bob] } as never,
    });
    const received = await viaInsight(
      () => getContractEvents({ contract: token, events: [toEither] }),
      () => ['eth_blockNumber'],
    );
    const topicOf = (address: string) => `0x${lower(address).slice(2).padStart(64, '0')}` as Hex;
    const wanted = [
      ...withTopics(all, transferEvent.topics[0], undefined, topicOf(alice)),
      ...withTopics(all, transferEvent.topics[0], undefined, topicOf(bob)),
    ];
    expect(withTopics(all, transferEvent.topics[0], undefined, topicOf(alice)).length).toBeGreaterThan(0);
    expect(withTopics(all, transferEvent.topics[0], undefined, topicOf(bob)).length).toBeGreaterThan(0);
    expectLogsAsOnChain(received, wanted, 'sdk');
  });

  it('getContractEvents with no events: every log of each token contract, decoded by Insight where the event is well known', async () => {
    for (const contract of [token, nft, multi]) {
      const events = await viaInsight(
        () => getContractEvents({ contract }),
        () => ['eth_blockNumber'],
      );
      const onChain = await logsOnChain(contract.address);
      expect(onChain.length).toBeGreaterThan(1);
      expectLogsAsOnChain(events as SdkLog[], onChain, 'insight');
    }
    // The ERC-1155 batch: ids and values decoded as arrays.
    const multiEvents = (await viaInsight(
      () => getContractEvents({ contract: multi }),
      () => ['eth_blockNumber'],
    )) as SdkLog[];
    const batch = multiEvents.find((log) => log.eventName === 'TransferBatch')!;
    expect(normalise(batch.args)).toMatchObject({ ids: DEMO_PLAN.multi.batch.ids.map(String) });
  });

  it('getContractEvents with block ranges: fromBlock / toBlock, toBlock alone, blockRange, a block hash', async () => {
    const head = await chain.getBlockNumber();
    const someBlock = (await logsOnChain(token.address)).at(-5)!;
    const blockHash = someBlock.blockHash!;
    // The SDK's options, and the range they name (blockRange: counted back from the head, or on from fromBlock).
    const ranges: [options: BlockOptions, bounds: Range][] = [
      [
        { fromBlock: 20n, toBlock: 40n },
        { fromBlock: 20n, toBlock: 40n },
      ],
      [{ toBlock: 30n }, { toBlock: 30n }],
      [{ fromBlock: 50n }, { fromBlock: 50n }],
      [
        { fromBlock: 10n, blockRange: 15n },
        { fromBlock: 10n, toBlock: 24n },
      ],
      [{ blockRange: 30n }, { fromBlock: head - 29n, toBlock: head }],
      [{ blockHash }, { blockHash }],
    ];
    for (const [range, bounds] of ranges) {
      for (const contract of [token, nft]) {
        const all = await viaInsight(
          () => getContractEvents({ contract, ...range }),
          () => ['eth_blockNumber'],
        );
        expectLogsAsOnChain(all as SdkLog[], await logsOnChain(contract.address, bounds), 'insight');
      }
      const transfers = await viaInsight(
        () => getContractEvents({ contract: token, events: [transferEvent], ...range }),
        () => ['eth_blockNumber'],
      );
      expectLogsAsOnChain(transfers, withTopics(await logsOnChain(token.address, bounds), transferEvent.topics[0]), 'sdk');
    }
  });

  it('Insight.getOwnedTokens: the native balance as eth_getBalance, ERC-20 balances as balanceOf, with name, symbol, decimals', async () => {
    for (const owner of accounts()) {
      const tokens = await viaInsight(() => Insight.getOwnedTokens({ client, chains: [sdkChain], ownerAddress: owner }));
      const [native, ...erc20] = tokens;
      expect(native).toEqual({
        chainId: CHAIN_ID,
        tokenAddress: '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
        value: await chain.getBalance({ address: owner }),
        displayValue: expect.any(String),
        name: 'Ether',
        symbol: 'ETH',
        decimals: 18,
      });
      const demoBalance = await chain.readContract({
        address: token.address as Address,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [owner],
      });
      expect(erc20.map((row) => lower(row.tokenAddress))).toEqual(demoBalance > 0n ? [lower(token.address)] : []);
      const named = await viaInsight(() =>
        Insight.getOwnedTokens({ client, chains: [sdkChain], ownerAddress: owner, tokenAddresses: [token.address] }),
      );
      expect(named.map((row) => [lower(row.tokenAddress), row.value])).toEqual(
        demoBalance > 0n ? [[lower(token.address), demoBalance]] : [],
      );
      for (const row of erc20) {
        const address = row.tokenAddress as Address;
        const read = (functionName: 'name' | 'symbol' | 'decimals') => chain.readContract({ address, abi: erc20Abi, functionName });
        expect(row).toMatchObject({
          chainId: CHAIN_ID,
          value: demoBalance,
          name: await read('name'),
          symbol: await read('symbol'),
          decimals: await read('decimals'),
        });
      }
    }
  });

  it('Insight.getTransactions: each wallet’s transactions (sent, received, creations) as the chain’s blocks and receipts have them', async () => {
    const head = Number(await chain.getBlockNumber());
    const blocks: Block<bigint, true>[] = await Promise.all(
      Array.from({ length: head + 1 }, (_, number) => chain.getBlock({ blockNumber: BigInt(number), includeTransactions: true })),
    );
    const transactions = blocks.flatMap((block) => block.transactions.map((tx) => ({ tx, block })));
    const receipts = new Map<Hex, TransactionReceipt>(
      await Promise.all(transactions.map(async ({ tx }) => [tx.hash, await chain.getTransactionReceipt({ hash: tx.hash })] as const)),
    );
    for (const wallet of accounts()) {
      const want = transactions
        .filter(({ tx }) => lower(tx.from) === wallet || lower(tx.to) === wallet)
        .sort((a, b) => Number(b.block.number! - a.block.number!) || b.tx.transactionIndex! - a.tx.transactionIndex!)
        .slice(0, 100);
      const got = await viaInsight(() => Insight.getTransactions({ client, chains: [sdkChain], walletAddress: wallet }));
      expect(got.map((row) => row.hash)).toEqual(want.map(({ tx }) => tx.hash));
      for (const [index, row] of got.entries()) {
        const { tx, block } = want[index]!;
        const receipt = receipts.get(tx.hash)!;
        expect({
          chain_id: Number(row.chain_id),
          block_number: Number(row.block_number),
          block_hash: row.block_hash,
          block_timestamp: Number(row.block_timestamp),
          transaction_index: Number(row.transaction_index),
          from_address: row.from_address,
          to_address: row.to_address,
          value: String(row.value),
          nonce: Number(row.nonce),
          gas: Number(row.gas),
          data: row.data,
          function_selector: row.function_selector,
          status: Number(row.status),
          gas_used: Number(row.gas_used),
          effective_gas_price: String(row.effective_gas_price),
          contract_address: row.contract_address,
        }).toEqual({
          chain_id: CHAIN_ID,
          block_number: Number(block.number),
          block_hash: block.hash,
          block_timestamp: Number(block.timestamp),
          transaction_index: tx.transactionIndex,
          from_address: lower(tx.from),
          to_address: lower(tx.to),
          value: tx.value.toString(),
          nonce: tx.nonce,
          gas: Number(tx.gas),
          data: tx.input,
          function_selector: tx.input.length >= 10 ? tx.input.slice(0, 10) : '',
          status: receipt.status === 'success' ? 1 : 0,
          gas_used: Number(receipt.gasUsed),
          effective_gas_price: receipt.effectiveGasPrice.toString(),
          contract_address: lower(receipt.contractAddress),
        });
      }
    }
  });

  it('Insight.getOwnedNFTs: each account’s NFTs, owners as ownerOf, quantities as balanceOf, metadata from the token URI', async () => {
    for (const owner of accounts()) {
      const owned = await viaInsight(() => Insight.getOwnedNFTs({ client, chains: [sdkChain], ownerAddress: owner }), erc1155Supplies);
      const want: string[] = [];
      for (const id of ERC721_IDS) if ((await ownerOf(id)) === owner) want.push(`${lower(nft.address)}:${id}:1`);
      for (const id of ERC1155_IDS) {
        const balance = await balanceOf1155(owner, id);
        if (balance > 0n) want.push(`${lower(multi.address)}:${id}:${balance}`);
      }
      expect(owned.map((one) => `${lower(one.tokenAddress)}:${one.id}:${one.quantityOwned}`).sort()).toEqual(want.sort());
      for (const one of owned) await expectNftAsOnChain(one, owner);
    }
  });

  it('Insight.getNFT: each token with its owner (ownerOf; none once burned), URI and metadata', async () => {
    for (const id of ERC721_IDS) {
      const one = await viaInsight(() => Insight.getNFT({ client, chain: sdkChain, contractAddress: nft.address, tokenId: id }));
      expect(one?.id).toBe(id);
      await expectNftAsOnChain(one!, (await ownerOf(id)) as Address | null);
    }
    // An id never minted: Insight's 404 (its spec lists one for this route), which Insight.getNFT throws
    // (its type says undefined, what it returns for an empty `data`); erc721.getNFT reads the node either way.
    await expect(Insight.getNFT({ client, chain: sdkChain, contractAddress: nft.address, tokenId: 99n })).rejects.toThrow(/^404 /);
    expect(await tokenUriOf(99n)).toBeNull();
    for (const id of ERC1155_IDS) {
      const one = await viaInsight(
        () => Insight.getNFT({ client, chain: sdkChain, contractAddress: multi.address, tokenId: id }),
        () => ['eth_call totalSupply(uint256)'],
      );
      expect(one?.id).toBe(id);
      await expectNftAsOnChain(one!, null);
    }
  });

  it('Insight.getContractNFTs: every token of each contract, ERC-721 owners as ownerOf', async () => {
    const nfts = await viaInsight(() => Insight.getContractNFTs({ client, chains: [sdkChain], contractAddress: nft.address }));
    expect(nfts.map((one) => one.id)).toEqual(ERC721_IDS);
    for (const one of nfts) await expectNftAsOnChain(one, (await ownerOf(one.id)) as Address | null);
    const multis = await viaInsight(
      () => Insight.getContractNFTs({ client, chains: [sdkChain], contractAddress: multi.address }),
      erc1155Supplies,
    );
    expect(multis.map((one) => one.id)).toEqual(ERC1155_IDS);
    for (const one of multis) {
      await expectNftAsOnChain(one, null);
      // A contract's ERC-1155 row carries the id's supply as `balance`, which the SDK gives as quantityOwned:
      // the sum of its holders' balanceOf (the demo's accounts hold every unit).
      let held = 0n;
      for (const owner of accounts()) held += await balanceOf1155(owner, one.id);
      expect((one as { quantityOwned?: bigint }).quantityOwned).toBe(held);
    }
  });

  it('erc721.getOwnedNFTs, getNFT, getNFTs (useIndexer default): as ownerOf and tokenURI', async () => {
    for (const owner of accounts()) {
      // The SDK sets each NFT's owner to the address as given: an app passes it checksummed.
      const owned = await viaInsight(() => erc721.getOwnedNFTs({ contract: nft, owner: getAddress(owner) }));
      const want: bigint[] = [];
      for (const id of ERC721_IDS) if ((await ownerOf(id)) === owner) want.push(id);
      expect(owned.map((one) => one.id).sort()).toEqual(want.sort());
      for (const one of owned) await expectNftAsOnChain(one, owner);
    }
    for (const id of ERC721_IDS) {
      const one = await viaInsight(() => erc721.getNFT({ contract: nft, tokenId: id }));
      expect(one.id).toBe(id);
      await expectNftAsOnChain(one, (await ownerOf(id)) as Address | null);
    }
    // getNFTs reads the supply (startTokenId, nextTokenIdToMint, totalSupply) beside Insight, whatever it answers.
    const supplyReads = () => ['eth_call startTokenId()', 'eth_call nextTokenIdToMint()', 'eth_call totalSupply()'];
    const all = await viaInsight(() => erc721.getNFTs({ contract: nft }), supplyReads);
    expect(all.map((one) => one.id)).toEqual(ERC721_IDS);
    for (const one of all) await expectNftAsOnChain(one);
    const page = await viaInsight(() => erc721.getNFTs({ contract: nft, start: 2, count: 2 }), supplyReads);
    expect(page.map((one) => one.id)).toEqual(ERC721_IDS.slice(2, 4));
    const withOwners = await viaInsight(() => erc721.getNFTs({ contract: nft, includeOwners: true }), supplyReads);
    for (const one of withOwners) await expectNftAsOnChain(one, (await ownerOf(one.id)) as Address | null);
  });

  it('erc1155.getOwnedNFTs, getNFT, getNFTs (useIndexer default): quantities as balanceOf, URIs as uri(id)', async () => {
    for (const owner of accounts()) {
      const owned = await viaInsight(() => erc1155.getOwnedNFTs({ contract: multi, address: getAddress(owner) }), erc1155Supplies);
      const want: string[] = [];
      for (const id of ERC1155_IDS) {
        const balance = await balanceOf1155(owner, id);
        if (balance > 0n) want.push(`${id}:${balance}`);
      }
      expect(owned.map((one) => `${one.id}:${one.quantityOwned}`).sort()).toEqual(want.sort());
      for (const one of owned) await expectNftAsOnChain(one, owner);
    }
    for (const id of ERC1155_IDS) {
      const one = await viaInsight(
        () => erc1155.getNFT({ contract: multi, tokenId: id }),
        () => ['eth_call totalSupply(uint256)'],
      );
      expect(one.id).toBe(id);
      await expectNftAsOnChain(one, null);
    }
    // DemoMulti has no nextTokenIdToMint: the SDK then expects `count` NFTs (100 by default) and reads the node
    // for ids 0..count-1 when Insight has fewer, so the test asks for as many as the contract has.
    const all = await viaInsight(
      () => erc1155.getNFTs({ contract: multi, count: ERC1155_IDS.length }),
      (nfts) => ['eth_call nextTokenIdToMint()', ...erc1155Supplies(nfts)],
    );
    expect(all.map((one) => one.id)).toEqual(ERC1155_IDS);
    for (const one of all) await expectNftAsOnChain(one, null);
  });

  // Last: it adds 600 Transfer logs to the chain.
  it('getContractEvents and the SDK’s limit of 500: the newest 500 of 600+ logs, ordered by block only; a range under 500 is whole', async () => {
    const wallet = createWalletClient({ transport: http(service.rpcUrl, { fetchFn: originalFetch }), account: service.demo.accounts.busy });
    const send = async (request: Parameters<typeof wallet.writeContract>[0]) =>
      chain.waitForTransactionReceipt({ hash: await wallet.writeContract(request) });
    const splitter = service.demo.contracts.splitter;
    await send({ chain: null, address: token.address as Address, abi: erc20Abi, functionName: 'approve', args: [splitter, maxUint256] });
    const recipients = [service.demo.accounts.alice, service.demo.accounts.bob, service.demo.accounts.carol, service.demo.payees.payee1];
    const distributions: TransactionReceipt[] = [];
    for (let round = 0; round < 3; round += 1) {
      const to = Array.from({ length: 200 }, (_, index) => recipients[index % recipients.length]!);
      const receipt = await send({
        chain: null,
        address: splitter,
        abi: splitterAbi,
        functionName: 'distributeToken',
        args: [token.address as Address, to, to.map(() => 1n)],
      });
      expect(receipt.logs).toHaveLength(200);
      distributions.push(receipt);
    }
    const last = distributions.at(-1)!.blockNumber;
    await waitForIndexedBlock(last);

    const all = await logsOnChain(token.address);
    const transfers = withTopics(all, transferEvent.topics[0]);
    expect(transfers.length).toBeGreaterThan(600);
    const newest = (logs: Log[]) => byPosition(logs).slice(-500);
    /** Insight's order (newest first) sorted by block number only, as the SDK leaves it: a block's logs last-first. */
    const sdkOrder = (logs: Log[]) => [...logs].sort((a, b) => Number(a.blockNumber! - b.blockNumber!) || b.logIndex! - a.logIndex!);
    const position = (log: SdkLog) => `${log.blockNumber}:${log.logIndex}`;

    const prepared = await viaInsight(
      () => getContractEvents({ contract: token, events: [transferEvent] }),
      () => ['eth_blockNumber'],
    );
    expect(prepared).toHaveLength(500);
    expectLogsAsOnChain(prepared, newest(transfers), 'sdk');
    expect(prepared.map(position)).toEqual(sdkOrder(newest(transfers)).map(position));

    const undecoded = await viaInsight(
      () => getContractEvents({ contract: token }),
      () => ['eth_blockNumber'],
    );
    expect(undecoded).toHaveLength(500);
    expectLogsAsOnChain(undecoded as SdkLog[], newest(all), 'insight');

    const fromBlock = distributions[0]!.blockNumber + 1n;
    const recent = await viaInsight(
      () => getContractEvents({ contract: token, events: [transferEvent], fromBlock }),
      () => ['eth_blockNumber'],
    );
    expect(recent).toHaveLength(400);
    expectLogsAsOnChain(recent, withTopics(await logsOnChain(token.address, { fromBlock }), transferEvent.topics[0]), 'sdk');
  }, 120_000);
});

/** Until the service's chain status says it indexed `block` (the ingest follows the head every 250 ms). */
async function waitForIndexedBlock(block: bigint) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const response = await originalFetch(`${service.urls.base}/insights/v1/chains/${CHAIN_ID}/status`);
    const { data } = (await response.json()) as { data: { indexed_head: { block_number: number } | null } };
    if (BigInt(data.indexed_head?.block_number ?? -1) >= block) return;
    if (Date.now() > deadline) throw new Error(`block ${block} not indexed: ${JSON.stringify(data)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
