import { z } from 'zod';
import { ApiError } from './errors';

export type InputLocation = 'body' | 'query' | 'path';

type Issue = z.core.$ZodIssue;

/**
 * A union that failed names no field: the problem is in the branch that took the value's shape (the one that did not
 * fail on the value's own type), so that branch's issue is reported, with the union's path in front.
 */
function innermost(issue: Issue): Issue {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue;
  const shaped = issue.errors.filter((branch) => !branch.every((i) => i.code === 'invalid_type' && i.path.length === 0));
  if (shaped.length !== 1 || shaped[0].length === 0) return issue;
  const inner = innermost(shaped[0][0]);
  return { ...inner, path: [...issue.path, ...inner.path] } as Issue;
}

/** The first problem of a zod failure as a 400 `validation_error` that names the field. */
export function validationError(error: z.ZodError, location: InputLocation): ApiError {
  const first = error.issues[0];
  const issue = first ? innermost(first) : undefined;
  if (!issue) return new ApiError(400, 'validation_error', `Invalid ${location}`, { field: location });
  if (issue.code === 'unrecognized_keys') {
    const field = [...issue.path, issue.keys[0]].join('.');
    return new ApiError(400, 'validation_error', `Unknown field: ${field}`, { field });
  }
  // An unknown tag names the tag field itself (`messages.0.content.1.type`), wherever zod put the issue.
  const tag = issue.code === 'invalid_union' ? (issue as { discriminator?: unknown }).discriminator : undefined;
  const path = typeof tag === 'string' && issue.path[issue.path.length - 1] !== tag ? [...issue.path, tag] : issue.path;
  const field = path.length > 0 ? path.join('.') : location;
  const message = path.length > 0 ? `${field}: ${issue.message}` : `${location}: ${issue.message}`;
  return new ApiError(400, 'validation_error', message, { field });
}

/** Parses with the schema, or throws the 400. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, location: InputLocation): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(result.error, location);
  return result.data;
}
