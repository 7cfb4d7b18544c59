/** `method` and `decoded_input`: calldata encoded with viem, decoded as Blockscout shows it. */
import { describe, expect, it } from 'vitest';
import { encodeFunctionData, parseAbi, toFunctionSelector } from 'viem';
import { decodeInput, KNOWN_METHODS, methodName } from '../../../shared/explorer/methods';

const abi = parseAbi([
  'function transfer(address to, uint256 value)',
  'function safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] values, bytes data)',
  'function mint(address to, uint256 amount)',
]);
const A = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const B = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describe('methodName', () => {
  it('names the standard token methods and shows the selector of any other call', () => {
    expect(methodName(toFunctionSelector('transfer(address,uint256)'))).toBe('transfer');
    expect(methodName(toFunctionSelector('safeTransferFrom(address,address,uint256,uint256,bytes)'))).toBe('safeTransferFrom');
    expect(methodName('0x40C10F19')).toBe('0x40c10f19');
    expect(methodName(null)).toBeNull();
  });
});

describe('decodeInput', () => {
  it('decodes a transfer with its parameters as strings', () => {
    const data = encodeFunctionData({ abi, functionName: 'transfer', args: [A, 10n ** 24n] });
    expect(decodeInput(data)).toEqual({
      method_call: 'transfer(address to, uint256 value)',
      method_id: 'a9059cbb',
      parameters: [
        { name: 'to', type: 'address', value: A },
        { name: 'value', type: 'uint256', value: '1000000000000000000000000' },
      ],
    });
  });

  it('gives arrays as JSON text', () => {
    const data = encodeFunctionData({ abi, functionName: 'safeBatchTransferFrom', args: [A, B, [1n, 2n], [10n, 20n], '0x'] });
    expect(decodeInput(data)?.parameters.map((p) => p.value)).toEqual([A, B, '["1","2"]', '["10","20"]', '0x']);
  });

  it('gives null for unknown methods, short input and calldata that does not decode', () => {
    expect(decodeInput(encodeFunctionData({ abi, functionName: 'mint', args: [A, 1n] }))).toBeNull();
    expect(decodeInput('0x')).toBeNull();
    expect(decodeInput(null)).toBeNull();
    expect(decodeInput(`${toFunctionSelector('transfer(address,uint256)')}00`)).toBeNull();
  });
});

describe('KNOWN_METHODS', () => {
  it('is the standard token methods as viem parses their signatures, keyed by their selectors', () => {
    const parsed = parseAbi([
      'function transfer(address to, uint256 value)',
      'function approve(address spender, uint256 value)',
      'function transferFrom(address from, address to, uint256 value)',
      'function setApprovalForAll(address operator, bool approved)',
      'function safeTransferFrom(address from, address to, uint256 tokenId)',
      'function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)',
      'function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes data)',
      'function safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] values, bytes data)',
    ]);
    expect([...KNOWN_METHODS]).toEqual(parsed.map((item) => [toFunctionSelector(item), item]));
  });
});
