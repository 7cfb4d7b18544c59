/**
 * The deployed ingest follower's settings as the harness's cost model takes them (lambda-follow.ts
 * DEPLOYED, with a skipped invocation's measured seconds), for the cost tests.
 */
export const deployedFollower = (skippedInvocationSeconds: number) => ({
  memoryMb: 512,
  architecture: 'arm64' as const,
  scheduleSeconds: 60,
  timeoutSeconds: 900,
  safetyMarginSeconds: 60,
  handoverWaitSeconds: 60,
  skippedInvocationSeconds,
  leaseWritesPerSecond: 0.3,
});
