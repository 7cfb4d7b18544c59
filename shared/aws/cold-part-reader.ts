/**
 * The API routes' side of the cold history store (docs/decisions/cold-history.md): one ranged GET of
 * an S3 object, built from the parts every route bundle already carries with the DynamoDB client (the
 * AWS SDK's SigV4 signer, its Node HTTP handler, its standard retry strategy and the default credential
 * provider, which the bundles alias to the environment link). `@aws-sdk/client-s3` (its XML protocol,
 * checksum and S3 Express middleware: 170 KB a bundle, 50 ms of every cold start) stays in the
 * compaction job, the only writer (shared/aws/cold-store.ts).
 *
 * Addressing: virtual-hosted in AWS (`<bucket>.s3.<region>.amazonaws.com`, `.com.cn` in the China
 * regions); path-style under `endpoint` (an S3-compatible server for local runs and the tests).
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { escapeUriPath, HttpRequest } from '@smithy/core/protocols';
import { isThrottlingError, isTransientError, StandardRetryStrategy } from '@smithy/core/retry';
import { NodeHttpHandler, streamCollector } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentityProvider, RetryErrorType, SdkError } from '@smithy/types';

/** What reads cold parts: `length` bytes of the object `key` from `offset`. */
export interface ColdPartReader {
  read(key: string, offset: number, length: number): Promise<Uint8Array>;
}

export interface ColdPartReaderOptions {
  bucket: string;
  region?: string;
  /** An S3-compatible endpoint (`http://127.0.0.1:4569`): path-style addressing under it. */
  endpoint?: string;
  /** The signing identity; the SDK's default provider (in a Lambda bundle: the environment) otherwise. */
  credentials?: AwsCredentialIdentityProvider;
  /** Attempts of one GET, first included (throttling, 5xx and dropped connections are retried). */
  maxAttempts?: number;
  /** Milliseconds to connect, and to receive the answer. */
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
}

/** An S3 answer that is not the part (its status, S3's error code when the body names one), or no answer. */
export class ColdPartReadError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly code: string | undefined,
    /** The transport's error, when there was no answer (a reset, a refused connection, a timeout). */
    override readonly cause?: Error,
  ) {
    super(message);
    this.name = 'ColdPartReadError';
  }
}

/** Longest part of an error body kept for its code (S3's error documents are a few hundred bytes). */
const ERROR_BODY_BYTES = 4096;

export interface ObjectAddress {
  protocol: string;
  hostname: string;
  port?: number;
  pathPrefix: string;
}

export function objectAddress(bucket: string, region: string, endpoint: string | undefined): ObjectAddress {
  if (endpoint) {
    const url = new URL(endpoint);
    const prefix = url.pathname.replace(/\/+$/, '');
    return {
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      pathPrefix: `${prefix}/${encodeURIComponent(bucket)}`,
    };
  }
  const suffix = region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
  return { protocol: 'https:', hostname: `${bucket}.s3.${region}.${suffix}`, pathPrefix: '' };
}

/**
 * Whether a failed GET is worth another attempt, in the SDK's own classification: throttling (429,
 * SlowDown...) and transient failures (500, 502, 503, 504, resets, timeouts) are; the rest are not.
 */
function retryErrorType(failure: ColdPartReadError): RetryErrorType | undefined {
  const classified = {
    name: failure.code ?? failure.cause?.name ?? failure.name,
    code: (failure.cause as { code?: string } | undefined)?.code,
    message: failure.message,
    $metadata: { httpStatusCode: failure.status },
  } as unknown as SdkError;
  if (isThrottlingError(classified)) return 'THROTTLING';
  if (isTransientError(classified)) return 'TRANSIENT';
  return undefined;
}

export function coldPartReader(options: ColdPartReaderOptions): ColdPartReader {
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const target = objectAddress(options.bucket, region, options.endpoint);
  const signer = new SignatureV4({
    credentials: options.credentials ?? defaultProvider(),
    region,
    service: 's3',
    sha256: Sha256,
    // S3 signs the path as sent: its segments are encoded once, not twice as other services expect.
    uriEscapePath: false,
    // x-amz-content-sha256, which S3 requires on every signed request.
    applyChecksum: true,
  });
  const handler = new NodeHttpHandler({
    connectionTimeout: options.connectionTimeoutMs ?? 3_000,
    requestTimeout: options.requestTimeoutMs ?? 10_000,
    throwOnRequestTimeout: true,
  });
  const retries = new StandardRetryStrategy(options.maxAttempts ?? 3);

  async function attempt(key: string, offset: number, length: number): Promise<Uint8Array> {
    const request = new HttpRequest({
      method: 'GET',
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      // The key's segments each percent-encoded as S3 reads them, the slashes kept.
      path: `${target.pathPrefix}/${escapeUriPath(key)}`,
      headers: {
        host: target.port ? `${target.hostname}:${target.port}` : target.hostname,
        range: `bytes=${offset}-${offset + length - 1}`,
      },
    });
    const signed = await signer.sign(request);
    let status: number | undefined;
    let body: Uint8Array;
    try {
      const { response } = await handler.handle(signed as HttpRequest);
      status = response.statusCode;
      body = await streamCollector(response.body);
    } catch (error) {
      throw new ColdPartReadError(`cold store: GET ${key}: ${(error as Error).message}`, status, undefined, error as Error);
    }
    if (status === 206 || (status === 200 && offset === 0 && body.length === length)) {
      if (body.length !== length) {
        throw new ColdPartReadError(`cold store: ${key} gave ${body.length} bytes at ${offset}, ${length} asked`, status, undefined);
      }
      return body;
    }
    const text = new TextDecoder().decode(body.subarray(0, ERROR_BODY_BYTES));
    const code = /<Code>([^<]{1,100})<\/Code>/.exec(text)?.[1];
    throw new ColdPartReadError(`cold store: GET ${key} bytes ${offset}+${length}: HTTP ${status}${code ? ` ${code}` : ''}`, status, code);
  }

  return {
    async read(key, offset, length) {
      if (!(Number.isInteger(offset) && offset >= 0 && Number.isInteger(length) && length > 0)) {
        throw new Error(`cold store: bad byte range ${offset}+${length} of ${key}`);
      }
      let token = await retries.acquireInitialRetryToken(options.bucket);
      for (;;) {
        try {
          const bytes = await attempt(key, offset, length);
          retries.recordSuccess(token);
          return bytes;
        } catch (error) {
          const failure = error as ColdPartReadError;
          if (!(failure instanceof ColdPartReadError)) throw failure;
          const errorType = retryErrorType(failure);
          if (errorType === undefined) throw failure;
          try {
            token = await retries.refreshRetryTokenForRetry(token, { errorType });
          } catch {
            throw failure;
          }
          await new Promise((wake) => setTimeout(wake, token.getRetryDelay()));
        }
      }
    },
  };
}
