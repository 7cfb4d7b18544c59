/**
 * Request and response schemas of the collections group (valibot), side by side. Requests are strict:
 * an unknown query parameter or body field is a 400 naming it (see docs/decisions/collections.md).
 */
import * as v from 'valibot';

// ---------------------------------------------------------------------------------------------------
// Field rules shared by requests and responses

const ADDRESS = /^0x[a-fA-F0-9]{40}$/;
const DECIMAL_UINT = /^(0|[1-9][0-9]*)$/;
const MAX_UINT96 = 2n ** 96n - 1n;
const MAX_UINT256 = 2n ** 256n - 1n;

export const addressString = v.pipe(v.string(), v.regex(ADDRESS, 'must be 0x followed by 40 hex digits'));
export const bytes32String = v.pipe(v.string(), v.regex(/^0x[a-fA-F0-9]{64}$/, 'must be 0x followed by 64 hex digits (bytes32)'));
/** A 65-byte ECDSA signature (r, s, v) in hex, as wallets return it. */
export const signatureString = v.pipe(
  v.string(),
  v.regex(/^0x[a-fA-F0-9]{130}$/, 'must be a 65-byte signature: 0x followed by 130 hex digits'),
);
/** Symbols, game ids: no whitespace or control characters (they are key segments and exact-match filters). */
export const symbolString = v.pipe(v.string(), v.regex(/^[^\s\p{Cc}]{1,32}$/u, 'must be 1 to 32 characters without spaces'));
export const gameIdString = v.pipe(v.string(), v.regex(/^[^\s\p{Cc}]{1,128}$/u, 'must be 1 to 128 characters without spaces'));
export const referrerString = v.pipe(v.string(), v.regex(/^[a-z0-9]{1,64}$/, 'must be 1 to 64 lowercase letters or digits (^[a-z0-9]+$)'));
/** A URL a wallet or marketplace can fetch: http(s), ipfs or arweave. */
export const uriString = v.pipe(
  v.string(),
  v.maxLength(2048, 'must be at most 2048 characters'),
  v.url('must be a URL'),
  v.regex(/^(https?|ipfs|ar):\/\//i, 'must be an http://, https://, ipfs:// or ar:// URL'),
);

const isUintWithin = (text: string, max: bigint): boolean => DECIMAL_UINT.test(text) && text.length <= 78 && BigInt(text) <= max;
/** The value of a decimal or hex integer string, or undefined when it is not one (its own rule reports that). */
const integerOf = (text: string): bigint | undefined =>
  DECIMAL_UINT.test(text) || /^0x[0-9a-fA-F]+$/.test(text) ? BigInt(text) : undefined;

/** A non-negative integer as a decimal string (no sign, no leading zeros) that fits in `bits` bits. */
function uintString(bits: 96 | 256, options: { positive?: boolean } = {}) {
  const max = bits === 96 ? MAX_UINT96 : MAX_UINT256;
  return v.pipe(
    v.string(),
    v.check((text) => isUintWithin(text, max), `must be a decimal integer string from ${options.positive ? 1 : 0} to 2^${bits} - 1`),
    v.check((text) => !options.positive || !isUintWithin(text, max) || BigInt(text) > 0n, 'must be greater than 0'),
  );
}

/** A positive chain id given as a query string. */
const chainIdQuery = v.pipe(
  v.string(),
  v.regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer'),
  v.transform(Number),
  v.safeInteger('must be a positive integer'),
);

function positiveIntegerQuery(max?: number) {
  const rule = `must be ${max ? `an integer from 1 to ${max}` : 'an integer of at least 1'}`;
  return v.pipe(
    v.string(),
    v.regex(/^[0-9]{1,16}$/, rule),
    v.transform(Number),
    v.safeInteger(rule),
    v.minValue(1, rule),
    v.maxValue(max ?? Number.MAX_SAFE_INTEGER, rule),
  );
}

// ---------------------------------------------------------------------------------------------------
// Resources

/** The token standards a collection may have; ERC721 when a creation does not say. */
export const TOKEN_STANDARDS = ['ERC721', 'ERC1155'] as const;
export type TokenStandard = (typeof TOKEN_STANDARDS)[number];

export const collectionAttributeSchema = v.strictObject({
  trait_type: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(100, 'must be at most 100 characters')),
  value: v.pipe(v.string(), v.maxLength(500, 'must be at most 500 characters')),
});

/** The Collection resource as every endpoint returns it. Optional strings are absent when not given. */
export const collectionSchema = v.strictObject({
  uuid: v.pipe(v.string(), v.uuid()),
  predictedAddress: addressString,
  creator: addressString,
  gameOwner: addressString,
  gameId: v.optional(v.string()),
  chainId: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  creatorSignature: signatureString,
  name: v.string(),
  symbol: v.string(),
  baseURI: v.string(),
  maxSupply: v.string(),
  mintPrice: v.string(),
  startTime: v.string(),
  endTime: v.string(),
  tokenStandard: v.picklist(TOKEN_STANDARDS),
  maxPerWallet: v.string(),
  isWhitelistEnabled: v.boolean(),
  image: v.optional(v.string()),
  description: v.optional(v.string()),
  external_url: v.optional(v.string()),
  animation_url: v.optional(v.string()),
  attributes: v.array(collectionAttributeSchema),
  createdAt: v.pipe(v.string(), v.isoTimestamp()),
  whitelistMerkleRoot: bytes32String,
  referrer: v.optional(v.string()),
});
export type Collection = v.InferOutput<typeof collectionSchema>;

// ---------------------------------------------------------------------------------------------------
// GET /collections

export const listCollectionsQuery = v.strictObject({
  creator: v.optional(addressString),
  gameOwner: v.optional(addressString),
  symbol: v.optional(symbolString),
  referrer: v.optional(referrerString),
  chainId: v.optional(chainIdQuery),
  gameId: v.optional(gameIdString),
  page: v.optional(positiveIntegerQuery(), '1'),
  limit: v.optional(positiveIntegerQuery(100), '10'),
});
export type ListCollectionsQuery = v.InferOutput<typeof listCollectionsQuery>;

export const listCollectionsResponse = v.strictObject({
  success: v.literal(true),
  /** Every collection matching the filters, not only this page. */
  total: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
  page: v.number(),
  limit: v.number(),
  /** Newest first. */
  collections: v.array(collectionSchema),
});
export type ListCollectionsResponse = v.InferOutput<typeof listCollectionsResponse>;

// ---------------------------------------------------------------------------------------------------
// POST /collections

/** The query of POST /collections and GET /collections/{predictedAddress}: none. An unknown parameter is refused as on the list. */
export const noCollectionQuery = v.strictObject({});
export const createCollectionQuery = noCollectionQuery;

/** The metadata a creator signs (EIP-712 `CollectionMetadata`, see signing.ts), as JSON. */
const signedMetadataEntries = {
  name: v.pipe(v.string(), v.regex(/\S/, 'must not be blank'), v.maxLength(100, 'must be at most 100 characters')),
  symbol: symbolString,
  baseURI: uriString,
  creator: addressString,
  gameOwner: addressString,
  maxSupply: uintString(96, { positive: true }),
  mintPrice: uintString(256),
  maxPerWallet: uintString(256, { positive: true }),
  isWhitelistEnabled: v.boolean(),
  whitelistMerkleRoot: bytes32String,
  startTime: uintString(256),
  endTime: uintString(256),
};

export const createCollectionBody = v.pipe(
  v.custom<Record<string, unknown>>(
    (input) => typeof input === 'object' && input !== null && !Array.isArray(input),
    'must be a JSON object',
  ),
  v.strictObject({
    ...signedMetadataEntries,
    /** The chain of the EIP-712 domain (and of the factory that will deploy the collection). */
    chainId: v.pipe(v.number('must be a number'), v.safeInteger('must be a positive integer'), v.minValue(1, 'must be a positive integer')),
    creatorSignature: signatureString,
    gameId: v.optional(gameIdString),
    referrer: v.optional(referrerString),
    image: v.optional(uriString),
    description: v.optional(v.pipe(v.string(), v.maxLength(5000, 'must be at most 5000 characters'))),
    external_url: v.optional(uriString),
    animation_url: v.optional(uriString),
    attributes: v.optional(v.pipe(v.array(collectionAttributeSchema), v.maxLength(100, 'must have at most 100 entries'))),
    /** ERC721 when absent; not signed, but part of the predicted address (each standard has its own init code). */
    tokenStandard: v.optional(v.picklist(TOKEN_STANDARDS, 'must be ERC721 or ERC1155')),
    /** Kept when it is a valid UUID, else (any other string) generated. */
    uuid: v.optional(v.string('must be a string')),
    /** Derived by the service: accepted (the SDK echoes a collection it read) and ignored, whatever the value. */
    predictedAddress: v.optional(v.unknown()),
    /** Set by the service: accepted and ignored, whatever the value. */
    createdAt: v.optional(v.unknown()),
  }),
  v.forward(
    v.partialCheck(
      [['startTime'], ['endTime']],
      (input) => {
        const [start, end] = [integerOf(input.startTime), integerOf(input.endTime)];
        return start === undefined || end === undefined || start < end;
      },
      'must be earlier than endTime',
    ),
    ['startTime'],
  ),
  v.forward(
    v.partialCheck(
      [['isWhitelistEnabled'], ['whitelistMerkleRoot']],
      (input) => !input.isWhitelistEnabled || integerOf(input.whitelistMerkleRoot) !== 0n,
      'must not be zero when isWhitelistEnabled is true',
    ),
    ['whitelistMerkleRoot'],
  ),
);
export type CreateCollectionBody = v.InferOutput<typeof createCollectionBody>;

/** The B3 envelope (`data`) and the BaseMint SDK's `collection`: the same object under both names. */
export const createCollectionResponse = v.strictObject({
  success: v.literal(true),
  message: v.string(),
  statusCode: v.literal(201),
  data: collectionSchema,
  collection: collectionSchema,
});
export type CreateCollectionResponse = v.InferOutput<typeof createCollectionResponse>;

// ---------------------------------------------------------------------------------------------------
// GET /collections/signing-domain

export const signingDomainQuery = v.strictObject({
  chainId: chainIdQuery,
});

export const signingDomainResponse = v.strictObject({
  domain: v.strictObject({
    name: v.string(),
    version: v.literal('1'),
    chainId: v.number(),
    verifyingContract: addressString,
  }),
  types: v.strictObject({
    CollectionMetadata: v.array(v.strictObject({ name: v.string(), type: v.string() })),
  }),
  primaryType: v.literal('CollectionMetadata'),
});
export type SigningDomainResponse = v.InferOutput<typeof signingDomainResponse>;

// ---------------------------------------------------------------------------------------------------
// GET /collections/{predictedAddress}

export const collectionPath = v.strictObject({
  predictedAddress: addressString,
});

/** `collection` as the BaseMint SDK reads it, and the same object as `data`, as the creation answers it. */
export const getCollectionResponse = v.strictObject({
  success: v.literal(true),
  collection: collectionSchema,
  data: collectionSchema,
});
export type GetCollectionResponse = v.InferOutput<typeof getCollectionResponse>;
