// The little of node's own modules the unit tests under tests/js/ use
// (node 20's test runner and strict assertions), so `tsc` checks the tests
// too without @types/node.

declare module "node:test" {
  type TestContext = { name: string };
  export function test(name: string, fn: (context: TestContext) => void | Promise<void>): Promise<void>;
  export function describe(name: string, fn: () => void | Promise<void>): Promise<void>;
  export function beforeEach(fn: () => void | Promise<void>): void;
  export function afterEach(fn: () => void | Promise<void>): void;
  export default test;
}

declare module "node:assert/strict" {
  interface Assert {
    (value: unknown, message?: string): asserts value;
    ok(value: unknown, message?: string): asserts value;
    equal<T>(actual: unknown, expected: T, message?: string): asserts actual is T;
    notEqual(actual: unknown, expected: unknown, message?: string): void;
    deepEqual<T>(actual: unknown, expected: T, message?: string): asserts actual is T;
    notDeepEqual(actual: unknown, expected: unknown, message?: string): void;
    match(value: string, pattern: RegExp, message?: string): void;
    throws(fn: () => unknown, expected?: RegExp | Function | object, message?: string): void;
    rejects(promise: Promise<unknown> | (() => Promise<unknown>), expected?: RegExp | Function | object, message?: string): Promise<void>;
  }
  const assert: Assert;
  export default assert;
}

/** Node's: runs `callback` after the I/O and promise jobs queued now. */
declare function setImmediate(callback: () => void): unknown;
