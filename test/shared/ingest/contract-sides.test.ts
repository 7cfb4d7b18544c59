/**
 * The explorer's index copies (X3, X4, X5) record which of their sides are contracts as of their
 * block (`cs`, records.ts CONTRACT_SIDES_ATTRIBUTE), and the explorer pages ask BatchGetItem only for
 * those sides (table/joins.ts contractSidesOf); copies written before the bits ask for every side.
 */
import { storedEntriesOf } from '../../../shared/table/buckets';
import { describe, expect, it } from 'vitest';
import { contractSidesOf } from '../../../shared/table/joins';
import { addressObject, emptyDetails } from '../../../shared/explorer/serialise';
import type { DerivedBlock } from '../../../shared/ingest/derive';
import { immutableItems } from '../../../shared/ingest/items';
import { expandTokenTransfer, expandTransaction } from '../../../shared/table/compact';
import { addressKeys, tokenTransferKeys, transactionKeys } from '../../../shared/table/keys';
import {
  CONTRACT_SIDE,
  CONTRACT_SIDES_ATTRIBUTE,
  type AddressRecord,
  type BlockRecord,
  type InternalTransactionRecord,
  type TokenTransferRecord,
  type TransactionRecord,
} from '../../../shared/table/records';

const hex = (digits: number, fill: string) => `0x${fill.repeat(digits)}`;
const chainId = 31337;
const sender = hex(40, 'c');
const wallet = hex(40, 'e'); // a contract (e.g. a smart wallet) that receives tokens
const token = hex(40, 'd');
const router = hex(40, 'f');
const contracts = new Set([wallet, token, router]);

const at = { chainId, blockNumber: 1234, blockHash: hex(64, 'b'), blockTimestamp: 1_764_000_000 };
const block = {
  kind: 'block',
  chainId,
  number: 1234,
  hash: at.blockHash,
  parentHash: hex(64, 'c'),
  timestamp: at.blockTimestamp,
  nonce: '0x0000000000000000',
  sha3Uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
  mixHash: hex(64, 'd'),
  miner: hex(40, '1'),
  stateRoot: hex(64, '1'),
  transactionsRoot: hex(64, '2'),
  receiptsRoot: hex(64, '3'),
  logsBloom: `0x${'0'.repeat(512)}`,
  size: 900,
  extraData: '0x',
  difficulty: '0',
  totalDifficulty: null,
  transactionCount: 1,
  gasLimit: 30_000_000,
  gasUsed: 100_000,
  baseFeePerGas: '875000000',
  withdrawalsRoot: null,
  withdrawalCount: 0,
  blobGasUsed: null,
  excessBlobGas: null,
} satisfies BlockRecord;
const tx = {
  kind: 'transaction',
  ...at,
  hash: hex(64, 'a'),
  transactionIndex: 0,
  from: sender,
  to: router,
  value: '0',
  input: '0x12345678',
  inputOmitted: false,
  inputSize: 4,
  methodSelector: '0x12345678',
  nonce: 1,
  gas: 90_000,
  gasPrice: '1875000000',
  maxFeePerGas: null,
  maxPriorityFeePerGas: null,
  type: 0,
  r: null,
  s: null,
  v: null,
  yParity: null,
  accessListJson: null,
  authorizationListJson: null,
  status: 1,
  gasUsed: 50_000,
  cumulativeGasUsed: 50_000,
  effectiveGasPrice: '1875000000',
  contractAddress: null,
  logsBloom: `0x${'0'.repeat(512)}`,
  blobGasUsed: null,
  blobGasPrice: null,
  logCount: 1,
  baseFeePerGas: '875000000',
  fee: (50_000n * 1_875_000_000n).toString(),
  burntFee: (50_000n * 875_000_000n).toString(),
  priorityFee: (50_000n * 1_000_000_000n).toString(),
  revertReason: null,
  transactionTypes: ['token_transfer', 'contract_call'],
  error: null,
  hasErrorInInternalTransactions: false,
  tokenTransferCount: 1,
  tracesAvailable: true,
} satisfies TransactionRecord;
const position = { ...at, transactionHash: tx.hash, transactionIndex: 0 };
const transfer = {
  kind: 'tokenTransfer',
  ...position,
  logIndex: 0,
  batchIndex: 0,
  token,
  tokenStandard: 'ERC-20',
  from: sender,
  to: wallet,
  amount: '5',
  tokenId: null,
  transferType: 'transfer',
  operator: null,
  methodSelector: tx.methodSelector,
} satisfies TokenTransferRecord;
const internal = {
  kind: 'internalTransaction',
  ...position,
  index: 1,
  type: 'call',
  callType: 'call',
  from: router,
  to: sender,
  createdContract: null,
  value: '1',
  gasLimit: '2300',
  gasUsed: '0',
  success: true,
  error: null,
  traceAddress: [0],
} satisfies InternalTransactionRecord;

const derived = {
  chainId,
  block,
  transactions: [tx],
  logs: [],
  tokenTransfers: [transfer],
  internalTransactions: [internal],
  withdrawals: [],
  nativeTransfers: [],
  creations: [],
  tokens: new Map([[token, 'ERC-20']]),
  balanceTouches: [],
  nftTouches: [],
  candidateContracts: new Set([router, wallet, sender, token]),
  knownContracts: new Set([token]),
} satisfies DerivedBlock;

// Internal transactions are stored in block buckets (table/buckets.ts): their entries as items of their own.
const items = immutableItems(derived, (address) => contracts.has(address)).flatMap((stored) => storedEntriesOf(stored));
const item = (pk: string, sk: string) => items.find((entry) => entry.pk === pk && entry.sk === sk);

describe('contract sides of the explorer copies', () => {
  it('token transfer copies flag the sides that are contracts; the by-token and canonical copies carry no bits', () => {
    const sk = tokenTransferKeys.sortKey(1234, 0, 0);
    for (const pk of [
      tokenTransferKeys.byAddress(chainId, sender, 'from', 'ERC-20').pk,
      tokenTransferKeys.byAddress(chainId, wallet, 'to', 'ALL').pk,
      tokenTransferKeys.byAddressAndToken(chainId, wallet, 'to', token, 'ERC-20').pk,
    ]) {
      expect(item(pk, sk)?.[CONTRACT_SIDES_ATTRIBUTE], pk).toBe(CONTRACT_SIDE.to);
    }
    expect(item(tokenTransferKeys.byToken(chainId, token).pk, sk)).not.toHaveProperty(CONTRACT_SIDES_ATTRIBUTE);
    const canonical = transactionKeys.transactionTokenTransfer(chainId, tx.hash, 0, 0);
    expect(item(canonical.pk, canonical.sk)).not.toHaveProperty(CONTRACT_SIDES_ATTRIBUTE);
  });

  it('transaction and internal transaction copies flag their contract sides; a copy with none carries 0', () => {
    const txSk = transactionKeys.sortKey(1234, 0);
    expect(item(addressKeys.transactions(chainId, sender, 'from').pk, txSk)?.[CONTRACT_SIDES_ATTRIBUTE]).toBe(CONTRACT_SIDE.to);
    const itxSk = addressKeys.internalTransactionSortKey(1234, 0, 1);
    expect(item(addressKeys.internalTransactions(chainId, sender, 'to').pk, itxSk)?.[CONTRACT_SIDES_ATTRIBUTE]).toBe(CONTRACT_SIDE.from);
    const none = immutableItems(derived);
    expect(none.find((entry) => entry.pk === addressKeys.transactions(chainId, sender, 'from').pk)?.[CONTRACT_SIDES_ATTRIBUTE]).toBe(0);
    // An `all` range is the union of `to` and `from` (union-ranges.ts): no copy of its own.
    expect(items.filter((entry) => /#(TX|TT)#all(#|$)/.test(entry.pk))).toEqual([]);
  });

  it('the bits are not part of the record: the copies still expand to it', () => {
    const sk = tokenTransferKeys.sortKey(1234, 0, 0);
    const copy = item(tokenTransferKeys.byAddress(chainId, wallet, 'to', 'ALL').pk, sk)!;
    expect(expandTokenTransfer(copy)).toMatchObject(transfer);
    const txCopy = item(addressKeys.transactions(chainId, router, 'to').pk, transactionKeys.sortKey(1234, 0))!;
    expect(expandTransaction(txCopy)).toMatchObject(tx);
  });

  it('the page asks only for flagged sides; a copy without bits (written before them) for every side', () => {
    const sk = tokenTransferKeys.sortKey(1234, 0, 0);
    const copy = expandTokenTransfer(item(tokenTransferKeys.byAddress(chainId, sender, 'from', 'ALL').pk, sk)!);
    expect(contractSidesOf(copy, { from: copy.from, to: copy.to })).toEqual([wallet]);
    expect(contractSidesOf({}, { from: sender, to: wallet, created: null })).toEqual([sender, wallet]);
    expect(contractSidesOf({ [CONTRACT_SIDES_ATTRIBUTE]: 0 }, { from: sender, to: wallet })).toEqual([]);
    expect(
      contractSidesOf(
        { [CONTRACT_SIDES_ATTRIBUTE]: CONTRACT_SIDE.created | CONTRACT_SIDE.from },
        { from: router, to: null, created: wallet },
      ),
    ).toEqual([router, wallet]);
  });

  it('an address flagged on any copy of the page shows as a contract on every row of the page', () => {
    // A counterfactual wallet: an older copy (before its code) has no bit, a newer one has; the page
    // joins its address item once, and both rows read it.
    const details = emptyDetails();
    details.addresses.set(wallet, { kind: 'address', address: wallet, isContract: true, tokenName: null } as unknown as AddressRecord);
    expect(addressObject(wallet, details).is_contract).toBe(true);
    expect(addressObject(sender, details).is_contract).toBe(false);
  });
});
