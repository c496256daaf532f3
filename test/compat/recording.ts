import type { SandboxHandler } from '../../src/sandbox/types';

/** A vendor fake that keeps the JSON body of every request it gets, so a test can see what reached the vendor. */
export function recording(handler: SandboxHandler): { handler: SandboxHandler; bodies: Array<Record<string, unknown>> } {
  const bodies: Array<Record<string, unknown>> = [];
  return {
    bodies,
    handler: (req, res) => {
      try {
        bodies.push(JSON.parse(req.body.toString('utf8')) as Record<string, unknown>);
      } catch {
        bodies.push({});
      }
      return handler(req, res);
    },
  };
}
