/**
 * What the chain itself says, read with viem straight from anvil (blocks, receipts, logs, call
 * traces): the expected listings the explorer tests compare against. Nothing here reads the table or
 * the ingest's code, so an ingest or explorer mistake cannot hide in the expectation. Endpoint ids
 * (E3-E5): see docs/access-patterns.md.
 */
import { decodeEventLog, keccak256, parseAbi, toBytes, type PublicClient } from 'viem';

export type Direction = 'to' | 'from' | undefined;
const lower = (value: string): string => value.toLowerCase();

// ---------------------------------------------------------------------------------------------------
// Transactions (E4)

export interface ChainTransaction {
  hash: string;
  from: string;
  to: string | null;
  created: string | null;
  blockNumber: number;
  position: number;
}

export async function chainTransactions(client: PublicClient): Promise<ChainTransaction[]> {
  const head = await client.getBlockNumber();
  const found: ChainTransaction[] = [];
  for (let number = 0n; number <= head; number += 1n) {
    const block = await client.getBlock({ blockNumber: number, includeTransactions: true });
    for (const tx of block.transactions) {
      const receipt = tx.to ? undefined : await client.getTransactionReceipt({ hash: tx.hash });
      found.push({
        hash: lower(tx.hash),
        from: lower(tx.from),
        to: tx.to ? lower(tx.to) : null,
        created: receipt?.contractAddress ? lower(receipt.contractAddress) : null,
        blockNumber: Number(number),
        position: tx.transactionIndex!,
      });
    }
  }
  return found;
}

/** Blockscout's address transactions: `from`; `to` (or created); both. Newest first. */
export function expectedTransactions(all: ChainTransaction[], address: string, filter: Direction): string[] {
  const a = lower(address);
  return all
    .filter((t) => {
      const isFrom = t.from === a;
      const isTo = t.to === a || t.created === a;
      return filter === 'from' ? isFrom : filter === 'to' ? isTo : isFrom || isTo;
    })
    .sort((x, y) => y.blockNumber - x.blockNumber || y.position - x.position)
    .map((t) => t.hash);
}

// ---------------------------------------------------------------------------------------------------
// Internal transactions (E5): callTracer frames below the top call, depth first, numbered from 1

interface Frame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  error?: string;
  calls?: Frame[];
}

export interface ChainInternal {
  /** transaction|index|type|from|to or created|value|success: what a listing item must show. */
  key: string;
  from: string;
  to: string | null;
  created: string | null;
  blockNumber: number;
  transactionIndex: number;
  index: number;
}

export async function chainInternalTransactions(client: PublicClient): Promise<ChainInternal[]> {
  const head = await client.getBlockNumber();
  const found: ChainInternal[] = [];
  for (let number = 0n; number <= head; number += 1n) {
    const block = await client.getBlock({ blockNumber: number });
    for (const [transactionIndex, hash] of block.transactions.entries()) {
      const top = (await client.request({ method: 'debug_traceTransaction', params: [hash, { tracer: 'callTracer' }] } as never)) as Frame;
      let index = 0;
      const visit = (frame: Frame): void => {
        for (const call of frame.calls ?? []) {
          index += 1;
          const type = call.type.toLowerCase();
          const creates = type === 'create' || type === 'create2';
          const created = creates && !call.error ? lower(call.to!) : null;
          const to = creates ? null : lower(call.to!);
          const value = BigInt(call.value ?? '0x0').toString();
          const key = `${lower(hash)}|${index}|${type}|${lower(call.from)}|${to ?? created}|${value}|${!call.error}`;
          found.push({ key, from: lower(call.from), to, created, blockNumber: Number(number), transactionIndex, index });
          visit(call);
        }
      };
      visit(top);
    }
  }
  return found;
}

export function expectedInternalTransactions(all: ChainInternal[], address: string, filter: Direction): string[] {
  const a = lower(address);
  return all
    .filter((t) =>
      filter === 'from' ? t.from === a : filter === 'to' ? t.to === a || t.created === a : t.from === a || t.to === a || t.created === a,
    )
    .sort((x, y) => y.blockNumber - x.blockNumber || y.transactionIndex - x.transactionIndex || y.index - x.index)
    .map((t) => t.key);
}

/** The same key of an explorer internal transaction item. */
export const internalTransactionKey = (item: any): string =>
  `${item.transaction_hash}|${item.index}|${item.type}|${lower(item.from.hash)}|${lower(item.to?.hash ?? item.created_contract?.hash ?? 'null')}|${item.value}|${item.success}`;

// ---------------------------------------------------------------------------------------------------
// Token transfers (E3): from the logs, ERC-1155 batches flattened

const transferEvents = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
]);
const erc721Transfer = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)']);
const TRANSFER_TOPIC = keccak256(toBytes('Transfer(address,address,uint256)'));

export interface ChainTransfer {
  transactionHash: string;
  blockNumber: number;
  logIndex: number;
  position: number;
  token: string;
  standard: 'ERC-20' | 'ERC-721' | 'ERC-1155';
  from: string;
  to: string;
  value: string;
  tokenId: string | null;
}

export async function chainTransfers(client: PublicClient): Promise<ChainTransfer[]> {
  const logs = await client.getLogs({ fromBlock: 0n, toBlock: 'latest' });
  const transfers: ChainTransfer[] = [];
  for (const log of logs) {
    const base = {
      transactionHash: lower(log.transactionHash!),
      blockNumber: Number(log.blockNumber),
      logIndex: log.logIndex!,
      token: lower(log.address),
    };
    try {
      if (log.topics.length === 4 && log.topics[0] === TRANSFER_TOPIC) {
        const { args } = decodeEventLog({ abi: erc721Transfer, topics: log.topics, data: log.data });
        transfers.push({
          ...base,
          position: 0,
          standard: 'ERC-721',
          from: lower(args.from),
          to: lower(args.to),
          value: '1',
          tokenId: args.tokenId.toString(),
        });
        continue;
      }
      const event = decodeEventLog({ abi: transferEvents, topics: log.topics, data: log.data });
      if (event.eventName === 'Transfer') {
        transfers.push({
          ...base,
          position: 0,
          standard: 'ERC-20',
          from: lower(event.args.from),
          to: lower(event.args.to),
          value: event.args.value.toString(),
          tokenId: null,
        });
      } else if (event.eventName === 'TransferSingle') {
        const { from, to, id, value } = event.args;
        transfers.push({
          ...base,
          position: 0,
          standard: 'ERC-1155',
          from: lower(from),
          to: lower(to),
          value: value.toString(),
          tokenId: id.toString(),
        });
      } else {
        const { from, to, ids, values } = event.args;
        for (const [position, id] of ids.entries())
          transfers.push({
            ...base,
            position,
            standard: 'ERC-1155',
            from: lower(from),
            to: lower(to),
            value: values[position].toString(),
            tokenId: id.toString(),
          });
      }
    } catch {
      // not a transfer event
    }
  }
  return transfers;
}

/** The listing a filter should give, newest first: block desc, log index desc, batch position desc. */
export function expectedTransfers(
  all: ChainTransfer[],
  address: string,
  query: { filter?: Direction; types?: string[]; token?: string },
): string[] {
  const a = lower(address);
  return all
    .filter((t) => (query.filter === 'from' ? t.from === a : query.filter === 'to' ? t.to === a : t.from === a || t.to === a))
    .filter((t) => !query.types || query.types.includes(t.standard))
    .filter((t) => !query.token || t.token === lower(query.token))
    .sort((x, y) => y.blockNumber - x.blockNumber || y.logIndex - x.logIndex || y.position - x.position)
    .map((t) => `${t.transactionHash}|${t.logIndex}|${t.tokenId ?? '-'}|${t.value}`);
}

/** The same key of an explorer token transfer item. */
export const transferKey = (item: any): string =>
  `${item.transaction_hash}|${item.log_index}|${item.total.token_id ?? '-'}|${item.total.value}`;
