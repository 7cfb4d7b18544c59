/**
 * The collections domain: what each endpoint does, between the validated request and the table.
 */
import { randomUUID } from 'node:crypto';
import { isAddressEqual, type Hex } from 'viem';
import { InvalidRequestError, NotFoundError } from '../errors';
import type { CollectionsConfig } from './config';
import { chooseRange, entryMatches, filterTerms, planList } from './plan';
import type { Collection, CreateCollectionBody, ListCollectionsQuery } from './schemas';
import { collectionTypedData, predictedAddressOf, recoverCollectionSigner, toAddress, type SignedCollectionMetadata } from './signing';
import { countRangeEntries, getCollectionByAddress, putNewCollection, readNewest, readPositions, readRange } from './store';

// ---------------------------------------------------------------------------------------------------
// GET /collections

export interface CollectionsPage {
  total: number;
  collections: Collection[];
}

/**
 * One page of the collections matching every filter, newest first, with the number of matches
 * (C1 and C3, see docs/access-patterns.md).
 * A range of its own (no filter, one filter, one filter with chainId): its counter is `total` and
 * gives the page's positions; page 1 is read with the counter, any other page after it (two round
 * trips), reading only the page's collections. Other combinations: the candidates' counters (one
 * BatchGetItem) pick the smallest range, read whole (at most `combinationScanLimit` collections),
 * and the other filters are checked on its collections.
 */
export async function listCollections(query: ListCollectionsQuery, config: CollectionsConfig): Promise<CollectionsPage> {
  const terms = filterTerms(query);
  const offset = (query.page - 1) * query.limit;
  const plan = planList(terms);
  if ('exact' in plan) {
    if (offset === 0) {
      const [[count], collections] = await Promise.all([countRangeEntries([plan.exact]), readNewest(plan.exact, query.limit)]);
      return { total: count ?? 0, collections };
    }
    const [count = 0] = await countRangeEntries([plan.exact]);
    return { total: count, collections: await readPositions(plan.exact, count, offset, query.limit) };
  }
  const choice = chooseRange(terms, plan.candidates, await countRangeEntries(plan.candidates.map((candidate) => candidate.range)));
  if (choice.count === 0) return { total: 0, collections: [] };
  if (choice.count > config.combinationScanLimit) {
    const fields = terms.map((term) => term.field).join(', ');
    throw new InvalidRequestError(
      `This combination of filters (${fields}) would have to check ${choice.count} collections, more than ${config.combinationScanLimit}; ` +
        'narrow it with a more selective filter such as creator, gameOwner or gameId',
    );
  }
  const matching = (await readRange(choice.range)).filter((collection) => entryMatches(collection, choice.checks));
  return { total: matching.length, collections: matching.slice(offset, offset + query.limit) };
}

// ---------------------------------------------------------------------------------------------------
// POST /collections

/** A UUID in its textual form, any version, any case (as valibot's `uuid`). */
const UUID = /^[\da-f]{8}(?:-[\da-f]{4}){3}-[\da-f]{12}$/i;

/**
 * Verifies the creator's EIP-712 signature over the metadata for the body's chain, derives the
 * predicted address (CREATE2 from the chain's factory, salt = the typed-data hash, init code of the
 * token standard) and stores the collection with its list entries. The creator's `uuid` is kept when
 * it is a valid UUID, else a new one is generated; `predictedAddress` and `createdAt` in the body are
 * ignored. A signature by anyone but `creator` is a 400; an existing collection at the same predicted
 * address is a 409.
 */
export async function createCollection(body: CreateCollectionBody, config: CollectionsConfig): Promise<Collection> {
  const metadata: SignedCollectionMetadata = {
    name: body.name,
    symbol: body.symbol,
    baseURI: body.baseURI,
    creator: toAddress(body.creator),
    gameOwner: toAddress(body.gameOwner),
    maxSupply: body.maxSupply,
    mintPrice: body.mintPrice,
    maxPerWallet: body.maxPerWallet,
    isWhitelistEnabled: body.isWhitelistEnabled,
    whitelistMerkleRoot: body.whitelistMerkleRoot.toLowerCase(),
    startTime: body.startTime,
    endTime: body.endTime,
  };
  const signature = body.creatorSignature.toLowerCase() as Hex;
  const signer = await recoverCollectionSigner(metadata, body.chainId, signature, config);
  if (!signer) throw new InvalidRequestError('creatorSignature: is not a valid ECDSA signature');
  if (!isAddressEqual(signer, metadata.creator as Hex)) {
    throw new InvalidRequestError(
      `creatorSignature: was not made by creator ${metadata.creator} over this metadata on chain ${body.chainId} ` +
        '(sign the typed data from GET /collections/signing-domain)',
    );
  }
  const tokenStandard = body.tokenStandard ?? 'ERC721';
  const collection: Collection = {
    uuid: body.uuid !== undefined && UUID.test(body.uuid) ? body.uuid : randomUUID(),
    predictedAddress: predictedAddressOf(metadata, body.chainId, config, tokenStandard),
    creator: metadata.creator,
    gameOwner: metadata.gameOwner,
    ...(body.gameId === undefined ? {} : { gameId: body.gameId }),
    chainId: body.chainId,
    creatorSignature: signature,
    name: metadata.name,
    symbol: metadata.symbol,
    baseURI: metadata.baseURI,
    maxSupply: metadata.maxSupply,
    mintPrice: metadata.mintPrice,
    startTime: metadata.startTime,
    endTime: metadata.endTime,
    tokenStandard,
    maxPerWallet: metadata.maxPerWallet,
    isWhitelistEnabled: metadata.isWhitelistEnabled,
    ...(body.image === undefined ? {} : { image: body.image }),
    ...(body.description === undefined ? {} : { description: body.description }),
    ...(body.external_url === undefined ? {} : { external_url: body.external_url }),
    ...(body.animation_url === undefined ? {} : { animation_url: body.animation_url }),
    attributes: body.attributes ?? [],
    createdAt: new Date().toISOString(),
    whitelistMerkleRoot: metadata.whitelistMerkleRoot,
    ...(body.referrer === undefined ? {} : { referrer: body.referrer }),
  };
  return putNewCollection(collection);
}

// ---------------------------------------------------------------------------------------------------
// GET /collections/signing-domain

/** The domain, types and primary type a creator's wallet signs for a chain. */
export function signingDomainFor(chainId: number, config: CollectionsConfig) {
  return collectionTypedData(chainId, config);
}

// ---------------------------------------------------------------------------------------------------
// GET /collections/{predictedAddress}

export async function getCollection(predictedAddress: string): Promise<Collection> {
  const collection = await getCollectionByAddress(predictedAddress);
  if (!collection) throw new NotFoundError(`No collection with predictedAddress ${predictedAddress}`);
  return collection;
}
