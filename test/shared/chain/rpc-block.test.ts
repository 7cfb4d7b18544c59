/**
 * The node's raw answers as the ingest reads them (shared/chain/rpc-block.ts): exact quantities at
 * any size, omitted optional fields null, unknown transaction types kept, malformed answers refused.
 */
import { describe, expect, it } from 'vitest';
import { MalformedAnswerError, parseBlock, parseReceipt, parseTransaction, quantityOrNull } from '../../../shared/chain/rpc-block';

const HASH = `0x${'11'.repeat(32)}`;
const PARENT = `0x${'22'.repeat(32)}`;
const FROM = '0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266';

const transaction = (fields: Record<string, unknown> = {}) => ({
  hash: HASH,
  from: FROM,
  to: null,
  value: '0x0',
  input: '0x',
  nonce: '0x0',
  gas: '0x5208',
  type: '0x2',
  transactionIndex: '0x0',
  ...fields,
});

describe('quantities', () => {
  it('are exact bigints at any size, from hex or the decimal text some nodes send', () => {
    expect(quantityOrNull('0xfffffffffffffffe')).toBe(2n ** 64n - 2n);
    expect(quantityOrNull(`0x${'f'.repeat(64)}`)).toBe(2n ** 256n - 1n);
    expect(quantityOrNull('12345678901234567890')).toBe(12345678901234567890n);
    expect(quantityOrNull(42)).toBe(42n);
    expect(quantityOrNull('0x')).toBe(0n);
  });

  it('are null when absent or unreadable', () => {
    for (const value of [undefined, null, 'zz', '-1', 1.5, -3, {}]) expect(quantityOrNull(value)).toBeNull();
  });
});

describe('transactions', () => {
  it('keep an EIP-2681 nonce and EIP-7702 authorization values exactly', () => {
    const tx = parseTransaction(
      transaction({
        nonce: '0xfffffffffffffffe',
        type: '0x4',
        authorizationList: [
          { address: FROM, chainId: `0x${'f'.repeat(64)}`, nonce: '0xfffffffffffffffe', yParity: '0x1', r: '0x01', s: '0x02' },
        ],
      }),
      0,
    );
    expect(tx.nonce).toBe(2n ** 64n - 2n);
    expect(tx.type).toBe(4);
    expect(tx.from).toBe(FROM.toLowerCase());
    expect(tx.authorizationList).toEqual([
      { address: FROM.toLowerCase(), chainId: 2n ** 256n - 1n, nonce: 2n ** 64n - 2n, yParity: 1, r: '0x01', s: '0x02' },
    ]);
  });

  it('read an OP-stack deposit with its source hash, mint and system flag', () => {
    const tx = parseTransaction(transaction({ type: '0x7e', sourceHash: PARENT, mint: '0xde0b6b3a7640000', isSystemTx: true }), 0);
    expect(tx).toMatchObject({ type: 126, sourceHash: PARENT, mint: 10n ** 18n, isSystemTx: true, otherFields: null });
  });

  it('keep the fields of a type they do not know, as sent', () => {
    const tx = parseTransaction(transaction({ type: '0x99', feeToken: '0xabc', routing: { lane: 1 } }), 3);
    expect(tx.type).toBe(0x99);
    expect(tx.otherFields).toEqual({ feeToken: '0xabc', routing: { lane: 1 } });
  });

  it('refuse an answer without a hash or a sender (a malformed answer, retried)', () => {
    expect(() => parseTransaction(transaction({ hash: undefined }), 0)).toThrow(MalformedAnswerError);
    expect(() => parseTransaction(transaction({ from: '0x12' }), 0)).toThrow(MalformedAnswerError);
    expect(() => parseTransaction('0xabc', 0)).toThrow(MalformedAnswerError);
  });
});

describe('blocks', () => {
  const block = (fields: Record<string, unknown> = {}) => ({
    number: '0x10',
    hash: HASH,
    parentHash: PARENT,
    timestamp: '0x5',
    transactions: [transaction()],
    ...fields,
  });

  it('index a header without uncles hash, mix hash, difficulty, gas limit or bloom with those fields null', () => {
    const parsed = parseBlock(block())!;
    expect(parsed).toMatchObject({
      number: 16n,
      sha3Uncles: null,
      mixHash: null,
      difficulty: null,
      gasLimit: null,
      logsBloom: null,
      nonce: null,
      miner: null,
      withdrawals: null,
    });
    expect(parsed.transactions).toHaveLength(1);
  });

  it('are null past the head, and malformed without a number, hash or transactions', () => {
    expect(parseBlock(null)).toBeNull();
    expect(() => parseBlock(block({ number: undefined }))).toThrow(MalformedAnswerError);
    expect(() => parseBlock(block({ hash: '0x1234' }))).toThrow(MalformedAnswerError);
    expect(() => parseBlock(block({ transactions: undefined }))).toThrow(MalformedAnswerError);
  });
});

describe('receipts', () => {
  const receipt = (fields: Record<string, unknown> = {}) => ({
    transactionHash: HASH,
    transactionIndex: '0x0',
    blockHash: PARENT,
    blockNumber: '0x10',
    gasUsed: '0x5208',
    logs: [],
    ...fields,
  });

  it('before Byzantium have a state root and no status: unknown, not failed', () => {
    const parsed = parseReceipt(receipt({ root: HASH }));
    expect(parsed.status).toBeNull();
    expect(parsed.root).toBe(HASH);
    expect(parseReceipt(receipt({ status: '0x0' })).status).toBe(0);
    expect(parseReceipt(receipt({ status: '0x1' })).status).toBe(1);
  });

  it('without effectiveGasPrice, cumulative gas or bloom have them null', () => {
    expect(parseReceipt(receipt())).toMatchObject({
      effectiveGasPrice: null,
      cumulativeGasUsed: null,
      logsBloom: null,
      contractAddress: null,
    });
  });

  it('read the OP-stack L1 fee fields, Bedrock and Ecotone', () => {
    const parsed = parseReceipt(
      receipt({ l1Fee: '0x10', l1GasPrice: '0x2', l1GasUsed: '0x8', l1FeeScalar: '0.684', l1BaseFeeScalar: '0x558', l1BlobBaseFee: '0x1' }),
    );
    expect(parsed).toMatchObject({
      l1Fee: 16n,
      l1GasPrice: 2n,
      l1GasUsed: 8n,
      l1FeeScalar: '0.684',
      l1BaseFeeScalar: 0x558n,
      l1BlobBaseFee: 1n,
    });
    expect(parseReceipt(receipt({ l1FeeScalar: 'NaN' })).l1FeeScalar).toBeNull();
  });

  it('are malformed without a transaction hash, gas used or logs', () => {
    expect(() => parseReceipt(receipt({ transactionHash: null }))).toThrow(MalformedAnswerError);
    expect(() => parseReceipt(receipt({ gasUsed: undefined }))).toThrow(MalformedAnswerError);
    expect(() => parseReceipt(receipt({ logs: null }))).toThrow(MalformedAnswerError);
  });
});
