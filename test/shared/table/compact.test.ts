/**
 * The compact item shapes (shared/table/compact.ts): every record expands back to itself from what an
 * item of any of its ranges stores, old (whole) items expand to themselves, fields a FilterExpression
 * reads stay, and the logs bloom encoding is exact.
 */
import { describe, expect, it } from 'vitest';
import {
  COMPACTION_RULES,
  compactBalance,
  compactBlock,
  compactInternalTransaction,
  compactLog,
  compactTokenTransfer,
  compactTransaction,
  decodeBloom,
  encodeBloom,
  expandBalance,
  expandBlock,
  expandInternalTransaction,
  expandLog,
  expandTokenTransfer,
  expandTransaction,
  readItem,
} from '../../../shared/table/compact';
import { addressKeys, blockKeys, holderKeys, logKeys, tokenTransferKeys, transactionKeys } from '../../../shared/table/keys';
import { itemSize } from '../../../scripts/bench/lib/write-families';
import { PACKED_ATTRIBUTE, unpackItem } from '../../../shared/table/pack';
import type { InternalTransactionRecord } from '../../../shared/table/records';
import type { BalanceRecord, BlockRecord, LogRecord, TokenTransferRecord, TransactionRecord } from '../../../shared/table/records';

const hex = (digits: number, fill: string) => `0x${fill.repeat(digits)}`;
const ZERO_BLOOM = `0x${'0'.repeat(512)}`;

/** A bloom with the given bits set (bit 0 = the most significant bit of byte 0). */
function bloomWith(bits: readonly number[]): string {
  const bytes = new Uint8Array(256);
  for (const bit of bits) bytes[bit >> 3] = (bytes[bit >> 3] as number) | (0x80 >> (bit & 7));
  return `0x${Buffer.from(bytes).toString('hex')}`;
}

const transfer: TransactionRecord = {
  kind: 'transaction',
  chainId: 31337,
  hash: hex(64, 'a'),
  blockNumber: 1234,
  blockHash: hex(64, 'b'),
  blockTimestamp: 1_764_000_000,
  transactionIndex: 2,
  from: hex(40, 'c'),
  to: hex(40, 'd'),
  value: '0',
  input: `0xa9059cbb${'0'.repeat(24)}${'e'.repeat(40)}${'0'.repeat(62)}01`,
  inputOmitted: false,
  inputSize: 68,
  methodSelector: '0xa9059cbb',
  nonce: 12,
  gas: 90_000,
  gasPrice: '1875000000',
  maxFeePerGas: '50000000000',
  maxPriorityFeePerGas: '1000000000',
  type: 2,
  r: hex(64, '1'),
  s: hex(64, '2'),
  v: '1',
  yParity: 1,
  accessListJson: '[]',
  authorizationListJson: null,
  status: 1,
  gasUsed: 34_567,
  cumulativeGasUsed: 98_765,
  effectiveGasPrice: '1875000000',
  contractAddress: null,
  logsBloom: bloomWith([3, 700, 701, 1500, 2047]),
  blobGasUsed: null,
  blobGasPrice: null,
  logCount: 1,
  baseFeePerGas: '875000000',
  fee: (34_567n * 1_875_000_000n).toString(),
  burntFee: (34_567n * 875_000_000n).toString(),
  priorityFee: (34_567n * 1_000_000_000n).toString(),
  revertReason: null,
  transactionTypes: ['token_transfer', 'contract_call'],
  error: null,
  hasErrorInInternalTransactions: false,
  tokenTransferCount: 1,
  tracesAvailable: true,
};

const variants: [string, TransactionRecord][] = [
  ['an ERC-20 transfer', transfer],
  [
    'a legacy native transfer with a zero bloom',
    {
      ...transfer,
      to: hex(40, 'f'),
      value: '1000',
      input: '0x',
      inputSize: 0,
      methodSelector: null,
      type: 0,
      maxFeePerGas: null,
      maxPriorityFeePerGas: null,
      accessListJson: null,
      logsBloom: ZERO_BLOOM,
      logCount: 0,
      transactionTypes: ['coin_transfer'],
      tokenTransferCount: 0,
    },
  ],
  [
    'a failed contract creation without traces, its fields off every default',
    {
      ...transfer,
      to: null,
      contractAddress: hex(40, '9'),
      status: 0,
      revertReason: 'panic: overflow (0x11)',
      error: null,
      tracesAvailable: false,
      hasErrorInInternalTransactions: true,
      transactionTypes: ['contract_creation', 'token_creation'],
      accessListJson: '[{"address":"0x01","storageKeys":[]}]',
      effectiveGasPrice: '1900000000',
      fee: '1',
      burntFee: '2',
      priorityFee: '3',
      baseFeePerGas: null,
      logsBloom: bloomWith(Array.from({ length: 300 }, (_, i) => i * 6)),
    },
  ],
  ['a copy that left out its input', { ...transfer, input: null, inputOmitted: true }],
  ['a call to an account without code', { ...transfer, transactionTypes: ['token_transfer'] }],
];

describe('transactions', () => {
  const keys = [
    ['canonical', transactionKeys.transaction(31337, transfer.hash)],
    ['X4 copy', { pk: addressKeys.transactions(31337, transfer.from, 'all').pk, sk: transactionKeys.sortKey(1234, 2) }],
    ['N3 copy', { pk: transactionKeys.callsToContract(31337, transfer.to!, '0xa9059cbb').pk, sk: transactionKeys.sortKey(1234, 2) }],
  ] as const;

  it.each(variants)('%s expands back to itself from every item', (_label, tx) => {
    for (const [, key] of keys) {
      const stored = compactTransaction(tx, key);
      const { pk: _pk, sk: _sk, ...expanded } = expandTransaction({ ...stored, ...key });
      expect(expanded, JSON.stringify(key)).toEqual(tx);
    }
  });

  it('stores well under 1 KB what the list needs, everything but the key and kind packed', () => {
    const [, canonical] = keys[0];
    const stored = compactTransaction(transfer, canonical);
    // Insights checks the expanded record (range-reader.ts): no checked field stays apart.
    expect(Object.keys(stored).sort()).toEqual([PACKED_ATTRIBUTE, 'kind'].sort());
    expect(unpackItem(stored)).toMatchObject({ from: transfer.from, to: transfer.to, value: '0', gasPrice: '1875000000' });
    expect(unpackItem(stored)).not.toHaveProperty('fee');
    expect(unpackItem(stored)).not.toHaveProperty('hash');
    // Packed with the fields no expression names (pack.ts): the bloom as its set bits.
    expect(stored).not.toHaveProperty('logsBloom');
    expect(String(unpackItem(stored).logsBloom)).toMatch(/^~[0-9a-f]{15}$/);
    const [, callKey] = keys[2];
    const copy = compactTransaction(transfer, callKey);
    expect(unpackItem(copy)).toMatchObject({ gas: 90_000 });
    expect(unpackItem(copy)).not.toHaveProperty('blockNumber');
    expect(unpackItem(copy)).not.toHaveProperty('transactionIndex');
    // DynamoDB's size (names + values): one write unit, with room for its range position.
    expect(itemSize({ ...copy, ...callKey, pos: 123_456 })).toBeLessThan(900);
    expect(itemSize({ ...stored, ...canonical })).toBeLessThan(900);
  });

  it('leaves out the address a per-address or per-contract key names', () => {
    const sk = transactionKeys.sortKey(1234, 2);
    const fromCopy = compactTransaction(transfer, { pk: addressKeys.transactions(31337, transfer.from, 'all').pk, sk });
    expect(unpackItem(fromCopy)).not.toHaveProperty('from');
    expect(unpackItem(fromCopy)).toHaveProperty('to', transfer.to);
    const toKey = { pk: addressKeys.transactions(31337, transfer.to!, 'all').pk, sk };
    const toCopy = compactTransaction(transfer, toKey);
    expect(unpackItem(toCopy)).toHaveProperty('from', transfer.from);
    expect(unpackItem(toCopy)).not.toHaveProperty('to');
    const selfSend = { ...transfer, to: transfer.from };
    for (const direction of ['from', 'to', 'all'] as const) {
      const key = { pk: addressKeys.transactions(31337, transfer.from, direction).pk, sk };
      expect(expandTransaction({ ...compactTransaction(selfSend, key), ...key })).toMatchObject({ from: transfer.from, to: transfer.from });
    }
    const sender = { pk: transactionKeys.callsToContract(31337, transfer.to!, '0xa9059cbb', transfer.from).pk, sk };
    const call = compactTransaction(transfer, sender);
    expect(unpackItem(call)).not.toHaveProperty('from');
    expect(unpackItem(call)).not.toHaveProperty('to');
    expect(expandTransaction({ ...call, ...sender })).toMatchObject({ from: transfer.from, to: transfer.to });
  });

  it('reads items written whole by an earlier ingest as they are', () => {
    expect(expandTransaction({ ...transfer, ...keys[1][1] })).toEqual({ ...transfer, ...keys[1][1] });
  });
});

describe('logs, token transfers and blocks', () => {
  const log: LogRecord = {
    kind: 'log',
    chainId: 31337,
    blockNumber: 1234,
    blockHash: hex(64, 'b'),
    blockTimestamp: 1_764_000_000,
    transactionHash: hex(64, 'a'),
    transactionIndex: 2,
    logIndex: 3,
    address: hex(40, 'd'),
    data: `0x${'0'.repeat(63)}1`,
    dataOmitted: false,
    topics: [hex(64, '1'), hex(64, '2')],
  };
  const tokenTransfer: TokenTransferRecord = {
    kind: 'tokenTransfer',
    chainId: 31337,
    blockNumber: 1234,
    blockHash: hex(64, 'b'),
    blockTimestamp: 1_764_000_000,
    transactionHash: hex(64, 'a'),
    transactionIndex: 2,
    logIndex: 3,
    batchIndex: 1,
    token: hex(40, 'd'),
    tokenStandard: 'ERC-1155',
    from: hex(40, 'c'),
    to: hex(40, 'e'),
    amount: '5',
    tokenId: '7',
    transferType: 'transfer',
    operator: hex(40, 'c'),
    methodSelector: null,
  };
  const block: BlockRecord = {
    kind: 'block',
    chainId: 31337,
    number: 1234,
    hash: hex(64, 'b'),
    parentHash: hex(64, 'c'),
    timestamp: 1_764_000_000,
    nonce: '0x0000000000000000',
    sha3Uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
    mixHash: hex(64, 'd'),
    miner: hex(40, 'e'),
    stateRoot: hex(64, '1'),
    transactionsRoot: hex(64, '2'),
    receiptsRoot: hex(64, '3'),
    logsBloom: bloomWith([1, 2, 3]),
    size: 900,
    extraData: '0x',
    difficulty: '0',
    totalDifficulty: null,
    transactionCount: 3,
    gasLimit: 30_000_000,
    gasUsed: 100_000,
    baseFeePerGas: '875000000',
    withdrawalsRoot: hex(64, '4'),
    withdrawalCount: 0,
    blobGasUsed: 0,
    excessBlobGas: 0,
  };

  it('round-trips through every range item', () => {
    for (const key of [
      transactionKeys.transactionLog(31337, log.transactionHash, 3),
      { pk: logKeys.contractLogs(31337, log.address).pk, sk: logKeys.sortKey(1234, 3) },
    ]) {
      const stored = compactLog(log, key);
      expect(stored).not.toHaveProperty('logIndex');
      expect(expandLog({ ...stored, ...key })).toEqual({ ...log, ...key });
    }
    for (const key of [
      transactionKeys.transactionTokenTransfer(31337, tokenTransfer.transactionHash, 3, 1),
      { pk: tokenTransferKeys.byToken(31337, tokenTransfer.token).pk, sk: tokenTransferKeys.sortKey(1234, 3, 1) },
    ]) {
      const stored = compactTokenTransfer(tokenTransfer, key);
      expect(Object.keys(stored).sort()).toEqual([PACKED_ATTRIBUTE, 'kind'].sort());
      expect(unpackItem(stored)).toMatchObject({ transferType: 'transfer', tokenStandard: 'ERC-1155', operator: tokenTransfer.operator });
      expect(expandTokenTransfer({ ...stored, ...key })).toEqual({ ...tokenTransfer, ...key });
    }
    const sk = tokenTransferKeys.sortKey(1234, 3, 1);
    for (const [pk, absent] of [
      [tokenTransferKeys.byToken(31337, tokenTransfer.token).pk, ['token']],
      [tokenTransferKeys.byAddress(31337, tokenTransfer.from, 'from', 'ALL').pk, ['from']],
      [tokenTransferKeys.byAddress(31337, tokenTransfer.to, 'all', 'ERC-1155').pk, ['to']],
      [tokenTransferKeys.byAddressAndToken(31337, tokenTransfer.to, 'to', tokenTransfer.token, 'ERC-1155').pk, ['to', 'token']],
      [tokenTransferKeys.byAddressAndToken(31337, tokenTransfer.from, 'all', tokenTransfer.token, 'ERC-1155').pk, ['from', 'token']],
    ] as const) {
      const stored = compactTokenTransfer(tokenTransfer, { pk, sk });
      for (const field of absent) expect(stored, `${pk} ${field}`).not.toHaveProperty(field);
      expect(expandTokenTransfer({ ...stored, pk, sk })).toEqual({ ...tokenTransfer, pk, sk });
    }
    const logsKey = { pk: logKeys.contractLogsWithTopic0(31337, log.address, log.topics[0]!).pk, sk: logKeys.sortKey(1234, 3) };
    expect(compactLog(log, logsKey)).not.toHaveProperty('address');
    expect(expandLog({ ...compactLog(log, logsKey), ...logsKey })).toEqual({ ...log, ...logsKey });
    for (const key of [blockKeys.block(31337, 1234), blockKeys.blockByHash(31337, block.hash)]) {
      const stored = compactBlock(block, key);
      expect(stored).toHaveProperty('number', 1234);
      expect(stored).not.toHaveProperty('sha3Uncles');
      expect(expandBlock({ ...stored, ...key })).toEqual({ ...block, ...key });
    }
  });
});

describe('logs blooms', () => {
  it('stores a zero bloom as nothing, a sparse one as its bits, a dense one as it is', () => {
    expect(encodeBloom(ZERO_BLOOM)).toBeUndefined();
    expect(decodeBloom(undefined)).toBe(ZERO_BLOOM);
    expect(encodeBloom(bloomWith([0, 2047]))).toBe('~0007ff');
    const random = (seed: number) => {
      let state = seed;
      return () => {
        state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
        return state / 2 ** 31;
      };
    };
    for (const count of [1, 5, 12, 40, 170, 171, 400, 2048]) {
      const next = random(count);
      const bloom = bloomWith(Array.from({ length: count }, () => Math.floor(next() * 2048)));
      const stored = encodeBloom(bloom);
      expect(decodeBloom(stored)).toBe(bloom);
      expect((stored ?? '').length).toBeLessThanOrEqual(bloom.length);
    }
    expect(decodeBloom('0x1234')).toBe('0x1234');
  });
});

describe('internal transactions', () => {
  const internal: InternalTransactionRecord = {
    kind: 'internalTransaction',
    chainId: 8453,
    blockNumber: 1234,
    blockHash: `0x${'b'.repeat(64)}`,
    blockTimestamp: 1_759_276_800,
    transactionHash: `0x${'c'.repeat(64)}`,
    transactionIndex: 7,
    index: 3,
    type: 'call',
    callType: 'staticcall',
    from: `0x${'1'.repeat(40)}`,
    to: `0x${'2'.repeat(40)}`,
    createdContract: null,
    value: '0',
    gasLimit: '50000',
    gasUsed: '2100',
    success: true,
    error: null,
    traceAddress: [0, 2],
  };
  const sk = addressKeys.internalTransactionSortKey(1234, 7, 3);
  const keys = [
    transactionKeys.transactionInternalTransaction(8453, internal.transactionHash, 3),
    { pk: addressKeys.internalTransactions(8453, internal.from, 'from').pk, sk },
    { pk: addressKeys.internalTransactions(8453, internal.to!, 'to').pk, sk },
  ];

  it('expands to the record from its canonical key and both of its X5 ranges, leaving out what the key and defaults give', () => {
    for (const key of keys) {
      const stored = compactInternalTransaction(internal, key);
      const { pk: _pk, sk: _sk, ...expanded } = expandInternalTransaction({ ...stored, ...key });
      expect(expanded, key.pk).toEqual(internal);
      const fields = unpackItem(stored);
      for (const derived of ['chainId', 'index', 'success', 'error', 'value', 'createdContract'])
        expect(fields).not.toHaveProperty(derived);
    }
    expect(unpackItem(compactInternalTransaction(internal, keys[1]!))).not.toHaveProperty('from');
    // A creation keeps its created contract as an attribute of its own: the reorg's lookup filters on it.
    const creation = { ...internal, type: 'create' as const, callType: null, to: null, createdContract: `0x${'3'.repeat(40)}` };
    expect(compactInternalTransaction(creation, keys[0]!)).toHaveProperty('createdContract', creation.createdContract);
  });
});

describe('balances', () => {
  const holder = `0x${'1'.repeat(40)}`;
  const token = `0x${'2'.repeat(40)}`;
  const erc20: BalanceRecord = {
    kind: 'balance',
    chainId: 8453,
    holder,
    token,
    tokenStandard: 'ERC-20',
    tokenId: null,
    value: '1250000000000000000000',
    tokenName: 'USD#Coin',
    updatedAtBlock: 31_415_926,
  };
  /** The item the ingest stores: the record with its T1 (gsi2) and X1 (gsi3) keys, at its key. */
  const stored = (record: BalanceRecord, listed = true) => {
    const tokenId = record.tokenId === null ? null : BigInt(record.tokenId);
    const key = addressKeys.balance(record.chainId, record.holder, record.token, tokenId ?? undefined);
    const indexes = listed
      ? {
          ...holderKeys.listing(record.chainId, record.token, tokenId, BigInt(record.value), record.holder),
          ...addressKeys.balanceListing(
            record.chainId,
            record.holder,
            record.tokenStandard,
            record.value,
            record.tokenName,
            record.token,
            tokenId,
          ),
        }
      : {};
    const whole = { ...record, ...indexes };
    return { key, whole, item: { ...compactBalance(whole as BalanceRecord, key), ...key } };
  };

  it('keeps of a listed balance its value, its block and its index keys: the rest its keys give back', () => {
    const { whole, item } = stored(erc20);
    expect(Object.keys(item).sort()).toEqual(['gsi2pk', 'gsi2sk', 'gsi3pk', 'gsi3sk', 'kind', 'pk', 'sk', 'updatedAtBlock', 'value']);
    const { pk: _pk, sk: _sk, ...expanded } = expandBalance(item);
    expect(expanded).toEqual(whole);
    // Each of its copies (the table's, gsi2's and gsi3's: the index projects every attribute) 130 B smaller.
    expect(itemSize({ ...whole, ...stored(erc20).key }) - itemSize(item)).toBeGreaterThanOrEqual(125);
  });

  it('keeps what its keys cannot give: a name cut in the X1 key, the standard and name of an unlisted total', () => {
    const longName = { ...erc20, tokenName: 'N'.repeat(70) };
    const long = stored(longName);
    expect(long.item).toHaveProperty(PACKED_ATTRIBUTE);
    expect(expandBalance(long.item)).toMatchObject({ tokenName: longName.tokenName, holder, token });
    const total: BalanceRecord = { ...erc20, tokenStandard: 'ERC-1155', tokenName: 'Items', value: '3' };
    const unlisted = stored(total, false);
    const { pk: _pk, sk: _sk, ...expanded } = expandBalance(unlisted.item);
    expect(expanded).toEqual(total);
    const perId: BalanceRecord = { ...total, tokenId: '115792089237316195423570985008687907853269984665640564039457584007913129639935' };
    const { pk: _pk2, sk: _sk2, ...expandedId } = expandBalance(stored(perId).item);
    expect(expandedId).toEqual({ ...stored(perId).whole });
  });

  it('reads an entry of gsi2 or gsi3, which project only keys, as the balance its item holds (its block aside)', () => {
    const entry = (item: Record<string, unknown>, index: 'gsi2' | 'gsi3') => ({
      pk: item.pk,
      sk: item.sk,
      [`${index}pk`]: item[`${index}pk`],
      [`${index}sk`]: item[`${index}sk`],
    });
    const { updatedAtBlock: _block, ...listed } = erc20;
    const max = ((1n << 256n) - 1n).toString();
    const cases: { record: BalanceRecord; indexes: ('gsi2' | 'gsi3')[] }[] = [
      { record: erc20, indexes: ['gsi2', 'gsi3'] },
      { record: { ...erc20, value: max }, indexes: ['gsi2', 'gsi3'] },
      { record: { ...erc20, value: '1' }, indexes: ['gsi2', 'gsi3'] },
      { record: { ...erc20, tokenStandard: 'ERC-1155', tokenName: 'Items', tokenId: max, value: '3' }, indexes: ['gsi2', 'gsi3'] },
      { record: { ...erc20, tokenStandard: 'ERC-721', tokenName: 'Art', value: '2' }, indexes: ['gsi3'] },
      { record: { ...erc20, tokenStandard: 'ERC-721', tokenName: 'Pandora#404', value: '7' }, indexes: ['gsi3'] },
    ];
    for (const { record, indexes } of cases) {
      const { item, whole } = stored(record);
      const { updatedAtBlock: _b, gsi2pk: _p, gsi2sk: _s, ...expected } = whole as BalanceRecord;
      for (const index of indexes) {
        const read = readItem(entry(item, index));
        expect(read, `${record.tokenStandard} ${record.value} on ${index}`).toMatchObject({
          kind: 'balance',
          chainId: record.chainId,
          holder,
          token,
          tokenId: record.tokenId,
          tokenStandard: record.tokenStandard,
          value: record.value,
        });
        if (index === 'gsi3') expect(read).toMatchObject({ ...expected, tokenName: record.tokenName });
        expect(read).not.toHaveProperty('updatedAtBlock');
      }
      // An index that projects everything (a table created before) gives the item, read as before.
      expect(readItem(item)).toMatchObject({ ...whole, ...listed, ...record });
    }
    // A name longer than the X1 key keeps (64 characters) reads as the key has it: the page shows the
    // token's own name (X7), and a cursor's bound cuts the name at 64 alike.
    const long = stored({ ...erc20, tokenName: 'N'.repeat(70) });
    expect(readItem(entry(long.item, 'gsi3'))).toMatchObject({ tokenName: 'N'.repeat(64), value: erc20.value, tokenStandard: 'ERC-20' });
    // Anything else without a kind reads as it is.
    expect(readItem({ pk: 'X', sk: 'BAL#nothing' })).toEqual({ pk: 'X', sk: 'BAL#nothing' });
  });

  it('reads items written whole by an earlier ingest as they are', () => {
    const { whole, key } = stored(erc20);
    expect(expandBalance({ ...whole, ...key })).toEqual({ ...whole, ...key });
  });
});

describe('the rules of every family', () => {
  const a = hex(40, 'a');
  const b = hex(40, 'b');
  const h = hex(64, 'c');
  // Keys of every shape the families are stored under: canonical, per address (both sides), per contract.
  const keysOf: Record<string, { pk: string; sk: string }[]> = {
    transaction: [
      transactionKeys.transaction(1, h),
      { pk: `C#1#A#${a}#TX#from`, sk: '000000001234#000002' },
      { pk: `C#1#A#${b}#TX#to`, sk: '000000001234#000002' },
      { pk: `C#1#CALLS#${b}#0xa9059cbb#FROM#${a}`, sk: '000000001234#000002' },
    ],
    log: [
      { pk: `C#1#TX#${h}`, sk: 'LOG#000003' },
      { pk: `C#1#LOGS#${b}`, sk: '000000001234#000003' },
    ],
    tokenTransfer: [
      { pk: `C#1#TX#${h}`, sk: 'TT#000003#0001' },
      { pk: `C#1#A#${a}#TT#from#ALL`, sk: '000000001234#000003#0001' },
      { pk: `C#1#A#${b}#TT#to#ALL`, sk: '000000001234#000003#0001' },
      { pk: `C#1#A#${a}#TT#from#TOKEN#${b}:ERC-20`, sk: '000000001234#000003#0001' },
    ],
    block: [{ pk: 'C#1#BLOCKS', sk: '000000001234' }],
    balance: [addressKeys.balance(1, a, b), addressKeys.balance(1, a, b, 7n)],
    internalTransaction: [
      { pk: `C#1#TX#${h}`, sk: 'ITX#000003' },
      { pk: `C#1#A#${a}#ITX#from`, sk: '000000001234#000002#000003' },
      { pk: `C#1#A#${b}#ITX#to`, sk: '000000001234#000002#000003' },
    ],
  };
  // A record whose every field holds a value of its type (the rules compute with them).
  const sample: Record<string, unknown> = {
    ...transfer,
    from: a,
    to: b,
    gasPrice: '1000',
    baseFeePerGas: '10',
    l1Fee: '5',
    index: 3,
    logIndex: 3,
    batchIndex: 1,
    traceAddress: [0],
    gsi3sk: addressKeys.balanceByValueSortKey(5n, 'ERC-20', 'Token', b, null),
  };

  type Rules = readonly (readonly [
    string,
    (record: Record<string, unknown>, key: { pk: string; sk: string }) => unknown,
    (readonly string[])?,
  ])[];
  /** What each rule's derivation reads of the record, by rule field, over every key. */
  const readsOf = (rules: Rules, keys: readonly { pk: string; sk: string }[]): Map<string, Set<string>> => {
    const reads = new Set<string>();
    const watched = new Proxy(sample, {
      get: (target, property) => {
        if (typeof property === 'string') reads.add(property);
        return Reflect.get(target, property);
      },
      has: (target, property) => {
        if (typeof property === 'string') reads.add(property);
        return Reflect.has(target, property);
      },
    });
    const byRule = new Map<string, Set<string>>();
    for (const [field, derive] of rules) {
      const all = new Set<string>();
      for (const key of keys) {
        reads.clear();
        derive(watched, key);
        for (const read of reads) all.add(read);
      }
      byRule.set(field, all);
    }
    return byRule;
  };
  /** The reads of a field restored after the rule reading it (none: an item expands to its record). */
  const lateReads = (rules: Rules, keys: readonly { pk: string; sk: string }[]): string[] => {
    const late: string[] = [];
    const byRule = readsOf(rules, keys);
    rules.forEach(([field], position) => {
      for (const read of byRule.get(field) ?? []) {
        if (rules.findIndex(([other]) => other === read) >= position) late.push(`${field} reads ${read}`);
      }
    });
    return late;
  };

  it.each(Object.keys(COMPACTION_RULES))('%s: each rule reads only fields without a rule or restored before it', (kind) => {
    expect(keysOf[kind], `keys for ${kind}`).toBeDefined();
    expect(lateReads(COMPACTION_RULES[kind]!, keysOf[kind]!)).toEqual([]);
  });

  // An expansion of some fields only (an aggregation's) runs the rules those fields need, by `needs`.
  it.each(Object.keys(COMPACTION_RULES))('%s: each rule declares every field it reads', (kind) => {
    const rules = COMPACTION_RULES[kind]!;
    const undeclared = [...readsOf(rules, keysOf[kind]!)].flatMap(([field, reads]) => {
      const needs = rules.find(([name]) => name === field)?.[2] ?? [];
      return [...reads].filter((read) => !needs.includes(read)).map((read) => `${field} reads ${read}`);
    });
    expect(undeclared).toEqual([]);
  });

  it('finds a rule that reads a field it does not declare (the fee without the gas used)', () => {
    const rules = COMPACTION_RULES.transaction!.map(([field, derive, needs]) =>
      field === 'fee' ? ([field, derive, needs?.filter((need) => need !== 'gasUsed')] as const) : ([field, derive, needs] as const),
    );
    const fee = readsOf(rules, keysOf.transaction!).get('fee')!;
    expect([...fee].filter((read) => !(rules.find(([name]) => name === 'fee')?.[2] ?? []).includes(read))).toEqual(['gasUsed']);
  });

  it('finds a rule that reads a field restored after it (the transactions rules with the gas price moved last)', () => {
    const rules = COMPACTION_RULES.transaction!;
    const gasPrice = rules.find(([field]) => field === 'gasPrice')!;
    const moved = [...rules.filter((rule) => rule !== gasPrice), gasPrice];
    expect(lateReads(moved, keysOf.transaction!)).toContain('effectiveGasPrice reads gasPrice');
  });
});
