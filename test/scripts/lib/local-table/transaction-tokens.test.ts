import { describe, expect, it } from 'vitest';
import { TransactionTokens } from '../../../../scripts/lib/local-table/server';

// A TransactWriteItems request as the SDK sends it; `applied` counts what reached the table.
const request = (token: string, value: string) => ({
  ClientRequestToken: token,
  TransactItems: [{ Put: { TableName: 't', Item: { pk: { S: 'A' }, sk: { S: 'A' }, value: { S: value } } } }],
});

function tokens() {
  let now = 1_000_000;
  let applied = 0;
  const store = new TransactionTokens(() => now);
  const apply = async () => {
    applied += 1;
    return { status: 200, body: '{}' };
  };
  return {
    store,
    send: (input: object) => store.once(input, apply),
    advance: (ms: number) => {
      now += ms;
    },
    applied: () => applied,
  };
}

describe('embedded DynamoDB transaction tokens', () => {
  it('applies a resent request once and answers it with success', async () => {
    const table = tokens();
    expect((await table.send(request('t1', 'x'))).status).toBe(200);
    expect((await table.send(request('t1', 'x'))).status).toBe(200);
    expect(table.applied()).toBe(1);
  });

  it('refuses another request under a token already used', async () => {
    const table = tokens();
    await table.send(request('t1', 'x'));
    const mismatch = await table.send(request('t1', 'y'));
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toContain('IdempotentParameterMismatchException');
    expect(table.applied()).toBe(1);
  });

  it('forgets a token after 10 minutes, and keeps only the live ones', async () => {
    const table = tokens();
    for (let index = 0; index < 1000; index += 1) await table.send(request(`old-${index}`, 'x'));
    table.advance(TransactionTokens.LIFETIME_MS - 1);
    await table.send(request('recent', 'x'));
    expect(table.store.size).toBe(1001);
    table.advance(2);
    // The 1,000 old ones are gone; the recent one still deduplicates.
    await table.send(request('recent', 'x'));
    expect(table.store.size).toBe(1);
    expect(table.applied()).toBe(1001);
    await table.send(request('old-0', 'y'));
    expect(table.applied()).toBe(1002);
  });
});
