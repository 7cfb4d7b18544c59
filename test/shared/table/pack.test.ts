/**
 * Packed fields (shared/table/pack.ts): exact round trips of every value a chain record holds, hex
 * stored as bytes, unknown names kept, and what packing saves on a transaction's items.
 */
import { describe, expect, it } from 'vitest';
import { itemSize } from '../../../scripts/bench/lib/write-families';
import { compactTransaction, expandTransaction } from '../../../shared/table/compact';
import { addressKeys, transactionKeys } from '../../../shared/table/keys';
import {
  DEFLATE_FROM_BYTES,
  PACKED_ATTRIBUTE,
  packFields,
  packItem,
  storedPacking,
  toMessagePack,
  unpackFields,
  unpackItem,
} from '../../../shared/table/pack';
import type { TransactionRecord } from '../../../shared/table/records';

const hash = (digit: string) => `0x${digit.repeat(64)}`;

describe('packed fields', () => {
  it('round-trips strings, numbers, booleans, nulls and lists exactly', () => {
    const fields = {
      hash: hash('a'),
      input: '0x',
      odd: '0x0',
      upper: '0xABCD',
      text: 'Transfer(address,address,uint256)',
      number: 1234,
      large: 2 ** 53 - 1,
      decimal: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
      flag: false,
      nothing: null,
      topics: [hash('b'), hash('c')],
      transactionTypes: ['token_transfer', 'contract_call'],
      truncated: ['input'],
    };
    expect(unpackFields(packFields(fields))).toEqual(fields);
  });

  it('stores whole-byte lowercase hex as bytes: half the size of its text', () => {
    const text = packFields({ data: `0x${'ab'.repeat(1000)}` });
    expect(text.byteLength).toBeLessThan(1010);
    // A name the code table does not know is stored as its name and read back.
    expect(unpackFields(packFields({ someFutureField: hash('d') }))).toEqual({ someFutureField: hash('d') });
  });

  it('moves only the attributes not kept, and leaves an item with nothing to move as it is', () => {
    const item = { pk: 'p', sk: 's', kind: 'log', topics: [hash('1')], data: hash('2') };
    const packed = packItem(item, new Set(['pk', 'sk', 'kind', 'topics']));
    expect(Object.keys(packed).sort()).toEqual([PACKED_ATTRIBUTE, 'kind', 'pk', 'sk', 'topics']);
    expect(unpackItem(packed)).toEqual(item);
    expect(packItem({ pk: 'p', sk: 's' }, new Set(['pk', 'sk']))).toEqual({ pk: 'p', sk: 's' });
    expect(unpackItem(item)).toBe(item);
  });

  it('refuses a packed attribute it cannot read instead of inventing fields', () => {
    expect(() => unpackFields(packFields({ a: 1 }).slice(0, 1))).toThrow();
  });
});

describe('packed transactions', () => {
  const tx: TransactionRecord = {
    kind: 'transaction',
    chainId: 8453,
    hash: hash('1'),
    blockNumber: 30_000_000,
    blockHash: hash('2'),
    blockTimestamp: 1_759_276_800,
    transactionIndex: 17,
    from: `0x${'3'.repeat(40)}`,
    to: `0x${'4'.repeat(40)}`,
    value: '0',
    input: `0xa9059cbb${'0'.repeat(24)}${'5'.repeat(40)}${'0'.repeat(40)}${'6'.repeat(24)}`,
    inputOmitted: false,
    inputSize: 68,
    methodSelector: '0xa9059cbb',
    gas: 90_000,
    gasPrice: '1875000000',
    maxFeePerGas: '2500000000',
    maxPriorityFeePerGas: '1000000',
    nonce: 412,
    type: 2,
    r: hash('7'),
    s: hash('8'),
    v: 1,
    yParity: 1,
    accessListJson: '[]',
    authorizationListJson: null,
    status: 1,
    gasUsed: 51_234,
    cumulativeGasUsed: 1_234_567,
    effectiveGasPrice: '1875000000',
    contractAddress: null,
    logsBloom: `0x${'0'.repeat(512)}`,
    logCount: 1,
    fee: (51_234n * 1_875_000_000n).toString(),
    baseFeePerGas: '1000000000',
    burntFee: (51_234n * 1_000_000_000n).toString(),
    priorityFee: (51_234n * 875_000_000n).toString(),
    blobGasUsed: null,
    blobGasPrice: null,
    revertReason: null,
    error: null,
    hasErrorInInternalTransactions: false,
    tracesAvailable: true,
    transactionTypes: ['token_transfer', 'contract_call'],
    tokenTransferCount: 1,
  } as unknown as TransactionRecord;

  it('expands to the record from every range, and the per-address copy is a third smaller than unpacked', () => {
    const sk = transactionKeys.sortKey(tx.blockNumber, tx.transactionIndex);
    const key = { pk: addressKeys.transactions(8453, tx.from, 'from').pk, sk };
    const stored = compactTransaction(tx, key);
    expect(stored).toHaveProperty(PACKED_ATTRIBUTE);
    // Insights checks the expanded record (range-reader.ts): only the key, `kind` and the packed attribute are left.
    expect(Object.keys(stored).sort()).toEqual([PACKED_ATTRIBUTE, 'kind'].sort());
    const { pk: _pk, sk: _sk, ...expanded } = expandTransaction({ ...stored, ...key });
    expect(expanded).toEqual(tx);
    const unpacked = unpackItem(stored);
    expect(itemSize({ ...stored, ...key })).toBeLessThan(0.67 * itemSize({ ...unpacked, ...key }));
  });
});

describe('packed bytes', () => {
  it('own a buffer of their size (a view into a 2 KB encoder buffer held 2 KB for every item of a block)', () => {
    const small = packFields({ kind: 'log', chainId: 1, logIndex: 3 });
    expect(small.byteLength).toBeLessThan(32);
    expect(small.buffer.byteLength).toBe(small.byteLength);
    // The encoder is reused: a later, larger encoding leaves the first as it was.
    const first = Buffer.from(small).toString('hex');
    const large = packFields({ data: `0x${'ab'.repeat(5_000)}` });
    expect(large.buffer.byteLength).toBe(large.byteLength);
    expect(Buffer.from(small).toString('hex')).toBe(first);
    expect(unpackFields(small)).toEqual({ kind: 'log', chainId: 1, logIndex: 3 });
    expect(unpackFields(large)).toEqual({ data: `0x${'ab'.repeat(5_000)}` });
  });
});

describe('deflated packed bytes', () => {
  // A swap's packed fields: hashes and addresses that repeat (a transaction hash, a pool, a router).
  const pool = `0x${'5a'.repeat(20)}`;
  const fields = {
    transactionHash: hash('7'),
    blockHash: hash('8'),
    topics: [hash('d'), `0x${'0'.repeat(24)}${pool.slice(2)}`, `0x${'0'.repeat(24)}${pool.slice(2)}`],
    data: `0x${'00'.repeat(300)}${pool.slice(2)}${'00'.repeat(300)}`,
    address: pool,
  };

  it('stores large packed fields deflated behind a marker byte, shorter, and reads them back exactly', () => {
    // Undeflated it would hold the values' bytes: 2 hashes, 3 topics, 620 bytes of data, an address.
    const valueBytes = 32 * 5 + 620 + 20;
    expect(valueBytes).toBeGreaterThanOrEqual(DEFLATE_FROM_BYTES);
    const built = packFields(fields);
    // Built as MessagePack; stored deflated when the table layer writes the item (storedPacking).
    expect(built[0]).not.toBe(0);
    const item = { pk: 'p', sk: 's', [PACKED_ATTRIBUTE]: built };
    const stored = storedPacking(item)[PACKED_ATTRIBUTE] as Uint8Array;
    expect(stored[0]).toBe(0);
    expect(stored.length).toBeLessThan(0.5 * valueBytes);
    expect(unpackFields(stored)).toEqual(fields);
    expect(unpackFields(built)).toEqual(fields);
    // Stored once: an item already stored, or with nothing to deflate, is given back as it is.
    const once = storedPacking(item);
    expect(storedPacking(once)).toBe(once);
    const small = { pk: 'p', sk: 's', [PACKED_ATTRIBUTE]: packFields({ kind: 'log', chainId: 1, logIndex: 3 }) };
    expect(storedPacking(small)).toBe(small);
  });

  it('leaves small packed fields as MessagePack, and reads bytes stored before deflating as they were', () => {
    const small = packFields({ kind: 'log', chainId: 1, logIndex: 3 });
    expect(small[0]).not.toBe(0);
    expect(unpackFields(small)).toEqual({ kind: 'log', chainId: 1, logIndex: 3 });
    // An item written before: its large fields as plain MessagePack (names as codes or as themselves).
    const before = toMessagePack(Object.entries(fields).flat());
    expect(unpackFields(before)).toEqual(fields);
  });
});
