import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

// Checks real answers against the served OpenAPI document: the status must be one the document lists for the
// operation (errors too: Schemathesis reports an undocumented 404 or 415 as a failure), a JSON answer must match
// the schema documented for its operation and status, and a 2xx JSON answer without a documented schema is itself
// a failure.

type Json = Record<string, any>;

interface Route {
  method: string;
  pattern: RegExp;
  params: number;
  path: string;
  op: Json;
}

export class OpenApiConformance {
  private readonly routes: Route[] = [];
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });

  constructor(private readonly doc: Json) {
    addFormats(this.ajv);
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`);
        this.routes.push({ method: method.toUpperCase(), pattern, params: (path.match(/\{/g) ?? []).length, path, op: op as Json });
      }
    }
  }

  /** The documented operation of a request; literal paths win over templated ones (`/generate/stream` vs `/generate/{id}`). */
  operation(method: string, urlPath: string): Route | undefined {
    const path = urlPath.split('?')[0];
    return this.routes.filter((r) => r.method === method.toUpperCase() && r.pattern.test(path)).sort((a, b) => a.params - b.params)[0];
  }

  private validator(route: Route, status: string, schema: Json): ValidateFunction {
    const key = `${route.method} ${route.path} ${status}`;
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile({ ...schema, components: this.doc.components });
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** What is wrong with this answer, or undefined when it matches the document. */
  problem(method: string, urlPath: string, status: number, contentType: string | null, body: unknown): string | undefined {
    const route = this.operation(method, urlPath);
    if (!route) return undefined; // not part of the documented surface (health, files, metrics)
    const where = `${method.toUpperCase()} ${route.path} -> ${status}`;
    const documented = route.op.responses?.[String(status)] as Json | undefined;
    const json = (contentType ?? '').includes('application/json');
    if (!documented) return `${where}: the status is not documented`;
    const schema = documented.content?.['application/json']?.schema as Json | undefined;
    if (!json) return undefined;
    if (!schema) return status < 300 ? `${where}: a JSON answer without a documented schema` : undefined;
    const validate = this.validator(route, String(status), schema);
    if (validate(body)) return undefined;
    return `${where}: the answer does not match the documented schema: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}`;
  }
}
