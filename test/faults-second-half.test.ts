// The second half of the fault sweep of test/faults.test.ts (the proof that every check can fail).
import { describe } from 'vitest';
import { FAULTS } from '../mock/core/faults/index.js';
import { secondHalf, sweepFaults } from './support/fault-sweep.js';

describe('the fault catalogue, its second half', () => {
  sweepFaults(secondHalf(FAULTS.filter((f) => !f.hostile && !f.frontend && !f.load)));
});
