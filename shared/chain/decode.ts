/**
 * Decoding with viem: token transfer events (ERC-20 / ERC-721 Transfer, ERC-1155 TransferSingle and
 * TransferBatch), revert data (Error(string), Panic(uint256)), and NFT metadata held in `data:` URIs.
 */
import { ContractFunctionRevertedError, decodeErrorResult, getAbiItem, parseAbiItem, type AbiEvent, type Address, type Hex } from 'viem';
import { decodeLogArgs } from './abi-decode';
import { erc1155Abi, erc20Abi, erc721Abi, TOPIC } from './abis';
import { normalizeAddress } from './address';

export type TokenStandard = 'ERC-20' | 'ERC-721' | 'ERC-1155';

/** One token movement; a TransferBatch log yields one per (id, value) pair, `batchIndex` its position. */
export interface DecodedTokenTransfer {
  standard: TokenStandard;
  token: Address;
  from: Address;
  to: Address;
  /** null for ERC-20. */
  tokenId: bigint | null;
  /** ERC-20 value, ERC-1155 value, 1 for ERC-721. */
  amount: bigint;
  /** Position inside a TransferBatch; 0 for every other event. */
  batchIndex: number;
  /** ERC-1155 operator; null otherwise. */
  operator: Address | null;
}

/** The transfer events' ABI items. */
const EVENT = {
  erc20Transfer: getAbiItem({ abi: erc20Abi, name: 'Transfer' }) as AbiEvent,
  erc721Transfer: getAbiItem({ abi: erc721Abi, name: 'Transfer' }) as AbiEvent,
  transferSingle: getAbiItem({ abi: erc1155Abi, name: 'TransferSingle' }) as AbiEvent,
  transferBatch: getAbiItem({ abi: erc1155Abi, name: 'TransferBatch' }) as AbiEvent,
  unindexedTransfer: parseAbiItem('event Transfer(address from, address to, uint256 tokenId)') as AbiEvent,
};

/** Decoded event arguments by name: addresses (lowercase hex), integers, integer lists. */
type Args<A extends string, I extends string, L extends string = never> = Record<A, string> & Record<I, bigint> & Record<L, bigint[]>;

export interface RawLog {
  address: string;
  topics: readonly Hex[];
  data: Hex;
}

/**
 * The token transfers a log carries, or none when it is not a transfer event (or is malformed: a
 * log that claims the Transfer topic but does not decode is not a token transfer). `Transfer` is
 * told apart by its topic count, as Blockscout's indexer does: 3 topics = ERC-20 (value in data; a
 * zero value is a transfer like any other; no data does not decode), 4 topics = ERC-721 (id
 * indexed), 1 topic = ERC-721 with nothing indexed (CryptoKitties: from, to and id in data). A
 * 3-topic Transfer of a contract that is an ERC-721 by ERC-165 carries the id in data: the ingest
 * makes it an ERC-721 transfer once the contract is probed (batch.ts, asErc721Transfer).
 */
export function decodeTokenTransfers(log: RawLog): DecodedTokenTransfer[] {
  const topic0 = log.topics[0]?.toLowerCase();
  const token = normalizeAddress(log.address);
  try {
    if (topic0 === TOPIC.transfer && log.topics.length === 1) {
      const { from, to, tokenId } = decodeLogArgs(EVENT.unindexedTransfer, log.topics, log.data) as Args<'from' | 'to', 'tokenId'>;
      return [transfer('ERC-721', token, from, to, tokenId, 1n)];
    }
    if (topic0 === TOPIC.transfer && log.topics.length === 3) {
      const { from, to, value } = decodeLogArgs(EVENT.erc20Transfer, log.topics, log.data) as Args<'from' | 'to', 'value'>;
      return [transfer('ERC-20', token, from, to, null, value)];
    }
    if (topic0 === TOPIC.transfer && log.topics.length === 4) {
      const { from, to, tokenId } = decodeLogArgs(EVENT.erc721Transfer, log.topics, log.data) as Args<'from' | 'to', 'tokenId'>;
      return [transfer('ERC-721', token, from, to, tokenId, 1n)];
    }
    if (topic0 === TOPIC.transferSingle && log.topics.length === 4) {
      const { operator, from, to, id, value } = decodeLogArgs(EVENT.transferSingle, log.topics, log.data) as Args<
        'operator' | 'from' | 'to',
        'id' | 'value'
      >;
      return [{ ...transfer('ERC-1155', token, from, to, id, value), operator: normalizeAddress(operator) }];
    }
    if (topic0 === TOPIC.transferBatch && log.topics.length === 4) {
      const { operator, from, to, ids, values } = decodeLogArgs(EVENT.transferBatch, log.topics, log.data) as Args<
        'operator' | 'from' | 'to',
        never,
        'ids' | 'values'
      >;
      if (ids.length !== values.length) return [];
      return ids.map((id, batchIndex) => ({
        // Same length, checked above.
        ...transfer('ERC-1155', token, from, to, id, values[batchIndex]!),
        batchIndex,
        operator: normalizeAddress(operator),
      }));
    }
  } catch {
    return [];
  }
  return [];
}

function transfer(
  standard: TokenStandard,
  token: Address,
  from: string,
  to: string,
  tokenId: bigint | null,
  amount: bigint,
): DecodedTokenTransfer {
  return { standard, token, from: normalizeAddress(from), to: normalizeAddress(to), tokenId, amount, batchIndex: 0, operator: null };
}

/**
 * A human-readable revert reason from revert data: the message of Error(string), `panic: <reason>
 * (0x<code>)` for Panic(uint256), otherwise the raw data (a custom error, as Blockscout shows it);
 * null when there is no data.
 */
export function decodeRevertReason(data: Hex | null | undefined): string | null {
  if (!data || data === '0x') return null;
  try {
    const decoded = decodeErrorResult({ abi: [], data });
    if (decoded.errorName === 'Error') return String(decoded.args?.[0] ?? '');
    if (decoded.errorName === 'Panic') {
      const code = Number(decoded.args?.[0] ?? 0);
      // viem's revert error carries the description of the panic code.
      const reason = new ContractFunctionRevertedError({ abi: [], data, functionName: 'call' }).reason ?? 'unknown panic code';
      return `panic: ${reason} (0x${code.toString(16).padStart(2, '0')})`;
    }
  } catch {
    // not Error / Panic: fall through to the raw data
  }
  return data.toLowerCase();
}

/** How the metadata of an NFT instance was obtained. */
export type MetadataStatus = 'resolved' | 'unresolved' | 'invalid' | 'none';

export interface ResolvedMetadata {
  status: MetadataStatus;
  /** The metadata document as JSON text (only when resolved). */
  metadataJson: string | null;
}

/** Metadata larger than this is not stored inline (DynamoDB items are limited to 400 KB). */
export const MAX_INLINE_METADATA_BYTES = 64 * 1024;

/**
 * Resolves token metadata that lives in the URI itself: `data:application/json;base64,...` and
 * `data:application/json[;utf8],...` (raw or percent-encoded JSON). Any other URI (ipfs://, https://,
 * ar:// ...) is `unresolved`: the ingest never fetches from the network. `none` means no URI.
 */
export function resolveTokenMetadata(uri: string | null | undefined): ResolvedMetadata {
  if (!uri) return { status: 'none', metadataJson: null };
  // Both groups take part in every match: undefined only when the URI does not match.
  const [, mediaType, payload] = /^data:([^,]*),(.*)$/s.exec(uri.trim()) ?? [];
  if (mediaType === undefined || payload === undefined) return { status: 'unresolved', metadataJson: null };
  const params = mediaType.split(';').map((part) => part.trim().toLowerCase());
  // split always yields at least one part: the media type proper.
  const essence = params[0]!;
  if (essence !== '' && !essence.includes('json')) return { status: 'unresolved', metadataJson: null };
  let text: string;
  try {
    text = params.includes('base64') ? Buffer.from(payload, 'base64').toString('utf8') : decodeDataText(payload);
  } catch {
    return { status: 'invalid', metadataJson: null };
  }
  try {
    const document = JSON.parse(text) as unknown;
    if (typeof document !== 'object' || document === null || Array.isArray(document)) return { status: 'invalid', metadataJson: null };
    const json = JSON.stringify(document);
    if (Buffer.byteLength(json) > MAX_INLINE_METADATA_BYTES) return { status: 'unresolved', metadataJson: null };
    return { status: 'resolved', metadataJson: json };
  } catch {
    return { status: 'invalid', metadataJson: null };
  }
}

/** The text of a non-base64 data URI: raw JSON as most contracts emit it, or percent-encoded. */
function decodeDataText(payload: string): string {
  try {
    JSON.parse(payload);
    return payload;
  } catch {
    return decodeURIComponent(payload);
  }
}

/** ERC-1155 `uri(id)` with the `{id}` placeholder replaced by the id as 64 lowercase hex digits. */
export function expandErc1155Uri(uri: string, tokenId: bigint): string {
  return uri.replaceAll('{id}', tokenId.toString(16).padStart(64, '0'));
}
