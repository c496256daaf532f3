import type { SandboxHandler } from '../../src/sandbox/types';

/**
 * A vendor fake that keeps the JSON body of every request it gets and the raw bytes of every answer it gives, so a
 * test can see what reached the vendor and what came back.
 */
export function recording(handler: SandboxHandler): {
  handler: SandboxHandler;
  bodies: Array<Record<string, unknown>>;
  answers: string[];
} {
  const bodies: Array<Record<string, unknown>> = [];
  const answers: string[] = [];
  return {
    bodies,
    answers,
    handler: (req, res) => {
      try {
        bodies.push(JSON.parse(req.body.toString('utf8')) as Record<string, unknown>);
      } catch {
        bodies.push({});
      }
      const i = answers.push('') - 1;
      const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
      const end = res.end.bind(res) as (chunk?: unknown, ...rest: unknown[]) => typeof res;
      const keep = (chunk: unknown) => {
        if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) answers[i] += chunk.toString();
      };
      res.write = ((chunk: unknown, ...rest: unknown[]) => {
        keep(chunk);
        return write(chunk, ...rest);
      }) as typeof res.write;
      res.end = ((chunk?: unknown, ...rest: unknown[]) => {
        if (typeof chunk !== 'function') keep(chunk);
        return end(chunk, ...rest);
      }) as typeof res.end;
      return handler(req, res);
    },
  };
}
