/**
 * Bad input on every explorer endpoint: 422 with Blockscout's error body, one entry per failing
 * parameter, and nothing read or written. A valid address the index has never seen: 200 and empty.
 */
import { describe, expect, it } from 'vitest';
import { tableSnapshot, useTestTable } from '../../support/table';
import { explorerGet, type Endpoint } from './fixtures';

const table = useTestTable('explorer-validation');

const VALID = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';
const ADDRESS_DETAIL = 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{40})$/';
const ENDPOINTS: Endpoint[] = ['tokens', 'nft/collections', 'token-transfers', 'transactions', 'internal-transactions', 'withdrawals'];

const invalid = (pointer: string, detail: string) => ({ title: 'Invalid value', source: { pointer }, detail });
const unexpected = (name: string) => ({ title: 'Invalid value', source: { pointer: `/${name}` }, detail: `Unexpected field: ${name}` });

/** Cursor fields and filters of other endpoints, per endpoint: unknown parameters there. */
const FOREIGN_PARAMETERS: Partial<Record<Endpoint, string[]>> = {
  tokens: ['block_number', 'index', 'transaction_index', 'token_contract_address_hash', 'filter', 'token'],
  'nft/collections': ['items_count', 'value', 'token_name', 'block_number', 'index', 'filter'],
  'token-transfers': ['transaction_index', 'value', 'token_name', 'token_type'],
  transactions: ['type', 'transaction_index', 'token', 'token_name', 'token_contract_address_hash'],
  'internal-transactions': ['type', 'token', 'token_name', 'token_type'],
  withdrawals: ['block_number', 'filter', 'type', 'transaction_index', 'token'],
};

describe('invalid input', () => {
  it('rejects an invalid address on every endpoint with 422 and Blockscout error body, reading nothing', async () => {
    const before = await tableSnapshot(table.name);
    for (const endpoint of ENDPOINTS) {
      for (const address of ['0x123', 'not-an-address', `${VALID}00`, '0xg8dA6BF26964aF9D7eEd9e03E53415D37aA96045']) {
        const response = await explorerGet(address, endpoint);
        expect(response.status, `${endpoint} ${address}`).toBe(422);
        expect(response.body).toEqual({ errors: [invalid('/address_hash_param', ADDRESS_DETAIL)] });
        expect(response.calls).toEqual({});
      }
    }
    expect(await tableSnapshot(table.name)).toEqual(before);
  });

  it('rejects an unknown direction filter', async () => {
    for (const endpoint of ['token-transfers', 'transactions', 'internal-transactions'] as const) {
      const response = await explorerGet(VALID, endpoint, { filter: 'sideways' });
      expect(response.status).toBe(422);
      expect(response.body).toEqual({ errors: [invalid('/filter', 'Invalid value for enum')] });
    }
  });

  it('rejects an invalid token address and invalid cursor values', async () => {
    const cases: [Endpoint, Record<string, string>, ReturnType<typeof invalid>[]][] = [
      ['token-transfers', { token: '0x12' }, [invalid('/token', ADDRESS_DETAIL)]],
      [
        'token-transfers',
        { block_number: 'latest', index: '-1' },
        [invalid('/block_number', 'Invalid integer. Got: string'), invalid('/index', 'Invalid integer. Got: string')],
      ],
      ['transactions', { items_count: '1.5' }, [invalid('/items_count', 'Invalid integer. Got: string')]],
      ['internal-transactions', { transaction_index: 'x' }, [invalid('/transaction_index', 'Invalid integer. Got: string')]],
      ['withdrawals', { index: 'first' }, [invalid('/index', 'Invalid integer. Got: string')]],
      [
        'tokens',
        { value: 'lots', token_type: 'ERC-9' },
        [invalid('/value', 'Invalid number. Got: string'), invalid('/token_type', 'Invalid value for enum')],
      ],
      [
        'nft/collections',
        { token_contract_address_hash: 'nope', token_type: 'erc721' },
        [invalid('/token_contract_address_hash', ADDRESS_DETAIL), invalid('/token_type', 'Invalid value for enum')],
      ],
    ];
    for (const [endpoint, query, errors] of cases) {
      const response = await explorerGet(VALID, endpoint, query);
      expect(response.status, `${endpoint} ${JSON.stringify(query)}`).toBe(422);
      expect(response.body.errors).toEqual(expect.arrayContaining(errors));
      expect(response.body.errors).toHaveLength(errors.length);
    }
  });

  it('rejects unknown parameters, including the cursor fields of other endpoints', async () => {
    for (const endpoint of ENDPOINTS) {
      for (const name of ['foo', ...(FOREIGN_PARAMETERS[endpoint] ?? [])]) {
        const response = await explorerGet(VALID, endpoint, { [name]: '1' });
        expect(response.status, `${endpoint} ${name}`).toBe(422);
        expect(response.body).toEqual({ errors: [unexpected(name)] });
      }
    }
  });

  it('lists every failing parameter at once', async () => {
    const response = await explorerGet('0xnope', 'token-transfers', { filter: 'up', token: 'x', page: '2', limit: '5' });
    expect(response.status).toBe(422);
    expect(response.body.errors).toHaveLength(5);
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        invalid('/address_hash_param', ADDRESS_DETAIL),
        invalid('/filter', 'Invalid value for enum'),
        invalid('/token', ADDRESS_DETAIL),
        unexpected('page'),
        unexpected('limit'),
      ]),
    );
  });
});

describe('valid input the index has nothing for', () => {
  it('answers 200 with no items and a null cursor, for any case of the address and any filter', async () => {
    for (const endpoint of ENDPOINTS) {
      for (const address of [VALID, VALID.toLowerCase(), VALID.toUpperCase().replace('0X', '0x')]) {
        const response = await explorerGet(address, endpoint);
        expect(response.status).toBe(200);
        expect(response.body).toEqual({ items: [], next_page_params: null });
      }
    }
    const filtered: [Endpoint, Record<string, string>][] = [
      ['tokens', { type: '[ERC-20,ERC-721]' }],
      ['tokens', { type: 'NOT-A-TYPE', value: '1e+21', token_type: 'ERC-20', token_name: 'Demo', items_count: '50' }],
      ['nft/collections', { type: 'ERC-404', token_type: 'ERC-721', token_contract_address_hash: VALID }],
      ['token-transfers', { type: 'erc-20', filter: 'to', token: VALID, block_number: '10', index: '3' }],
      ['transactions', { filter: 'from', block_number: '10', index: '0', items_count: '50' }],
      ['internal-transactions', { filter: 'to', block_number: '10', transaction_index: '0', index: '2', items_count: '50' }],
      ['withdrawals', { index: '10', items_count: '50' }],
    ];
    for (const [endpoint, query] of filtered) {
      const response = await explorerGet(VALID, endpoint, query);
      expect(response.status, `${endpoint} ${JSON.stringify(query)}`).toBe(200);
      expect(response.body).toEqual({ items: [], next_page_params: null });
    }
  });
});

describe('invalid input on the address page calls', () => {
  it('answers 422 for an invalid address or an unknown parameter, reading nothing', async () => {
    for (const endpoint of ['', 'counters', 'tabs-counters', 'nft'] as Endpoint[]) {
      const bad = await explorerGet('0x123', endpoint);
      expect(bad.status, endpoint).toBe(422);
      expect(bad.body).toEqual({ errors: [invalid('/address_hash_param', ADDRESS_DETAIL)] });
      expect(bad.calls).toEqual({});
      const unknown = await explorerGet(VALID, endpoint, { block_number: 1 });
      expect(unknown.status, endpoint).toBe(422);
      expect(unknown.body).toEqual({ errors: [unexpected('block_number')] });
    }
    const sort = await explorerGet(VALID, 'transactions', { sort: 'gas', order: 'up' });
    expect(sort.body).toEqual({ errors: [invalid('/sort', 'Invalid value for enum'), invalid('/order', 'Invalid value for enum')] });
  });
});
