/**
 * A Lambda function invoked and waited for, its answer read as JSON (the cold history job's group
 * workers: functions/ingest/compact-cold-history-group.ts). The AWS SDK's Lambda client, its default
 * credentials and retries; a local endpoint for tests. A function that failed (its error, or a response
 * that is not JSON) is an InvokedFunctionError naming the function and what it said.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { AwsCredentialIdentity } from '@smithy/types';

export class InvokedFunctionError extends Error {
  override name = 'InvokedFunctionError';
}

export interface FunctionInvoker {
  invoke<T>(functionName: string, payload: unknown): Promise<T>;
}

export interface FunctionInvokerOptions {
  region?: string;
  /** A Lambda-compatible endpoint (tests). */
  endpoint?: string;
  credentials?: AwsCredentialIdentity;
}

export function functionInvoker(options: FunctionInvokerOptions = {}): FunctionInvoker {
  const client = new LambdaClient({
    region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  });
  return {
    async invoke<T>(functionName: string, payload: unknown): Promise<T> {
      const response = await client.send(
        new InvokeCommand({
          FunctionName: functionName,
          InvocationType: 'RequestResponse',
          Payload: new TextEncoder().encode(JSON.stringify(payload)),
        }),
      );
      const text = response.Payload ? new TextDecoder().decode(response.Payload) : '';
      if (response.FunctionError) {
        let message = text;
        try {
          const error = JSON.parse(text) as { errorType?: string; errorMessage?: string };
          message = `${error.errorType ?? 'Error'}: ${error.errorMessage ?? text}`;
        } catch {
          // Not JSON: the text as it came.
        }
        throw new InvokedFunctionError(`${functionName} failed (${response.FunctionError}): ${message.slice(0, 1_000)}`);
      }
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new InvokedFunctionError(`${functionName} answered no JSON: ${text.slice(0, 300)}`);
      }
    },
  };
}
