/** Request schemas: the `type` filter's grammar and the values handlers receive. */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { addressPath, parseTokenTypes, tokenBalancesQuery, tokenTransfersQuery, transactionsQuery } from '../../../shared/explorer/schemas';

describe('parseTokenTypes', () => {
  it('reads comma-separated standards, any case, optionally in brackets, in canonical order', () => {
    expect(parseTokenTypes('ERC-20')).toEqual(['ERC-20']);
    expect(parseTokenTypes('erc-1155, ERC-20')).toEqual(['ERC-20', 'ERC-1155']);
    expect(parseTokenTypes('[ERC-20,ERC-721]')).toEqual(['ERC-20', 'ERC-721']);
    expect(parseTokenTypes(' [ erc-721 , erc-404 ] ')).toEqual(['ERC-721', 'ERC-404']);
    expect(parseTokenTypes('ERC-20,ERC-20')).toEqual(['ERC-20']);
  });

  it('ignores unknown labels; none known means no filter', () => {
    expect(parseTokenTypes('ERC-20,ERC-9999')).toEqual(['ERC-20']);
    expect(parseTokenTypes('NFT')).toBeUndefined();
    expect(parseTokenTypes('')).toBeUndefined();
    expect(parseTokenTypes('[]')).toBeUndefined();
  });
});

describe('query and path values', () => {
  it('lowercases addresses for keys', () => {
    expect(v.parse(addressPath, { address_hash: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045' })).toEqual({
      address_hash: '0xd8da6bf26964af9d7eed9e03e53415d37aa96045',
    });
    expect(v.parse(tokenTransfersQuery, { token: '0xD8DA6BF26964AF9D7EED9E03E53415D37AA96045', filter: 'to', type: '[ERC-20]' })).toEqual({
      token: '0xd8da6bf26964af9d7eed9e03e53415d37aa96045',
      filter: 'to',
      type: ['ERC-20'],
    });
  });

  it('reads cursor numbers, including a value printed with an exponent whose + arrived as a space', () => {
    expect(v.parse(transactionsQuery, { block_number: '12', index: '0', items_count: '50' })).toEqual({
      block_number: 12,
      index: 0,
      items_count: 50,
    });
    expect(v.parse(tokenBalancesQuery, { value: '1.2e+21' }).value).toBe(1.2e21);
    expect(v.parse(tokenBalancesQuery, { value: '1.2e 21' }).value).toBe(1.2e21);
    expect(v.parse(tokenBalancesQuery, { value: '95' }).value).toBe(95);
    expect(v.safeParse(tokenBalancesQuery, { value: 'Infinity' }).success).toBe(false);
    expect(v.safeParse(tokenBalancesQuery, { value: '-1' }).success).toBe(false);
  });

  it('is strict: a parameter of another endpoint fails', () => {
    expect(v.safeParse(transactionsQuery, { transaction_index: '1' }).success).toBe(false);
    // items_count is E3's since Blockscout v2 added it to next_page_params; sort / order are E4's.
    expect(v.safeParse(tokenTransfersQuery, { order: 'asc' }).success).toBe(false);
  });
});
