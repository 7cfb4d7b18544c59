/**
 * How a batch's balance transitions are grouped into TransactWriteItems (state.ts setBalances).
 *
 * A transition writes its own balance item (and an ERC-1155 id's, its holding item) and, when it crosses
 * zero, moves two shared counters: its token's `holders` or `idHolders` (X7) and its holder's count of
 * the standard (X10); an ERC-1155 id's balance that changes also moves its id's held supply (G3
 * instance), shared by the id's holders. A transaction may hold one
 * operation per item and at most 100 operations, and two transactions on one item at once cancel
 * each other. So:
 *  - transitions that share a counter item (directly or through others) form one component; a
 *    component's transactions run one after another (a lane), each with one merged operation per
 *    counter item;
 *  - components share nothing, so their lanes run in parallel, and small ones are packed together
 *    into one transaction;
 *  - a transition that crosses no zero shares nothing and fills any transaction.
 * Every transaction has at most MAX_TRANSACT_ITEMS operations, counting each counter item once.
 */

/** DynamoDB's limit of operations in one TransactWriteItems. */
export const MAX_TRANSACT_ITEMS = 100;

export interface LaneEntry {
  /** The shared counter items this transition moves (their key ids); empty when it crosses no zero. */
  shared: readonly string[];
  /** The transition's own operations (its balance item, and an ERC-1155 id's holding): 1 unless said. */
  operations?: number;
}

/** The transitions (by index into the entries) of each transaction, transactions grouped in lanes run in order. */
export type Lanes = number[][][];

export function planBalanceLanes(entries: readonly LaneEntry[], limit = MAX_TRANSACT_ITEMS): Lanes {
  // Components of the transitions that share counter items (union-find over the items).
  const parent = entries.map((_, index) => index);
  const up = (index: number): number => parent[index] ?? index;
  const find = (index: number): number => {
    let root = index;
    while (up(root) !== root) root = up(root);
    for (let at = index; up(at) !== root; ) {
      const next = up(at);
      parent[at] = root;
      at = next;
    }
    return root;
  };
  const ownerOf = new Map<string, number>();
  for (const [index, entry] of entries.entries()) {
    for (const item of entry.shared) {
      const owner = ownerOf.get(item);
      if (owner === undefined) ownerOf.set(item, index);
      else parent[find(index)] = find(owner);
    }
  }
  const components = new Map<number, number[]>();
  const independent: number[] = [];
  for (const [index, entry] of entries.entries()) {
    if (entry.shared.length === 0) {
      independent.push(index);
      continue;
    }
    const root = find(index);
    const members = components.get(root);
    if (members) members.push(index);
    else components.set(root, [index]);
  }

  const lanes: Lanes = [];
  // Transactions that may take more transitions: those of single-transaction lanes.
  const open: Chunk[] = [];
  for (const members of components.values()) {
    const chunks = splitComponent(entries, members, limit);
    if (chunks.length > 1) {
      lanes.push(chunks.map((chunk) => chunk.indexes));
      continue;
    }
    const [chunk] = chunks;
    if (!chunk) continue;
    const host = open.find((candidate) => candidate.size + chunk.size <= limit);
    if (host) {
      host.indexes.push(...chunk.indexes);
      host.size += chunk.size;
    } else {
      open.push(chunk);
    }
  }
  for (const index of independent) {
    const own = entries[index]?.operations ?? 1;
    let host = open.find((candidate) => candidate.size + own <= limit);
    if (!host) {
      host = { indexes: [], size: 0, items: new Set() };
      open.push(host);
    }
    host.indexes.push(index);
    host.size += own;
  }
  for (const chunk of open) lanes.push([chunk.indexes]);
  return lanes;
}

interface Chunk {
  indexes: number[];
  /** Operations: each transition's own, one per counter item. */
  size: number;
  items: Set<string>;
}

/** A component's transitions in order, cut into transactions of at most `limit` operations. */
function splitComponent(entries: readonly LaneEntry[], members: readonly number[], limit: number): Chunk[] {
  const chunks: Chunk[] = [];
  let current: Chunk = { indexes: [], size: 0, items: new Set() };
  for (const index of members) {
    const shared = entries[index]?.shared ?? [];
    const own = entries[index]?.operations ?? 1;
    const added = own + shared.filter((item) => !current.items.has(item)).length;
    if (current.size > 0 && current.size + added > limit) {
      chunks.push(current);
      current = { indexes: [], size: 0, items: new Set() };
    }
    current.indexes.push(index);
    current.size += own + shared.filter((item) => !current.items.has(item)).length;
    for (const item of shared) current.items.add(item);
  }
  if (current.size > 0) chunks.push(current);
  return chunks;
}
