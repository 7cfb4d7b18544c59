/**
 * The pure request parsers of the insights group: chains from parameters and the Host header, filter
 * values typed per field, function signatures, and the JSON form of decoded ABI values.
 */
import * as v from 'valibot';
import { encodeFunctionData, parseAbiItem, toFunctionSelector } from 'viem';
import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../shared/errors';
import { chainOfHost, requestedChains } from '../../../shared/insights/chains';
import { decodeCall, parseFunctionSignature } from '../../../shared/insights/decode';
import { collectFilters, EVENT_FILTERS, integerBounds, TRANSACTION_FILTERS } from '../../../shared/insights/filters';
import { contractEventsQuery, contractTransactionsQuery } from '../../../shared/insights/schemas';

describe('chains of a request', () => {
  it('reads chain_id and the deprecated chain in order without repeats, at most 55', () => {
    expect(requestedChains({ chain_id: [8453, 1], chain: [1, 10] }, '137.insight.example.com')).toEqual([8453, 1, 10]);
    expect(() => requestedChains({ chain_id: Array.from({ length: 56 }, (_, i) => i + 1) }, undefined)).toThrow(/at most 55/);
    expect(() => requestedChains({}, 'api.example.com')).toThrow(InvalidRequestError);
  });

  it('takes the chain from the first label of the Host header, never from an IP or a single label', () => {
    expect(chainOfHost('137.insight.example.com')).toBe(137);
    expect(chainOfHost('8453.localhost:3000')).toBe(8453);
    expect(chainOfHost('127.0.0.1:3000')).toBeUndefined();
    expect(chainOfHost('localhost')).toBeUndefined();
    expect(chainOfHost('base.localhost')).toBeUndefined();
    expect(chainOfHost('0.example.com')).toBeUndefined();
    expect(requestedChains({}, '10.insight.example.com')).toEqual([10]);
  });
});

describe('filter parameters', () => {
  it('types every value per field and pads topics to 32 bytes', () => {
    const query = v.parse(contractEventsQuery, {
      chain_id: ['1,137'],
      filter_block_number_gte: '10',
      filter_block_number_lt: '20',
      filter_topic_1: '0xABC',
      filter_transaction_hash: `0x${'A'.repeat(64)}`,
    });
    expect(query.chain_id).toEqual([1, 137]);
    expect(collectFilters(query, EVENT_FILTERS)).toEqual([
      { field: 'block_number', operator: 'gte', value: 10 },
      { field: 'block_number', operator: 'lt', value: 20 },
      { field: 'transaction_hash', operator: 'eq', value: `0x${'a'.repeat(64)}` },
      { field: 'topic_1', operator: 'eq', value: `0x${'0'.repeat(61)}abc` },
    ]);
    expect(integerBounds(collectFilters(query, EVENT_FILTERS), 'block_number')).toEqual({ min: 10, max: 19, empty: false });
    const values = v.parse(contractTransactionsQuery, { filter_value_gt: (2n ** 256n - 1n).toString(), filter_gas: '21000' });
    expect(collectFilters(values, TRANSACTION_FILTERS)).toEqual([
      { field: 'value', operator: 'gt', value: 2n ** 256n - 1n },
      { field: 'gas', operator: 'eq', value: 21000 },
    ]);
  });

  it('rejects wrongly typed values, comparisons on exact-match fields and unknown fields with the valid list', () => {
    const issues = (input: Record<string, unknown>): v.BaseIssue<unknown>[] =>
      v.safeParse(contractTransactionsQuery, input, { abortEarly: false }).issues ?? [];
    expect(issues({ filter_value: '1e18' })[0].message).toMatch(/non-negative decimal integer/);
    expect(issues({ filter_value: (2n ** 256n).toString() })[0].message).toMatch(/at most 2\^256 - 1/);
    expect(issues({ filter_from_address: '0x1234' })[0].message).toMatch(/40 hex digits/);
    expect(issues({ filter_block_number: '-1' })[0].message).toMatch(/non-negative integer/);
    const unknown = issues({ filter_hash_gte: `0x${'1'.repeat(64)}`, filter_color: 'red' });
    expect(unknown.map((issue) => v.getDotPath(issue))).toEqual(['filter_hash_gte', 'filter_color']);
    expect(unknown[1].message).toMatch(/valid filter fields: block_number \(also _gte, _gt, _lte, _lt\), block_timestamp .* from_address/);
  });
});

describe('function signatures and decoded values', () => {
  it('accepts names, indexed and a function keyword, or a raw selector', () => {
    const selector = toFunctionSelector('transfer(address,uint256)');
    expect(parseFunctionSignature('transfer(address to,uint256 amount)').selector).toBe(selector);
    expect(parseFunctionSignature('function transfer(address indexed to, uint256 amount) returns (bool)').selector).toBe(selector);
    expect(parseFunctionSignature('0xA9059CBB')).toEqual({ selector: '0xa9059cbb', abi: null });
    for (const bad of ['transfer', 'transfer(address', 'transfer(adress,uint256)', '0xa9059c', 'x(uint256); DROP TABLE t']) {
      expect(() => parseFunctionSignature(bad)).toThrow(InvalidRequestError);
    }
  });

  it('turns every ABI value kind into JSON: small integers as numbers, wide ones as decimal strings', () => {
    const abi = parseAbiItem(
      'function f(uint8 a, int48 b, uint56 c, int256 d, address e, bytes f, bytes4 g, bool h, string i, int24[] j, (uint16 k, bytes32 l) m)',
    );
    const data = encodeFunctionData({
      abi: [abi],
      args: [
        255,
        -(2 ** 47),
        2n ** 56n - 1n,
        -(2n ** 255n),
        '0xabcdef0123456789abcdef0123456789abcdef01',
        '0xC0FFEE',
        '0xDEADBEEF',
        true,
        'héllo',
        [-1, 8_388_607],
        { k: 7, l: `0x${'0F'.repeat(32)}` },
      ],
    });
    const { abi: parsed } = parseFunctionSignature(
      'f(uint8 a,int48 b,uint56 c,int256 d,address e,bytes f,bytes4 g,bool h,string i,int24[] j,(uint16 k,bytes32 l) m)',
    );
    expect(decodeCall(parsed!, data)).toEqual({
      name: 'f',
      signature: 'f(uint8,int48,uint56,int256,address,bytes,bytes4,bool,string,int24[],(uint16,bytes32))',
      inputs: {
        a: 255,
        b: -(2 ** 47),
        c: (2n ** 56n - 1n).toString(),
        d: (-(2n ** 255n)).toString(),
        e: '0xabcdef0123456789abcdef0123456789abcdef01',
        f: '0xc0ffee',
        g: '0xdeadbeef',
        h: true,
        i: 'héllo',
        j: [-1, 8_388_607],
        m: { k: 7, l: `0x${'0f'.repeat(32)}` },
      },
    });
    expect(decodeCall(parsed!, '0xa9059cbb')).toBeNull();
  });
});
