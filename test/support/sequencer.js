// Jest's own test order. It also notes which test files are in this run, because Jest does not tell the global
// setup, and the global setup checks what those files need (Chromium for the browser tests) before anything runs.
const Sequencer = require('@jest/test-sequencer').default;

class RunAwareSequencer extends Sequencer {
  sort(tests) {
    globalThis.__testPathsInRun = tests.map((test) => test.path);
    return super.sort(tests);
  }
}

module.exports = RunAwareSequencer;
