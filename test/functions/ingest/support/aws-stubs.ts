/**
 * Tiny local stand-ins for the two AWS services the ingest Lambda calls besides DynamoDB, reached by
 * the real AWS SDK clients through AWS_ENDPOINT_URL_SSM / AWS_ENDPOINT_URL_SQS:
 * - SSM: serves every GetParameter as a SecureString holding `value(name)`, and records what was asked;
 * - SQS: the JSON protocol's SendMessage, answering the body's MD5 as SQS does, recording each message
 *   with the time it arrived; `reject` makes it refuse every send until `accept`.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { QueueMessage } from '../../../../shared/ingest/queue-listener';

export interface SsmStub {
  endpoint: string;
  requests: { target: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

export interface SqsStub {
  endpoint: string;
  queueUrl: string;
  messages: (QueueMessage & { target: string; at: number })[];
  reject(message: string): void;
  accept(): void;
  close(): Promise<void>;
}

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString()));
  });
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const close = (server: http.Server) => () =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

export async function startSsmStub(value: (name: string) => string): Promise<SsmStub> {
  const requests: SsmStub['requests'] = [];
  const server = http.createServer(async (request, response) => {
    const body = JSON.parse((await readBody(request)) || '{}') as Record<string, unknown>;
    requests.push({ target: String(request.headers['x-amz-target'] ?? ''), body });
    response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
    response.end(JSON.stringify({ Parameter: { Name: body.Name, Type: 'SecureString', Value: value(String(body.Name)), Version: 1 } }));
  });
  return { endpoint: await listen(server), requests, close: close(server) };
}

export async function startSqsStub(): Promise<SqsStub> {
  const messages: SqsStub['messages'] = [];
  let rejecting: string | undefined;
  const server = http.createServer(async (request, response) => {
    const body = JSON.parse(await readBody(request)) as QueueMessage;
    if (rejecting !== undefined) {
      response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify({ __type: 'com.amazonaws.sqs#InvalidParameterValue', message: rejecting }));
      return;
    }
    messages.push({ target: String(request.headers['x-amz-target'] ?? ''), at: Date.now(), ...body });
    response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
    response.end(
      JSON.stringify({
        MessageId: `message-${messages.length}`,
        MD5OfMessageBody: createHash('md5').update(body.MessageBody).digest('hex'),
        SequenceNumber: String(messages.length).padStart(20, '0'),
      }),
    );
  });
  const endpoint = await listen(server);
  return {
    endpoint,
    queueUrl: `${endpoint}/000000000000/DepositEvents.fifo`,
    messages,
    reject: (message) => {
      rejecting = message;
    },
    accept: () => {
      rejecting = undefined;
    },
    close: close(server),
  };
}

/** The environment that points the AWS SDK's SSM and SQS clients (and the deposit queue URL) at the stubs. */
export function stubEnvironment(ssm: SsmStub, sqs: SqsStub): Record<string, string> {
  return { AWS_ENDPOINT_URL_SQS: sqs.endpoint, DEPOSIT_EVENTS_QUEUE_URL: sqs.queueUrl, AWS_ENDPOINT_URL_SSM: ssm.endpoint };
}
