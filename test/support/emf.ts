/**
 * Tests of the EMF metrics (routes, jobs): the records the Powertools Metrics print to stdout, and a
 * switch that makes the shared DynamoDB client fail with throttling (as DynamoDB does when it is
 * overloaded). Set POWERTOOLS_METRICS_DISABLED=false before the service's modules load.
 */
import { ThrottlingException } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, vi } from 'vitest';
import { dynamoClient } from '../../shared/db/client';

export type Emf = Record<string, any> & {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
  };
};

/** Captures stdout in each test of the file: the EMF records printed since the test started (or `clear`). */
export function captureEmf(): { records: () => Emf[]; clear: () => void } {
  let printed: string[] = [];
  beforeEach(() => {
    printed = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
      printed.push(String(chunk));
      return true;
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  return {
    records: () =>
      printed
        .flatMap((chunk) => chunk.split('\n'))
        .filter((line) => line.includes('"_aws"'))
        .map((line) => JSON.parse(line) as Emf),
    clear: () => {
      printed = [];
    },
  };
}

/** While `on`, every call of the shared DynamoDB client fails with ThrottlingException; off after each test. */
export function throttleSwitch(): { on: boolean } {
  const state = { on: false };
  dynamoClient.middlewareStack.add(
    (next) => async (args) => {
      if (state.on) throw new ThrottlingException({ message: 'Rate exceeded', $metadata: {} });
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: 'throttleForTest' },
  );
  afterEach(() => {
    state.on = false;
  });
  return state;
}
