import type { ProviderName } from '../../src/core/providers/types';
import { SandboxServer, startSandbox } from '../../src/sandbox/server';
import type { SandboxHandler } from '../../src/sandbox/types';

/**
 * One vendor fake on loopback for a contract test file: the official SDK of that vendor is its only client.
 * `mount()` is `http://127.0.0.1:<port>/<vendor>`; the SDK's base URL adds the vendor's own path prefix.
 */
export function useFake(provider: ProviderName, handler: SandboxHandler): { mount: () => string } {
  let server: SandboxServer | undefined;
  beforeAll(async () => {
    server = await startSandbox({ [provider]: handler });
  });
  afterAll(() => server?.close());
  return {
    mount: () => {
      if (!server) throw new Error('the fake starts in beforeAll');
      return server.mountUrl(provider);
    },
  };
}
