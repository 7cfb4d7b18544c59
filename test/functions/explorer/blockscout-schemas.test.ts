/**
 * The Blockscout frontend's types as JSON Schemas (test/support/blockscout-schemas.ts): every explorer
 * route has one, and the check catches what the frontend would trip on (a missing field, a null where
 * the type has none). The check itself runs on every explorer answer of the suite (contract.ts).
 */
import { describe, expect, it } from 'vitest';
import { routes } from '../../../shared/routes';
import { addressParam, blockscoutSchemaOf, tokenInfo, tokenTransfer, validateJson } from '../../support/blockscout-schemas';

const address = {
  hash: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  implementations: [],
  name: null,
  is_contract: false,
  is_verified: false,
  ens_domain_name: null,
  private_tags: [],
  watchlist_names: [],
  public_tags: [],
};
const token = {
  address_hash: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  type: 'ERC-20',
  symbol: 'DEMO',
  name: 'Demo Token',
  decimals: '18',
  holders_count: '3',
  exchange_rate: null,
  total_supply: '1',
  icon_url: null,
  circulating_market_cap: null,
};

describe('Blockscout frontend types as JSON Schemas', () => {
  it('has a schema for every explorer route', () => {
    for (const route of routes.filter((r) => r.group === 'explorer')) {
      const path = route.path.replace('{address_hash}', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
      expect(blockscoutSchemaOf(path), route.path).toBeDefined();
    }
  });

  it('accepts what the types allow and names what they do not', () => {
    expect(validateJson(addressParam, address)).toEqual([]);
    expect(validateJson(tokenInfo, token)).toEqual([]);
    // The seed's names without Blockscout v2's: the frontend links /token/undefined.
    const { address_hash: _, holders_count: __, ...seedToken } = token;
    expect(validateJson(tokenInfo, { ...seedToken, address: token.address_hash, holders: '3' })).toEqual([
      '$.address_hash: required, missing',
      '$.holders_count: required, missing',
    ]);
    const { implementations: ___, ...withoutImplementations } = address;
    expect(validateJson(addressParam, withoutImplementations)).toEqual(['$.implementations: required, missing']);
    expect(validateJson(addressParam, { ...address, is_contract: null })).toEqual(['$.is_contract: null where the type allows boolean']);
    const transfer = {
      type: 'token_transfer',
      transaction_hash: `0x${'1'.repeat(64)}`,
      from: address,
      to: address,
      timestamp: '2024-01-01T00:00:00.000000Z',
      block_number: 1,
      block_hash: `0x${'2'.repeat(64)}`,
      log_index: 0,
      token: { ...token, type: 'ERC-721' },
      total: { token_id: '1', decimals: null, value: '1' },
    };
    // An NFT transfer without total.token_instance matches no total of the types.
    expect(validateJson(tokenTransfer, transfer)[0]).toMatch(/^\$: matches none of anyOf/);
    expect(validateJson(tokenTransfer, { ...transfer, total: { ...transfer.total, token_instance: null } })).toEqual([]);
  });
});
