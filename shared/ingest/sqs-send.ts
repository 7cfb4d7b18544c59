/**
 * The SQS transport of the queue listener (shared/ingest/queue-listener.ts): one SendMessage per
 * message, through one client per process. AWS_ENDPOINT_URL_SQS points it elsewhere (tests).
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SendQueueMessage } from './queue-listener';

export function sqsSend(client: SQSClient = new SQSClient({})): SendQueueMessage {
  return (message) => client.send(new SendMessageCommand(message));
}
