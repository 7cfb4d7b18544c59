import { encodeAbiParameters, encodeErrorResult, encodeEventTopics, parseAbi, type Hex } from 'viem';
import { describe, expect, test } from 'vitest';
import { erc1155Abi, erc20Abi, erc721Abi } from '../../../shared/chain/abis';
import { decodeRevertReason, decodeTokenTransfers, expandErc1155Uri, resolveTokenMetadata } from '../../../shared/chain/decode';

const token = '0x00000000000000000000000000000000000000aa';
const alice = '0x1111111111111111111111111111111111111111';
const bob = '0x2222222222222222222222222222222222222222';

describe('decodeRevertReason', () => {
  const errors = parseAbi(['error Error(string)', 'error Panic(uint256)', 'error Insufficient(uint256 needed)']);
  test('Error(string) gives its message, Panic its description and code', () => {
    expect(decodeRevertReason(encodeErrorResult({ abi: errors, errorName: 'Error', args: ['not enough'] }))).toBe('not enough');
    expect(decodeRevertReason(encodeErrorResult({ abi: errors, errorName: 'Panic', args: [0x11n] }))).toBe(
      'panic: Arithmetic operation resulted in underflow or overflow. (0x11)',
    );
  });
  test('a custom error stays raw data; no data is no reason', () => {
    const data = encodeErrorResult({ abi: errors, errorName: 'Insufficient', args: [5n] });
    expect(decodeRevertReason(data)).toBe(data.toLowerCase());
    expect(decodeRevertReason('0x')).toBeNull();
    expect(decodeRevertReason(null)).toBeNull();
  });
});

describe('decodeTokenTransfers', () => {
  const log = (
    abi: typeof erc20Abi | typeof erc721Abi | typeof erc1155Abi,
    eventName: string,
    args: Record<string, unknown>,
    data: Hex,
  ) => ({
    address: token,
    topics: encodeEventTopics({ abi, eventName, args } as never) as Hex[],
    data,
  });

  test('Transfer with 3 topics is ERC-20, with 4 topics ERC-721', () => {
    const erc20 = log(erc20Abi, 'Transfer', { from: alice, to: bob }, encodeAbiParameters([{ type: 'uint256' }], [1000n]));
    expect(decodeTokenTransfers(erc20)).toEqual([
      { standard: 'ERC-20', token, from: alice, to: bob, tokenId: null, amount: 1000n, batchIndex: 0, operator: null },
    ]);
    const erc721 = log(erc721Abi, 'Transfer', { from: alice, to: bob, tokenId: 7n }, '0x');
    expect(decodeTokenTransfers(erc721)).toEqual([
      { standard: 'ERC-721', token, from: alice, to: bob, tokenId: 7n, amount: 1n, batchIndex: 0, operator: null },
    ]);
  });

  test('TransferBatch is flattened into one transfer per id, with its batch position', () => {
    const data = encodeAbiParameters(
      [{ type: 'uint256[]' }, { type: 'uint256[]' }],
      [
        [1n, 2n, 3n],
        [10n, 20n, 30n],
      ],
    );
    const batch = log(erc1155Abi, 'TransferBatch', { operator: bob, from: alice, to: bob }, data);
    expect(decodeTokenTransfers(batch).map((t) => [t.standard, t.tokenId, t.amount, t.batchIndex, t.operator])).toEqual([
      ['ERC-1155', 1n, 10n, 0, bob],
      ['ERC-1155', 2n, 20n, 1, bob],
      ['ERC-1155', 3n, 30n, 2, bob],
    ]);
  });

  test('Transfer with no indexed parameter (CryptoKitties) is ERC-721, from, to and id in data; a zero value is an ERC-20 transfer', () => {
    const topic0 = encodeEventTopics({ abi: erc20Abi, eventName: 'Transfer' })[0]!;
    const data = encodeAbiParameters([{ type: 'address' }, { type: 'address' }, { type: 'uint256' }], [alice, bob, 2n ** 70n]);
    expect(decodeTokenTransfers({ address: token, topics: [topic0], data })).toEqual([
      { standard: 'ERC-721', token, from: alice, to: bob, tokenId: 2n ** 70n, amount: 1n, batchIndex: 0, operator: null },
    ]);
    // Too short for three words: no transfer.
    expect(decodeTokenTransfers({ address: token, topics: [topic0], data: data.slice(0, 130) as Hex })).toEqual([]);
    const zero = encodeAbiParameters([{ type: 'uint256' }], [0n]);
    expect(decodeTokenTransfers(log(erc20Abi, 'Transfer', { from: alice, to: bob }, zero))).toMatchObject([
      { standard: 'ERC-20', amount: 0n, tokenId: null },
    ]);
  });

  test('a log that only looks like a transfer, or another event, is no transfer', () => {
    expect(decodeTokenTransfers(log(erc20Abi, 'Transfer', { from: alice, to: bob }, '0x'))).toEqual([]);
    expect(
      decodeTokenTransfers({ address: token, topics: ['0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925'], data: '0x' }),
    ).toEqual([]);
  });
});

describe('resolveTokenMetadata', () => {
  const document = { name: 'Thing #1', attributes: [{ trait_type: 'Colour', value: 'red' }] };
  test('data: URIs are resolved inline: base64, raw and percent-encoded JSON', () => {
    const expected = { status: 'resolved', metadataJson: JSON.stringify(document) };
    expect(resolveTokenMetadata(`data:application/json;base64,${Buffer.from(JSON.stringify(document)).toString('base64')}`)).toEqual(
      expected,
    );
    expect(resolveTokenMetadata(`data:application/json;utf8,${JSON.stringify(document)}`)).toEqual(expected);
    expect(resolveTokenMetadata(`data:application/json,${encodeURIComponent(JSON.stringify(document))}`)).toEqual(expected);
  });
  test('network URIs stay unresolved; broken documents are invalid; no URI is none', () => {
    expect(resolveTokenMetadata('ipfs://bafy/1.json')).toEqual({ status: 'unresolved', metadataJson: null });
    expect(resolveTokenMetadata('https://example.com/1.json')).toEqual({ status: 'unresolved', metadataJson: null });
    expect(resolveTokenMetadata('data:application/json;base64,eyJuYW1l')).toEqual({ status: 'invalid', metadataJson: null });
    expect(resolveTokenMetadata('data:application/json,[1,2]')).toEqual({ status: 'invalid', metadataJson: null });
    expect(resolveTokenMetadata(null)).toEqual({ status: 'none', metadataJson: null });
  });
  test('ERC-1155 URIs get the id as 64 hex digits', () => {
    expect(expandErc1155Uri('ipfs://x/{id}.json', 255n)).toBe(`ipfs://x/${'0'.repeat(62)}ff.json`);
  });
});
