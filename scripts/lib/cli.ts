/** What the operator CLIs (scripts/abi-registry.ts, scripts/partners.ts) share: usage errors and the run wrapper. */

/** Prints `<tool>: <message>` and the usage to stderr; returns the exit code 1. */
export function usageError(tool: string, usage: string, message: string): number {
  console.error(`${tool}: ${message}\n${usage}`);
  return 1;
}

/** Runs a CLI's main with the process arguments: its exit code, or 1 with the error printed. */
export function runCli(main: (argv: string[]) => Promise<number>): void {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
