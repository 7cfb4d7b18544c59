/**
 * The standard fee of an order (feeVersion 1):
 *  - serviceFeeBps: ORDER_SERVICE_FEE_BPS (default 80);
 *  - serviceWhaleDiscountBps: from the recipient's indexed balance of the chain's fee-discount token
 *    on the DESTINATION chain: >= 100,000 whole tokens 5000, >= 500,000 7500, >= 1,000,000 10000;
 *  - servicePartnerDiscountBps: the partner record's discount (0 without a partner);
 *  - finalFeeBps = max(0, service - floor(service * whale / 10000) - partner), in integer arithmetic.
 */
import { formatUnits, zeroAddress } from 'viem';
import { getItem } from '../db/operations';
import { addressKeys } from '../table/keys';
import type { AddressRecord, BalanceRecord } from '../table/records';
import type { OrderConfig } from './config';
import type { Fee } from './schemas';

export const FEE_VERSION = 1;

/** Whale tiers, highest first: a balance of at least `minWholeTokens` earns `discountBps`. */
export const WHALE_TIERS: readonly { minWholeTokens: bigint; discountBps: number }[] = [
  { minWholeTokens: 1_000_000n, discountBps: 10_000 },
  { minWholeTokens: 500_000n, discountBps: 7_500 },
  { minWholeTokens: 100_000n, discountBps: 5_000 },
];

/** Decimals assumed for the fee token when its address item is missing or has no decimals. */
export const DEFAULT_FEE_TOKEN_DECIMALS = 18;

/** The whale discount of a balance given in the token's smallest unit. */
export function whaleDiscountBps(balance: bigint, decimals: number): number {
  const unit = 10n ** BigInt(decimals);
  return WHALE_TIERS.find((tier) => balance >= tier.minWholeTokens * unit)?.discountBps ?? 0;
}

export function finalFeeBps(serviceFeeBps: number, whaleDiscountBps: number, partnerDiscountBps: number): number {
  const service = BigInt(serviceFeeBps);
  const remainder = service - (service * BigInt(whaleDiscountBps)) / 10_000n - BigInt(partnerDiscountBps);
  return Number(remainder > 0n ? remainder : 0n);
}

export interface FeeInputs {
  serviceFeeBps: number;
  tokenToCheckBalance: string;
  /** Balance in the token's smallest unit. */
  balance: bigint;
  decimals: number;
  partnerDiscountBps: number;
}

export function standardFee(inputs: FeeInputs): Fee {
  const whale = whaleDiscountBps(inputs.balance, inputs.decimals);
  return {
    type: 'standard_fee',
    feeVersion: FEE_VERSION,
    tokenToCheckBalance: inputs.tokenToCheckBalance,
    recipientBalance: formatUnits(inputs.balance, inputs.decimals),
    serviceFeeBps: inputs.serviceFeeBps,
    serviceWhaleDiscountBps: whale,
    servicePartnerDiscountBps: inputs.partnerDiscountBps,
    finalFeeBps: finalFeeBps(inputs.serviceFeeBps, whale, inputs.partnerDiscountBps),
  };
}

export interface FeeTokenBalance {
  token: string;
  balance: bigint;
  decimals: number;
}

/**
 * O6 (see docs/access-patterns.md): the recipient's indexed balance of the fee-discount token of
 * `chainId` (`feeTokens`, ORDER_FEE_TOKENS), read from the ingest's items (shared/table/records.ts):
 * the balance item's `value` (decimal string, smallest unit) and the token's address item's
 * `tokenDecimals`, two GetItems in parallel. No configured token, or nothing indexed: a zero balance.
 */
export async function readFeeTokenBalance(chainId: number, holder: string, feeTokens: OrderConfig['feeTokens']): Promise<FeeTokenBalance> {
  const token = feeTokens[chainId];
  if (!token) return { token: zeroAddress, balance: 0n, decimals: DEFAULT_FEE_TOKEN_DECIMALS };
  const [balanceItem, tokenItem] = await Promise.all([
    getItem<Partial<Pick<BalanceRecord, 'value'>>>(addressKeys.balance(chainId, holder, token)),
    getItem<Partial<Pick<AddressRecord, 'tokenDecimals'>>>(addressKeys.address(chainId, token)),
  ]);
  const decimals = toDecimals(tokenItem?.tokenDecimals) ?? DEFAULT_FEE_TOKEN_DECIMALS;
  const value = typeof balanceItem?.value === 'string' && /^[0-9]+$/.test(balanceItem.value) ? BigInt(balanceItem.value) : 0n;
  return { token, balance: value, decimals };
}

function toDecimals(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 255 ? value : undefined;
}
