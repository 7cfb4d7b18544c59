import { describe, expect, it } from 'vitest';
import { loadOrderConfig } from '../../../shared/orders/config';
import { ISO_3166_ALPHA2_CODES, isAssignedCountryCode } from '../../../shared/orders/countries';
import { UrlTemplateVendor } from '../../../shared/orders/onramp';

describe('orders configuration', () => {
  it('has working defaults: the local chain and the default extra chains, 15 minutes, 80 bps, coinbase and stripe', () => {
    const config = loadOrderConfig({});
    expect(config.chains).toEqual(expect.arrayContaining([1, 8453, 31337, 1337]));
    expect(config.chains[0]).toBe(31337);
    expect(config.expiryMinutes).toBe(15);
    expect(config.serviceFeeBps).toBe(80);
    expect(Object.keys(config.onrampVendors).sort()).toEqual(['coinbase', 'stripe']);
    expect(config.feeTokens).toEqual({});
  });

  it('parses every variable', () => {
    const config = loadOrderConfig({
      ORDER_CHAINS: '8453, 10',
      ORDER_EXPIRY_MINUTES: '5',
      ORDER_SERVICE_FEE_BPS: '120',
      ORDER_FEE_TOKENS: '{"8453":"0xB3B32F9f8827D4634fE7d973Fa1034Ec9fdDB3B3"}',
      ORDER_ONRAMP_VENDORS: '{"moonpay":{"urlTemplate":"https://buy.example.com/?to={globalAddress}"}}',
      ORDER_USD_TOKENS: '{"10":["0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85"]}',
    });
    expect(config).toMatchObject({
      chains: [31337, 8453, 10],
      expiryMinutes: 5,
      serviceFeeBps: 120,
      feeTokens: { 8453: '0xb3b32f9f8827d4634fe7d973fa1034ec9fddb3b3' },
      onrampVendors: { moonpay: { urlTemplate: 'https://buy.example.com/?to={globalAddress}' } },
      usdTokens: { 10: ['0x0b2c639c533813f4aa9d7837caf62653d097ff85'] },
    });
  });

  it('makes every ingested chain an order chain: CHAIN_ID locally, INGESTED_CHAIN_IDS (the stack) in AWS; ORDER_CHAINS adds', () => {
    expect(loadOrderConfig({ CHAIN_ID: '84532', ORDER_CHAINS: '' }).chains).toEqual([84532]);
    expect(loadOrderConfig({ CHAIN_ID: '84532', ORDER_CHAINS: '8453' }).chains).toEqual([84532, 8453]);
    expect(loadOrderConfig({ INGESTED_CHAIN_IDS: '8453,84532', CHAIN_ID: '1', ORDER_CHAINS: '10,8453' }).chains).toEqual([8453, 84532, 10]);
    // A stack without chains: only what ORDER_CHAINS names.
    expect(loadOrderConfig({ INGESTED_CHAIN_IDS: '', ORDER_CHAINS: '10' }).chains).toEqual([10]);
  });

  it.each([
    ['ORDER_CHAINS', '1,abc', /ORDER_CHAINS/],
    ['INGESTED_CHAIN_IDS', '1,,2', /INGESTED_CHAIN_IDS/],
    ['CHAIN_ID', 'x', /CHAIN_ID/],
    ['ORDER_EXPIRY_MINUTES', '0', /ORDER_EXPIRY_MINUTES/],
    ['ORDER_SERVICE_FEE_BPS', '10001', /ORDER_SERVICE_FEE_BPS/],
    ['ORDER_DEPOSIT_FACTORY', '0x12', /ORDER_DEPOSIT_FACTORY/],
    ['ORDER_DEPOSIT_INIT_CODE_HASH', '0x12', /ORDER_DEPOSIT_INIT_CODE_HASH/],
    ['ORDER_FEE_TOKENS', '{"1":"nope"}', /ORDER_FEE_TOKENS/],
    ['ORDER_FEE_TOKENS', 'not json', /ORDER_FEE_TOKENS/],
    ['ORDER_ONRAMP_VENDORS', '{"x":{"urlTemplate":"http://insecure.example"}}', /https URL/],
    ['ORDER_ONRAMP_VENDORS', '{"x":{"urlTemplate":"https://x.example/?a={secret}"}}', /placeholders/],
  ])('fails loudly on a bad %s (%s)', (name, value, message) => {
    expect(() => loadOrderConfig({ [name]: value })).toThrow(message);
  });
});

describe('ISO 3166-1 alpha-2 codes', () => {
  it('holds the 249 assigned codes and nothing reserved', () => {
    expect(ISO_3166_ALPHA2_CODES.size).toBe(249);
    for (const code of ['US', 'DE', 'GB', 'AX', 'SS', 'BQ', 'ZW']) expect(isAssignedCountryCode(code)).toBe(true);
    for (const code of ['UK', 'EU', 'XK', 'ZZ', 'AN', 'us', 'USA', '']) expect(isAssignedCountryCode(code)).toBe(false);
  });
});

describe('URL template vendor', () => {
  it('URL-encodes every value it fills in and prices USD tokens rounding up to the cent', () => {
    const vendor = new UrlTemplateVendor(
      'test',
      { urlTemplate: 'https://buy.example.com/{orderId}?r={redirectUrl}&usd={amountUsd}&n={srcAmountDecimal}' },
      loadOrderConfig({}).usdTokens,
    );
    const context = {
      orderId: 'id/with?chars',
      globalAddress: '0x0000000000000000000000000000000000000001',
      srcChain: 8453,
      srcTokenAddress: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
      srcToken: { chainId: 8453, address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', symbol: 'USDC', name: 'USD Coin', decimals: 6 },
      srcAmount: '1000001',
      onramp: { vendor: 'test', paymentMethod: 'card', country: 'US', redirectUrl: 'https://a.example/?x=1&y=2' },
    };
    expect(vendor.processorAmountInCents(context)).toBe(101);
    const url = vendor.oneClickBuyUrl(context);
    expect(url).toBe('https://buy.example.com/id%2Fwith%3Fchars?r=https%3A%2F%2Fa.example%2F%3Fx%3D1%26y%3D2&usd=1.01&n=1.000001');
  });
});
