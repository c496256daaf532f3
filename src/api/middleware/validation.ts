import { z } from 'zod';
import { ApiError } from './errors';

export type InputLocation = 'body' | 'query' | 'path';

/** The first problem of a zod failure as a 400 `validation_error` that names the field. */
export function validationError(error: z.ZodError, location: InputLocation): ApiError {
  const issue = error.issues[0];
  if (!issue) return new ApiError(400, 'validation_error', `Invalid ${location}`, { field: location });
  if (issue.code === 'unrecognized_keys') {
    const field = [...issue.path, issue.keys[0]].join('.');
    return new ApiError(400, 'validation_error', `Unknown field: ${field}`, { field });
  }
  const field = issue.path.length > 0 ? issue.path.join('.') : location;
  const message = issue.path.length > 0 ? `${field}: ${issue.message}` : `${location}: ${issue.message}`;
  return new ApiError(400, 'validation_error', message, { field });
}

/** Parses with the schema, or throws the 400. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, location: InputLocation): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(result.error, location);
  return result.data;
}
