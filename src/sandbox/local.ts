import { SandboxHandler, sendJson } from './types';

/** The local provider never calls HTTP; this mount exists only for symmetry with the other vendors. */
export const localSandbox: SandboxHandler = (_req, res) => {
  sendJson(res, 404, { error: { message: 'the local provider runs in-process and has no HTTP API' } });
};
