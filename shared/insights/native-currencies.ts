/**
 * The native currency of a chain (name, symbol, decimals), for the native balance rows of I6e
 * (`include_native=true`): thirdweb's Insight gives its native row the chain's native currency as its
 * chain list names it. The chain registry of this table (N13) holds no currency (a node does not say
 * one), so the well-known chains are listed here, as viem's chain definitions name them
 * (`viem/chains`: not bundled, it would load every chain's definition on a cold start). A chain not
 * listed has no name or symbol (null) and 18 decimals: every EVM chain's JSON-RPC balance is in units
 * of 10^-18 of its coin.
 */

/** The token address Insight gives a chain's native coin (EIP-7528). */
export const NATIVE_TOKEN_ADDRESS = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';

export interface NativeCurrency {
  name: string | null;
  symbol: string | null;
  decimals: number;
}

const ETHER = { name: 'Ether', symbol: 'ETH', decimals: 18 } as const;
const currency = (name: string, symbol: string) => ({ name, symbol, decimals: 18 }) as const;

/** By chain id, as viem's chain definitions (2.x) name them. */
const NATIVE_CURRENCIES: Readonly<Record<number, NativeCurrency>> = {
  1: ETHER, // Ethereum
  10: ETHER, // OP Mainnet
  56: currency('BNB', 'BNB'), // BNB Smart Chain
  100: currency('xDAI', 'XDAI'), // Gnosis
  130: ETHER, // Unichain
  137: currency('POL', 'POL'), // Polygon
  146: currency('Sonic', 'S'), // Sonic
  250: currency('Fantom', 'FTM'), // Fantom
  324: ETHER, // ZKsync Era
  1101: ETHER, // Polygon zkEVM
  1284: currency('Moonbeam', 'GLMR'), // Moonbeam
  1337: ETHER, // a local development chain (viem's `localhost`; this service's demo chain)
  2741: currency('ETH', 'ETH'), // Abstract
  5000: currency('MNT', 'MNT'), // Mantle
  8453: ETHER, // Base
  17000: currency('Holesky Ether', 'ETH'), // Holesky
  31337: ETHER, // anvil / Hardhat (viem's `foundry`, `hardhat`)
  33139: currency('ApeCoin', 'APE'), // ApeChain
  42161: ETHER, // Arbitrum One
  42170: ETHER, // Arbitrum Nova
  42220: currency('CELO', 'CELO'), // Celo
  43114: currency('Avalanche', 'AVAX'), // Avalanche C-Chain
  59144: currency('Linea Ether', 'ETH'), // Linea
  80002: currency('POL', 'POL'), // Polygon Amoy
  80094: currency('BERA Token', 'BERA'), // Berachain
  81457: ETHER, // Blast
  84532: currency('Sepolia Ether', 'ETH'), // Base Sepolia
  421614: currency('Arbitrum Sepolia Ether', 'ETH'), // Arbitrum Sepolia
  534352: ETHER, // Scroll
  7777777: ETHER, // Zora
  11155111: currency('Sepolia Ether', 'ETH'), // Sepolia
  11155420: currency('Sepolia Ether', 'ETH'), // OP Sepolia
};

/** The native currency of `chainId` (null name and symbol for a chain not listed). */
export function nativeCurrencyOf(chainId: number): NativeCurrency {
  return NATIVE_CURRENCIES[chainId] ?? { name: null, symbol: null, decimals: 18 };
}
