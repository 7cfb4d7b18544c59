/**
 * The ABIs the ingest reads and decodes with: the token standards (ERC-20, ERC-721, ERC-1155), their
 * optional metadata extensions, and ERC-165. Parsed once by viem from human-readable signatures.
 */
import { parseAbi, toEventSelector } from 'viem';

/** ERC-20 plus the optional metadata functions (name, symbol, decimals). */
export const erc20Abi = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address owner) view returns (uint256)',
]);

/** ERC-721 plus the metadata extension. The Transfer event has the token id indexed (4 topics). */
export const erc721Abi = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address owner) view returns (uint256)',
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function tokenURI(uint256 tokenId) view returns (string)',
]);

/** ERC-1155 plus the metadata URI extension. */
export const erc1155Abi = parseAbi([
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
  'function balanceOf(address account, uint256 id) view returns (uint256)',
  'function uri(uint256 id) view returns (string)',
]);

/** ERC1155Supply (OpenZeppelin extension, widely copied): the total supply of one id. */
export const erc1155SupplyAbi = parseAbi(['function totalSupply(uint256 id) view returns (uint256)']);

export const erc165Abi = parseAbi(['function supportsInterface(bytes4 interfaceId) view returns (bool)']);

/** ERC-165 interface ids of the NFT standards. */
export const INTERFACE_ID = {
  erc721: '0x80ac58cd',
  erc1155: '0xd9b67a26',
} as const;

/** topic0 of the transfer events (the same Transfer topic serves ERC-20 and ERC-721). */
export const TOPIC = {
  transfer: toEventSelector('Transfer(address,address,uint256)'),
  transferSingle: toEventSelector('TransferSingle(address,address,address,uint256,uint256)'),
  transferBatch: toEventSelector('TransferBatch(address,address,address,uint256[],uint256[])'),
} as const;

/** Multicall3's aggregate3 (each call with its own allowFailure). */
export const multicall3Abi = parseAbi([
  'struct Call3 { address target; bool allowFailure; bytes callData; }',
  'struct Result { bool success; bytes returnData; }',
  'function aggregate3(Call3[] calls) payable returns (Result[] returnData)',
  'function getEthBalance(address addr) view returns (uint256 balance)',
]);

/** The canonical Multicall3 deployment address (the same on every chain that has it). */
export const MULTICALL3_ADDRESS = '0xca11bde05977b3631167028862be2a173976ca11' as const;
