/**
 * The deposit address (`globalAddress`) of an order: the CREATE2 address of the order's deposit
 * contract, deployed by ORDER_DEPOSIT_FACTORY from init code whose hash is ORDER_DEPOSIT_INIT_CODE_HASH,
 * with salt keccak256(UTF-8 bytes of the order id). A fresh order id gives a fresh address, so no two
 * orders share one, and anyone can recompute it from the id.
 */
import { getContractAddress, keccak256, stringToBytes, type Address } from 'viem';
import type { OrderConfig } from './config';

export function depositSalt(orderId: string): `0x${string}` {
  return keccak256(stringToBytes(orderId));
}

export function depositAddress(orderId: string, config: Pick<OrderConfig, 'depositFactory' | 'depositInitCodeHash'>): Address {
  return getContractAddress({
    opcode: 'CREATE2',
    from: config.depositFactory,
    salt: depositSalt(orderId),
    bytecodeHash: config.depositInitCodeHash,
  });
}
