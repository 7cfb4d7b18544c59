/** Command-line options of the bench scripts. */

/** A parser of numeric options: the value as a number, or an error naming the option, its minimum and the usage. */
export function numberOption(usage: string): (name: string, value: string | undefined, min: number) => number {
  return (name, value, min) => {
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < min) throw new Error(`--${name} must be a number of at least ${min}\n${usage}`);
    return parsed;
  };
}
