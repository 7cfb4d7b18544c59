/**
 * Onramp vendors: how an order paid by card gets its one-click buy link and its price in cents.
 * Each configured vendor (ORDER_ONRAMP_VENDORS) gets an adapter; the standard one fills the vendor's
 * URL template. A vendor with its own API would get its own implementation of `OnrampVendorAdapter`.
 */
import { formatUnits } from 'viem';
import type { OnrampVendorConfig, OrderConfig } from './config';
import type { OnrampRequest, TokenDescriptor } from './schemas';

export interface OnrampContext {
  orderId: string;
  globalAddress: string;
  srcChain: number;
  srcTokenAddress: string;
  srcToken: TokenDescriptor;
  /** Smallest unit. */
  srcAmount: string;
  onramp: OnrampRequest;
}

export interface OnrampVendorAdapter {
  readonly vendor: string;
  /** What the buyer pays in US cents, or null when the adapter cannot price the source token. */
  processorAmountInCents(context: OnrampContext): number | null;
  /** The hosted checkout link that buys the order's source amount and sends it to the deposit address. */
  oneClickBuyUrl(context: OnrampContext): string;
}

/**
 * Prices an amount of a USD token (ORDER_USD_TOKENS) at one dollar per whole token, rounded up to the
 * cent; null for any other token or an amount too large to be a JSON-safe number of cents.
 */
export function usdCents(
  usdTokens: OrderConfig['usdTokens'],
  srcChain: number,
  tokenAddress: string,
  amount: string,
  decimals: number,
): number | null {
  if (!(usdTokens[srcChain] ?? []).includes(tokenAddress.toLowerCase())) return null;
  const unit = 10n ** BigInt(decimals);
  const cents = (BigInt(amount) * 100n + unit - 1n) / unit;
  return cents <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(cents) : null;
}

/** A vendor whose checkout link is its URL template with the order's values filled in (URL-encoded). */
export class UrlTemplateVendor implements OnrampVendorAdapter {
  constructor(
    readonly vendor: string,
    private readonly config: OnrampVendorConfig,
    private readonly usdTokens: OrderConfig['usdTokens'],
  ) {}

  processorAmountInCents(context: OnrampContext): number | null {
    return usdCents(this.usdTokens, context.srcChain, context.srcTokenAddress, context.srcAmount, context.srcToken.decimals);
  }

  oneClickBuyUrl(context: OnrampContext): string {
    const cents = this.processorAmountInCents(context);
    const values: Record<string, string> = {
      orderId: context.orderId,
      globalAddress: context.globalAddress,
      srcChain: String(context.srcChain),
      srcTokenAddress: context.srcTokenAddress,
      srcTokenSymbol: context.srcToken.symbol,
      srcAmount: context.srcAmount,
      srcAmountDecimal: formatUnits(BigInt(context.srcAmount), context.srcToken.decimals),
      amountUsd: cents === null ? '' : formatUnits(BigInt(cents), 2),
      country: context.onramp.country,
      paymentMethod: context.onramp.paymentMethod,
      redirectUrl: context.onramp.redirectUrl,
    };
    return this.config.urlTemplate.replace(/\{([A-Za-z]+)\}/g, (placeholder, name: string) =>
      Object.hasOwn(values, name) ? encodeURIComponent(values[name]!) : placeholder,
    );
  }
}

/** The adapter of a configured vendor (the request schema has already checked that it is configured). */
export function onrampVendor(vendor: string, config: Pick<OrderConfig, 'onrampVendors' | 'usdTokens'>): OnrampVendorAdapter {
  const vendorConfig = config.onrampVendors[vendor];
  if (!vendorConfig) throw new Error(`Onramp vendor ${vendor} is not configured`);
  return new UrlTemplateVendor(vendor, vendorConfig, config.usdTokens);
}
