/**
 * What the chains themselves say, read with viem over JSON-RPC: the independent source every
 * insights integration test compares the API's answers with.
 */
import {
  decodeEventLog,
  parseAbi,
  type AbiEvent,
  type Address,
  type Block,
  type Hex,
  type Log,
  type PublicClient,
  type Transaction,
} from 'viem';

export type ChainTransaction = Transaction & { timestamp: number };

export interface ChainTruth {
  chainId: number;
  client: PublicClient;
  blocks: Block<bigint, true>[];
  transactions: ChainTransaction[];
}

export async function readTruth(chainId: number, client: PublicClient): Promise<ChainTruth> {
  const head = Number(await client.getBlockNumber());
  const blocks = await Promise.all(
    Array.from({ length: head + 1 }, (_, number) => client.getBlock({ blockNumber: BigInt(number), includeTransactions: true })),
  );
  const transactions = blocks.flatMap((block) => block.transactions.map((tx) => ({ ...tx, timestamp: Number(block.timestamp) })));
  return { chainId, client, blocks, transactions };
}

/** Transactions sent to `contract` whose calldata starts with `selector`, newest first. */
export function callsTo(truth: ChainTruth, contract: string, selector: string): ChainTransaction[] {
  return truth.transactions
    .filter((tx) => tx.to?.toLowerCase() === contract.toLowerCase() && tx.input.toLowerCase().startsWith(selector))
    .sort((a, b) => Number(b.blockNumber! - a.blockNumber!) || b.transactionIndex! - a.transactionIndex!);
}

/** Every log a contract emitted, newest first. */
export async function logsOf(truth: ChainTruth, address: string): Promise<Log[]> {
  const logs = await truth.client.getLogs({ address: address as Address, fromBlock: 0n, toBlock: 'latest' });
  return logs.sort((a, b) => Number(b.blockNumber! - a.blockNumber!) || b.logIndex! - a.logIndex!);
}

export const TOKEN_EVENTS = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
]);

/** One token movement as the chain logged it (ERC-1155 batches flattened). */
export interface ChainTransfer {
  chainId: number;
  token: string;
  standard: 'erc20' | 'erc721' | 'erc1155';
  from: string;
  to: string;
  amount: bigint;
  tokenId: bigint | null;
  blockNumber: number;
  timestamp: number;
  logIndex: number;
  batchIndex: number;
  transactionHash: Hex;
}

/** The token transfers of these contracts, from their logs, newest first. */
export async function transfersOf(truth: ChainTruth, tokens: readonly string[]): Promise<ChainTransfer[]> {
  const result: ChainTransfer[] = [];
  const timestamps = new Map(truth.blocks.map((block) => [Number(block.number), Number(block.timestamp)]));
  for (const token of tokens) {
    for (const log of await logsOf(truth, token)) {
      // ERC-20 and ERC-721 Transfer share topic0: the topic count tells them apart.
      const candidates = (TOKEN_EVENTS as readonly AbiEvent[]).filter(
        (event) => event.inputs.filter((input) => input.indexed).length === log.topics.length - 1,
      );
      let decoded;
      try {
        decoded = decodeEventLog({ abi: candidates, topics: log.topics as [Hex, ...Hex[]], data: log.data, strict: true });
      } catch {
        continue;
      }
      const base = {
        chainId: truth.chainId,
        token: token.toLowerCase(),
        blockNumber: Number(log.blockNumber),
        timestamp: timestamps.get(Number(log.blockNumber))!,
        logIndex: log.logIndex!,
        transactionHash: log.transactionHash!,
      };
      const args = decoded.args as Record<string, unknown>;
      const lower = (value: unknown) => String(value).toLowerCase();
      if (decoded.eventName === 'Transfer' && 'value' in args) {
        result.push({
          ...base,
          standard: 'erc20',
          from: lower(args.from),
          to: lower(args.to),
          amount: args.value as bigint,
          tokenId: null,
          batchIndex: 0,
        });
      } else if (decoded.eventName === 'Transfer') {
        result.push({
          ...base,
          standard: 'erc721',
          from: lower(args.from),
          to: lower(args.to),
          amount: 1n,
          tokenId: args.tokenId as bigint,
          batchIndex: 0,
        });
      } else if (decoded.eventName === 'TransferSingle') {
        result.push({
          ...base,
          standard: 'erc1155',
          from: lower(args.from),
          to: lower(args.to),
          amount: args.value as bigint,
          tokenId: args.id as bigint,
          batchIndex: 0,
        });
      } else {
        for (const [batchIndex, id] of (args.ids as bigint[]).entries())
          result.push({
            ...base,
            standard: 'erc1155',
            from: lower(args.from),
            to: lower(args.to),
            amount: (args.values as bigint[])[batchIndex],
            tokenId: id,
            batchIndex,
          });
      }
    }
  }
  return result.sort((a, b) => b.blockNumber - a.blockNumber || b.logIndex - a.logIndex || b.batchIndex - a.batchIndex);
}

export const ZERO = '0x0000000000000000000000000000000000000000';

export function transferTypeOf(transfer: ChainTransfer): 'mint' | 'burn' | 'transfer' {
  return transfer.from === ZERO ? 'mint' : transfer.to === ZERO ? 'burn' : 'transfer';
}

/** The UTC bucket strings the API documents, computed here with Date. */
export function utcBuckets(seconds: number) {
  const date = new Date(seconds * 1000);
  const two = (value: number) => String(value).padStart(2, '0');
  const day = `${date.getUTCFullYear()}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())}`;
  return {
    date: day,
    day: `${day} 00:00:00`,
    hour: `${day} ${two(date.getUTCHours())}:00:00`,
    minute: `${day} ${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:00`,
  };
}

/** Reducers for bigint values (Math.min and Math.max take numbers only). */
export const smallest = (a: bigint, b: bigint): bigint => (b < a ? b : a);
export const largest = (a: bigint, b: bigint): bigint => (b > a ? b : a);
