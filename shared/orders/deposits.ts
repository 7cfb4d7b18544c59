/**
 * Deposit detection, a listener of the ingest (shared/ingest/listeners.ts) registered where the
 * ingest is composed (`orderDepositListener`): it gets each batch of ingested blocks
 * (`detectOrderDepositsInBlocks`) and the blocks a reorg orphans (`undoOrphanedDeposits`). For every
 * native or ERC-20 transfer of the blocks, the open orders of its recipient on that chain are looked
 * up with ONE Query per distinct recipient on `orderKeys.awaitingDepositRange` (O4, see
 * docs/access-patterns.md; GSI1, sparse: only waiting orders are in it). A transfer in the order's
 * source token is recorded as a deposit item (`orderKeys.deposit`: order id + transaction hash + log
 * index / call index, conditional put) and, in the same transaction, added to the order's
 * `receivedAmount` (conditional on the amount it replaces), so a block delivered twice never counts
 * twice. Once `receivedAmount >= srcAmount` the order moves to quoting_after_deposit through the
 * transition table (`markDepositReceived`, conditional on its current status).
 *
 * Native currency is named in orders by `0x0000000000000000000000000000000000000000` or
 * `0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE` (any letter case); any other `srcTokenAddress` is an
 * ERC-20 contract. A reorg that orphans a block undoes its deposits (`undoOrphanedDeposits`); see
 * docs/decisions/orders.md ("Deposit detection") for every rule.
 */
import { deleteItem, getItem, inParallel, queryAll, rangeQuery, transactWrite, type TransactItem } from '../db/operations';
import type { BlockIngestedEvent, BlocksOrphanedEvent, IngestListener } from '../ingest/listeners';
import { countJobWork } from '../observability/job-metrics';
import { logger } from '../observability/logger';
import { orderKeys, type ItemKey } from '../table/keys';
import { findStoredOrder, markDepositReceived, type StoredOrder } from './orders';
import { keepOrderItems } from './retention';
import { isWaiting } from './states';

/** The addresses an order may use as `srcTokenAddress` for the chain's native currency (lowercase). */
export const NATIVE_TOKEN_ADDRESSES: readonly string[] = [
  '0x0000000000000000000000000000000000000000',
  '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
];

export function isNativeToken(address: string): boolean {
  return NATIVE_TOKEN_ADDRESSES.includes(address.toLowerCase());
}

/** What became of a deposit: counted toward the order, or kept for a refund. */
export type DepositOutcome = 'counted' | 'after_expiry' | 'order_moved_on';

/** orderKeys.deposit (with GSI1 orderKeys.depositInBlock): one transfer to an order's deposit address. */
export interface OrderDepositRecord {
  kind: 'orderDeposit';
  orderId: string;
  chainId: number;
  blockNumber: number;
  blockHash: string;
  /** Unix seconds. */
  blockTimestamp: number;
  transactionHash: string;
  /** ERC-20: the Transfer log's index in the block; null for native currency. */
  logIndex: number | null;
  /** Native currency: 0 for the transaction's own value, n for its n-th trace call; null for ERC-20. */
  callIndex: number | null;
  /** `native`, or the ERC-20 token contract (lowercase). */
  token: string;
  from: string;
  /** Decimal, smallest unit. */
  amount: string;
  /**
   * counted: added to the order's receivedAmount. after_expiry: the block time is at or after the
   * order's expiredAt, nothing counted (to refund). order_moved_on: the order had already left the
   * waiting states (an extra payment, to refund).
   */
  outcome: DepositOutcome;
  /** The order's receivedAmount once this deposit was counted; null when not counted. */
  totalAfter: string | null;
  /** A reorg orphaned its block after the order had already moved on (see the docs); else false. */
  orphaned: boolean;
}

/** A stored order with the running total of its counted deposits. */
type OrderWithDeposits = StoredOrder & { receivedAmount?: string };

interface Candidate {
  to: string;
  from: string;
  amount: bigint;
  token: string;
  transactionHash: string;
  transactionIndex: number;
  position: { logIndex: number } | { callIndex: number };
}

/** Recipients looked up at once. */
const LOOKUP_CONCURRENCY = 4;
const MAX_ATTEMPTS = 5;

/**
 * Records the deposits of consecutive blocks of one chain (an ingest batch) to waiting orders, in
 * block order, and moves the orders they complete. Idempotent. The waiting orders
 * of every recipient are looked up ONCE for the blocks together: the blocks were all mined before
 * this call, so an order that can receive one of their transfers exists by then. An order found
 * waiting is followed through the blocks as its deposits change it, and left alone from the block
 * after the one where it stopped waiting (as a lookup per block would no longer find it).
 */
export async function detectOrderDepositsInBlocks(events: readonly BlockIngestedEvent[]): Promise<void> {
  const [first] = events;
  if (first === undefined) return;
  countJobWork('BlocksScanned', events.length);
  const perBlock = events.map((event) => {
    const byRecipient = new Map<string, Candidate[]>();
    for (const candidate of candidatesOf(event)) byRecipient.set(candidate.to, [...(byRecipient.get(candidate.to) ?? []), candidate]);
    return { event, byRecipient };
  });
  const recipients = [...new Set(perBlock.flatMap(({ byRecipient }) => [...byRecipient.keys()]))];
  const waiting = new Map<string, OrderWithDeposits[]>();
  await inParallel(recipients, LOOKUP_CONCURRENCY, async (recipient) => {
    const orders = await awaitingOrders(first.chainId, recipient);
    if (orders.length > 0) waiting.set(recipient, orders);
  });

  // Each order as the deposits of earlier blocks left it (undefined: it no longer exists).
  const latest = new Map<string, OrderWithDeposits | undefined>();
  for (const { event, byRecipient } of perBlock) {
    for (const [recipient, candidates] of byRecipient) {
      for (const order of waiting.get(recipient) ?? []) {
        const before = latest.has(order.id) ? latest.get(order.id) : order;
        if (!before || (latest.has(order.id) && !isWaiting(before.status))) continue;
        let current: OrderWithDeposits | undefined = before;
        for (const candidate of candidates.filter((entry) => entry.token === orderToken(order))) {
          if (!current) break;
          current = await handleDeposit(current, candidate, event);
        }
        latest.set(order.id, current);
      }
    }
  }
}

/** The block's transfers with a positive amount, in block order (transaction, then call / log). */
function candidatesOf(event: BlockIngestedEvent): Candidate[] {
  const native: Candidate[] = event.nativeTransfers.map((transfer) => ({
    to: transfer.to.toLowerCase(),
    from: transfer.from.toLowerCase(),
    amount: BigInt(transfer.value),
    token: 'native',
    transactionHash: transfer.transactionHash.toLowerCase(),
    transactionIndex: transfer.transactionIndex,
    position: { callIndex: transfer.internalIndex ?? 0 },
  }));
  const erc20: Candidate[] = event.erc20Transfers.map((transfer) => ({
    to: transfer.to.toLowerCase(),
    from: transfer.from.toLowerCase(),
    amount: BigInt(transfer.amount),
    token: transfer.token.toLowerCase(),
    transactionHash: transfer.transactionHash.toLowerCase(),
    transactionIndex: transfer.transactionIndex,
    position: { logIndex: transfer.logIndex },
  }));
  const rank = (candidate: Candidate): number =>
    'logIndex' in candidate.position ? candidate.position.logIndex : candidate.position.callIndex;
  return [...native, ...erc20]
    .filter((candidate) => candidate.amount > 0n)
    .sort((a, b) => a.transactionIndex - b.transactionIndex || rank(a) - rank(b));
}

function orderToken(order: StoredOrder): string {
  return isNativeToken(order.srcTokenAddress) ? 'native' : order.srcTokenAddress.toLowerCase();
}

/** O4: the orders waiting for a deposit at `address` on `chainId` (one Query on GSI1). */
async function awaitingOrders(chainId: number, address: string): Promise<OrderWithDeposits[]> {
  return (await queryAll<OrderWithDeposits>(rangeQuery(orderKeys.awaitingDepositRange(chainId, address)))).items;
}

/**
 * Records one deposit (once), counts it when the order still waits and the block is before the
 * expiry, and moves the order when the deposit completes `srcAmount`. Returns the order as it now
 * is (undefined when it no longer exists).
 */
async function handleDeposit(
  order: OrderWithDeposits,
  candidate: Candidate,
  event: BlockIngestedEvent,
): Promise<OrderWithDeposits | undefined> {
  const { block } = event;
  const key = orderKeys.deposit(order.id, candidate.transactionHash, candidate.position);
  let current: OrderWithDeposits | undefined = order;
  let deposit: OrderDepositRecord | undefined;
  for (let attempt = 0; current && !deposit; attempt += 1) {
    if (attempt >= MAX_ATTEMPTS) throw new Error(`order ${order.id}: deposit ${key.sk} could not be recorded (the order kept changing)`);
    const receivedAt = Math.max(block.timestamp * 1000, current.createdAt);
    const outcome: DepositOutcome = !isWaiting(current.status)
      ? 'order_moved_on'
      : receivedAt >= current.expiredAt
        ? 'after_expiry'
        : 'counted';
    const before: string | undefined = current.receivedAmount;
    const totalAfter: string | null = outcome === 'counted' ? (BigInt(before ?? '0') + candidate.amount).toString() : null;
    const record: OrderDepositRecord = {
      kind: 'orderDeposit',
      orderId: order.id,
      chainId: event.chainId,
      blockNumber: block.number,
      blockHash: block.hash,
      blockTimestamp: block.timestamp,
      transactionHash: candidate.transactionHash,
      logIndex: 'logIndex' in candidate.position ? candidate.position.logIndex : null,
      callIndex: 'callIndex' in candidate.position ? candidate.position.callIndex : null,
      token: candidate.token,
      from: candidate.from,
      amount: candidate.amount.toString(),
      outcome,
      totalAfter,
      orphaned: false,
    };
    const items: TransactItem[] = [
      {
        Put: {
          Item: { ...key, ...orderKeys.depositInBlock(event.chainId, block.number, order.id, key.sk), ...record },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ];
    // Money arrived for the order: it, its list pointers and its session are kept for good (retention.ts).
    const keep = outcome !== 'order_moved_on' && current.ttl !== undefined;
    if (outcome === 'counted') {
      items.push({
        Update: {
          Key: orderKeys.order(order.id),
          UpdateExpression: `SET receivedAmount = :total${keep ? ' REMOVE #ttl' : ''}`,
          ConditionExpression: `#status = :status AND ${before === undefined ? 'attribute_not_exists(receivedAmount)' : 'receivedAmount = :before'}`,
          ExpressionAttributeNames: { '#status': 'status', ...(keep ? { '#ttl': 'ttl' } : {}) },
          ExpressionAttributeValues: {
            ':total': totalAfter,
            ':status': current.status,
            ...(before === undefined ? {} : { ':before': before }),
          },
        },
      });
    }
    if (keep && outcome !== 'counted') {
      items.push({
        Update: {
          Key: orderKeys.order(order.id),
          UpdateExpression: 'REMOVE #ttl',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
        },
      });
    }
    if (keep) items.push(...keepOrderItems(current));
    const result = await transactWrite(items);
    if (result.committed) {
      deposit = record;
      countJobWork(outcome === 'counted' ? 'DepositsCounted' : 'DepositsKeptForRefund');
      if (outcome === 'counted') current = { ...current, receivedAmount: totalAfter! };
      else
        logger.warn('deposit kept for a refund', {
          orderId: order.id,
          outcome,
          transactionHash: candidate.transactionHash,
          amount: record.amount,
        });
    } else if (result.failedConditions.includes(0)) {
      // Recorded before: the same block delivered again, or the transaction re-mined after a reorg.
      deposit = await moveToBlock(key, event);
      current = await findStoredOrder(order.id);
    } else {
      current = await findStoredOrder(order.id); // the order changed since it was read: read it again
    }
  }
  if (
    !current ||
    !deposit ||
    deposit.outcome !== 'counted' ||
    BigInt(deposit.totalAfter!) < BigInt(current.srcAmount) ||
    !isWaiting(current.status)
  ) {
    return current;
  }
  const transition = await markDepositReceived(order.id, {
    transactionHash: deposit.transactionHash,
    amount: deposit.totalAfter!,
    receivedAt: Math.max(deposit.blockTimestamp * 1000, current.createdAt),
  });
  if (transition.applied) {
    countJobWork('OrdersPaid');
    logger.info('deposit received: order quoting', {
      orderId: order.id,
      receivedAmount: deposit.totalAfter,
      srcAmount: current.srcAmount,
      block: deposit.blockNumber,
    });
  }
  return (transition.order as OrderWithDeposits | undefined) ?? (await findStoredOrder(order.id));
}

/**
 * A deposit recorded before: when it was recorded from another block (a reorg moved its transaction),
 * it now belongs to this block (conditional on the block it had), keeping whatever it counted.
 */
async function moveToBlock(key: ItemKey, event: BlockIngestedEvent): Promise<OrderDepositRecord | undefined> {
  const stored = await getDeposit(key);
  if (!stored || stored.blockHash === event.block.hash) return stored;
  const result = await transactWrite([
    {
      Update: {
        Key: key,
        UpdateExpression:
          'SET blockNumber = :number, blockHash = :hash, blockTimestamp = :time, gsi1pk = :gsi1pk, gsi1sk = :gsi1sk, orphaned = :false',
        ConditionExpression: 'blockHash = :previous',
        ExpressionAttributeValues: {
          ':number': event.block.number,
          ':hash': event.block.hash,
          ':time': event.block.timestamp,
          ...prefixed(orderKeys.depositInBlock(event.chainId, event.block.number, stored.orderId, key.sk)),
          ':false': false,
          ':previous': stored.blockHash,
        },
      },
    },
  ]);
  if (result.committed)
    logger.warn('deposit moved to the block that now holds its transaction', {
      orderId: stored.orderId,
      deposit: key.sk,
      block: event.block.number,
    });
  return getDeposit(key);
}

const prefixed = (keys: { gsi1pk: string; gsi1sk: string }) => ({ ':gsi1pk': keys.gsi1pk, ':gsi1sk': keys.gsi1sk });

async function getDeposit(key: ItemKey): Promise<OrderDepositRecord | undefined> {
  return getItem<OrderDepositRecord>(key, { consistent: true });
}

// ---------------------------------------------------------------------------------------------------
// Reorgs

/**
 * Undoes the deposits recorded from blocks a reorg orphans (GSI1 `orderKeys.depositsInBlockRange`,
 * one Query per block, kept only when the stored block hash is the orphaned one):
 *  - counted toward an order that still waits: the item is deleted and its amount taken off the
 *    order's receivedAmount, in one transaction (conditional on both), so the order waits again for
 *    the rest; if the transaction is re-mined, its canonical block records it again;
 *  - counted toward an order that has already moved on (quoting_after_deposit or later): the order
 *    is not moved back (no transition allows it). The deposit item is kept with `orphaned: true` and
 *    the order gets `depositOrphaned: true` (stored only), and an error is logged: the quoting /
 *    relay step must not spend funds of such an order before an operator checks the deposit;
 *  - not counted (kept for a refund): deleted; a re-mined transaction is recorded again.
 * Idempotent: a second call finds the items gone or already marked.
 */
async function undoOrphanedDeposits(event: BlocksOrphanedEvent): Promise<void> {
  countJobWork('BlocksOrphaned', event.blocks.length);
  for (const block of event.blocks) {
    const { items: deposits } = await queryAll<OrderDepositRecord & ItemKey>(
      rangeQuery(orderKeys.depositsInBlockRange(event.chainId, block.number)),
    );
    for (const deposit of deposits.filter((item) => item.blockHash === block.hash && !item.orphaned)) await undoDeposit(deposit);
  }
}

async function undoDeposit(deposit: OrderDepositRecord & ItemKey): Promise<void> {
  const key = { pk: deposit.pk, sk: deposit.sk };
  const sameBlock = { ConditionExpression: 'blockHash = :hash', ExpressionAttributeValues: { ':hash': deposit.blockHash } };
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const order = (await findStoredOrder(deposit.orderId)) as OrderWithDeposits | undefined;
    if (deposit.outcome !== 'counted' || !order) {
      await deleteItem({ Key: key, ...sameBlock }); // refused: already undone, or moved by a re-delivered block
      return;
    }
    const orderKey = orderKeys.order(order.id);
    let items: TransactItem[];
    if (isWaiting(order.status)) {
      const total = BigInt(order.receivedAmount ?? '0') - BigInt(deposit.amount);
      items = [
        { Delete: { Key: key, ...sameBlock } },
        {
          Update: {
            Key: orderKey,
            UpdateExpression: 'SET receivedAmount = :total',
            ConditionExpression: '#status = :status AND receivedAmount = :before',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':total': (total > 0n ? total : 0n).toString(),
              ':status': order.status,
              ':before': order.receivedAmount ?? '0',
            },
          },
        },
      ];
    } else {
      items = [
        {
          Update: {
            Key: key,
            UpdateExpression: 'SET orphaned = :true',
            ConditionExpression: 'blockHash = :hash',
            ExpressionAttributeValues: { ':true': true, ':hash': deposit.blockHash },
          },
        },
        { Update: { Key: orderKey, UpdateExpression: 'SET depositOrphaned = :true', ExpressionAttributeValues: { ':true': true } } },
      ];
    }
    const result = await transactWrite(items);
    if (result.committed) {
      countJobWork('DepositsOrphaned');
      if (isWaiting(order.status))
        logger.warn('reorg: deposit undone, the order waits for it again', {
          orderId: order.id,
          deposit: deposit.sk,
          block: deposit.blockNumber,
        });
      else
        logger.error('reorg: a deposit that moved an order on was orphaned; the order is flagged depositOrphaned', {
          orderId: order.id,
          status: order.status,
          deposit: deposit.sk,
        });
      return;
    }
    if (result.failedConditions.includes(0)) return; // already undone or moved by a re-delivered block
  }
  throw new Error(`order ${deposit.orderId}: orphaned deposit ${deposit.sk} could not be undone (the order kept changing)`);
}

/** Deposit detection as a listener of the ingest, for the composition roots to hand it. */
export const orderDepositListener: IngestListener = {
  blocksIngested: detectOrderDepositsInBlocks,
  blocksOrphaned: undoOrphanedDeposits,
};
