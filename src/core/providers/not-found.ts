import { ProviderError } from './types';

// The vendors' documented answers to a request naming a model they do not (or no longer) serve: OpenAI and xAI
// `404 model_not_found` ("The model `x` does not exist…"), Anthropic 404 `not_found_error`, Gemini 404 NOT_FOUND
// ("models/x is not found…"), Replicate 404 for an unknown model, DeepSeek 400 "Model Not Exist".
const SAYS_NO_SUCH_MODEL =
  /model_not_found|model not exist|model[^.\n]{0,80}?(does not exist|not found|is not supported)|is not found for api version/i;

/** Whether a vendor's failure says the model itself does not exist (not a missing file or job). */
export function saysModelNotFound(err: unknown): boolean {
  if (!(err instanceof ProviderError) || err.kind !== 'bad_request') return false;
  return SAYS_NO_SUCH_MODEL.test(err.message) || (err.upstreamStatus === 404 && /\bmodel\b/i.test(err.message));
}
