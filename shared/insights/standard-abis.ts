/**
 * The standard ABI of each token type the ingest recognises (AddressRecord.tokenType): the items the
 * ingest itself reads with (shared/chain/abis.ts), completed with the rest of the standard's interface
 * (EIP-20, EIP-721 with its metadata extension, EIP-1155 with its metadata URI extension), so that a
 * token's transfers, approvals and reads decode. Parsed on first use (a cold start that never asks
 * for an ABI parses nothing).
 */
import { parseAbi, toEventSelector, toFunctionSelector, type Abi, type AbiEvent, type AbiFunction } from 'viem';
import { erc1155Abi, erc20Abi, erc721Abi } from '../chain/abis';
import type { IndexedTokenStandard } from '../table/records';

const REST_OF_STANDARD: Record<IndexedTokenStandard, readonly string[]> = {
  'ERC-20': [
    'function transfer(address to, uint256 value) returns (bool)',
    'function transferFrom(address from, address to, uint256 value) returns (bool)',
    'function approve(address spender, uint256 value) returns (bool)',
    'function allowance(address owner, address spender) view returns (uint256)',
    'event Approval(address indexed owner, address indexed spender, uint256 value)',
  ],
  'ERC-721': [
    'function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)',
    'function safeTransferFrom(address from, address to, uint256 tokenId)',
    'function transferFrom(address from, address to, uint256 tokenId)',
    'function approve(address to, uint256 tokenId)',
    'function setApprovalForAll(address operator, bool approved)',
    'function getApproved(uint256 tokenId) view returns (address)',
    'function isApprovedForAll(address owner, address operator) view returns (bool)',
    'function supportsInterface(bytes4 interfaceId) view returns (bool)',
    'event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)',
    'event ApprovalForAll(address indexed owner, address indexed operator, bool approved)',
  ],
  'ERC-1155': [
    'function balanceOfBatch(address[] accounts, uint256[] ids) view returns (uint256[])',
    'function setApprovalForAll(address operator, bool approved)',
    'function isApprovedForAll(address account, address operator) view returns (bool)',
    'function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes data)',
    'function safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] values, bytes data)',
    'function supportsInterface(bytes4 interfaceId) view returns (bool)',
    'event ApprovalForAll(address indexed account, address indexed operator, bool approved)',
    'event URI(string value, uint256 indexed id)',
  ],
};

const INGEST_ITEMS: Record<IndexedTokenStandard, Abi> = { 'ERC-20': erc20Abi, 'ERC-721': erc721Abi, 'ERC-1155': erc1155Abi };

const parsed = new Map<IndexedTokenStandard, readonly (AbiFunction | AbiEvent)[]>();

/** The standard's functions and events (each once, the ingest's items first). */
export function standardAbi(standard: IndexedTokenStandard): readonly (AbiFunction | AbiEvent)[] {
  let abi = parsed.get(standard);
  if (!abi) {
    const items = [...INGEST_ITEMS[standard], ...parseAbi(REST_OF_STANDARD[standard] as string[])].filter(
      (item): item is AbiFunction | AbiEvent => item.type === 'function' || item.type === 'event',
    );
    abi = uniqueItems(items);
    parsed.set(standard, abi);
  }
  return abi;
}

/** Items without repeats: a function by its selector, an event by its topic 0 and which inputs are indexed. */
export function uniqueItems(items: readonly (AbiFunction | AbiEvent)[]): (AbiFunction | AbiEvent)[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const id =
      item.type === 'function'
        ? `function ${toFunctionSelector(item)}`
        : `event ${toEventSelector(item)} ${item.inputs.map((input) => (input.indexed ? 1 : 0)).join('')}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
