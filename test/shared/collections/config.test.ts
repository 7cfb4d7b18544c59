import { getAddress, keccak256, stringToHex } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_COMBINATION_SCAN_LIMIT,
  DEFAULT_FACTORY_ADDRESS,
  DEFAULT_INIT_CODE_HASH,
  DEFAULT_INIT_CODE_HASH_ERC1155,
  factoryAddress,
  loadCollectionsConfig,
} from '../../../shared/collections/config';

describe('collections configuration', () => {
  it('has documented defaults', () => {
    const config = loadCollectionsConfig({});
    expect(config.factoryName).toBe('CollectionFactory');
    expect(config.combinationScanLimit).toBe(DEFAULT_COMBINATION_SCAN_LIMIT);
    expect(factoryAddress(config, 8453)).toBe(DEFAULT_FACTORY_ADDRESS);
    expect(config.initCodeHashes).toEqual({ ERC721: DEFAULT_INIT_CODE_HASH, ERC1155: DEFAULT_INIT_CODE_HASH_ERC1155 });
  });

  it('has placeholder init-code hashes that are the keccak256 of their documented texts', () => {
    expect(DEFAULT_INIT_CODE_HASH).toBe(keccak256(stringToHex('BaseMintCollection')));
    expect(DEFAULT_INIT_CODE_HASH_ERC1155).toBe(keccak256(stringToHex('BaseMintCollection1155')));
  });

  it('reads an init-code hash per token standard (stored lowercase)', () => {
    const config = loadCollectionsConfig({
      COLLECTION_INIT_CODE_HASH: `0x${'AB'.repeat(32)}`,
      COLLECTION_INIT_CODE_HASH_ERC1155: `0x${'cd'.repeat(32)}`,
    });
    expect(config.initCodeHashes).toEqual({ ERC721: `0x${'ab'.repeat(32)}`, ERC1155: `0x${'cd'.repeat(32)}` });
  });

  it('reads a factory per chain (checksummed) and falls back to the default elsewhere', () => {
    const config = loadCollectionsConfig({
      COLLECTION_FACTORY_ADDRESSES:
        '{"8453":"0x000000000000000000000000000000000000beef","1":"0xABCDEFABCDEFABCDEFABCDEFABCDEFABCDEFABCD"}',
      COLLECTION_FACTORY_NAME: 'BaseMintFactory',
      COLLECTION_COMBINATION_SCAN_LIMIT: '250',
    });
    expect(factoryAddress(config, 8453)).toBe('0x000000000000000000000000000000000000bEEF');
    // Given in capitals (not a valid checksum): stored in its EIP-55 form.
    expect(factoryAddress(config, 1)).toBe(getAddress('0xabcdefabcdefabcdefabcdefabcdefabcdefabcd'));
    expect(factoryAddress(config, 1)).not.toBe('0xABCDEFABCDEFABCDEFABCDEFABCDEFABCDEFABCD');
    expect(factoryAddress(config, 10)).toBe(DEFAULT_FACTORY_ADDRESS);
    expect(config.factoryName).toBe('BaseMintFactory');
    expect(config.combinationScanLimit).toBe(250);
  });

  it.each([
    [{ COLLECTION_FACTORY_ADDRESSES: 'not json' }, /COLLECTION_FACTORY_ADDRESSES: must be a JSON object/],
    [{ COLLECTION_FACTORY_ADDRESSES: '{"base":"0x000000000000000000000000000000000000beef"}' }, /keys must be chain ids/],
    [{ COLLECTION_FACTORY_ADDRESSES: '{"1":"0x1234"}' }, /values must be addresses/],
    [{ COLLECTION_FACTORY_ADDRESSES: '["0x000000000000000000000000000000000000beef"]' }, /COLLECTION_FACTORY_ADDRESSES/],
    [{ COLLECTION_INIT_CODE_HASH: '0x1234' }, /COLLECTION_INIT_CODE_HASH/],
    [{ COLLECTION_INIT_CODE_HASH_ERC1155: 'beef' }, /COLLECTION_INIT_CODE_HASH_ERC1155/],
    [{ COLLECTION_COMBINATION_SCAN_LIMIT: '0' }, /COLLECTION_COMBINATION_SCAN_LIMIT/],
    [{ COLLECTION_FACTORY_NAME: '' }, /COLLECTION_FACTORY_NAME/],
  ])('fails loudly on %o', (env, message) => {
    expect(() => loadCollectionsConfig(env)).toThrow(message);
  });
});
