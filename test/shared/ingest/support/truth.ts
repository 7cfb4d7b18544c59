/**
 * What the table must hold for a range of blocks, worked out in the test from what viem reads from
 * the node directly (blocks, receipts, callTracer traces, eth_getCode, balanceOf at the head) and the
 * key design in keys.ts, without the ingest's own derivation code. Then compares it with a Scan of
 * the table: every canonical item exactly once, every index range exactly its expected entries, and
 * every state item equal to what the chain says at the head. Pattern ids (X1, X2): see docs/access-patterns.md.
 */
import {
  createPublicClient,
  decodeEventLog,
  erc1155Abi,
  erc20Abi,
  erc721Abi,
  http,
  parseAbi,
  toEventSelector,
  type Address,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import { expect } from 'vitest';
import {
  addressKeys,
  blockKeys,
  holderKeys,
  logKeys,
  nftKeys,
  tokenTransferKeys,
  tokenTypeSetKey,
  transactionKeys,
  type TokenStandard,
} from '../../../../shared/table/keys';
import { bucketGroupsOf, isBucket, MAX_BUCKET_ENTRIES, storedEntriesOf } from '../../../../shared/table/buckets';
import { tableSnapshot } from '../../../support/table';
import {
  expandBalance,
  expandChainRecord,
  expandInternalTransaction,
  expandLog,
  expandTokenTransfer,
  expandTransaction,
} from '../../../../shared/table/compact';
import { membersOf, unionOf } from '../../../../shared/table/union-ranges';
import { MAX_COPIED_DATA_BYTES, runningTotalOf, SUMMED_FIELDS } from '../../../../shared/table/records';
import { ownerOfRange, readHeadsItem } from '../../../../shared/ingest/range-heads';

const ZERO = '0x0000000000000000000000000000000000000000';
const TRANSFER = toEventSelector('Transfer(address,address,uint256)');
const SINGLE = toEventSelector('TransferSingle(address,address,address,uint256,uint256)');
const BATCH = toEventSelector('TransferBatch(address,address,address,uint256[],uint256[])');

export interface TruthTransfer {
  txHash: string;
  blockNumber: number;
  logIndex: number;
  batchIndex: number;
  token: string;
  standard: Exclude<TokenStandard, 'ERC-404'>;
  from: string;
  to: string;
  tokenId: bigint | null;
  amount: bigint;
}

export interface TruthCall {
  txHash: string;
  blockNumber: number;
  txIndex: number;
  index: number;
  type: string;
  from: string;
  to: string | null;
  created: string | null;
  value: bigint;
  error: string | null;
}

export interface ChainTruth {
  chainId: number;
  blocks: { number: number; hash: string; timestamp: number }[];
  transactions: {
    hash: string;
    blockNumber: number;
    index: number;
    from: string;
    to: string | null;
    created: string | null;
    value: bigint;
    input: Hex;
    status: number;
    gasUsed: bigint;
    toIsContract: boolean;
    /** The callTracer's error of the top-level frame, null when it has none. */
    error: string | null;
  }[];
  logs: { txHash: string; blockNumber: number; logIndex: number; address: string; topics: string[]; data: string }[];
  transfers: TruthTransfer[];
  calls: TruthCall[];
}

export function publicClient(rpcUrl: string): PublicClient {
  return createPublicClient({ transport: http(rpcUrl) }) as PublicClient;
}

interface Frame {
  type: string;
  from: string;
  to?: string;
  value?: Hex;
  error?: string;
  calls?: Frame[];
}

/** Reads blocks `from`..`to` with viem, plain calls, one block at a time. */
export async function readChainTruth(rpcUrl: string, from: number, to: number): Promise<ChainTruth> {
  const client = publicClient(rpcUrl);
  const truth: ChainTruth = { chainId: await client.getChainId(), blocks: [], transactions: [], logs: [], transfers: [], calls: [] };
  for (let number = from; number <= to; number += 1) {
    const block = await client.getBlock({ blockNumber: BigInt(number), includeTransactions: true });
    truth.blocks.push({ number, hash: block.hash!, timestamp: Number(block.timestamp) });
    const receipts: TransactionReceipt[] = await Promise.all(
      block.transactions.map((tx) => client.getTransactionReceipt({ hash: tx.hash })),
    );
    const traces = (await client.request({
      method: 'debug_traceBlockByNumber' as never,
      params: [`0x${number.toString(16)}`, { tracer: 'callTracer' }] as never,
    })) as { result: Frame }[];
    for (const [position, tx] of block.transactions.entries()) {
      const receipt = receipts[position];
      const code = tx.to ? await client.getCode({ address: tx.to, blockNumber: BigInt(number) }) : undefined;
      truth.transactions.push({
        hash: tx.hash,
        blockNumber: number,
        index: position,
        from: tx.from.toLowerCase(),
        to: tx.to?.toLowerCase() ?? null,
        created: receipt.contractAddress?.toLowerCase() ?? null,
        value: tx.value,
        input: tx.input,
        status: receipt.status === 'success' ? 1 : 0,
        gasUsed: receipt.gasUsed,
        toIsContract: Boolean(code && code !== '0x'),
        error: traces[position].result.error ?? null,
      });
      for (const log of receipt.logs) {
        truth.logs.push({
          txHash: tx.hash,
          blockNumber: number,
          logIndex: log.logIndex,
          address: log.address.toLowerCase(),
          topics: log.topics.map((t) => t.toLowerCase()),
          data: log.data.toLowerCase(),
        });
        truth.transfers.push(...transfersOf(tx.hash, number, log));
      }
      // Depth-first walk; the top-level call is index 0 and is not an internal transaction.
      let index = 0;
      const walk = (frame: Frame): void => {
        if (index > 0) {
          const type = frame.type.toLowerCase();
          const isCreate = type === 'create' || type === 'create2';
          truth.calls.push({
            txHash: tx.hash,
            blockNumber: number,
            txIndex: position,
            index,
            type: isCreate ? type : type === 'selfdestruct' ? 'selfdestruct' : 'call',
            from: frame.from.toLowerCase(),
            to: isCreate ? null : (frame.to?.toLowerCase() ?? null),
            created: isCreate && !frame.error ? (frame.to?.toLowerCase() ?? null) : null,
            value: frame.value ? BigInt(frame.value) : 0n,
            error: frame.error ?? null,
          });
        }
        index += 1;
        for (const child of frame.calls ?? []) walk(child);
      };
      walk(traces[position].result);
    }
  }
  return truth;
}

function transfersOf(
  txHash: string,
  blockNumber: number,
  log: { address: string; topics: Hex[]; data: Hex; logIndex: number },
): TruthTransfer[] {
  const base = { txHash, blockNumber, logIndex: log.logIndex, token: log.address.toLowerCase(), batchIndex: 0 };
  const topics = log.topics as [Hex, ...Hex[]];
  if (log.topics[0] === TRANSFER && log.topics.length === 3) {
    const { args } = decodeEventLog({ abi: erc20Abi, eventName: 'Transfer', topics, data: log.data });
    return [{ ...base, standard: 'ERC-20', from: args.from.toLowerCase(), to: args.to.toLowerCase(), tokenId: null, amount: args.value }];
  }
  if (log.topics[0] === TRANSFER && log.topics.length === 4) {
    const { args } = decodeEventLog({ abi: erc721Abi, eventName: 'Transfer', topics, data: log.data });
    return [{ ...base, standard: 'ERC-721', from: args.from.toLowerCase(), to: args.to.toLowerCase(), tokenId: args.tokenId, amount: 1n }];
  }
  if (log.topics[0] === SINGLE) {
    const { args } = decodeEventLog({ abi: erc1155Abi, eventName: 'TransferSingle', topics, data: log.data });
    return [
      { ...base, standard: 'ERC-1155', from: args.from.toLowerCase(), to: args.to.toLowerCase(), tokenId: args.id, amount: args.value },
    ];
  }
  if (log.topics[0] === BATCH) {
    const { args } = decodeEventLog({ abi: erc1155Abi, eventName: 'TransferBatch', topics, data: log.data });
    return args.ids.map((id, batchIndex) => ({
      ...base,
      batchIndex,
      standard: 'ERC-1155' as const,
      from: args.from.toLowerCase(),
      to: args.to.toLowerCase(),
      tokenId: id,
      amount: args.values[batchIndex],
    }));
  }
  return [];
}

/**
 * The type sets whose per-address ranges hold an entry of `standard` (a token transfer, a balance
 * listing, an NFT collection): its own standard and ALL only (two-standard requests merge
 * single-standard ranges).
 */
export const typeSetKeysOf = (standard: TokenStandard): string[] => [tokenTypeSetKey([standard]), tokenTypeSetKey(undefined)];

/** The keys of every record and index copy the blocks must have produced, with the record kind. */
export function expectedImmutableKeys(truth: ChainTruth, options: { traces: boolean } = { traces: true }): Map<string, string> {
  const { chainId } = truth;
  const keys = new Map<string, string>();
  const add = (pk: string, sk: string, kind: string) => keys.set(`${pk}\n${sk}`, kind);
  for (const block of truth.blocks) {
    const key = blockKeys.block(chainId, block.number);
    add(key.pk, key.sk, 'block');
    const byHash = blockKeys.blockByHash(chainId, block.hash);
    add(byHash.pk, byHash.sk, 'block');
  }
  for (const tx of truth.transactions) {
    const canonical = transactionKeys.transaction(chainId, tx.hash);
    add(canonical.pk, canonical.sk, 'transaction');
    const sk = transactionKeys.sortKey(tx.blockNumber, tx.index);
    // An address's `all` range is the union of its `to` and `from` ranges (no items of its own).
    const touch = (address: string, direction: 'from' | 'to') => {
      add(addressKeys.transactions(chainId, address, direction).pk, sk, 'transaction');
    };
    touch(tx.from, 'from');
    if (tx.to) touch(tx.to, 'to');
    if (tx.created) touch(tx.created, 'to');
    const selector = tx.input.length >= 10 ? tx.input.slice(0, 10).toLowerCase() : null;
    if (tx.to && selector && tx.toIsContract) {
      add(transactionKeys.callsToContract(chainId, tx.to, selector).pk, sk, 'transaction');
      add(transactionKeys.callsToContract(chainId, tx.to, selector, tx.from).pk, sk, 'transaction');
      add(transactionKeys.callsWithSelector(chainId, selector).pk, sk, 'transaction');
    }
  }
  for (const log of truth.logs) {
    const canonical = transactionKeys.transactionLog(chainId, log.txHash, log.logIndex);
    add(canonical.pk, canonical.sk, 'log');
    const sk = logKeys.sortKey(log.blockNumber, log.logIndex);
    add(logKeys.contractLogs(chainId, log.address).pk, sk, 'log');
    if (log.topics[0]) {
      add(logKeys.contractLogsWithTopic0(chainId, log.address, log.topics[0]).pk, sk, 'log');
      add(logKeys.logsWithTopic0(chainId, log.topics[0]).pk, sk, 'log');
    }
  }
  for (const transfer of truth.transfers) {
    const canonical = transactionKeys.transactionTokenTransfer(chainId, transfer.txHash, transfer.logIndex, transfer.batchIndex);
    add(canonical.pk, canonical.sk, 'tokenTransfer');
    const sk = tokenTransferKeys.sortKey(transfer.blockNumber, transfer.logIndex, transfer.batchIndex);
    add(tokenTransferKeys.byToken(chainId, transfer.token).pk, sk, 'tokenTransfer');
    // N16: an NFT's own transfers.
    if (transfer.tokenId !== null) add(tokenTransferKeys.byTokenId(chainId, transfer.token, transfer.tokenId).pk, sk, 'tokenTransfer');
    for (const [address, direction] of [
      [transfer.from, 'from'],
      [transfer.to, 'to'],
    ] as const) {
      if (address === ZERO) continue;
      for (const set of typeSetKeysOf(transfer.standard))
        add(tokenTransferKeys.byAddress(chainId, address, direction, set).pk, sk, 'tokenTransfer');
      add(tokenTransferKeys.byAddressAndToken(chainId, address, direction, transfer.token, transfer.standard).pk, sk, 'tokenTransfer');
    }
  }
  if (options.traces) {
    // In its sides' ranges only: no canonical item (issue 27, lever 10).
    for (const call of truth.calls) {
      const sk = addressKeys.internalTransactionSortKey(call.blockNumber, call.txIndex, call.index);
      for (const [address, direction] of [
        [call.from, 'from'],
        [call.to, 'to'],
        [call.created, 'to'],
      ] as const) {
        if (!address) continue;
        add(addressKeys.internalTransactions(chainId, address, direction).pk, sk, 'internalTransaction');
      }
    }
  }
  return keys;
}

const IMMUTABLE_KINDS = new Set(['block', 'transaction', 'log', 'tokenTransfer', 'internalTransaction', 'withdrawal']);

/**
 * Every counted range's positions are 1..n in sort-key order and every union's `upos` too (a
 * self-transfer once), whatever told the ingest where a range stood (its map, an address's range
 * heads, the table); every range heads item (shared/ingest/range-heads.ts) says where each range it
 * lists stands and lists every range of the families it calls complete. Returns the counted ranges.
 */
export function expectRangePositions(stored: readonly Record<string, unknown>[]): number {
  // Block buckets' entries (table/buckets.ts) as the items they stand for: a range's entries are in
  // buckets and items of their own alike.
  const items = stored.flatMap((item) => storedEntriesOf(item));
  // Union ranges (an address's `all`): every entry of a `to` or `from` range carries its position in
  // the union of the two, both entries of a self-transfer the same one.
  const unions = new Map<string, Record<string, unknown>[]>();
  for (const item of items) {
    // Counted ranges only (entries with `pos`): X5's union is merged by the table layer, never numbered.
    const union = IMMUTABLE_KINDS.has(String(item.kind)) && typeof item.pos === 'number' ? unionOf(String(item.pk)) : undefined;
    if (union !== undefined) unions.set(union, [...(unions.get(union) ?? []), item]);
  }
  for (const [union, entries] of unions) {
    const keys = [...new Set(entries.map((entry) => String(entry.sk)))].sort();
    for (const entry of entries) expect(entry.upos, `${union} ${entry.sk}`).toBe(keys.indexOf(String(entry.sk)) + 1);
  }

  // Every counted range (entries with `pos`, unions aside): positions 1..n in sort-key order, whatever
  // told the ingest where the range stood (its map, an address's range heads, the table).
  const counted = new Map<string, Record<string, unknown>[]>();
  for (const item of items) {
    if (!IMMUTABLE_KINDS.has(String(item.kind)) || typeof item.pos !== 'number') continue;
    counted.set(String(item.pk), [...(counted.get(String(item.pk)) ?? []), item]);
  }
  for (const [pk, entries] of counted) {
    entries.sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : 1));
    expect(
      entries.map((entry) => entry.pos),
      `positions of ${pk}`,
    ).toEqual(entries.map((_, index) => index + 1));
    // Running totals (records.ts SUMMED_FIELDS): each entry's is the sum of its record's field over the
    // range up to itself.
    for (const field of SUMMED_FIELDS[String(entries[0]?.kind)] ?? []) {
      let sum = 0n;
      const expected: string[] = [];
      for (const entry of entries) {
        const value = expandChainRecord(entry)[field];
        sum += value === null || value === undefined ? 0n : BigInt(value as string | number);
        expected.push(sum.toString());
      }
      expect(
        entries.map((entry) => runningTotalOf(entry, field)?.toString()),
        `running totals of ${field} in ${pk}`,
      ).toEqual(expected);
    }
  }

  // Range heads (shared/ingest/range-heads.ts): each address's item says where every range it lists
  // stands (the last entry's position and block), and lists every range the address owns with entries
  // for the families it says are complete.
  const lastOf = (pk: string): Record<string, unknown> | undefined => {
    const union = membersOf(pk);
    const entries = union ? [...(counted.get(union[0]) ?? []), ...(counted.get(union[1]) ?? [])] : (counted.get(pk) ?? []);
    return entries.reduce<Record<string, unknown> | undefined>(
      (last, entry) => (!last || String(entry.sk) > String(last.sk) ? entry : last),
      undefined,
    );
  };
  for (const item of items.filter((candidate) => candidate.kind === 'rangeHeads')) {
    const [, chain, owner] = /^C#(\d+)#ADDR#(0x[0-9a-f]{40})$/.exec(String(item.pk))!;
    const heads = readHeadsItem(Number(chain), owner!, item);
    for (const [pk, head] of heads.ranges) {
      const last = lastOf(pk);
      expect(last, `${pk}: listed by ${owner}'s range heads`).toBeDefined();
      const position = membersOf(pk) ? last!.upos : last!.pos;
      expect({ position: head.position, block: head.block }, `${owner}'s head of ${pk}`).toEqual({
        position,
        block: Number(String(last!.sk).slice(0, 12)),
      });
    }
    for (const pk of [...counted.keys(), ...unions.keys()]) {
      const owned = ownerOfRange(pk);
      if (owned?.owner === owner && heads.complete.has(owned.family))
        expect(heads.ranges.has(pk), `${owner}'s heads list ${pk}`).toBe(true);
    }
  }
  return counted.size;
}

export interface ImmutableCheckOptions {
  traces: boolean;
  /**
   * How a transaction's `error` is compared with the callTracer's top-level error: `exact` (the
   * ingest read callTracer traces) or `presence` (it read parity traces, whose wording differs:
   * an error exactly when the callTracer has one). Without traces it must be null. Default exact.
   */
  errors?: 'exact' | 'presence';
}

/**
 * The table's immutable items are exactly the expected ones (no missing, no extra key), and the
 * canonical records carry what the node says.
 */
export async function expectImmutableItems(
  table: string,
  truth: ChainTruth,
  options: ImmutableCheckOptions = { traces: true },
): Promise<Record<string, unknown>[]> {
  const stored = await tableSnapshot(table);
  // Block buckets (table/buckets.ts): at most MAX_BUCKET_ENTRIES entries of one block, in order, keyed by the first;
  // a log whose index copies leave its data out is an item of its own at its key (readers get its data by key).
  for (const bucket of stored.filter(isBucket)) {
    const entries = storedEntriesOf(bucket);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.length).toBeLessThanOrEqual(MAX_BUCKET_ENTRIES);
    expect(entries[0].sk).toBe(bucket.sk);
    const keys = entries.map((entry) => String(entry.sk));
    expect(keys, 'a bucket holds its entries in order').toEqual([...keys].sort());
    // One block's (a transaction's partition: one kind of its records, its logs or its transfers).
    expect(new Set(keys.map(bucketGroupsOf(String(bucket.pk)))).size, 'a bucket holds one block').toBe(1);
  }
  const ownItems = new Set(stored.filter((item) => !isBucket(item)).map((item) => `${item.pk}\n${item.sk}`));
  for (const log of truth.logs) {
    if ((log.data.length - 2) / 2 <= MAX_COPIED_DATA_BYTES) continue;
    const key = transactionKeys.transactionLog(truth.chainId, log.txHash, log.logIndex);
    expect(ownItems.has(`${key.pk}\n${key.sk}`), `log ${log.txHash} ${log.logIndex} with long data: an item of its own`).toBe(true);
  }
  const items = stored.flatMap((item) => storedEntriesOf(item));
  const expected = expectedImmutableKeys(truth, options);
  const actual = new Map(
    items.filter((item) => IMMUTABLE_KINDS.has(String(item.kind))).map((item) => [`${item.pk}\n${item.sk}`, String(item.kind)]),
  );
  const missing = [...expected.keys()].filter((key) => !actual.has(key));
  const extra = [...actual.keys()].filter((key) => !expected.has(key));
  expect(missing, 'items missing from the table').toEqual([]);
  expect(extra, 'items the chain does not justify').toEqual([]);
  expect(actual).toEqual(expected);

  // N16 ranges are counted (page numbers; their positions are checked with every counted range's below).
  const nftRanges = new Map<string, Record<string, unknown>[]>();
  for (const item of items) {
    if (!/#TT#0x[0-9a-f]{40}#ID#\d+$/.test(String(item.pk))) continue;
    nftRanges.set(String(item.pk), [...(nftRanges.get(String(item.pk)) ?? []), item]);
  }
  expect(nftRanges.size, 'N16 ranges').toBe(
    new Set(truth.transfers.flatMap((t) => (t.tokenId === null ? [] : [`${t.token}#${t.tokenId}`]))).size,
  );

  expectRangePositions(items);

  const byKey = new Map(items.map((item) => [`${item.pk}\n${item.sk}`, item]));
  // Items store compacted records (shared/table/compact.ts): compare the records they expand to.
  const expand = {
    transaction: expandTransaction,
    log: expandLog,
    tokenTransfer: expandTokenTransfer,
    internalTransaction: expandInternalTransaction,
  } as Record<string, (item: object) => object>;
  const get = (key: { pk: string; sk: string }) => {
    const item = byKey.get(`${key.pk}\n${key.sk}`) as Record<string, any>;
    return (expand[String(item?.kind)]?.(item) ?? item) as Record<string, any>;
  };
  for (const tx of truth.transactions) {
    const item = get(transactionKeys.transaction(truth.chainId, tx.hash));
    expect({
      from: item.from,
      to: item.to,
      value: item.value,
      status: item.status,
      gasUsed: item.gasUsed,
      created: item.contractAddress,
      block: item.blockNumber,
      index: item.transactionIndex,
    }).toEqual({
      from: tx.from,
      to: tx.to,
      value: tx.value.toString(),
      status: tx.status,
      gasUsed: Number(tx.gasUsed),
      created: tx.created,
      block: tx.blockNumber,
      index: tx.index,
    });
    // The top-level call's tracer error: null on success and when the node gave no traces.
    if (!options.traces) expect(item.error, `error of ${tx.hash}`).toBeNull();
    else if (options.errors === 'presence') expect(item.error === null, `error of ${tx.hash}: ${item.error}`).toBe(tx.error === null);
    else expect(item.error, `error of ${tx.hash}`).toBe(tx.error);
    if (tx.status === 1) expect(item.error).toBeNull();
  }
  for (const log of truth.logs) {
    const item = get(transactionKeys.transactionLog(truth.chainId, log.txHash, log.logIndex));
    expect({ address: item.address, topics: item.topics, data: item.data }).toEqual({
      address: log.address,
      topics: log.topics,
      data: log.data,
    });
  }
  for (const transfer of truth.transfers) {
    const item = get(transactionKeys.transactionTokenTransfer(truth.chainId, transfer.txHash, transfer.logIndex, transfer.batchIndex));
    expect({
      token: item.token,
      standard: item.tokenStandard,
      from: item.from,
      to: item.to,
      amount: item.amount,
      tokenId: item.tokenId,
    }).toEqual({
      token: transfer.token,
      standard: transfer.standard,
      from: transfer.from,
      to: transfer.to,
      amount: transfer.amount.toString(),
      tokenId: transfer.tokenId === null ? null : transfer.tokenId.toString(),
    });
  }
  if (options.traces) {
    for (const call of truth.calls) {
      const item = get({
        pk: addressKeys.internalTransactions(truth.chainId, call.from, 'from').pk,
        sk: addressKeys.internalTransactionSortKey(call.blockNumber, call.txIndex, call.index),
      });
      // The error text is the tracer's own ("execution reverted", "Reverted"): compare the outcome.
      expect({
        type: item.type,
        from: item.from,
        to: item.to,
        created: item.createdContract,
        value: item.value,
        success: item.success,
      }).toEqual({
        type: call.type,
        from: call.from,
        to: call.to,
        created: call.created,
        value: call.value.toString(),
        success: call.error === null,
      });
    }
  }
  return items;
}

/**
 * State items against the chain at the truth's last block: every balance item equals balanceOf (ERC-1155 totals the
 * sum of the per-id balances), every holder with a positive balance has one, the X1 listing holds
 * each balance once per type set, holder counts, ERC-721 owners and collections agree.
 */
export async function expectStateMatchesChain(table: string, truth: ChainTruth, rpcUrl: string): Promise<void> {
  const client = publicClient(rpcUrl);
  const { chainId } = truth;
  const blockNumber = BigInt(truth.blocks.at(-1)!.number);
  const items = (await tableSnapshot(table)) as Record<string, any>[];
  const byKey = new Map(items.map((item) => [`${item.pk}\n${item.sk}`, item]));
  const get = (key: { pk: string; sk: string }) => byKey.get(`${key.pk}\n${key.sk}`);

  // The (holder, token, id) the transfers touched, and their balance at the head.
  const touched = new Map<string, { holder: string; token: string; standard: string; tokenId: bigint | null }>();
  for (const t of truth.transfers) {
    for (const holder of [t.from, t.to]) {
      if (holder === ZERO) continue;
      const tokenId = t.standard === 'ERC-1155' ? t.tokenId : null;
      touched.set(`${holder}|${t.token}|${tokenId ?? '-'}`, { holder, token: t.token, standard: t.standard, tokenId });
    }
  }
  const onChain = new Map<string, bigint>();
  for (const [id, entry] of touched) {
    const value =
      entry.tokenId === null
        ? await client.readContract({
            address: entry.token as Address,
            abi: erc20Abi,
            functionName: 'balanceOf',
            args: [entry.holder as Address],
            blockNumber,
          })
        : await client.readContract({
            address: entry.token as Address,
            abi: erc1155Abi,
            functionName: 'balanceOf',
            args: [entry.holder as Address, entry.tokenId],
            blockNumber,
          });
    onChain.set(id, value);
  }
  const totals = new Map<string, bigint>();
  for (const [id, entry] of touched) {
    if (entry.standard === 'ERC-1155')
      totals.set(`${entry.holder}|${entry.token}`, (totals.get(`${entry.holder}|${entry.token}`) ?? 0n) + onChain.get(id)!);
  }

  // As readers get them (the table layer expands them: compact.ts expandBalance).
  const balanceItems = items.filter((item) => item.kind === 'balance').map((item) => expandBalance(item));
  // T1: ERC-20 and ERC-1155 per-id balances are on gsi2 (holderKeys.listing); ERC-721 balances and
  // ERC-1155 totals are not.
  const holderIndex = (e: { holder: string; token: string; standard: string; tokenId: bigint | null }, value: bigint) =>
    e.standard === 'ERC-20' || (e.standard === 'ERC-1155' && e.tokenId !== null)
      ? holderKeys.listing(chainId, e.token, e.tokenId, value, e.holder)
      : { gsi2pk: null, gsi2sk: null };
  const expectedBalances = [
    ...[...touched.entries()]
      .filter(([id]) => onChain.get(id)! > 0n)
      .map(([id, e]) => ({
        holder: e.holder,
        token: e.token,
        tokenId: e.tokenId?.toString() ?? null,
        value: onChain.get(id)!.toString(),
        ...holderIndex(e, onChain.get(id)!),
      })),
    ...[...totals.entries()]
      .filter(([, v]) => v > 0n)
      .map(([id, v]) => ({
        holder: id.split('|')[0],
        token: id.split('|')[1],
        tokenId: null,
        value: v.toString(),
        gsi2pk: null,
        gsi2sk: null,
      })),
  ];
  const sortBalances = (list: { holder: string; token: string; tokenId: string | null; value: string }[]) =>
    [...list].sort((a, b) => `${a.holder}${a.token}${a.tokenId}`.localeCompare(`${b.holder}${b.token}${b.tokenId}`));
  expect(
    sortBalances(
      balanceItems.map((i) => ({
        holder: i.holder,
        token: i.token,
        tokenId: i.tokenId,
        value: i.value,
        gsi2pk: i.gsi2pk ?? null,
        gsi2sk: i.gsi2sk ?? null,
      })),
    ),
  ).toEqual(sortBalances(expectedBalances));

  // X10: per holder, the listed positive balances of each standard (ERC-1155: (token, id) pairs); a
  // count is stored only while positive, the item only while one is.
  const expectedCounts = new Map<string, Record<string, number>>();
  for (const [id, entry] of touched) {
    if (onChain.get(id)! === 0n) continue;
    const counts = expectedCounts.get(entry.holder) ?? {};
    counts[entry.standard] = (counts[entry.standard] ?? 0) + 1;
    expectedCounts.set(entry.holder, counts);
  }
  const countItems = items.filter((item) => item.kind === 'balanceCounts');
  for (const item of countItems) expect({ pk: item.pk, sk: item.sk }).toEqual(addressKeys.balanceCounts(chainId, item.holder));
  const storedCounts = (item: Record<string, any>) =>
    Object.fromEntries(
      ['ERC-20', 'ERC-721', 'ERC-1155', 'ERC-404'].flatMap((standard) => (standard in item ? [[standard, item[standard]]] : [])),
    );
  expect(Object.fromEntries(countItems.map((item) => [item.holder, storedCounts(item)])), 'X10 balance counts by holder').toEqual(
    Object.fromEntries(expectedCounts),
  );

  // X1: every positive balance but the ERC-1155 total carries its listing key on gsi3 (its standard's
  // range, the sort key of its value, name, token and id); the total carries none; no listing item is
  // written of its own.
  for (const b of balanceItems) {
    const listed = !(b.tokenStandard === 'ERC-1155' && b.tokenId === null);
    expect({ gsi3pk: b.gsi3pk ?? null, gsi3sk: b.gsi3sk ?? null }, `X1 key of ${b.pk} ${b.sk}`).toEqual(
      listed
        ? addressKeys.balanceListing(chainId, b.holder, b.tokenStandard, b.value, b.tokenName, b.token, b.tokenId)
        : { gsi3pk: null, gsi3sk: null },
    );
  }
  expect(items.filter((item) => item.kind === 'balanceListing' || String(item.pk).includes('#BALS#'))).toEqual([]);

  // Holder counts on the token items.
  const holders = new Map<string, Set<string>>();
  for (const b of balanceItems) {
    if (b.tokenStandard === 'ERC-1155' && b.tokenId !== null) continue;
    holders.set(b.token, (holders.get(b.token) ?? new Set()).add(b.holder));
  }
  for (const token of new Set(truth.transfers.map((t) => t.token))) {
    const item = get(addressKeys.address(chainId, token));
    expect(item?.holders ?? 0, `holders of ${token}`).toBe(holders.get(token)?.size ?? 0);
  }

  // The NFT contracts' counters: instances (every id transferred, burned ones included) and ERC-1155
  // (holder, id) pairs with a positive balance.
  const instancesOf = new Map<string, Set<string>>();
  for (const t of truth.transfers) {
    if (t.tokenId === null) continue;
    instancesOf.set(t.token, (instancesOf.get(t.token) ?? new Set()).add(t.tokenId.toString()));
  }
  const idHoldersOf = new Map<string, number>();
  for (const [id, entry] of touched) {
    if (entry.standard === 'ERC-1155' && onChain.get(id)! > 0n) idHoldersOf.set(entry.token, (idHoldersOf.get(entry.token) ?? 0) + 1);
  }
  for (const token of new Set(truth.transfers.map((t) => t.token))) {
    const item = get(addressKeys.address(chainId, token));
    expect(
      { nftInstances: item?.nftInstances ?? 0, idHolders: item?.idHolders ?? 0 },
      `instance and (holder, id) counts of ${token}`,
    ).toEqual({ nftInstances: instancesOf.get(token)?.size ?? 0, idHolders: idHoldersOf.get(token) ?? 0 });
  }

  // ERC-721 owners and collections.
  for (const t of truth.transfers.filter((t) => t.standard === 'ERC-721')) {
    const owner = await client
      .readContract({ address: t.token as Address, abi: erc721Abi, functionName: 'ownerOf', args: [t.tokenId!], blockNumber })
      .then(
        (o) => o.toLowerCase(),
        () => null,
      );
    expect(get(nftKeys.instance(chainId, t.token, t.tokenId!))?.owner ?? null, `owner of ${t.token} #${t.tokenId}`).toBe(owner);
  }
  // Collections: the amount, and the number of distinct ids held (ERC-721: the balance; ERC-1155:
  // the ids with a positive balanceOf at the head).
  const idsHeld = new Map<string, number>();
  for (const [id, entry] of touched) {
    if (entry.standard === 'ERC-1155' && onChain.get(id)! > 0n)
      idsHeld.set(`${entry.holder}|${entry.token}`, (idsHeld.get(`${entry.holder}|${entry.token}`) ?? 0) + 1);
  }
  const collections = items.filter((item) => item.kind === 'nftCollection' && item.pk.endsWith('#NFTCOL#ALL'));
  const expectedCollections = balanceItems
    .filter((b) => (b.tokenStandard === 'ERC-721' || b.tokenStandard === 'ERC-1155') && b.tokenId === null)
    .map(
      (b) => `${b.holder}|${b.token}|${b.value}|${b.tokenStandard === 'ERC-721' ? Number(b.value) : idsHeld.get(`${b.holder}|${b.token}`)}`,
    );
  expect(collections.map((c) => `${c.holder}|${c.contract}|${c.amount}|${c.distinctTokenIds}`).sort()).toEqual(expectedCollections.sort());
  // X2: each collection in its standard's range and in ALL, and in no other range.
  const collectionRanges = balanceItems
    .filter((b) => (b.tokenStandard === 'ERC-721' || b.tokenStandard === 'ERC-1155') && b.tokenId === null)
    .flatMap((b) => typeSetKeysOf(b.tokenStandard).map((set) => `${addressKeys.nftCollections(chainId, b.holder, set).pk}|${b.token}`));
  expect(
    items
      .filter((item) => item.kind === 'nftCollection')
      .map((c) => `${c.pk}|${c.contract}`)
      .sort(),
  ).toEqual(collectionRanges.sort());

  // ERC-1155 ids: holders with a positive balance, their sum, and the total supply: the contract's
  // totalSupply(id) at the head when it has one, else that sum.
  const ids = new Map<string, { token: string; tokenId: bigint; holders: number; held: bigint }>();
  for (const [id, entry] of touched) {
    if (entry.standard !== 'ERC-1155') continue;
    const key = `${entry.token}|${entry.tokenId}`;
    const value = onChain.get(id)!;
    const current = ids.get(key) ?? { token: entry.token, tokenId: entry.tokenId!, holders: 0, held: 0n };
    ids.set(key, { ...current, holders: current.holders + (value > 0n ? 1 : 0), held: current.held + value });
  }
  for (const { token, tokenId, holders: idHolders, held } of ids.values()) {
    const supply = await client
      .readContract({ address: token as Address, abi: erc1155SupplyAbi, functionName: 'totalSupply', args: [tokenId], blockNumber })
      .then(
        (value) => value.toString(),
        () => null,
      );
    const instance = get(nftKeys.instance(chainId, token, tokenId));
    expect(
      {
        holders: instance?.holders ?? 0,
        heldSupply: instance?.heldSupply ?? '0',
        totalSupply: instance?.totalSupply,
        source: instance?.totalSupplySource,
      },
      `ERC-1155 ${token} #${tokenId}`,
    ).toEqual({
      holders: idHolders,
      heldSupply: held.toString(),
      totalSupply: supply ?? held.toString(),
      source: supply === null ? 'holders' : 'totalSupply',
    });
  }
  for (const t of truth.transfers.filter((t) => t.standard === 'ERC-721')) {
    expect(get(nftKeys.instance(chainId, t.token, t.tokenId!))).toMatchObject({ totalSupply: null, totalSupplySource: null });
  }
}

const erc1155SupplyAbi = parseAbi(['function totalSupply(uint256 id) view returns (uint256)']);

/** Items of state kinds, with the block they were written at left out (a reorg writes them at the ancestor). */
export function stateView(items: Record<string, unknown>[]): Record<string, unknown>[] {
  const stateKinds = new Set(['balance', 'balanceCounts', 'nftInstance', 'nftHolding', 'nftCollection', 'address', 'name', 'nameOnChains']);
  return items.filter((item) => stateKinds.has(String(item.kind))).map(({ updatedAtBlock: _u, ...rest }) => rest);
}
