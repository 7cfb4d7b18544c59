/**
 * valibot's object schemas skip own keys named `__proto__`, `constructor` and `prototype` (they are
 * neither validated nor copied to the output), so an object schema that rejects unknown keys through
 * its rest schema (`objectWithRest(..., v.never())`) would let them pass silently. Put this check in
 * front of such a schema: a client who sends one of these names gets it named as an unknown field.
 * (`strictObject` already reports them.)
 */
import * as v from 'valibot';

export const INHERITED_NAMES = ['__proto__', 'constructor', 'prototype'] as const;

export function refuseInheritedNames(message: string) {
  return v.rawCheck<unknown>(({ dataset, addIssue }) => {
    const input = dataset.value;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return;
    for (const key of INHERITED_NAMES) {
      if (!Object.hasOwn(input, key)) continue;
      const value = (input as Record<string, unknown>)[key];
      addIssue({ message, path: [{ type: 'object', origin: 'key', input: input as Record<string, unknown>, key, value }] });
    }
  });
}
