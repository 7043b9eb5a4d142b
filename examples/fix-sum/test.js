// Run with `node test.js`: exits non-zero until sum([]) returns 0.
import assert from 'node:assert/strict';
import { sum } from './sum.js';

assert.equal(sum([1, 2, 3]), 6);
assert.equal(sum([5]), 5);
assert.equal(sum([-2, 2]), 0);
assert.equal(sum([]), 0, 'the sum of an empty list is 0');
console.log('all tests passed');
